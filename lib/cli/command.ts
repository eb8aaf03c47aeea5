import path from 'node:path';
import { parseArgs } from 'node:util';
import type { ParseArgsConfig } from 'node:util';
import { HARNESS_VERSION } from '../report/meta.ts';
import { nearest } from '../foundation/nearest.ts';

/**
 * The shape every command of `npx iswc-conformance <command>` shares: its options as data (so that the
 * parser, `--help` and docs/configuration.md come from one place), its exit codes, and a `run` that
 * returns an exit code instead of exiting, so that commands are tested in-process.
 */

/** Exit codes a CI can tell apart; every command's `--help` lists the ones it uses. */
export const EXIT = Object.freeze({
  /** Conformant, or the command did what was asked. */
  OK: 0,
  /** Not conformant (or, for a command that judges a file, the file failed the judgement). */
  NOT_CONFORMANT: 1,
  /** Usage or configuration error: an option, a profile, a waivers file, a report that cannot be read. */
  USAGE: 2,
  /** The target is unusable: unreachable, the circuit breaker tripped, the key refused on every request, or every documented path answered 404 (a wrong base path). */
  TARGET_UNUSABLE: 3,
  /** The harness itself failed (a defect of iswc-conformance, not of the target): please report it. */
  INTERNAL: 4,
  /** Interrupted by SIGINT, SIGTERM or SIGHUP, or the end of the process that started it (128 + 2, the shell's convention for SIGINT). */
  INTERRUPTED: 130,
});

export type ExitCode = (typeof EXIT)[keyof typeof EXIT];

/** What each exit code means, in the words every `--help` uses. */
export const EXIT_TEXT: Record<ExitCode, string> = {
  0: 'conformant (or: done)',
  1: 'not conformant',
  2: 'usage or configuration error (options, profile, waivers, an unreadable file)',
  3: 'target unusable (unreachable, circuit breaker tripped, the key refused on every request, or every documented path answered 404: a wrong base path)',
  4: 'internal error of iswc-conformance (a defect: please report it)',
  130: 'interrupted (SIGINT, SIGTERM, SIGHUP, or the process that started it ended); the reports say what was done',
};

/** A command's line for an exit code: the meaning every command shares (EXIT_TEXT), and what it adds for this command. */
export function exitMeaning(code: ExitCode, more = ''): readonly [ExitCode, string] {
  return [code, `${EXIT_TEXT[code]}${more}`];
}

export interface OptionSpec {
  type: 'string' | 'boolean';
  short?: string;
  /** The option may be given several times (its value is then a list). */
  multiple?: boolean;
  /** The value's name in the help text: `--target FILE`. */
  value?: string;
  description: string;
}

export type OptionValues = Record<string, string | boolean | string[] | undefined>;

export interface CommandArgs {
  values: OptionValues;
  positionals: string[];
}

/** Where a command reads and writes: the process's, or a test's. */
export interface CliIo {
  cwd: string;
  env: NodeJS.ProcessEnv;
  stdout(text: string): void;
  stderr(text: string): void;
  /** Is stdout a terminal (a live progress line) or not (CI: a line now and then)? */
  isTty?: boolean;
}

export interface Command {
  name: string;
  /** One line, for the list of commands. */
  summary: string;
  /** The usage line(s) after `Usage:`. */
  usage: string;
  /** A paragraph after the usage line. */
  description?: string;
  options: Record<string, OptionSpec>;
  /** Positional arguments: how many the command takes. */
  positionals?: { min: number; max: number };
  /** Environment variables the command reads, with their meaning. */
  environment?: ReadonlyArray<readonly [string, string]>;
  /** The exit codes the command uses, with what each means for it. */
  exitCodes: ReadonlyArray<readonly [ExitCode, string]>;
  run(args: CommandArgs, io: CliIo): Promise<number> | number;
}

/** A mistake of the caller: printed with the command's usage, exit 2, never a stack trace. */
export class UsageError extends Error {
  readonly code = 'ISWC_USAGE';
}

/** What each file-system refusal means for a path the caller named for output. */
const UNWRITABLE: Record<string, string> = {
  EEXIST: 'a file is where a directory is needed',
  ENOTDIR: 'part of the path is a file, not a directory',
  EISDIR: 'it is a directory',
  EACCES: 'permission denied',
  EPERM: 'permission denied',
  EROFS: 'the file system is read-only',
  ENOSPC: 'no space left on the device',
};
/** The calls that write (reads of files the caller names are refused where they are read, as usage errors). */
const WRITING_CALLS = new Set(['mkdir', 'open', 'copyfile', 'write', 'rename', 'unlink', 'rmdir', 'rm', 'symlink', 'link']);

/**
 * "cannot write FILE: why (CODE)" when `e` is the file system refusing to write a path (a report
 * directory that is a file, an --out that is a directory, no permission, a read-only disk); else
 * undefined. The caller's to fix (exit 2), never an internal error.
 */
export function unwritableMessage(e: unknown): string | undefined {
  const err = e as NodeJS.ErrnoException & { dest?: string };
  if (!(e instanceof Error) || typeof err.code !== 'string' || typeof err.syscall !== 'string') return undefined;
  const why = UNWRITABLE[err.code];
  const file = err.dest ?? err.path;
  if (why === undefined || file === undefined || !WRITING_CALLS.has(err.syscall)) return undefined;
  return `cannot write ${file}: ${why} (${err.code}); give another path`;
}

/** Options every command takes. */
export const COMMON_OPTIONS: Record<string, OptionSpec> = {
  help: { type: 'boolean', short: 'h', description: 'Print this help and exit.' },
  version: { type: 'boolean', description: 'Print the version of iswc-conformance and exit.' },
};

export const VERSION_TEXT = `iswc-conformance ${HARNESS_VERSION}`;

const WIDTH = 100;

/** Wraps a paragraph to the help width, each line after the first indented by `indent` spaces. */
function wrap(text: string, indent: number, first = indent): string {
  const words = text.split(/\s+/).filter(Boolean);
  const lines: string[] = [];
  let line = '';
  let width = WIDTH - first;
  for (const word of words) {
    if (line !== '' && line.length + 1 + word.length > width) {
      lines.push(line);
      line = word;
      width = WIDTH - indent;
    } else {
      line = line === '' ? word : `${line} ${word}`;
    }
  }
  if (line !== '') lines.push(line);
  return lines.join(`\n${' '.repeat(indent)}`);
}

function table(rows: ReadonlyArray<readonly [string, string]>, indent = 2): string {
  const left = Math.min(26, Math.max(...rows.map(([k]) => k.length)) + 2);
  return rows
    .map(([key, text]) => {
      const head = `${' '.repeat(indent)}${key}`;
      if (head.length + 1 > indent + left) return `${head}\n${' '.repeat(indent + left)}${wrap(text, indent + left)}`;
      return `${head.padEnd(indent + left)}${wrap(text, indent + left)}`;
    })
    .join('\n');
}

/** `--target FILE`, `-h, --help`. */
export function optionLabel(name: string, spec: OptionSpec): string {
  const long = `--${name}${spec.type === 'string' ? ` ${spec.value ?? 'VALUE'}` : ''}`;
  return spec.short ? `-${spec.short}, ${long}` : long;
}

/** The whole `--help` text of a command: usage, options, environment, exit codes. */
export function renderHelp(command: Command): string {
  const parts = [`iswc-conformance ${command.name}: ${command.summary}`, '', `Usage: ${command.usage}`];
  if (command.description) parts.push('', wrap(command.description, 0));
  const options = { ...command.options, ...COMMON_OPTIONS };
  parts.push('', 'Options:', table(Object.entries(options).map(([name, spec]) => [optionLabel(name, spec), spec.description])));
  if (command.environment && command.environment.length > 0) parts.push('', 'Environment:', table(command.environment));
  parts.push('', 'Exit codes:', table(command.exitCodes.map(([code, text]) => [String(code), text])));
  return parts.join('\n');
}

/** Parses a command's arguments; an unknown option or a missing value is a UsageError. */
export function parseCommandArgs(command: Command, argv: readonly string[]): CommandArgs {
  const options: NonNullable<ParseArgsConfig['options']> = {};
  for (const [name, spec] of Object.entries({ ...command.options, ...COMMON_OPTIONS })) {
    options[name] = { type: spec.type, ...(spec.short ? { short: spec.short } : {}), ...(spec.multiple ? { multiple: true } : {}) };
  }
  // A key in a flag would land in shell history and process lists.
  if (!('key' in command.options) && argv.some((a) => /^--(key|subscription-key|api-key)\b/.test(a))) {
    // The variable the command reads its key from (the sandbox's is ISWC_SANDBOX_KEY).
    const variable = command.environment?.find(([name]) => /_KEY$/.test(name))?.[0] ?? 'ISWC_SUBSCRIPTION_KEY';
    throw new UsageError(`the subscription key is never taken from a flag: set ${variable} in the environment`);
  }
  // `--plan smoke` was the plan command's way to name a plan; --plan prints the plan, everywhere.
  const planAt = argv.findIndex((a) => a === '--plan' || a.startsWith('--plan='));
  const planValue = planAt < 0 ? undefined : argv[planAt]?.startsWith('--plan=') ? argv[planAt]?.slice('--plan='.length) : argv[planAt + 1];
  if (command.options.plan?.type === 'boolean' && (planValue === 'smoke' || planValue === 'full' || argv[planAt]?.startsWith('--plan='))) {
    throw new UsageError(`--plan takes no value: it prints the plan and sends nothing (run --plan and the plan command alike); the smoke plan is --smoke, the full plan the default`);
  }
  let parsed: { values: OptionValues; positionals: string[] };
  try {
    parsed = parseArgs({ args: [...argv], options, strict: true, allowPositionals: (command.positionals?.max ?? 0) > 0 }) as { values: OptionValues; positionals: string[] };
  } catch (e) {
    // node:util's messages name the option; its codes (ERR_PARSE_ARGS_*) are not for users.
    const message = (e as Error).message
      .replace(/\. To specify a positional argument starting with a '-'.*$/s, '')
      .replace(/^Unexpected argument/, 'unexpected argument')
      .replace(/^Unknown option/, 'unknown option')
      .replace(/^Option '([^']+)' argument missing/, "option '$1' needs a value");
    // A misspelt option: the one it most likely meant (the profile's fields say so too).
    const unknown = /^unknown option '--([^'=]+)/.exec(message)?.[1];
    const guess = unknown === undefined ? undefined : nearest(unknown, Object.keys(options));
    throw new UsageError(guess === undefined ? message : `${message} (did you mean --${guess}?)`);
  }
  if (parsed.values.help === true || parsed.values.version === true) return parsed;
  const count = parsed.positionals.length;
  const { min, max } = command.positionals ?? { min: 0, max: 0 };
  if (count < min) throw new UsageError(`missing argument${min - count > 1 ? 's' : ''}: ${command.usage}`);
  if (count > max) throw new UsageError(`unexpected argument ${JSON.stringify(parsed.positionals[max])}`);
  return parsed;
}

/** A string option's value, when given. */
export function stringOption(values: OptionValues, name: string): string | undefined {
  const v = values[name];
  return typeof v === 'string' ? v : undefined;
}

/** A repeatable string option's values (empty when not given). */
export function listOption(values: OptionValues, name: string): string[] {
  const v = values[name];
  return Array.isArray(v) ? v : typeof v === 'string' ? [v] : [];
}

/**
 * The report directory a command reads or writes: its --report-dir, else ISWC_REPORT_DIR, else `reports`,
 * each relative to where the command runs, as the run command writes them.
 */
export function reportDirOf(io: Pick<CliIo, 'cwd' | 'env'>, option?: string): string {
  return path.resolve(io.cwd, option ?? (io.env.ISWC_REPORT_DIR?.trim() || 'reports'));
}

/** The io of this process. */
export function processIo(): CliIo {
  return {
    cwd: process.cwd(),
    env: process.env,
    stdout: (text) => process.stdout.write(text),
    stderr: (text) => process.stderr.write(text),
    isTty: process.stdout.isTTY === true,
  };
}
