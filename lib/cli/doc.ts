import type { Command } from './command.ts';
import { COMMON_OPTIONS, EXIT_TEXT, optionLabel } from './command.ts';
import { COMMANDS } from './main.ts';

const cell = (text: string): string => text.replace(/\|/g, '\\|').replace(/\n/g, ' ');

function commandSection(command: Command): string[] {
  const options = { ...command.options, ...COMMON_OPTIONS };
  const lines = [`## ${command.name}`, '', `${command.summary[0]?.toUpperCase() ?? ''}${command.summary.slice(1)}.`, '', '```', command.usage, '```', ''];
  if (command.description) lines.push(command.description, '');
  lines.push('| option | meaning |', '|---|---|', ...Object.entries(options).map(([name, spec]) => `| \`${cell(optionLabel(name, spec))}\` | ${cell(spec.description)} |`), '');
  if (command.environment && command.environment.length > 0) {
    lines.push('| environment | meaning |', '|---|---|', ...command.environment.map(([name, text]) => `| \`${cell(name)}\` | ${cell(text)} |`), '');
  }
  lines.push('| exit code | meaning |', '|---|---|', ...command.exitCodes.map(([code, text]) => `| ${code} | ${cell(text)} |`), '');
  return lines;
}

/** docs/cli.md: every command, its options, environment and exit codes, from the same data as `--help`. */
export function renderCliDoc(): string {
  return [
    '# Command line',
    '',
    'Generated from the command modules of `lib/cli/commands/` by `npm run generate`; do not edit by hand. Each command prints the same with `--help`.',
    '',
    '```',
    'npx iswc-conformance [COMMAND] [options]      # COMMAND defaults to run',
    'npx iswc-conformance COMMAND --help',
    'npx iswc-conformance --version',
    '```',
    '',
    '| command | what it does |',
    '|---|---|',
    ...COMMANDS.map((c) => `| [\`${c.name}\`](#${c.name}) | ${cell(c.summary)} |`),
    '',
    'Exit codes, the same for every command (each lists the ones it uses):',
    '',
    '| exit code | meaning |',
    '|---|---|',
    ...Object.entries(EXIT_TEXT).map(([code, text]) => `| ${code} | ${cell(text)} |`),
    '',
    ...COMMANDS.flatMap(commandSection),
  ].join('\n');
}
