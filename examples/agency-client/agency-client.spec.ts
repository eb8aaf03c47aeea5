import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect, _baseTest as test } from '@playwright/test';
import { allClientChecks } from '../../lib/check/client/registry.ts';
import type { ClientReport } from '../../lib/report/client/model.ts';
import { parseSandboxArgs } from '../../lib/sandbox/options.ts';
import { startSandbox } from '../../lib/sandbox/run.ts';
import { AgencyClient, ApiError } from './client.ts';
import { CATALOGUE_KEY, TARGET, faultSession, session } from './catalogue.ts';
import { startSandboxCommand } from './command.ts';
import { loadAgencyData } from './data.ts';
import { readClientExpectations } from './expectations.ts';
import { CLIENT_FAULTS } from './faults.ts';
import { agencyDay } from './flow.ts';

/**
 * The example client proves the sandbox: green through it with trouble on purpose (a 429, then an outage
 * of three 503s, each with Retry-After), in JSON and in XML, driven through the real command, every
 * operation exercised and succeeded; each fault of its catalogue
 * caught by its check, as pinned in tests/expectations/client-faults.json; every client check proven by a
 * fault; the late answer (`slow`) met once.
 */

const KEY = 'example-test-key-3c1e9a0b7d';

function filesOf(dir: string): string[] {
  return readdirSync(dir).map((f) => path.join(dir, f));
}

for (const format of ['json', 'xml'] as const) {
  test(`the example client is green through the sandbox with --inject 429@2,503@4x3 --strict, ${format.toUpperCase()}`, async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'iswc-example-'));
    try {
      // JSON: the session ends 5 s after the last request (--idle, counted from the first; longer than a Retry-After); XML: after its 9 requests (--requests).
      const ends = format === 'json' ? ['--idle', '5'] : ['--requests', '9'];
      const sandbox = await startSandboxCommand(['--port', '0', '--inject', '429@2,503@4x3', '--strict', '--report-dir', dir, ...ends], { ISWC_SANDBOX_KEY: KEY });
      const client = new AgencyClient({ baseUrl: sandbox.url, key: KEY, format });
      let outcome: Record<string, string>;
      try {
        outcome = await agencyDay(client, loadAgencyData(TARGET));
      } finally {
        await client.close();
      }
      expect(outcome).toEqual({ start: 'ok', merge: 'ok', demerge: 'ok', delete: 'ok', end: 'ok' });
      expect(client.sent).toBe(9);
      const exited = await sandbox.exited;
      expect(exited.code, exited.stdout + exited.stderr).toBe(0);
      expect(exited.stdout).toContain('client conformance: conformant');
      const report = JSON.parse(readFileSync(path.join(dir, 'client-conformance.json'), 'utf8')) as ClientReport;
      expect(report.verdict).toBe('conformant');
      expect(report.endedBy).toBe(format === 'json' ? 'idle' : 'requests');
      expect(report.requests).toBe(9);
      expect(report.checks.failed).toBe(0);
      // Production as built reads no XML: the XML client is told where it would be refused there (observed, never a failure).
      if (format === 'json') expect(report.checks.observed).toBe(0);
      else {
        expect(new Set(report.observations.map((o) => o.check))).toEqual(new Set(['client.production-as-built']));
        expect(report.observations.find((o) => o.operation === 'mergeIswcMetadata')?.received).toMatch(/^production as built answers 415 .* where the sandbox answered 204: the body was sent as application\/xml/);
      }
      // Each trouble survived by the same request succeeding: the merge at 3, the demerge at 7.
      expect(report.trouble).toEqual([
        { kind: '429', request: 2, operation: 'mergeIswcMetadata', survived: true, survivedBy: 3 },
        { kind: '503', request: 4, operation: 'demergeIswcMetadata', survived: true, survivedBy: 7 },
        { kind: '503', request: 5, operation: 'demergeIswcMetadata', survived: true, survivedBy: 7 },
        { kind: '503', request: 6, operation: 'demergeIswcMetadata', survived: true, survivedBy: 7 },
      ]);
      // Every operation exercised, in the format of the session, and succeeded.
      const upper = format.toUpperCase();
      const observed = format === 'xml' ? ` (${report.checks.observed} observations on open points, ${report.checks.observed} where production as built answers otherwise)` : '';
      expect(report.verdictText).toBe(`conformant: run notification ${upper}, merge ${upper}, submission delete, demerge succeeded${observed}${format === 'xml' ? '; the session ended after its 9 requests (--requests)' : ''}`);
      expect(report.coverage.missing).toEqual([]);
      // The Retry-After of each was honoured: judged, and passed.
      expect(report.checks.exercised.find((c) => c.id === 'client.retry-after')).toMatchObject({ passed: 4, failed: 0 });
      expect(report.client.userAgents).toEqual(['example-agency-client/1.0']);
      for (const file of [path.join(dir, 'client-conformance.json'), path.join(dir, 'client-junit.xml'), path.join(dir, 'client-conformance.html')]) {
        expect(existsSync(file), file).toBe(true);
        expect(readFileSync(file, 'utf8').includes(KEY), `${file} holds the key`).toBe(false);
      }
      expect(exited.stdout.includes(KEY)).toBe(false);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
}

const pinned = readClientExpectations();

for (const fault of CLIENT_FAULTS) {
  test(`client fault ${fault.id}: caught by ${fault.proves}, as pinned`, async () => {
    const outcome = await faultSession(fault);
    expect(outcome.flagged, `${fault.id} must be caught by ${fault.proves}`).toContain(fault.proves);
    expect(outcome.exitCode, 'spec and http (--strict) faults fail the session; observed ones never do').toBe(fault.level === 'observed' ? 0 : 1);
    expect({ level: fault.level, exitCode: outcome.exitCode, caughtBy: outcome.flagged }, 'tests/expectations/client-faults.json (after a deliberate change: npm run expectations:update:client)').toEqual(pinned[fault.id]);
    const finding = [...outcome.report.violations, ...outcome.report.observations].find((f) => f.check === fault.proves);
    expect(finding?.request.method).toBeTruthy();
    expect(JSON.stringify(outcome.report).includes(CATALOGUE_KEY)).toBe(false);
    if (fault.level === 'http') {
      // Without --strict the same violation is reported and does not fail the session.
      const lenient = await faultSession({ ...fault, sandbox: fault.sandbox.filter((a) => a !== '--strict') });
      expect(lenient.flagged).toContain(fault.proves);
      expect(lenient.exitCode).toBe(0);
    }
  });
}

test('every client check is proven by a fault of the catalogue, and the pinned file lists exactly the catalogue', () => {
  const ids = allClientChecks().map((c) => c.id);
  for (const fault of CLIENT_FAULTS) expect(ids, `${fault.id} proves an unknown check`).toContain(fault.proves);
  const caught = new Set(Object.values(pinned).flatMap((p) => p.caughtBy));
  expect(ids.filter((id) => !caught.has(id)), 'client checks no fault catches').toEqual([]);
  expect(Object.keys(pinned).sort()).toEqual(CLIENT_FAULTS.map((f) => f.id).sort());
});

test('a late answer (slow, 15 s): the client waits for it, goes on, and the session ends after --idle', async () => {
  test.setTimeout(60_000);
  const dir = mkdtempSync(path.join(tmpdir(), 'iswc-example-'));
  try {
    const parsed = parseSandboxArgs(['--port', '0', '--inject', 'slow@1', '--idle', '1', '--operations', 'run', '--report-dir', dir], { ISWC_SANDBOX_KEY: KEY });
    if (parsed.kind !== 'run') throw new Error('bad arguments');
    const running = await startSandbox(parsed.options);
    const client = new AgencyClient({ baseUrl: running.url, key: KEY });
    const data = loadAgencyData(TARGET);
    const started = Date.now();
    try {
      const runId = await client.startRun(data.agency, data.agentVersion);
      expect(Date.now() - started).toBeGreaterThanOrEqual(14_900);
      await client.endRun(runId, data.agency, data.agentVersion, { updateRecordCount: 0, newRecordCount: 0, overallRejected: 0, overallSent: 0, successfulCount: 0, businessRejectionCount: 0, technicalRejectionCount: 0 });
    } finally {
      await client.close();
    }
    const result = await running.done;
    expect(result.report.endedBy).toBe('idle');
    // The late answer was a success the client waited for: survived by the request itself.
    expect(result.report.trouble).toEqual([{ kind: 'slow', request: 1, operation: 'notifyAgentRun', survived: true, survivedBy: 1 }]);
    expect(result.exitCode).toBe(0);
    expect(filesOf(dir).map((f) => path.basename(f)).sort()).toEqual(['client-conformance.html', 'client-conformance.json', 'client-junit.xml', 'client-session.jsonl']);
    // The late answer is the API's own (the sandbox only held it back): recorded as an answer, not as trouble.
    const lines = readFileSync(path.join(dir, 'client-session.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { status?: number; trouble?: string });
    expect(lines.slice(1).map((l) => [l.status, l.trouble])).toEqual([
      [200, undefined],
      [200, undefined],
    ]);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a 401 and a reset on purpose: the client sees the gateway refusal and a closed connection, and goes on', async () => {
  const data = loadAgencyData(TARGET);
  let refused: unknown;
  const outcome = await session(['--inject', '401@1,reset@2'], 'json', async (client) => {
    refused = await client.startRun(data.agency, data.agentVersion).catch((e: unknown) => e);
    await agencyDay(client, data);
  });
  expect(refused).toBeInstanceOf(ApiError);
  expect((refused as ApiError).status).toBe(401);
  expect((refused as ApiError).body).toContain('Access denied');
  // Survived: the same run start (the same body) succeeded at request 3.
  expect(outcome.report.trouble).toEqual([
    { kind: '401', request: 1, operation: 'notifyAgentRun', survived: true, survivedBy: 3 },
    { kind: 'reset', request: 2, operation: 'notifyAgentRun', survived: true, survivedBy: 3 },
  ]);
  expect(outcome.exitCode).toBe(0);
  // The reset start was sent again after a backoff (one retry, bounded).
  expect(outcome.report.checks.exercised.find((c) => c.id === 'client.retries-bounded')).toMatchObject({ passed: 1, failed: 0 });
});

test('bad usage exits 2 with what is wrong, before listening', async () => {
  await expect(startSandboxCommand(['--inject', 'teapot@1'], { ISWC_SANDBOX_KEY: KEY })).rejects.toThrow(/exited \(2\).*unknown kind "teapot"/s);
});
