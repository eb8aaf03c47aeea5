import { ConfigError } from '../config/config.ts';
import { ProfileError } from '../contract/profile/load.ts';
import { redactorFromEnv } from '../foundation/redact.ts';
import { WaiverError } from '../report/waivers/error.ts';
import type { CliIo, Command } from './command.ts';
import { EXIT, EXIT_TEXT, parseCommandArgs, renderHelp, unwritableMessage, UsageError, VERSION_TEXT } from './command.ts';
import type { CommandName } from './command-names.ts';
import { COMMAND_NAMES, isCommandName, loadCommand } from './command-names.ts';

/** The top-level help: the commands, then the default command's own help. */
export function topHelp(commands: readonly Command[]): string {
  const runCommand = commands.find((c) => c.name === 'run');
  if (!runCommand) throw new Error('no run command');
  const width = Math.max(...commands.map((c) => c.name.length)) + 2;
  return [
    `${VERSION_TEXT}: conformance harness for the ISWC Agency Submission API`,
    '',
    'Usage: npx iswc-conformance [COMMAND] [options]',
    '       npx iswc-conformance COMMAND --help',
    '',
    'Commands:',
    ...commands.map((c) => `  ${c.name.padEnd(width)}${c.summary}`),
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
  return command.name === 'run' ? 'npx iswc-conformance --help' : `npx iswc-conformance ${command.name} --help`;
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
    const wanted = first === 'help' ? rest[0] : undefined;
    if (wanted !== undefined && !isCommandName(wanted)) {
      io.stderr(`iswc-conformance: unknown command "${wanted}" (commands: ${COMMAND_NAMES.join(', ')}); see npx iswc-conformance --help\n`);
      return EXIT.USAGE;
    }
    io.stdout(`${wanted !== undefined ? renderHelp(await loadCommand(wanted)) : topHelp((await import('./commands.ts')).COMMANDS)}\n`);
    return EXIT.OK;
  }
  let name: CommandName = 'run';
  let args = argv;
  if (first !== undefined && !first.startsWith('-')) {
    if (!isCommandName(first)) {
      io.stderr(`iswc-conformance: unknown command "${first}" (commands: ${COMMAND_NAMES.join(', ')}); see npx iswc-conformance --help\n`);
      return EXIT.USAGE;
    }
    name = first;
    args = rest;
  }
  const command = await loadCommand(name);
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
