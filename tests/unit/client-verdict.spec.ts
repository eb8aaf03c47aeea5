import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect, _baseTest as test } from '@playwright/test';
import type { ClientReport } from '../../lib/report/client/model.ts';
import { clientReportViolations } from '../../lib/report/client/validate.ts';
import { parseSandboxArgs } from '../../lib/sandbox/options.ts';
import { startSandbox } from '../../lib/sandbox/run.ts';
import { cliInProcess } from '../support/cli.ts';

/**
 * One verdict everywhere: what the client achieved (operations × formats that succeeded), trouble
 * survived only by the same request succeeding, and client-junit.xml failing exactly when the verdict
 * does, with counts that match it. And `profile check --client`, which says what a client can exercise.
 */

const KEY = 'verdict-unit-key-9a8b7c6d5e';
const H = { 'Ocp-Apim-Subscription-Key': KEY };
const DELETE_A = '/submission?preferredIswc=T3300000000&agency=128&workcode=IM00900100&sourceDb=128&reasonCode=EdiV1';
const DELETE_B = '/submission?preferredIswc=T3300000102&agency=128&workcode=IM00900101&sourceDb=128&reasonCode=EdiV1';

async function session(args: string[], drive: (url: string) => Promise<void>): Promise<{ report: ClientReport; junit: string; exitCode: number }> {
  const dir = mkdtempSync(path.join(tmpdir(), 'iswc-verdict-'));
  try {
    const parsed = parseSandboxArgs(['--port', '0', '--report-dir', dir, ...args], { ISWC_SANDBOX_KEY: KEY });
    if (parsed.kind !== 'run') throw new Error(`bad arguments: ${JSON.stringify(parsed)}`);
    const running = await startSandbox(parsed.options);
    await drive(running.url);
    const result = await running.stop();
    expect(clientReportViolations(JSON.parse(readFileSync(path.join(dir, 'client-conformance.json'), 'utf8')))).toEqual([]);
    return { report: result.report, junit: readFileSync(path.join(dir, 'client-junit.xml'), 'utf8'), exitCode: result.exitCode };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const status = async (url: string, init: RequestInit): Promise<number> => {
  const res = await fetch(url, init);
  await res.arrayBuffer();
  return res.status;
};

test('trouble is survived only when the same operation with the same data later succeeds, not when another request does', async () => {
  const { report } = await session(['--inject', '503@1,503@4', '--operations', 'delete,merge'], async (url) => {
    expect(await status(`${url}${DELETE_A}`, { method: 'DELETE', headers: H })).toBe(503);
    // Another submission deleted: the client went on, but the delete that met the outage did not succeed.
    expect(await status(`${url}${DELETE_B}`, { method: 'DELETE', headers: H })).toBe(204);
    // The same delete, its query in another order: the same data.
    const reordered = `/submission?agency=128&preferredIswc=T3300000000&reasonCode=EdiV1&sourceDb=128&workcode=IM00900100`;
    expect(await status(`${url}${reordered}`, { method: 'DELETE', headers: H })).toBe(204);
    // A merge that meets a 503, retried with the same body written with other spacing and key order.
    const merge = `${url}/iswc/merge?preferredIswc=T3100000004&agency=128`;
    const headers = { ...H, 'Content-Type': 'application/json' };
    expect(await status(merge, { method: 'POST', headers, body: '{"iswcs":["T3100000015"],"agencyWorks":[{"agencyCode":"128","agencyWorkCode":"IM00700100"}]}' })).toBe(503);
    expect(await status(merge, { method: 'POST', headers, body: '{ "agencyWorks": [ { "agencyWorkCode": "IM00700100", "agencyCode": "128" } ], "iswcs": [ "T3100000015" ] }' })).toBe(204);
  });
  expect(report.trouble).toEqual([
    { kind: '503', request: 1, operation: 'deleteSubmission', survived: true, survivedBy: 3 },
    { kind: '503', request: 4, operation: 'mergeIswcMetadata', survived: true, survivedBy: 5 },
  ]);
  const lost = await session(['--inject', '503@1', '--operations', 'delete'], async (url) => {
    expect(await status(`${url}${DELETE_A}`, { method: 'DELETE', headers: H })).toBe(503);
    expect(await status(`${url}${DELETE_B}`, { method: 'DELETE', headers: H })).toBe(204);
  });
  expect(lost.report.trouble).toEqual([{ kind: '503', request: 1, operation: 'deleteSubmission', survived: false }]);
  expect(lost.report.verdict).toBe('conformant');
});

/** The testsuites element's counts and every failure's type. */
function junitCounts(xml: string): { tests: number; failures: number; errors: number; failureTypes: string[] } {
  const root = /<testsuites [^>]*tests="(\d+)" failures="(\d+)" errors="(\d+)"/.exec(xml);
  return { tests: Number(root?.[1]), failures: Number(root?.[2]), errors: Number(root?.[3]), failureTypes: [...xml.matchAll(/<failure message="[^"]*" type="([^"]+)"/g)].map((m) => m[1] ?? '') };
}

test('client-junit.xml: no <failure> when the verdict passes (an http finding without --strict is system-out); with --strict the same finding fails, counted as the verdict counts it', async () => {
  // Retried 1.2 s after a 429 with Retry-After: 2 (fetch's pool may take another connection: judged all the same).
  const retryAtOnce = async (url: string): Promise<void> => {
    expect(await status(`${url}${DELETE_A}`, { method: 'DELETE', headers: H })).toBe(429);
    await new Promise((r) => setTimeout(r, 1200));
    expect(await status(`${url}${DELETE_A}`, { method: 'DELETE', headers: H })).toBe(204);
  };
  const lenient = await session(['--inject', '429@1', '--operations', 'delete'], retryAtOnce);
  expect(lenient.report.verdict).toBe('conformant');
  expect(lenient.exitCode).toBe(0);
  expect(lenient.report.checks.failed).toBe(1);
  const soft = junitCounts(lenient.junit);
  expect(soft).toMatchObject({ failures: 0, errors: 0, failureTypes: [] });
  expect(lenient.junit).not.toContain('<failure');
  expect(lenient.junit).toContain('not gating (http; --strict makes it gate): 1 of 1 requests violate it');
  expect(lenient.junit).toContain('<property name="gatingViolations" value="0"/>');

  const strict = await session(['--inject', '429@1', '--operations', 'delete', '--strict'], retryAtOnce);
  expect(strict.report.verdict).toBe('not conformant');
  expect(strict.report.verdictText).toBe('not conformant: 1 gating violation of 1 check');
  expect(junitCounts(strict.junit)).toMatchObject({ failures: 1, errors: 0, failureTypes: ['http:client.retry-after'] });
  expect(strict.junit).toContain('<property name="gatingViolations" value="1"/>');
});

test('client-junit.xml fails each declared operation that never succeeded, and an incomplete session is an error', async () => {
  const partial = await session(['--operations', 'delete,demerge'], async (url) => {
    expect(await status(`${url}${DELETE_A}`, { method: 'DELETE', headers: H })).toBe(204);
    // Not merged there: refused.
    expect(await status(`${url}/iswc/merge?preferredIswc=T3200000002&agency=128&workcode=NOTMERGED`, { method: 'DELETE', headers: H })).toBe(400);
  });
  expect(partial.report.verdictText).toBe('not conformant: demerge sent 1 time, never succeeded (400 ×1)');
  expect(partial.report.coverage.cells.map((c) => [c.operation, c.format, c.requests, c.succeeded, c.declared])).toEqual([
    ['deleteSubmission', 'none', 1, 1, true],
    ['demergeIswcMetadata', 'none', 1, 0, true],
  ]);
  const counts = junitCounts(partial.junit);
  expect(counts).toMatchObject({ failures: 1, errors: 0, failureTypes: ['coverage:demergeIswcMetadata'] });
  expect(counts.failures).toBe(partial.report.checks.gatingFailures + partial.report.coverage.missing.length);
  expect(partial.junit).toContain('<property name="operationsNotSucceeded" value="1"/>');

  const nothing = await session([], () => Promise.resolve());
  expect(nothing.report.verdict).toBe('incomplete');
  expect(junitCounts(nothing.junit)).toMatchObject({ failures: 0, errors: 1 });
});

test('profile check --client says what a client can exercise, entry by entry, with a request it can send; an operation it cannot succeed at is exit 1 with what to add', async () => {
  const good = await cliInProcess(['profile', 'check', '--client', 'fixtures/targets/sandbox-client.json']);
  expect(good.code, good.out).toBe(0);
  expect(good.stdout).toContain('Target profile fixtures/targets/sandbox-client.json: "sandbox-client", agency 128, for a client under test');
  expect(good.stdout).toMatch(/✓ merge +3 merges not yet done \(merges\), each once per session/);
  expect(good.stdout).toContain('e.g. POST /iswc/merge?preferredIswc=T3100000004&agency=128 {"iswcs":["T3100000015"],"agencyWorks":[{"agencyCode":"128","agencyWorkCode":"IM00700100"}]}');
  expect(good.stdout).toMatch(/✓ demerge +3 works already merged \(demerges\), each once per session; after a merge, its agency works/);
  expect(good.stdout).toContain('e.g. DELETE /submission?preferredIswc=T3300000000&agency=128&workcode=IM00900100&sourceDb=128&reasonCode=EdiV1');
  expect(good.stdout).toContain('requests for another agency than 128 are refused with 403');
  expect(good.stdout).toContain('Result: a client can succeed at every operation with this profile (exit 0).');

  const thin = await cliInProcess(['profile', 'check', '--client', 'fixtures/targets/minimal.json']);
  expect(thin.code).toBe(1);
  expect(thin.stdout).toContain('✗ submission delete  nothing to delete: add a submissions entry');
  expect(thin.stdout).toContain('Operations a client can succeed at: 1 of 4');
  expect(thin.stdout).toContain('Result: 3 operations a client cannot succeed at (exit 1).');

  const mixed = await cliInProcess(['profile', 'check', '--client', 'fixtures/targets/minimal.json', '--budget', '10']);
  expect(mixed.code).toBe(2);
  expect(mixed.stderr).toContain('--budget plans a run of the suite');

  // The profile named as run and plan name it (a newcomer typed --target): the same check; two profiles, or none, exit 2.
  const named = await cliInProcess(['profile', 'check', '--client', '--target', 'fixtures/targets/minimal.json']);
  expect(named.code).toBe(1);
  expect(named.stdout).toBe(thin.stdout);
  const two = await cliInProcess(['profile', 'check', 'fixtures/targets/minimal.json', '--target', 'fixtures/targets/embedded.json']);
  expect(two.code).toBe(2);
  expect(two.stderr).toContain('two profiles given, fixtures/targets/minimal.json and --target fixtures/targets/embedded.json: name one');
  const none = await cliInProcess(['profile', 'check']);
  expect(none.code).toBe(2);
  expect(none.stderr).toContain('name the profile to check: npx iswc-conformance profile check FILE (or --target FILE)');
});

test('the client profile carries notes for people that the harness drops: entries hold only the data it sends', async () => {
  const { loadProfile } = await import('../../lib/contract/profile/load.ts');
  const profile = loadProfile('fixtures/targets/sandbox-client.json');
  expect(JSON.stringify(profile)).not.toContain('$comment');
  expect(profile.merges[0]).toEqual({ preferredIswc: 'T3100000004', iswcs: ['T3100000015'], agencyWorks: [{ agencyCode: '128', agencyWorkCode: 'IM00700100' }] });
  const raw = JSON.parse(readFileSync('fixtures/targets/sandbox-client.json', 'utf8')) as { merges: Array<{ $comment?: string }>; demerges: Array<{ $comment?: string }>; submissions: Array<{ $comment?: string }> };
  // Each entry says what a client may do with it.
  for (const m of raw.merges) expect(m.$comment).toMatch(/^Not yet merged: merge /);
  for (const d of raw.demerges) expect(d.$comment).toMatch(/^Already merged: demerge /);
  for (const s of raw.submissions) expect(s.$comment).toMatch(/^Exists: delete it/);
});
