import { readFileSync } from 'node:fs';
import { fromRoot } from '../foundation/paths.ts';
import type { Command, OptionSpec } from './command.ts';
import { COMMON_OPTIONS, optionLabel } from './command.ts';
import type { EnvironmentSetting } from './environment.ts';
import { ENVIRONMENT, settingText } from './environment.ts';
import { COMMANDS } from './commands.ts';

/**
 * docs/configuration.md: every environment variable and flag, what it means, its default and which
 * command reads it, and the fields of the two files a run is given (target profile, waivers). Made from
 * the tables `--help` prints (lib/cli/environment.ts, each command's options and environment) and from
 * the two schemas, by `npm run generate`.
 */

const cell = (text: string): string => text.replace(/\|/g, '\\|').replace(/\n/g, ' ');
const code = (text: string): string => `\`${text}\``;

/** The variables a command's environment row names ("ISWC_HEADERS, HTTPS_PROXY" names two). */
const rowNames = (row: readonly [string, string]): string[] => row[0].split(/,\s*/).map((n) => n.trim());

/** The commands that list a variable of this setting in their environment, with their own text for it. */
function readers(setting: EnvironmentSetting, commands: readonly Command[]): Array<{ command: string; text: string }> {
  return commands.flatMap((c) => (c.environment ?? []).filter((row) => rowNames(row).some((n) => setting.names.includes(n))).map((row) => ({ command: c.name, text: row[1] })));
}

/** A setting's meaning: its own, or the text of the command it names as its author. */
function meaningOf(setting: EnvironmentSetting, commands: readonly Command[]): string {
  if (setting.meaningFrom === undefined) return setting.meaning;
  const text = readers(setting, commands).find((r) => r.command === setting.meaningFrom)?.text;
  if (text === undefined) throw new Error(`${setting.names.join(', ')}: the ${setting.meaningFrom} command does not describe it in its environment`);
  return text;
}

function environmentSection(commands: readonly Command[]): string[] {
  const rows = ENVIRONMENT.filter((s) => !s.internal).map((setting) => {
    const found = readers(setting, commands);
    const names = [...new Set(found.map((r) => r.command))];
    const readBy = [...names.map(code), ...(setting.readBy ? [setting.readBy] : [])].join(', ');
    if (readBy === '') throw new Error(`${setting.names.join(', ')}: no command reads it (list it in a command's environment, or say readBy)`);
    // What a command says of it in its own words (not the table's): shown, so that --help and this page agree.
    const own = settingText(setting);
    const notes = found.filter((r) => r.text !== own && r.command !== setting.meaningFrom);
    const noteText = [...new Set(notes.map((n) => n.text))].map((text) => ` **${notes.filter((n) => n.text === text).map((n) => n.command).join(', ')}:** ${text}`).join('');
    const flag = setting.flag ? code(`--${setting.flag}`) : '';
    return `| ${setting.names.map(code).join(', ')} | ${flag} | ${cell(meaningOf(setting, commands) + noteText)} | ${cell(setting.default)} | ${readBy} |`;
  });
  const internal = ENVIRONMENT.filter((s) => s.internal);
  return [
    '## Environment variables',
    '',
    'A flag wins over its variable. The subscription key has no flag: it is read from the environment only.',
    '',
    '| variable | flag | meaning | default | read by |',
    '|---|---|---|---|---|',
    ...rows,
    '',
    `Set by the run command for its own processes, never by hand: ${internal.map((s) => `${s.names.map(code).join(', ')}: ${cell(s.meaning)}`).join(' ')}`,
    '',
  ];
}

/** "(default X)", "(ISWC_RUNS, default 100)", "(default: next to …)": the default a description states. */
export function statedDefault(description: string): string | undefined {
  return /\((?:[^()]*?[,;] )?default:? ([^()]+)\)/i.exec(description)?.[1]?.trim();
}

/** A flag's default: off for a switch, its variable's, the one its description states, or none. */
function flagDefault(command: Command, name: string, spec: OptionSpec): { text: string; variable?: EnvironmentSetting } {
  // The variable's default holds where the command reads the variable as the table says (run, plan, certify, …).
  const variable = ENVIRONMENT.find((s) => s.flag === name && readers(s, [command]).some((r) => r.text === settingText(s)));
  if (variable) return { text: variable.default, variable };
  if (spec.type === 'boolean') return { text: 'off' };
  const stated = statedDefault(spec.description);
  if (stated !== undefined) return { text: stated };
  if (/\bdefault\b/i.test(spec.description)) throw new Error(`${command.name} --${name}: state its default as "(default X)" so that docs/configuration.md can show it`);
  return { text: '—' };
}

function flagSection(commands: readonly Command[]): string[] {
  const rows = new Map<string, { name: string; label: string; description: string; default: string; variable: string; commands: string[] }>();
  for (const command of commands) {
    for (const [name, spec] of Object.entries(command.options)) {
      const { text, variable } = flagDefault(command, name, spec);
      const label = optionLabel(name, spec);
      const key = `${label}\u0000${spec.description}\u0000${text}`;
      const row = rows.get(key) ?? { name, label, description: spec.description, default: text, variable: variable ? variable.names.map(code).join(', ') : '', commands: [] };
      row.commands.push(command.name);
      rows.set(key, row);
    }
  }
  const sorted = [...rows.values()].sort((a, b) => a.name.localeCompare(b.name) || commands.findIndex((c) => c.name === a.commands[0]) - commands.findIndex((c) => c.name === b.commands[0]));
  const common = Object.entries(COMMON_OPTIONS).map(([name, spec]) => `| ${code(cell(optionLabel(name, spec)))} | ${cell(spec.description)} | off |  | every command |`);
  return [
    '## Flags',
    '',
    'Every flag of every command, by name; a flag that means something else for another command has a row of its own. A flag with a variable takes that variable\'s default; — means that the flag does nothing unless given, or that its meaning says what holds without it.',
    '',
    '| flag | meaning | default | variable | commands |',
    '|---|---|---|---|---|',
    ...sorted.map((r) => `| ${code(cell(r.label))} | ${cell(r.description)} | ${cell(r.default)} | ${r.variable} | ${r.commands.map(code).join(', ')} |`),
    ...common,
    '',
  ];
}

interface SchemaNode {
  type?: string | string[];
  enum?: unknown[];
  $ref?: string;
  items?: SchemaNode;
  properties?: Record<string, SchemaNode>;
  required?: string[];
  description?: string;
  default?: unknown;
}

/** A short type for a node of a hand-written schema: `list of iswc`, `"many" \| "one"`, `{ preferredIswc, iswcs? }`. */
function typeText(node: SchemaNode): string {
  if (node.enum) return node.enum.map((v) => JSON.stringify(v)).join(' or ');
  if (node.$ref) return node.$ref.replace(/\.schema\.json$/, '').replace(/^.*\//, '');
  if (node.type === 'array') return `list of ${node.items ? typeText(node.items) : 'anything'}`;
  if (node.properties) {
    const required = new Set(node.required ?? []);
    return `{ ${Object.keys(node.properties).map((k) => (required.has(k) ? k : `${k}?`)).join(', ')} }`;
  }
  return Array.isArray(node.type) ? node.type.join(' or ') : (node.type ?? 'anything');
}

function schemaFields(file: string, node: SchemaNode): string[] {
  const required = new Set(node.required ?? []);
  return Object.entries(node.properties ?? {})
    .filter(([name]) => name !== '$schema')
    .map(([name, field]) => {
      if (!field.description) throw new Error(`schemas/${file}: ${name} has no description`);
      return `| ${code(name)} | ${required.has(name) ? 'yes' : 'no'} | ${cell(typeText(field))} | ${cell(field.description)} |`;
    });
}

function schemaSection(title: string, file: string, intro: string, node: SchemaNode): string[] {
  return [`## ${title}`, '', intro, '', '| field | required | value | meaning |', '|---|---|---|---|', ...schemaFields(file, node), ''];
}

function readSchema(file: string): SchemaNode & { $defs?: Record<string, SchemaNode> } {
  return JSON.parse(readFileSync(fromRoot('schemas', file), 'utf8')) as SchemaNode & { $defs?: Record<string, SchemaNode> };
}

/** docs/configuration.md. */
export function renderConfigurationDoc(commands: readonly Command[] = COMMANDS): string {
  const waivers = readSchema('waivers.schema.json').$defs?.waiver;
  if (!waivers) throw new Error('schemas/waivers.schema.json has no $defs.waiver');
  return [
    '# Configuration',
    '',
    'Generated by `npm run generate` from the tables `--help` prints (`lib/cli/environment.ts`, the options and environment of each command in `lib/cli/commands/`) and from `schemas/target-profile.schema.json` and `schemas/waivers.schema.json`; do not edit by hand. Each command\'s usage and exit codes are in [cli.md](cli.md).',
    '',
    'A run is configured three ways: flags or environment variables (a flag wins), a **target profile** that says what exists in the target (`--target`, `ISWC_TARGET`), and an optional **waivers** file of known deviations (`--waivers`, `ISWC_WAIVERS`). Paths are relative to the directory the command runs in. A setting that cannot be read stops the command before anything is sent (exit 2).',
    '',
    ...environmentSection(commands),
    ...flagSection(commands),
    ...schemaSection(
      'Target profile',
      'target-profile.schema.json',
      'A JSON file (`fixtures/targets/*.json`, schema `schemas/target-profile.schema.json`); how to write one for your target, and what `profile check` says of it: [target-profile.md](target-profile.md). Items of the entries: `iswc` is `T` and 10 digits, `agency-code` 3 characters, `agency-work-code` at most 20, `int32` a 32-bit integer.',
      readSchema('target-profile.schema.json'),
    ),
    ...schemaSection('Waivers', 'waivers.schema.json', 'A YAML list (schema `schemas/waivers.schema.json`) of entries with these fields; how waivers are applied and reported: [staging.md](staging.md#waivers).', waivers),
  ].join('\n');
}
