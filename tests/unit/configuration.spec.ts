import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { expect, _baseTest as test } from '@playwright/test';
import { renderConfigurationDoc, statedDefault } from '../../lib/cli/configuration-doc.ts';
import { ENVIRONMENT, environmentOf, settingOf, settingText } from '../../lib/cli/environment.ts';
import { COMMANDS } from '../../lib/cli/commands.ts';
import { fromRoot } from '../../lib/foundation/paths.ts';

/**
 * docs/configuration.md is made from the tables --help prints (tests/unit/generated.spec.ts fails when it
 * is stale). These tests keep the tables whole: a variable the code reads, or a command lists, has its
 * row in lib/cli/environment.ts, with its meaning and its default.
 */

/** The TypeScript files under these paths of the repository. */
function sources(...roots: string[]): string[] {
  const out: string[] = [];
  const walk = (rel: string): void => {
    const abs = fromRoot(rel);
    if (statSync(abs).isFile()) {
      if (rel.endsWith('.ts') || rel.endsWith('.mjs')) out.push(rel);
      return;
    }
    for (const entry of readdirSync(abs)) walk(path.join(rel, entry));
  };
  roots.forEach(walk);
  return out;
}

/** Variables the code reads from an environment: `env.X`, `env['X']`, and the readers of lib/config (get, flag, positiveInt, envFlag). */
function variablesRead(file: string): string[] {
  const text = readFileSync(fromRoot(file), 'utf8');
  const found = [...text.matchAll(/(?:\benv\.|\benv\[['"]|\bget\(['"]|\bflag\(['"]|\bpositiveInt\(['"]|\benvFlag\([^,()]+,\s*['"]|_VARIABLE\s*=\s*['"])(ISWC_[A-Z0-9_]+)/g)].map((m) => m[1] ?? '');
  return [...new Set(found)];
}

test('every variable the harness reads has its row in lib/cli/environment.ts (meaning, default)', () => {
  const files = sources('lib', 'server', 'reporters', 'bin', 'scripts', 'playwright.config.ts', 'tests/support', 'tests/browser');
  const missing = files.flatMap((file) => variablesRead(file).filter((name) => settingOf(name) === undefined).map((name) => `${name} (read in ${file})`));
  expect(missing, 'add a row to ENVIRONMENT in lib/cli/environment.ts, then npm run generate').toEqual([]);
  // The scan itself finds what it should.
  expect(variablesRead('lib/config/config.ts')).toEqual(expect.arrayContaining(['ISWC_BASE_URL', 'ISWC_SUBSCRIPTION_KEY', 'ISWC_STRICT', 'ISWC_DESTRUCTIVE', 'ISWC_TIMEOUT_MS']));
});

test('every variable a command lists in its --help has its row, and every row is read by a command or says who reads it', () => {
  const listed = COMMANDS.flatMap((c) => (c.environment ?? []).flatMap(([names]) => names.split(/,\s*/).map((n) => `${c.name}: ${n.trim()}`)));
  expect(listed.filter((entry) => settingOf(entry.replace(/^[^:]+: /, '')) === undefined)).toEqual([]);
  const readByNone = ENVIRONMENT.filter((s) => !s.readBy && !COMMANDS.some((c) => (c.environment ?? []).some(([names]) => names.split(/,\s*/).some((n) => s.names.includes(n.trim())))));
  expect(readByNone.map((s) => s.names.join(', '))).toEqual([]);
});

test('a variable with a flag: some command that reads the variable takes the flag', () => {
  for (const setting of ENVIRONMENT.filter((s) => s.flag !== undefined)) {
    const readers = COMMANDS.filter((c) => (c.environment ?? []).some(([names]) => names.split(/,\s*/).some((n) => setting.names.includes(n.trim()))));
    expect(
      readers.some((c) => setting.flag !== undefined && setting.flag in c.options),
      `${setting.names.join(', ')}: no command that reads it takes --${setting.flag}`,
    ).toBe(true);
  }
});

test('--help and the reference say the same: each command row derived from the table is the table\'s text, and the reference holds every command\'s own text', () => {
  const doc = renderConfigurationDoc();
  for (const command of COMMANDS) {
    for (const [names, text] of command.environment ?? []) {
      const setting = settingOf(names.split(/,\s*/)[0] ?? '');
      if (setting && text === settingText(setting)) {
        // Made from the table: the reference shows its meaning and its default apart.
        expect(doc).toContain(setting.meaning.replace(/\|/g, '\\|'));
        expect(doc).toContain(setting.default.replace(/\|/g, '\\|'));
      } else {
        expect(doc, `${command.name}: ${names}`).toContain(text.replace(/\|/g, '\\|'));
      }
    }
    for (const spec of Object.values(command.options)) expect(doc, command.name).toContain(spec.description.replace(/\|/g, '\\|'));
  }
  expect(environmentOf(['HTTP_PROXY', 'NO_PROXY'])).toHaveLength(1);
  expect(() => environmentOf(['ISWC_NO_SUCH_THING'])).toThrow(/no setting for ISWC_NO_SUCH_THING/);
});

test('a flag\'s default is read from its description the way the descriptions state it', () => {
  expect(statedDefault('Port to listen on (default 0: a free port).')).toBe('0: a free port');
  expect(statedDefault('Runs per property-based check (ISWC_RUNS, default 100).')).toBe('100');
  expect(statedDefault('Where certificate.json and certificate.html go (default: next to the report certified).')).toBe('next to the report certified');
  expect(statedDefault('End the session after N requests.')).toBeUndefined();
});

test("npm test's workers: one more than the cores, from 2 to 8 (some of its tests wait: back-off, timeouts, commands they start)", async () => {
  const { testWorkers } = await import('../../lib/config/defaults.ts');
  expect([1, 2, 4, 6, 7, 16].map((cores) => testWorkers(cores))).toEqual([2, 3, 5, 7, 8, 8]);
});
