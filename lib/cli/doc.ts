import { readFileSync } from 'node:fs';
import { fromRoot } from '../foundation/paths.ts';
import type { Command } from './command.ts';
import { COMMON_OPTIONS, EXIT_TEXT, optionLabel } from './command.ts';
import { COMMANDS } from './commands.ts';

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

/** The npm scripts of package.json that are a command of the bin (`npm run conformance` is `run`), as table rows. */
function npmAliases(): string[] {
  const { scripts = {} } = JSON.parse(readFileSync(fromRoot('package.json'), 'utf8')) as { scripts?: Record<string, string> };
  return Object.entries(scripts).flatMap(([name, line]) => {
    if (!line.includes('bin/iswc-conformance.mjs')) return [];
    const m = /^(?:exec )?node bin\/iswc-conformance\.mjs (\S+)$/.exec(line.trim());
    if (!m) throw new Error(`package.json script ${name} ("${line}") runs the bin in a way docs/cli.md does not know: teach npmAliases (lib/cli/doc.ts)`);
    return [`| \`npm run ${name}\` | \`npx iswc-conformance ${m[1]}\` |`];
  });
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
    'The npm scripts are aliases of the commands (options after `--`: `npm run plan -- --smoke`):',
    '',
    '| npm script | command |',
    '|---|---|',
    ...npmAliases(),
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
