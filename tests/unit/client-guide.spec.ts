import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect, _baseTest as test } from '@playwright/test';
import { fromRoot } from '../../lib/foundation/paths.ts';
import type { ClientReport } from '../../lib/report/client/model.ts';
import { parseSandboxArgs } from '../../lib/sandbox/options.ts';
import { cloneLikeDir, freePort, newcomerEnv as newcomerEnvOf } from '../support/doc-commands.ts';
import { startSandbox } from '../../lib/sandbox/run.ts';

/**
 * The client guide (docs/guides/client.md) works as written: its walkthrough's shell blocks run in a
 * directory of their own, as a new user runs them, with three substitutions only: the command is this
 * checkout's bin and `npx tsx` its tsx (npx would look for them in the registry from a temporary
 * directory), and the docs' port (18091) is a free one. The sandbox is ended by a signal, as the guide says, and writes
 * its report; the certificate lists what was exercised. Every other command of the guide is run too, or
 * parsed where it would take a minute.
 */

const GUIDE = fromRoot('docs', 'guides', 'client.md');

/** The shell blocks of a section of the guide (up to the next `## `), in order. */
function shellBlocks(guide: string, heading: string): string[] {
  const start = guide.indexOf(`\n## ${heading}\n`);
  if (start < 0) throw new Error(`the guide has no section "${heading}"`);
  const next = guide.indexOf('\n## ', start + 1);
  const section = guide.slice(start, next < 0 ? undefined : next);
  return [...section.matchAll(/^```sh\n([\s\S]*?)^```$/gm)].map((m) => m[1] ?? '');
}

/** The environment of a newcomer: none of this run's settings. */
function newcomerEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!/^(ISWC_|PW_|PLAYWRIGHT_|TEST_)/.test(k)) env[k] = v;
  return env;
}

test('the guide\'s walkthrough works as written: profile check --client, the sandbox, a hand-written curl client, a signal ending the session with its report, a certificate of what was exercised', async () => {
  test.setTimeout(120_000);
  const blocks = shellBlocks(readFileSync(GUIDE, 'utf8'), 'Walkthrough');
  expect(blocks).toHaveLength(4);
  const port = String(await freePort());
  const bin = `node ${JSON.stringify(fromRoot('bin', 'iswc-conformance.mjs'))}`;
  const local = (block: string): string => block.replaceAll('npx iswc-conformance', bin).replaceAll('18091', port);
  const [check = '', sandboxBlock = '', client = '', certify = ''] = blocks;
  expect(sandboxBlock).toMatch(/\nnpx iswc-conformance sandbox --port 18091 /);

  const dir = mkdtempSync(path.join(tmpdir(), 'iswc-client-guide-'));
  symlinkSync(fromRoot('fixtures'), path.join(dir, 'fixtures'));
  symlinkSync(fromRoot('examples'), path.join(dir, 'examples'));
  const env = newcomerEnv();
  const sh = (script: string) => spawnSync('bash', ['-c', `set -euo pipefail\n${local(script)}`], { cwd: dir, env, encoding: 'utf8', timeout: 60_000 });
  try {
    const checked = sh(check);
    expect(checked.status, checked.stdout + checked.stderr).toBe(0);
    expect(checked.stdout).toContain('Result: a client can succeed at every operation with this profile (exit 0).');

    // Terminal 1: the export, then the sandbox in the shell's place (the signal goes to it).
    const lines = local(sandboxBlock).trim().split('\n');
    const script = [...lines.slice(0, -1), `exec ${lines[lines.length - 1] ?? ''}`].join('\n');
    const sandbox = spawn('bash', ['-c', script], { cwd: dir, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    sandbox.stdout.on('data', (d: Buffer) => (out += d.toString('utf8')));
    sandbox.stderr.on('data', (d: Buffer) => (out += d.toString('utf8')));
    const exited = new Promise<number | null>((resolve) => sandbox.on('exit', (code) => resolve(code)));
    try {
      await expect.poll(() => out, { timeout: 30_000 }).toContain(`listening http://127.0.0.1:${port}`);
      // Terminal 2: the client.
      const day = sh(client);
      expect(day.status, day.stdout + day.stderr).toBe(0);
      expect(day.stdout).toMatch(/^run [0-9a-f-]+: started, merged, demerged, deleted, ended$/m);
    } finally {
      // Ctrl-C in terminal 1.
      sandbox.kill('SIGINT');
    }
    await exited;
    expect(out).toContain('client conformance: conformant: run notification JSON, merge JSON, submission delete, demerge succeeded — 9 request(s)');
    expect(out).toContain('✓ demerge: 4 sent, 1 succeeded (503 ×3)');
    expect(out).toContain('trouble 429 on request 2: survived (request 3 with the same data succeeded)');
    const report = JSON.parse(readFileSync(path.join(dir, 'reports', 'client', 'client-conformance.json'), 'utf8')) as ClientReport;
    expect(report).toMatchObject({ verdict: 'conformant', endedBy: 'signal', requests: 9, strict: true });
    expect(report.client.userAgents).toEqual(['curl-agency-day/1.0']);

    const certified = sh(certify);
    expect(certified.status, certified.stdout + certified.stderr).toBe(0);
    expect(certified.stdout).toContain('client certificate: conformant: run notification JSON, merge JSON, submission delete, demerge succeeded;');
    expect(certified.stdout).toContain('✓ merge JSON: 2 sent, 1 succeeded');
    expect(existsSync(path.join(dir, 'reports', 'client', 'client-certificate.json'))).toBe(true);
    expect(`${out}${certified.stdout}${certified.stderr}`).not.toContain('my-sandbox-key');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('every sandbox command of the guide parses; its example clients run as written against the sandbox of terminal 1 as written, trouble included: each survives the 429 and the outage, conformant under --strict', async () => {
  test.setTimeout(180_000);
  const guide = readFileSync(GUIDE, 'utf8');
  // The command's own words: a shell's redirections and `&` after them are not its arguments.
  const commands = [...guide.matchAll(/^npx iswc-conformance sandbox(.*?)(?:\s+[0-9]*[>&].*)?$/gm)].map((m) => (m[1] ?? '').trim().split(/\s+/).filter((a) => a !== ''));
  expect(commands.length).toBeGreaterThanOrEqual(3);
  for (const args of commands) expect(parseSandboxArgs(args, { ISWC_SANDBOX_KEY: 'my-sandbox-key' }).kind, args.join(' ')).toBe('run');

  // Terminal 1 of the walkthrough, as written: its key and its arguments (the port a free one, as the guide's own test does).
  const terminal1 = shellBlocks(guide, 'Walkthrough')[1] ?? '';
  const key = /^export ISWC_SANDBOX_KEY=(\S+)/m.exec(terminal1)?.[1] ?? '';
  const args = (/^npx iswc-conformance sandbox (.*)$/m.exec(terminal1)?.[1] ?? '').trim().split(/\s+/).map((a) => (a === '18091' ? '0' : a));
  expect(args).toEqual(['--port', '0', '--inject', '429@2,503@4x3', '--strict', '--report-dir', 'reports/client']);

  const clients = [...guide.matchAll(/^(ISWC_BASE_URL=\S+ ISWC_SUBSCRIPTION_KEY=\S+ npx tsx examples\/\S+\.ts.*)$/gm)].map((m) => m[1] ?? '');
  expect(clients).toHaveLength(2);
  const dir = mkdtempSync(path.join(tmpdir(), 'iswc-client-guide-'));
  symlinkSync(fromRoot('fixtures'), path.join(dir, 'fixtures'));
  symlinkSync(fromRoot('examples'), path.join(dir, 'examples'));
  try {
    for (const line of clients) {
      const parsed = parseSandboxArgs(args, { ISWC_SANDBOX_KEY: key }, dir);
      if (parsed.kind !== 'run') throw new Error(`bad arguments: ${JSON.stringify(parsed)}`);
      const running = await startSandbox(parsed.options);
      const command = line.replaceAll('http://127.0.0.1:18091', running.url).replaceAll('npx tsx', JSON.stringify(fromRoot('node_modules', '.bin', 'tsx')));
      const ran = await new Promise<{ code: number | null; out: string }>((resolve) => {
        const child = spawn('bash', ['-c', command], { cwd: dir, env: newcomerEnv(), stdio: ['ignore', 'pipe', 'pipe'] });
        let out = '';
        child.stdout.on('data', (d: Buffer) => (out += d.toString('utf8')));
        child.stderr.on('data', (d: Buffer) => (out += d.toString('utf8')));
        child.on('exit', (code) => resolve({ code, out }));
      });
      const result = await running.stop();
      expect(ran.code, `${line}\n${ran.out}`).toBe(0);
      expect(result.report.verdict, `${line}: ${result.report.verdictText}`).toBe('conformant');
      expect(result.report.strict).toBe(true);
      // The 429 of request 2 and the outage of requests 4 to 6 were met, and survived.
      expect(result.report.trouble.map((t) => `${t.kind}@${t.request}: ${t.survived ? 'survived' : 'not survived'}`), line).toEqual(['429@2: survived', '503@4: survived', '503@5: survived', '503@6: survived']);
      expect(result.report.checks.exercised.find((c) => c.id === 'client.retry-after'), line).toMatchObject({ failed: 0 });
      rmSync(path.join(dir, 'reports'), { recursive: true, force: true });
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('the guide\'s CI step runs as written: the session ends by --idle and the sandbox exits with the verdict, 0 for the curl client through a 429 and an outage', async () => {
  test.setTimeout(120_000);
  const blocks = shellBlocks(readFileSync(GUIDE, 'utf8'), 'In CI: the verdict as the exit status');
  expect(blocks).toHaveLength(1);
  const port = String(await freePort());
  const step = (blocks[0] ?? '').replaceAll('18092', port);
  const dir = cloneLikeDir('iswc-client-ci-');
  const env = newcomerEnvOf(path.join(dir, '.npm-cache'));
  const sh = (script: string) => spawnSync('bash', ['-c', `set -euo pipefail\n${script}`], { cwd: dir, env, encoding: 'utf8', timeout: 90_000 });
  try {
    const ran = sh(step);
    const log = existsSync(path.join(dir, 'sandbox.log')) ? readFileSync(path.join(dir, 'sandbox.log'), 'utf8') : '';
    expect(ran.status, `${ran.stdout}${ran.stderr}\n${log}`).toBe(0);
    expect(log).toContain('client conformance: conformant: run notification JSON, merge JSON, submission delete, demerge succeeded');
    const report = JSON.parse(readFileSync(path.join(dir, 'reports', 'client-ci', 'client-conformance.json'), 'utf8')) as ClientReport;
    expect(report).toMatchObject({ verdict: 'conformant', endedBy: 'idle', strict: true });
    // A client that is not conformant fails the step: here it was asked for XML and sent JSON.
    const failing = sh(step.replace('--idle 5', '--idle 5 --formats xml'));
    expect(failing.status).toBe(1);
    expect(readFileSync(path.join(dir, 'sandbox.log'), 'utf8')).toContain('client conformance: not conformant: ');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
