import { expect, _baseTest as test } from '@playwright/test';
import { allChecks, checkById } from '../../lib/check/registry.ts';
import { createJudge } from '../../lib/check/judge.ts';
import { fieldConstraints } from '../../lib/contract/constraints.ts';
import { planSuite } from '../../lib/run/plan.ts';
import { boundaryValues, codePoints } from '../../lib/generate/values.ts';
import type { OperationId } from '../../lib/contract/operations.ts';
import type { Exchange } from '../../lib/contract/exchange.ts';
import { partition } from '../../lib/run/claims.ts';
import { loadProfile } from '../../lib/contract/profile/load.ts';
import { fromRoot } from '../../lib/foundation/paths.ts';

const profile = loadProfile(fromRoot('fixtures', 'targets', 'embedded.json'));

test('boundary values are labelled by the validator, with the role every reading of "characters" lets them play', () => {
  const agency = fieldConstraints().find((c) => c.id === 'notifyAgentRun.body.agencyCode');
  if (!agency) throw new Error('agencyCode constraint missing');
  const values = boundaryValues(agency, '128');
  const byLabel = Object.fromEntries(values.map((v) => [v.label, v]));
  // At its limit an agency code of exactly 3 characters is the nominal value itself: nothing to show.
  expect(byLabel['at-min']).toBeUndefined();
  expect(byLabel['below-min']).toMatchObject({ value: '12', valid: false, role: 'rejected' });
  expect(byLabel['above-max']).toMatchObject({ value: '128X', valid: false, role: 'rejected' });
  // An empty string may read as an absent field: recorded only.
  expect(byLabel.empty).toMatchObject({ valid: false, role: 'edge' });
  const astralAt = byLabel['astral-at-min'];
  expect(astralAt).toMatchObject({ valid: true, role: 'characters' });
  expect(codePoints(String(astralAt?.value))).toBe(3);
  expect(String(astralAt?.value).length).toBe(4);
  expect(astralAt?.lengths).toEqual({ codePoints: 3, utf16Units: 4, graphemes: 3, utf8Bytes: 6 });
  expect(byLabel['astral-below-min']).toMatchObject({ valid: false, role: 'characters' });
  expect(byLabel['combining-above-max']).toMatchObject({ valid: false, role: 'characters' });
  const count = fieldConstraints().find((c) => c.id === 'notifyAgentRun.body.newRecordCount');
  if (!count) throw new Error('counter constraint missing');
  expect(boundaryValues(count, 1).map((v) => [v.value, v.valid, v.role])).toEqual([
    [-2147483648, true, 'edge'],
    [-2147483649, false, 'rejected'],
    // A large but realistic count is demanded; the 32-bit maximum is only recorded (a server may cap counts
    // at what is plausible: docs/readings.md, "A plausibility cap on counts").
    [1000000, true, 'accepted'],
    [2147483647, true, 'edge'],
    [2147483648, false, 'rejected'],
  ]);
  const sourceDb = fieldConstraints().find((c) => c.id === 'deleteSubmission.query.sourceDb');
  if (!sourceDb) throw new Error('sourceDb constraint missing');
  // The largest sourceDb names no real hub: a server may refuse it as unknown, so it is only recorded.
  expect(boundaryValues(sourceDb, 128).find((v) => v.label === 'at-max')?.role).toBe('edge');
  const iswc = fieldConstraints().find((c) => c.id === 'mergeIswcMetadata.body.iswcs[]');
  if (!iswc) throw new Error('iswcs constraint missing');
  const roles = Object.fromEntries(boundaryValues(iswc, 'T0345246801').map((v) => [v.label, v.role]));
  expect(roles).toMatchObject({ 'pattern-one-char-short': 'rejected', 'pattern-letter-for-digit': 'rejected', 'pattern-lower-case': 'edge', 'pattern-separators': 'edge', 'pattern-trailing-space': 'edge' });
});

test('disposable entries are partitioned deterministically, never twice, and run out with a reason', () => {
  const claims = [
    { key: 'a@json', kind: 'merges' as const, count: 1 },
    { key: 'a@xml', kind: 'merges' as const, count: 1 },
    { key: 'b@json', kind: 'merges' as const, count: profile.merges.length },
  ];
  const first = partition(profile, claims);
  const second = partition(profile, claims);
  expect([...first.entries()]).toEqual([...second.entries()]);
  const a = first.get('a@json');
  const b = first.get('a@xml');
  expect(a?.ok && b?.ok && a.entries[0] !== b.entries[0]).toBe(true);
  const c = first.get('b@json');
  expect(c?.ok).toBe(false);
  // Two entries went to the claims before it: two more would serve it.
  if (c && !c.ok) expect(c.reason).toMatch(/^needs 2 more merges \(the target profile lists \d+, 2 of them given to cases planned before this one\)$/);
});

test('the suite plan consumes every disposable entry at most once across projects, never one that is only named', async () => {
  const plan = await planSuite(profile, { destructive: true });
  const consuming = plan.filter((p) => p.def.claims?.some((c) => !c.readOnly));
  const consumed = consuming.flatMap((p) => Object.values(p.entries).flat());
  expect(new Set(consumed).size).toBe(consumed.length);
  const named = new Set(plan.filter((p) => p.def.claims?.every((c) => c.readOnly)).flatMap((p) => Object.values(p.entries).flat()));
  expect(consumed.filter((e) => named.has(e))).toEqual([]);
  expect(plan.filter((p) => p.skipReason).map((p) => p.key)).toEqual([]);
  const safe = await planSuite(profile, { destructive: false });
  expect(safe.filter((p) => p.def.claims?.some((c) => !c.readOnly)).every((p) => p.skipReason)).toBe(true);
});

test('every check names a level and a section; ids are unique', () => {
  const ids = allChecks().map((c) => c.id);
  expect(new Set(ids).size).toBe(ids.length);
  for (const c of allChecks()) {
    expect(c.sections.length, c.id).toBeGreaterThan(0);
    expect(['spec', 'http', 'observed']).toContain(c.level);
  }
});

function exchange(status: number, body = '', headers: Record<string, string> = {}): Exchange {
  return {
    request: { method: 'POST', url: 'http://x/agent/run', headers: {}, body: '', bodyBytes: 0, bodyTruncated: false, auth: 'key' },
    response: { status, headers, body, bodyBytes: Buffer.byteLength(body), truncated: false },
    durationMs: 1,
    attempts: 1,
    waitedMs: 0,
  };
}

/** The exchange sent to another URL (a query the judge reads). */
const atUrl = (ex: Exchange, url: string): Exchange => ({ ...ex, request: { ...ex.request, url } });

const judge = (id: string, ex: Exchange, params: unknown = undefined, extra: number[] = [], operation: OperationId = 'notifyAgentRun') =>
  checkById(id).judge({ operation, format: 'json', exchange: ex, params: params as never, authProbe: false, extraStatuses: extra })?.verdict;

const problem = (title: string) => JSON.stringify({ type: 'https://tools.ietf.org/html/rfc9110#section-15.5.1', title, status: 400, traceId: '00-1-2-00' });

const cases: Array<[string, string, Exchange, unknown, string | undefined, OperationId?]> = [
  ['documented status', 'status.documented', exchange(200, '{"runId":"a"}', { 'content-type': 'application/json' }), undefined, 'pass'],
  ['undocumented 404 on the run notification', 'status.documented', exchange(404), undefined, 'fail'],
  ['5xx', 'http.no-5xx', exchange(502), undefined, 'fail'],
  ['text Bad Request', 'text.bad-request', exchange(400, 'Bad Request', { 'content-type': 'text/plain' }), undefined, 'pass'],
  ['text Bad Request as a JSON string', 'text.bad-request', exchange(400, '"Bad Request"', { 'content-type': 'application/json' }), undefined, 'pass'],
  ['Bad Request as the title of a problem+json', 'text.bad-request', exchange(400, problem('Bad Request'), { 'content-type': 'application/problem+json' }), undefined, 'pass'],
  ['Bad Request in an XML text node', 'text.bad-request', exchange(400, '<Error><Title>Bad Request</Title><Message>x</Message></Error>', { 'content-type': 'application/xml' }), undefined, 'pass'],
  ['Not Authorized as an API Management message', 'text.not-authorized', exchange(401, '{"statusCode":401,"message":"Not Authorized"}', { 'content-type': 'application/json' }), undefined, 'pass'],
  ['a problem+json without the text', 'text.bad-request', exchange(400, problem('One or more validation errors occurred.'), { 'content-type': 'application/problem+json' }), undefined, 'fail'],
  ['the text leading a detail after a colon', 'text.bad-request', exchange(400, '{"message":"Bad Request: agencyCode"}', { 'content-type': 'application/json' }), undefined, 'pass'],
  ['the text inside a longer message', 'text.bad-request', exchange(400, '{"message":"Error: Bad Request for agencyCode"}', { 'content-type': 'application/json' }), undefined, 'fail'],
  ['other text on 400', 'text.bad-request', exchange(400, 'Invalid', { 'content-type': 'text/plain' }), undefined, 'fail'],
  ['an empty 400', 'text.bad-request', exchange(400), undefined, 'fail'],
  ['CsnNotification JSON', 'response.schema', exchange(200, '{"runId":"r"}', { 'content-type': 'application/json' }), undefined, 'pass'],
  ['CsnNotification XML without Content-Type', 'response.schema', exchange(200, '<CsnNotification><runId>r</runId></CsnNotification>'), undefined, 'pass'],
  ['runId as an XML attribute of the root', 'response.schema', exchange(200, '<CsnNotification xmlns:i="http://www.w3.org/2001/XMLSchema-instance" runId="r&amp;1"/>', { 'content-type': 'application/xml' }), undefined, 'pass'],
  ['CsnNotification XML without runId', 'response.schema', exchange(200, '<CsnNotification other="r"/>', { 'content-type': 'application/xml' }), undefined, 'fail'],
  ['runId as a number', 'response.schema', exchange(200, '{"runId":5}', { 'content-type': 'application/json' }), undefined, 'fail'],
  ['wrong XML root', 'response.schema', exchange(200, '<AgentRun><runId>r</runId></AgentRun>', { 'content-type': 'application/xml' }), undefined, 'fail'],
  ['missing Content-Type', 'http.content-type', exchange(400, 'x'), undefined, 'fail'],
  ['JSON labelled XML', 'http.content-type', exchange(200, '{"a":1}', { 'content-type': 'application/xml' }), undefined, 'fail'],
  ['problem+json is JSON', 'http.content-type', exchange(400, problem('Bad Request'), { 'content-type': 'application/problem+json; charset=utf-8' }), undefined, 'pass'],
  ['stack trace', 'http.no-internals', exchange(400, 'Error: x\n    at f (/srv/app/server.js:1:2)', { 'content-type': 'text/plain' }), undefined, 'fail'],
  ['204 with a body', 'response.no-body-204', exchange(204, '{}'), undefined, 'fail'],
  ['at the limit, answered like the nominal request', 'limit.accepted', exchange(404), { because: 'x', nominalStatus: 404 }, 'pass'],
  ['at the limit, a business 400 like the nominal request', 'limit.accepted', exchange(400), { because: 'x', nominalStatus: 400 }, 'pass'],
  ['at the limit, refused where the nominal request was not', 'limit.accepted', exchange(400), { because: 'x', nominalStatus: 404 }, 'fail'],
  ['at the limit, but the nominal request got no answer', 'limit.accepted', exchange(400), { because: 'x', nominalStatus: null }, 'skip'],
  // A target throttling without Retry-After (a fresh reading's legitimate server): the pace, not the value.
  ['at the limit, but the nominal request was still throttled', 'limit.accepted', exchange(404), { because: 'x', nominalStatus: 429 }, 'skip'],
  ['at the limit, still throttled where the nominal request was answered', 'limit.accepted', exchange(429), { because: 'x', nominalStatus: 404 }, 'skip'],
  ['refused with 400 where 400 or 404 fit', 'status.refused', exchange(400), { because: 'x' }, 'pass', 'deleteSubmission'],
  ['refused with 404 where 400 or 404 fit', 'status.refused', exchange(404), { because: 'x' }, 'pass', 'demergeIswcMetadata'],
  ['a success where only a refusal fits', 'status.refused', exchange(204), { because: 'x' }, 'fail', 'deleteSubmission'],
  ['an undocumented status where a refusal fits', 'status.refused', exchange(410), { because: 'x' }, 'fail', 'demergeIswcMetadata'],
  ['a query value refused with 404', 'query.refused', exchange(404), { because: 'x' }, 'pass', 'deleteSubmission'],
  ['404 for an unknown preferred ISWC', 'status.not-found', exchange(404), { because: 'x' }, 'pass', 'mergeIswcMetadata'],
  ['400 for an unknown preferred ISWC', 'status.not-found', exchange(400), { because: 'x' }, 'fail', 'mergeIswcMetadata'],
  ['400 for an unknown preferred ISWC whose check digit holds', 'status.not-found', atUrl(exchange(400), 'http://x/iswc/merge?preferredIswc=T9800000991&agency=128'), { because: 'x' }, 'fail', 'mergeIswcMetadata'],
  ['400 for an unknown preferred ISWC whose check digit does not hold', 'status.not-found', atUrl(exchange(400), 'http://x/iswc/merge?preferredIswc=T9800000998&agency=128'), { because: 'x' }, 'pass', 'mergeIswcMetadata'],
  ['409 for an unknown preferred ISWC whose check digit does not hold', 'status.not-found', atUrl(exchange(409), 'http://x/iswc/merge?preferredIswc=T9800000998&agency=128'), { because: 'x' }, 'fail', 'mergeIswcMetadata'],
  ['405 without Allow', 'http.method-not-allowed', exchange(405), { because: 'x', path: '/agent/run' }, 'fail'],
  ['405 with Allow', 'http.method-not-allowed', exchange(405, '', { allow: 'POST' }), { because: 'x', path: '/agent/run' }, 'pass'],
  ['a gateway 404 for a method it does not know', 'http.method-not-allowed', exchange(404), { because: 'x', path: '/agent/run' }, 'pass'],
  // A fresh reading's legitimate server serves PATCH /submission outside the document: a PATCH without a body is 415.
  ['a method served outside the document, its content refused', 'http.method-not-allowed', exchange(415), { because: 'x', path: '/submission' }, 'skip'],
  ['a method answered 200 where the document defines none', 'http.method-not-allowed', exchange(200), { because: 'x', path: '/submission' }, 'fail'],
  ['an empty key on the run notification answered 400', 'auth.required', exchange(400), { because: 'x', emptyKey: true }, 'pass'],
  ['an empty key on the run notification answered 200', 'auth.required', exchange(200), { because: 'x', emptyKey: true }, 'fail'],
  ['a missing key on the run notification answered 400', 'auth.required', exchange(400), { because: 'x' }, 'fail'],
  ['an empty key on the end of a run answered 400', 'auth.key-checked', exchange(400), { because: 'x', emptyKey: true }, 'pass'],
  ['no key and a run naming no agency, answered 400 (validated first)', 'auth.required', exchange(400), { because: 'x', noAgency: true }, 'pass'],
  ['no key and a run naming no agency, served', 'auth.required', exchange(200), { because: 'x', noAgency: true }, 'fail'],
  ['auth probe 401', 'auth.required', exchange(401), { because: 'x' }, 'pass'],
  ['auth probe on the run notification answered 403', 'auth.required', exchange(403), { because: 'x' }, 'fail'],
  ['missing key on the merge answered 400', 'auth.required', exchange(400), { because: 'x' }, 'pass', 'mergeIswcMetadata'],
  ['missing key on the merge answered 404: looked up first, refused', 'auth.required', exchange(404), { because: 'x' }, 'pass', 'mergeIswcMetadata'],
  ['missing key on the merge answered 204: served without the key', 'auth.required', exchange(204), { because: 'x' }, 'fail', 'mergeIswcMetadata'],
  ['observed never fails', 'observed.requiredness', exchange(400), { because: 'x' }, 'observed'],
];
for (const [label, id, ex, params, verdict, operation] of cases) {
  test(`check ${id}: ${label} -> ${verdict}`, () => {
    expect(judge(id, ex, params, [], operation)).toBe(verdict);
  });
}

test('transport failures fail the targeted checks with the error code', () => {
  const ex: Exchange = { ...exchange(200), response: undefined, error: { code: 'TIMEOUT', message: 'no answer in 10 s' } };
  const judgement = checkById('status.success').judge({ operation: 'notifyAgentRun', format: 'json', exchange: ex, params: { because: 'x' } as never, authProbe: false, extraStatuses: [] });
  expect(judgement?.verdict).toBe('fail');
  expect(judgement?.received).toContain('TIMEOUT');
  expect(judge('http.answered', ex)).toBe('fail');
});

test('http.answered accepts a closed connection only where the step allows it (oversized body)', () => {
  const ex: Exchange = { ...exchange(200), response: undefined, error: { code: 'CONNECTION_RESET', message: 'EPIPE' } };
  const judgeWith = (connectionMayClose: boolean) =>
    checkById('http.answered').judge({ operation: 'notifyAgentRun', format: 'json', exchange: ex, params: undefined as never, authProbe: false, extraStatuses: [], connectionMayClose })?.verdict;
  expect(judgeWith(true)).toBe('pass');
  expect(judgeWith(false)).toBe('fail');
});

test('a server that throttles past the retries makes checks skip with the reason, never fail', async () => {
  const http = await import('node:http');
  const { createHttpClient } = await import('../../lib/run/http/client.ts');
  const { runPlannedCase } = await import('../../lib/run/runner.ts');
  const server = http.createServer((_req, res) => {
    res.writeHead(429, { 'retry-after': '0', 'content-type': 'application/json' });
    res.end('{"statusCode":429,"message":"Rate limit is exceeded."}');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  const client = createHttpClient({ baseUrl: `http://127.0.0.1:${port}`, key: 'k-throttled', maxRetries: 1, maxRetryWaitMs: 10 });
  try {
    const p = (await planSuite(profile, { destructive: true })).find((c) => c.key === 'merge.unknown-preferred@json');
    if (!p) throw new Error('case missing');
    const { executions } = await runPlannedCase(p, client, profile, { seed: 1, runs: 1, strict: true }, createJudge({ strict: true, agency: profile.agency }));
    expect(executions.filter((e) => e.verdict === 'fail')).toEqual([]);
    const skipped = executions.filter((e) => e.verdict === 'skip');
    expect(skipped.length).toBeGreaterThan(0);
    expect(skipped[0]?.skipReason).toMatch(/throttled by the server/);
  } finally {
    await client.close();
    await new Promise((resolve) => server.close(resolve));
  }
});

test('under a request budget a failing property stops at its first failing input instead of shrinking', async () => {
  const fc = (await import('fast-check')).default;
  const { property } = await import('../../lib/generate/cases/properties.ts');
  const sentWith = async (noShrink: boolean): Promise<number> => {
    let probes = 0;
    const recorded: string[] = [];
    const ctx = {
      format: 'json' as const,
      profile,
      entries: {},
      seed: 7,
      runs: 100,
      strict: false,
      noShrink,
      send: () => Promise.reject(new Error('not used')),
      record: (step: { label: string }) => {
        recorded.push(step.label);
      },
      probe: (step: { label: string; request: { path: string } }) => {
        probes += 1;
        const value = Number(step.request.path.slice(1));
        const exchange = { request: { method: 'GET', url: 'http://x/', headers: {}, body: '', bodyBytes: 0, bodyTruncated: false, auth: 'key' as const }, durationMs: 0, attempts: 1, waitedMs: 0 };
        return Promise.resolve({ step: step as never, exchange, failures: value > 1000 ? ['too big'] : [] });
      },
    };
    await property(ctx as never, 'n stays small', fc.integer({ min: 0, max: 1_000_000 }), (n) => ({ label: `n=${n}`, operation: null, request: { method: 'GET', path: `/${n}` }, expect: [] }));
    expect(recorded[0]).toMatch(/minimal failing input/);
    return probes;
  };
  const budgeted = await sentWith(true);
  const free = await sentWith(false);
  expect(budgeted).toBeLessThan(free);
});

test('read-only claims share a reserved slice that no consuming claim is given, and run in non-destructive mode', async () => {
  const got = partition(profile, [
    { key: 'consume@json', kind: 'submissions', count: 1 },
    { key: 'name-a@json', kind: 'submissions', count: 1, readOnly: true },
    { key: 'name-b@xml', kind: 'submissions', count: 1, readOnly: true },
  ]);
  const a = got.get('name-a@json');
  const b = got.get('name-b@xml');
  const c = got.get('consume@json');
  expect(a?.ok && b?.ok && c?.ok).toBe(true);
  if (a?.ok && b?.ok && c?.ok) {
    expect(a.entries[0]).toBe(b.entries[0]);
    expect(c.entries[0]).not.toBe(a.entries[0]);
  }
  const safe = await planSuite(profile, { destructive: false });
  const naming = safe.filter((p) => p.def.claims?.every((cl) => cl.readOnly));
  expect(naming.length).toBeGreaterThan(0);
  expect(naming.every((p) => !p.skipReason)).toBe(true);
});
