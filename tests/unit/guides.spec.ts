import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { expect, _baseTest as test } from '@playwright/test';
import { fromRoot } from '../../lib/foundation/paths.ts';
import { runDocBlocks } from '../support/doc-commands.ts';

/**
 * Every guide of docs/guides/ works as written: its shell blocks run in order, in a directory that looks
 * like a fresh clone, against the stand-ins the guide itself starts (tests/support/doc-commands.ts says
 * how a guide marks them). Each test then checks what the guide says the reader gets.
 */

const guide = (name: string): string => readFileSync(fromRoot('docs', 'guides', name), 'utf8');

test('docs/guides/certify.md: profile check, a stand-in, plan, the run, a signed certificate and its check', async () => {
  test.setTimeout(300_000);
  const run = await runDocBlocks(guide('certify.md'), {
    label: 'certify.md',
    timeoutMs: 280_000,
    inspect: (dir) => {
      for (const file of ['my-staging.json', 'issuer.pub.pem', 'reports/conformance.html', 'reports/certificate.json', 'reports/certificate.html']) expect(existsSync(path.join(dir, file)), file).toBe(true);
    },
  });
  const out = run.output;
  expect(run.status, out.slice(-4000)).toBe(0);
  expect(out).toContain('Target profile my-staging.json: "my-staging", agency 128');
  expect(out).toMatch(/destructive \(--destructive\) +17 of 25 /);
  expect(out).toMatch(/total: (\d+ to )?\d+ requests, at most about \d+ min at 0\.167 requests\/s/);
  expect(out).toContain('exit code: 0 (conformant)');
  expect(out).toContain('certificate: conformant (smoke plan: every spec check exercised, not every case run) — agency 128');
  expect(out).toMatch(/verify: reports\/certificate\.json: signed by sha256:[0-9a-f]{64} and unedited since/);
  expect(out).not.toContain('my-test-key');
});

test('docs/guides/ci-gate.md: profile check, a stand-in, the plan, a non-destructive smoke gate with waivers and its JUnit file; the rehearsal on the production model', async () => {
  // The guide runs six commands against three servers, the rehearsal two gates and a certificate.
  test.setTimeout(600_000);
  const text = guide('ci-gate.md');
  const run = await runDocBlocks(text, {
    label: 'ci-gate.md',
    timeoutMs: 580_000,
    inspect: (dir) => {
      const junit = readFileSync(path.join(dir, 'reports', 'gate', 'conformance-junit.xml'), 'utf8');
      expect(junit).toContain('<testcase');
      expect(junit).not.toContain('my-test-key');
    },
  });
  const out = run.output;
  expect(run.status, out.slice(-4000)).toBe(0);
  expect(out).toMatch(/non-destructive \(the default on a remote target\) +17 of 25 /);
  expect(out).toMatch(/budget of 60 requests/);
  expect(out).toMatch(/total: (\d+ to )?\d+ requests, at most about \d+ min at 0\.167 requests\/s/);
  // One figure: profile check, plan and the run itself say the same 17.
  expect(out).toMatch(/spec checks: 17 of 25 exercised; not exercised: /);
  expect(out).toContain('conformant on 17 of 25 spec checks');
  expect(out).toContain('unused waivers in fixtures/waivers/production-deviations.yaml');
  expect(out).toContain('exit code: 0');
  expect(out).toContain('conformance-junit.xml');
  // The ledger of the rotating gate (issue 37): the slice it took, what it tried, what is still to come.
  expect(out).toMatch(/profile "staging-example", destructive, budget 60: 1 run recorded what it tried/);
  expect(out).toContain('slices run: 3; the next gate: --slice 4');
  expect(out).toMatch(/tried: \d+ of the \d+ faults of the catalogue a destructive run can show/);
  expect(out).toMatch(/not yet tried: \d+/);
  expect(out).not.toContain('my-test-key');
  // The rehearsal (issue 29): a profile production accepts, the gate green on the model with the narrowed
  // waivers, destructive and not, one figure for waivers (issue 30), none called unused, a certificate.
  expect(out).toContain('Against production as built (docs/production.md): every entry names agency 128');
  expect(out).toContain('waivers of fixtures/waivers/production-as-built.yaml: 4 used, 4 not exercised, 0 unused, 0 expired; 0 failures looked otherwise (not waived)');
  expect(out).toContain('verdict: conformant on 17 of 25 spec checks with 4 waivers (strict)');
  expect(out).toContain('certificate: incomplete: 17 of 25 spec checks exercised with 4 waivers, JSON only');
  expect(out).toContain('waivers of fixtures/waivers/production-as-built.yaml: 6 used, 2 not exercised, 0 unused, 0 expired; 0 failures looked otherwise (not waived)');
  expect(out).toContain('verdict: conformant with 6 waivers (strict)');
  expect(out).not.toContain('unused waivers in fixtures/waivers/production-as-built.yaml');
  // The CI job runs the commands the guide runs.
  expect(ciRunLines(text).length).toBeGreaterThan(0);
  const commands = shellCommands(text);
  for (const line of ciRunLines(text)) expect(commands, `the CI job's "${line}" is a command of the guide`).toContain(line);
});

test('docs/guides/regression.md: two builds, a base kept, the head with the same inputs, the diff and a replay', async () => {
  test.setTimeout(300_000);
  const run = await runDocBlocks(guide('regression.md'), {
    label: 'regression.md',
    timeoutMs: 280_000,
    inspect: (dir) => {
      for (const file of ['baselines/conformance.json', 'reports/diff.md', 'reports/diff.html', 'reports/build-2/conformance.html']) expect(existsSync(path.join(dir, file)), file).toBe(true);
    },
  });
  const out = run.output;
  expect(run.status, out.slice(-4000)).toBe(0);
  expect(out).toContain('baseline: reports/build-1/conformance.json → baselines/conformance.json');
  expect(out).toContain('exit code: 1 (not conformant)');
  expect(out).toMatch(/\*\*2 newly failing\*\* \(2 spec\)/);
  expect(out).toContain('### `status.not-found` [spec, §4.2, §7] — merge (2)');
  expect(out).toContain('## Observed behaviour that changed');
  expect(out).toContain('**Result: a `spec` check newly fails (exit status 1).**');
  expect(out).toContain('replay failure 9ee4255f: status.not-found');
  expect(out).toContain('verdict: the failure happens again');
  // Each `|| echo` line printed the exit code the guide says.
  expect(out.match(/^exit code 1$/gm)).toHaveLength(3);
  expect(out).not.toContain('my-test-key');
});

/** The commands of a guide's sh blocks, one per line, continuations joined. */
function shellCommands(markdown: string): string[] {
  return [...markdown.matchAll(/^```sh\n([\s\S]*?)^```$/gm)].flatMap((m) => (m[1] ?? '').replace(/\\\n\s*/g, '').split('\n').map((l) => l.trim()));
}

/** The `run:` lines of a guide's YAML blocks. */
function ciRunLines(markdown: string): string[] {
  return [...markdown.matchAll(/^```yaml\n([\s\S]*?)^```$/gm)].flatMap((m) => [...(m[1] ?? '').matchAll(/^\s*(?:- )?run: (.+)$/gm)].map((r) => (r[1] ?? '').trim()).filter((l) => l !== 'npm ci'));
}

test('the runner of the guides: background blocks started and stopped, the docs\' ports made free ones, and the first command that fails stops the script', async () => {
  const doc = [
    '# A guide',
    '',
    '```sh background',
    "node -e \"const s = require('node:http').createServer((q, r) => r.end('hello')).listen(18085, '127.0.0.1', () => console.log('listening http://127.0.0.1:' + s.address().port))\"",
    '```',
    '',
    '```text',
    'not run',
    '```',
    '',
    '```sh',
    "node -e \"fetch('http://127.0.0.1:18085/').then((r) => r.text()).then((t) => console.log('got ' + t))\"",
    'false',
    'echo never printed',
    '```',
  ].join('\n');
  const run = await runDocBlocks(doc, { label: 'runner', timeoutMs: 60_000 });
  expect(run.status).not.toBe(0);
  expect(run.output).toContain('got hello');
  expect(run.output).not.toContain('never printed');
  const port = run.ports.get('18085');
  expect(port).toBeDefined();
  expect(run.script).toContain(`listen(${port}`);
  expect(run.script).not.toContain('18085');
  // The background block was stopped with the script: its port is free again.
  const refused = await fetch(`http://127.0.0.1:${port}/`).then(
    () => false,
    () => true,
  );
  expect(refused).toBe(true);
});
