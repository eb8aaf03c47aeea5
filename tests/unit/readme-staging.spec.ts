import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect, test } from '@playwright/test';
import { fromRoot } from '../../lib/paths.ts';

/**
 * The README's "Your own staging" walks an agency from a hand-written profile to a signed certificate.
 * This runs its shell blocks as they stand, in a directory of their own, with two substitutions only: the
 * command is this checkout's bin (npx finds it from the repository, not from a temporary directory), and
 * the stand-in's port is a free one.
 */

/** The shell blocks of a README section (up to its first subsection), dedented, in order. */
function shellBlocks(readme: string, heading: string): string[] {
  const start = readme.indexOf(`\n## ${heading}\n`);
  if (start < 0) throw new Error(`README has no section "${heading}"`);
  const end = readme.slice(start + 1).search(/\n###? /) + start + 1;
  const section = readme.slice(start, end <= start ? undefined : end);
  return [...section.matchAll(/^( *)```sh\n([\s\S]*?)^\1```$/gm)].map((m) => {
    const indent = m[1] ?? '';
    return (m[2] ?? '')
      .split('\n')
      .map((line) => (line.startsWith(indent) ? line.slice(indent.length) : line))
      .join('\n');
  });
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

test('the README\'s "Your own staging" works as written: profile check, a stand-in, plan, the run, a signed certificate and its check', async () => {
  test.setTimeout(240_000);
  const blocks = shellBlocks(readFileSync(fromRoot('README.md'), 'utf8'), 'Your own staging');
  expect(blocks).toHaveLength(5);
  const port = String(await freePort());
  const bin = `node ${JSON.stringify(fromRoot('bin', 'iswc-conformance.mjs'))}`;
  const local = (block: string): string => block.replaceAll('npx iswc-conformance', bin).replaceAll('18080', port);
  const serverBlock = blocks[1] ?? '';
  expect(serverBlock).toMatch(/^npx iswc-conformance server --port 18080 /);

  const dir = mkdtempSync(path.join(tmpdir(), 'iswc-readme-staging-'));
  symlinkSync(fromRoot('fixtures'), path.join(dir, 'fixtures'));
  // The environment of a newcomer: none of this run's settings.
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!/^(ISWC_|PW_|PLAYWRIGHT_|TEST_)/.test(k)) env[k] = v;
  const server = spawn('bash', ['-c', `exec ${local(serverBlock.trim())}`], { cwd: dir, env, stdio: ['ignore', 'pipe', 'pipe'] });
  try {
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('the stand-in did not say it was listening')), 60_000);
      let out = '';
      server.stdout.on('data', (d: Buffer) => {
        out += d.toString('utf8');
        if (out.includes(`listening http://127.0.0.1:${port}`)) {
          clearTimeout(timer);
          resolve();
        }
      });
      server.on('exit', (code) => reject(new Error(`the stand-in exited ${code}`)));
    });
    // Every other block, in one shell, in order, stopping at the first command that fails.
    const script = ['set -euo pipefail', ...[0, 2, 3, 4].map((i) => local(blocks[i] ?? ''))].join('\n');
    const run = spawnSync('bash', ['-c', script], { cwd: dir, env, encoding: 'utf8', timeout: 200_000 });
    const out = `${run.stdout}${run.stderr}`;
    expect(run.status, out.slice(-4000)).toBe(0);
    expect(out).toContain('Target profile my-staging.json: "my-staging", agency 128');
    expect(out).toMatch(/destructive \(--destructive\) +15 of 24 /);
    expect(out).toMatch(/total: (\d+ to )?\d+ requests, at most about \d+ min at 0\.167 requests\/s/);
    expect(out).toContain('exit code: 0 (conformant)');
    // Every spec check exercised: what more profile data would add is said once, as optional, never "needs 3 more merges".
    expect(out).not.toMatch(/× needs \d+ more/);
    expect(out).toContain('more profile data would add these cases, not checks: every spec check was exercised');
    expect(out).toContain('certificate: conformant (smoke plan: every spec check exercised, not every case run) — agency 128');
    expect(out).toMatch(/verify: reports\/certificate\.json: signed by sha256:[0-9a-f]{64} and unedited since/);
    expect(out).not.toContain('my-test-key');
  } finally {
    server.kill('SIGTERM');
    rmSync(dir, { recursive: true, force: true });
  }
});
