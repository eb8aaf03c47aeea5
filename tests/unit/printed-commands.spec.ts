/**
 * Every command the tool prints runs as printed. A run against a faulty build, started as a user starts
 * it (a directory that looks like a clone, a profile of its own, a report directory of its own), prints
 * replay commands in four places: the console summary, the failure blocks of the failed tests, the HTML
 * report and the JUnit file. Each is pasted into a shell, in the directory the run was started in, with
 * only ISWC_SUBSCRIPTION_KEY set, and runs: the failure happens again (exit 1), never a usage error.
 */
import { spawn } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { expect, _baseTest as test } from '@playwright/test';
import { loadProfile } from '../../lib/contract/profile/load.ts';
import { fromRoot } from '../../lib/foundation/paths.ts';
import { startReferenceServer } from '../../server/index.ts';
import { cloneLikeDir, newcomerEnv } from '../support/doc-commands.ts';

const KEY = 'printed-commands-key-8c1d';

function sh(command: string, cwd: string, env: NodeJS.ProcessEnv): Promise<{ code: number | null; out: string }> {
  return new Promise((resolve) => {
    const child = spawn('bash', ['-c', command], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString('utf8')));
    child.stderr.on('data', (d: Buffer) => (out += d.toString('utf8')));
    child.on('close', (code) => resolve({ code, out }));
  });
}

const unescape = (text: string): string => text.replace(/&#39;/g, "'").replace(/&quot;/g, '"').replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&');

test('the replay commands of the console summary, the failure blocks, the HTML report and JUnit run as printed', async () => {
  test.setTimeout(300_000);
  // Build 2 of the regression guide: a merge into an unknown ISWC answered 400 where section 4.2 says 404.
  const server = await startReferenceServer({ profile: loadProfile(fromRoot('fixtures', 'targets', 'staging-example.json')), key: KEY, faults: ['merge-404-as-400'] });
  const dir = cloneLikeDir('iswc-printed-');
  const env = { ...newcomerEnv(path.join(dir, '.npm-cache')), ISWC_SUBSCRIPTION_KEY: KEY };
  try {
    const run = await sh(`npx iswc-conformance --base-url ${server.url} --target fixtures/targets/staging-example.json --smoke --report-dir reports/build-2`, dir, env);
    expect(run.code, run.out.slice(-3000)).toBe(1);
    const printed = new Map<string, string>();
    const summary = /^ {6}failure [0-9a-f]{8}: (npx iswc-conformance replay .*?)(?: {2}\(other failures.*)?$/m.exec(run.out)?.[1];
    const block = /Replay failure [0-9a-f]{8}: (npx iswc-conformance replay .*)$/m.exec(run.out)?.[1];
    const html = /<code class="replay">(npx iswc-conformance replay [^<]*)<\/code>/.exec(readFileSync(path.join(dir, 'reports', 'build-2', 'conformance.html'), 'utf8'))?.[1];
    const junit = /Failure [0-9a-f]{8}: (npx iswc-conformance replay [^<\n]*)/.exec(readFileSync(path.join(dir, 'reports', 'build-2', 'conformance-junit.xml'), 'utf8'))?.[1];
    for (const [where, command] of [['the console summary', summary], ['a failure block', block], ['the HTML report', html], ['JUnit', junit]] as const) {
      expect(command, `${where} prints a replay command`).toBeDefined();
      printed.set(where, unescape(command ?? ''));
    }
    for (const command of printed.values()) {
      expect(command).toContain(' --report reports/build-2/conformance.json');
      expect(command).toContain(' --target fixtures/targets/staging-example.json');
      expect(command).toContain(` --base-url ${server.url}`);
    }
    // Pasted and run, one of each kind (the same command printed in two places runs once).
    for (const command of new Set(printed.values())) {
      const replayed = await sh(command, dir, env);
      const where = [...printed].filter(([, c]) => c === command).map(([w]) => w).join(', ');
      expect(replayed.code, `${where}: ${command}\n${replayed.out.slice(-2000)}`).toBe(1);
      expect(replayed.out).toMatch(/^replay failure [0-9a-f]{8}: /m);
      expect(replayed.out).toContain('the failure happens again');
      expect(replayed.out).not.toContain(KEY);
    }
  } finally {
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  }
});
