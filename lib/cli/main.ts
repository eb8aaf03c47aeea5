import { ConfigError } from '../config/config.ts';
import { ProfileError } from '../contract/profile/load.ts';
import { redactorFromEnv } from '../foundation/redact.ts';
import { WaiverError } from '../report/waivers/load.ts';
import type { CliIo, Command } from './command.ts';
import { EXIT, EXIT_TEXT, parseCommandArgs, renderHelp, unwritableMessage, UsageError, VERSION_TEXT } from './command.ts';
import { allureCommand } from './commands/allure.ts';
import { baselineCommand } from './commands/baseline.ts';
import { certifyCommand } from './commands/certify.ts';
import { compatCommand } from './commands/compat.ts';
import { diffCommand } from './commands/diff.ts';
import { planCommand } from './commands/plan.ts';
import { profileCommand } from './commands/profile.ts';
import { replayCommand } from './commands/replay.ts';
import { runCommand } from './commands/run.ts';
import { sandboxCommand } from './commands/sandbox.ts';
import { serverCommand } from './commands/server.ts';
import { verifyCommand } from './commands/verify.ts';

/** Every command, in the order `--help` lists them; `run` is the default. */
export const COMMANDS: readonly Command[] = [runCommand, planCommand, profileCommand, replayCommand, certifyCommand, verifyCommand, diffCommand, baselineCommand, compatCommand, serverCommand, sandboxCommand, allureCommand];

export function commandNamed(name: string): Command | undefined {
  return COMMANDS.find((c) => c.name === name);
}

/** The top-level help: the commands, then the default command's own help. */
export function topHelp(): string {
  const width = Math.max(...COMMANDS.map((c) => c.name.length)) + 2;
  return [
    `${VERSION_TEXT}: conformance harness for the ISWC Agency Submission API`,
    '',
    'Usage: npx iswc-conformance [COMMAND] [options]',
    '       npx iswc-conformance COMMAND --help',
    '',
    'Commands:',
    ...COMMANDS.map((c) => `  ${c.name.padEnd(width)}${c.summary}`),
    '',
    'Exit codes (every command; its --help says which it uses):',
    ...Object.entries(EXIT_TEXT).map(([code, text]) => `  ${code.padEnd(5)}${text}`),
    '',
    'Without a command, run is meant:',
    '',
    renderHelp(runCommand),
  ].join('\n');
}

/** `npx iswc-conformance plan --help` (the default command's help is the top one). */
function helpCommand(command: Command): string {
  return command === runCommand ? 'npx iswc-conformance --help' : `npx iswc-conformance ${command.name} --help`;
}

/** The message, then "see … --help": on its line when it is one line, on a line of its own after a list of problems. */
function seeHelp(message: string, command: Command): string {
  const text = message.trimEnd().replace(/[.;:]$/, '');
  return text.includes('\n') ? `${text}\nsee ${helpCommand(command)}` : `${text}; see ${helpCommand(command)}`;
}

/** Errors that are the caller's to fix: printed without a stack trace, exit 2. */
function usageMessage(e: unknown): string | undefined {
  if (e instanceof UsageError || e instanceof ConfigError || e instanceof ProfileError || e instanceof WaiverError) return e.message;
  return undefined;
}

/**
 * `npx iswc-conformance [COMMAND] [options]`: picks the command (run when the first argument is an
 * option), parses its options, runs it and returns the exit code. Never throws: a usage mistake prints
 * one line, what is wrong and where, then "see … --help" (exit 2); a defect of the harness prints one
 * line (exit 4; the stack only with ISWC_DEBUG=1).
 */
export async function main(argv: readonly string[], io: CliIo): Promise<number> {
  const [first, ...rest] = argv;
  if (first === '--version' || first === '-V') {
    io.stdout(`${VERSION_TEXT}\n`);
    return EXIT.OK;
  }
  if (first === '--help' || first === '-h' || first === 'help') {
    const named = first === 'help' && rest[0] !== undefined ? commandNamed(rest[0]) : undefined;
    if (first === 'help' && rest[0] !== undefined && !named) {
      io.stderr(`iswc-conformance: unknown command "${rest[0]}" (commands: ${COMMANDS.map((c) => c.name).join(', ')}); see npx iswc-conformance --help\n`);
      return EXIT.USAGE;
    }
    io.stdout(`${named ? renderHelp(named) : topHelp()}\n`);
    return EXIT.OK;
  }
  let command = runCommand;
  let args = argv;
  if (first !== undefined && !first.startsWith('-')) {
    const named = commandNamed(first);
    if (!named) {
      io.stderr(`iswc-conformance: unknown command "${first}" (commands: ${COMMANDS.map((c) => c.name).join(', ')}); see npx iswc-conformance --help\n`);
      return EXIT.USAGE;
    }
    command = named;
    args = rest;
  }
  try {
    const parsed = parseCommandArgs(command, args);
    if (parsed.values.help === true) {
      io.stdout(`${renderHelp(command)}\n`);
      return EXIT.OK;
    }
    if (parsed.values.version === true) {
      io.stdout(`${VERSION_TEXT}\n`);
      return EXIT.OK;
    }
    return await command.run(parsed, io);
  } catch (e) {
    const message = usageMessage(e);
    const redact = redactorFromEnv();
    if (message !== undefined) {
      // What is wrong and where (the message says: one line, or a file's problems one a line), then where
      // the options are described; never the whole help.
      io.stderr(`${redact.text(`iswc-conformance ${command.name}: ${seeHelp(message, command)}`)}\n`);
      return EXIT.USAGE;
    }
    // An output path the caller named that cannot be written: theirs to change (the help would add nothing).
    const unwritable = unwritableMessage(e);
    if (unwritable !== undefined) {
      io.stderr(`${redact.text(`iswc-conformance ${command.name}: ${unwritable}`)}\n`);
      return EXIT.USAGE;
    }
    const err = e instanceof Error ? e : new Error(String(e));
    const detail = io.env.ISWC_DEBUG === '1' ? `\n${err.stack ?? ''}` : ' (ISWC_DEBUG=1 prints the stack)';
    io.stderr(`${redact.text(`iswc-conformance ${command.name}: internal error: ${err.message}${detail}`)}\nThis is a defect of iswc-conformance, not of the target: please report it.\n`);
    return EXIT.INTERNAL;
  }
}
