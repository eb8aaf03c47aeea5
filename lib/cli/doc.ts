import { readFileSync } from 'node:fs';
import { fromRoot } from '../foundation/paths.ts';
import type { Command, OptionSpec } from './command.ts';
import { COMMON_OPTIONS, EXIT_TEXT, optionLabel } from './command.ts';
import { COMMANDS } from './commands.ts';

const cell = (text: string): string => text.replace(/\|/g, '\\|').replace(/\n/g, ' ');

/** A command's options, common ones last. */
function optionsOf(command: Command): Array<[string, OptionSpec]> {
  return Object.entries({ ...command.options, ...COMMON_OPTIONS });
}

/**
 * Every option once: one row per option and meaning (an option that means the same for several commands is
 * one row naming them; one that means something else for one command is a row of its own), by name.
 */
function optionRows(): Array<{ label: string; description: string; commands: string[] }> {
  const rows = new Map<string, { label: string; description: string; commands: string[] }>();
  for (const command of COMMANDS) {
    for (const [name, spec] of optionsOf(command)) {
      const label = optionLabel(name, spec);
      const key = `${label}\u0000${spec.description}`;
      const row = rows.get(key) ?? { label, description: spec.description, commands: [] };
      row.commands.push(command.name);
      rows.set(key, row);
    }
  }
  return [...rows.values()].sort((a, b) => a.label.localeCompare(b.label) || a.commands.join().localeCompare(b.commands.join()));
}

const allCommands = (commands: readonly string[]): string => (commands.length === COMMANDS.length ? 'every command' : commands.map((c) => `[\`${c}\`](#${c})`).join(', '));

function commandSection(command: Command): string[] {
  const lines = [`## ${command.name}`, '', `${command.summary[0]?.toUpperCase() ?? ''}${command.summary.slice(1)}.`, '', '```', command.usage, '```', ''];
  if (command.description) lines.push(command.description, '');
  lines.push(`Options (each described once, under [Options](#options)): ${optionsOf(command).map(([name, spec]) => `\`${cell(optionLabel(name, spec))}\``).join(', ')}.`, '');
  if (command.environment && command.environment.length > 0) {
    lines.push(`Environment (each described once, in [configuration.md](configuration.md#environment-variables)): ${command.environment.map(([name]) => `\`${cell(name)}\``).join(', ')}.`, '');
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

/** docs/cli.md: every command with its exit codes, and every option once with the commands it applies to, from the same data as `--help`. */
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
    '## Options',
    '',
    'Every option once, with the commands it applies to; an option that means something else for one command has a row of its own.',
    '',
    '| option | commands | meaning |',
    '|---|---|---|',
    ...optionRows().map((r) => `| \`${cell(r.label)}\` | ${allCommands(r.commands)} | ${cell(r.description)} |`),
    '',
  ].join('\n');
}
