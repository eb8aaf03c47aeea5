import { readFileSync } from 'node:fs';
import { connect } from 'node:net';
import { _baseTest as test, expect } from '@playwright/test';
import { fromRoot } from '../../lib/foundation/paths.ts';
import { loadProfile } from '../../lib/contract/profile/load.ts';
import type { TargetProfile } from '../../lib/contract/profile/types.ts';
import { CHOICES, CHOICE_SETS, choiceTable } from '../../server/choices.ts';
import { FAULTS, faultTable } from '../../server/faults.ts';
import { readExpectations } from '../../lib/selfcheck/fault-expectations.ts';
import { withInvalidCheckDigit, withWrongCheckDigit } from '../../lib/contract/iswc.ts';
import type { RunningServer } from '../../server/index.ts';
import { isBlind } from '../../server/choice-space.ts';
import { startReferenceServer } from '../../server/index.ts';

const KEY = 'unit-test-key';
const profile: TargetProfile = loadProfile(fromRoot('fixtures', 'targets', 'embedded.json'));

function at<T>(list: readonly T[], index: number): T {
  const item = list[index];
  if (item === undefined) throw new Error(`the embedded profile has no entry ${index}`);
  return item;
}

interface Call {
  method?: string;
  path: string;
  query?: Record<string, string>;
  body?: string;
  headers?: Record<string, string>;
  /** 'key' (default), 'none', or any other text sent as a wrong key. */
  auth?: string;
}

interface Answer {
  status: number;
  text: string;
  contentType: string | null;
  headers: Headers;
}

async function call(server: RunningServer, c: Call): Promise<Answer> {
  const url = new URL(`${server.url}${c.path}`);
  for (const [k, v] of Object.entries(c.query ?? {})) url.searchParams.append(k, v);
  const headers: Record<string, string> = { ...c.headers };
  const auth = c.auth ?? 'key';
  if (auth === 'key') headers['Ocp-Apim-Subscription-Key'] = KEY;
  else if (auth !== 'none') headers['Ocp-Apim-Subscription-Key'] = auth;
  // Bytes, not a string: fetch labels a string body text/plain, and Content-Type must stay the test's choice.
  const body = c.body !== undefined ? { body: new TextEncoder().encode(c.body) } : {};
  const res = await fetch(url, { method: c.method ?? 'POST', headers, ...body });
  return { status: res.status, text: await res.text(), contentType: res.headers.get('content-type'), headers: res.headers };
}

const JSON_TYPE = { 'Content-Type': 'application/json' };
const XML_TYPE = { 'Content-Type': 'application/xml' };
const run = (body: unknown, extra: Partial<Call> = {}): Call => ({ path: '/agent/run', body: JSON.stringify(body), headers: JSON_TYPE, ...extra });

const mergeOf = (index: number): Call => {
  const m = at(profile.merges, index);
  return {
    path: '/iswc/merge',
    query: { preferredIswc: m.preferredIswc, agency: profile.agency },
    body: JSON.stringify({ iswcs: m.iswcs, agencyWorks: m.agencyWorks }),
    headers: JSON_TYPE,
  };
};
const demergeOf = (preferredIswc: string, agency: string, workcode: string): Call => ({
  method: 'DELETE',
  path: '/iswc/merge',
  query: { preferredIswc, agency, workcode },
});
const deleteOf = (index: number, overrides: Record<string, string> = {}): Call => {
  const s = at(profile.submissions, index);
  return {
    method: 'DELETE',
    path: '/submission',
    query: { preferredIswc: s.preferredIswc, agency: s.agency, workcode: s.workcode, sourceDb: String(s.sourceDb), reasonCode: 'EdiV1', ...overrides },
  };
};

/** Raw HTTP/1.1 exchange on a fresh connection, read until the server closes it (for bytes fetch hides). */
function raw(server: RunningServer, request: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(server.port, '127.0.0.1', () => socket.write(request));
    const chunks: Buffer[] = [];
    socket.on('data', (c: Buffer) => chunks.push(c));
    socket.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    socket.on('error', reject);
    socket.setTimeout(2000, () => {
      socket.destroy();
      resolve(Buffer.concat(chunks).toString('utf8'));
    });
  });
}

async function withServer(faults: readonly string[], body: (server: RunningServer) => Promise<void>, maxBodyBytes?: number, choices: readonly string[] = [], seeded: TargetProfile = profile): Promise<void> {
  const server = await startReferenceServer({ profile: seeded, key: KEY, faults, choices, ...(maxBodyBytes !== undefined ? { maxBodyBytes } : {}) });
  try {
    await body(server);
  } finally {
    await server.close();
  }
}

let clean: RunningServer;
test.beforeAll(async () => {
  clean = await startReferenceServer({ profile, key: KEY, maxBodyBytes: 1024 });
});
test.afterAll(async () => {
  await clean.close();
});

test.describe('run notification (4.1)', () => {
  test('a JSON run without runId starts a run with a new GUID; with a runId it is echoed', async () => {
    const start = await call(clean, run({ agencyCode: '128', agentVersion: '1.0', newRecordCount: 3 }));
    expect(start.status).toBe(200);
    expect(start.contentType).toBe('application/json; charset=utf-8');
    const { runId } = JSON.parse(start.text) as { runId: string };
    expect(runId).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    const end = await call(clean, run({ runId, agencyCode: '128', successfulCount: 3 }));
    expect(JSON.parse(end.text)).toEqual({ runId });
    const unknown = await call(clean, run({ runId: 'never-started' }));
    expect([unknown.status, JSON.parse(unknown.text)]).toEqual([200, { runId: 'never-started' }]);
  });

  test('XML in, XML out with root CsnNotification; Accept selects the format; Content-Type is optional', async () => {
    const xml = '<AgentRun><agencyCode>128</agencyCode><runId>r-1</runId><overallSent>7</overallSent></AgentRun>';
    const a = await call(clean, { path: '/agent/run', body: xml, headers: XML_TYPE });
    expect([a.status, a.contentType]).toEqual([200, 'application/xml; charset=utf-8']);
    expect(a.text).toContain('<CsnNotification><runId>r-1</runId></CsnNotification>');
    const sniffed = await call(clean, { path: '/agent/run', body: `  ${xml}` });
    expect([sniffed.status, sniffed.contentType]).toEqual([200, 'application/xml; charset=utf-8']);
    const asJson = await call(clean, { path: '/agent/run', body: xml, headers: { ...XML_TYPE, Accept: 'application/json' } });
    expect(JSON.parse(asJson.text)).toEqual({ runId: 'r-1' });
    const asXml = await call(clean, run({ runId: 'r-2' }, { headers: { Accept: 'text/xml' } }));
    expect(asXml.text).toContain('<runId>r-2</runId>');
  });

  test('the stated texts: 400 "Bad Request" and 401 "Not Authorized", as text/plain', async () => {
    for (const body of ['{"overallSent":"12"}', '{"overallSent":1.5}', '{"agencyCode":null}', '[]', '{oops', '']) {
      const a = await call(clean, { path: '/agent/run', body, headers: JSON_TYPE });
      expect([a.status, a.text, a.contentType], body).toEqual([400, 'Bad Request', 'text/plain; charset=utf-8']);
    }
    for (const auth of ['none', 'wrong-key']) {
      const a = await call(clean, run({}, { auth }));
      expect([a.status, a.text, a.contentType]).toEqual([401, 'Not Authorized', 'text/plain; charset=utf-8']);
    }
    const merge = await call(clean, { ...mergeOf(0), auth: 'none' });
    expect(merge.status).toBe(401);
    expect(JSON.parse(merge.text)).toMatchObject({ statusCode: 401 });
  });

  test('lengths count code points: "A😀B" is accepted, "0😀" is refused; int32 bounds are exact', async () => {
    expect((await call(clean, run({ agencyCode: 'A😀B' }))).status).toBe(200);
    expect((await call(clean, run({ agencyCode: '0😀' }))).status).toBe(400);
    expect((await call(clean, run({ overallSent: 2147483647, overallRejected: -2147483648 }))).status).toBe(200);
    expect((await call(clean, run({ overallSent: 2147483648 }))).status).toBe(400);
    expect((await call(clean, run({ overallSent: -2147483649 }))).status).toBe(400);
  });

  test('XML with a DOCTYPE is refused and entities are never expanded', async () => {
    const xml = '<?xml version="1.0"?><!DOCTYPE AgentRun [<!ENTITY e "expanded">]><AgentRun><runId>&e;</runId></AgentRun>';
    const a = await call(clean, { path: '/agent/run', body: xml, headers: XML_TYPE });
    expect([a.status, a.text]).toEqual([400, 'Bad Request']);
  });

  test('a body over the cap is answered 413 and the connection is closed; other media types 415', async () => {
    const a = await call(clean, { path: '/agent/run', body: JSON.stringify({ agentVersion: 'x'.repeat(2000) }), headers: JSON_TYPE });
    expect(a.status).toBe(413);
    const chunked = await raw(
      clean,
      `POST /agent/run HTTP/1.1\r\nHost: x\r\nOcp-Apim-Subscription-Key: ${KEY}\r\nTransfer-Encoding: chunked\r\n\r\n${'400\r\n' + 'x'.repeat(1024) + '\r\n'}${'400\r\n' + 'x'.repeat(1024) + '\r\n'}0\r\n\r\n`,
    );
    expect(chunked).toMatch(/^HTTP\/1\.1 413 /);
    expect(chunked.toLowerCase()).toContain('connection: close');
    expect((await call(clean, run({}, { headers: { 'Content-Type': 'text/plain' } }))).status).toBe(415);
  });
});

test.describe('routes and methods', () => {
  test('405 carries Allow with the documented methods; unknown paths 404', async () => {
    const a = await call(clean, { method: 'GET', path: '/iswc/merge' });
    expect([a.status, a.headers.get('allow')]).toEqual([405, 'POST, DELETE']);
    const b = await call(clean, { method: 'PUT', path: '/agent/run' });
    expect([b.status, b.headers.get('allow')]).toEqual([405, 'POST']);
    expect((await call(clean, { method: 'GET', path: '/nowhere' })).status).toBe(404);
    expect((await call(clean, { path: '/agent/run/' })).status).toBe(404);
  });
});

test.describe('merge, demerge and delete (4.2-4.4)', () => {
  test('merge then demerge then a repeat demerge: 204, 204, 404', async () => {
    const m = at(profile.merges, 0);
    const work = at(m.agencyWorks ?? [], 0);
    const merged = await call(clean, mergeOf(0));
    expect([merged.status, merged.text, merged.contentType]).toEqual([204, '', null]);
    const demerge = demergeOf(m.preferredIswc, work.agencyCode, work.agencyWorkCode);
    expect((await call(clean, demerge)).status).toBe(204);
    const again = await call(clean, demerge);
    expect([again.status, again.text]).toEqual([404, 'Iswc not found']);
  });

  test('a seeded demerge entry can be demerged once', async () => {
    const d = at(profile.demerges, 0);
    expect((await call(clean, demergeOf(d.preferredIswc, d.agency, d.workcode))).status).toBe(204);
    expect((await call(clean, demergeOf(d.preferredIswc, d.agency, d.workcode))).status).toBe(404);
  });

  test('merge answers 404 for an unknown ISWC and 400 for malformed input', async () => {
    const unknown = at(profile.unknownIswcs, 0);
    const base = mergeOf(1);
    expect((await call(clean, { ...base, body: JSON.stringify({ iswcs: [unknown] }) })).status).toBe(404);
    expect((await call(clean, { ...base, query: { preferredIswc: unknown, agency: profile.agency } })).status).toBe(404);
    const bad = await call(clean, { ...base, body: JSON.stringify({ iswcs: ['T123'] }) });
    expect([bad.status, bad.contentType]).toEqual([400, 'application/json; charset=utf-8']);
    expect(JSON.parse(bad.text)).toMatchObject({ code: 'BAD_BODY' });
    expect((await call(clean, { ...base, query: { preferredIswc: at(profile.merges, 1).preferredIswc } })).status).toBe(400);
    expect((await call(clean, { ...base, body: '{"agencyWorks":[{"agencyCode":"1288"}]}' })).status).toBe(400);
    const xml = `<MergeRequest><iswcs>${at(at(profile.merges, 1).iswcs ?? [], 0)}</iswcs></MergeRequest>`;
    expect((await call(clean, { ...base, body: xml, headers: XML_TYPE })).status).toBe(204);
  });

  test('delete then a repeat delete: 204, 404; a wrong sourceDb is 404; bad codes 400', async () => {
    expect((await call(clean, deleteOf(1, { sourceDb: '129' }))).status).toBe(404);
    expect((await call(clean, deleteOf(1))).status).toBe(204);
    const again = await call(clean, deleteOf(1));
    expect([again.status, again.text, again.contentType]).toEqual([404, 'Submission not found', 'text/plain; charset=utf-8']);
    const invalid: Record<string, string>[] = [{ agency: '12' }, { workcode: 'W'.repeat(21) }, { sourceDb: '2147483648' }, { sourceDb: '1e3' }, { reasonCode: ' ' }];
    for (const overrides of invalid) {
      expect((await call(clean, deleteOf(2, overrides))).status, JSON.stringify(overrides)).toBe(400);
    }
    expect((await call(clean, deleteOf(2, { workcode: 'W'.repeat(20) }))).status).toBe(404);
  });

  test('instances do not share state', async () => {
    await withServer([], async (a) => {
      await withServer([], async (b) => {
        expect((await call(a, deleteOf(3))).status).toBe(204);
        expect((await call(b, deleteOf(3))).status).toBe(204);
      });
    });
  });
});

test.describe('robustness', () => {
  test('hostile bodies and targets never get a 5xx', async () => {
    const bodies = ['\u0000', '<', '<AgentRun>', '<Other/>', '{"a":' + '['.repeat(5000), '\uFEFF{}', 'null', '"x"', '<AgentRun><runId><x/></runId></AgentRun>'];
    for (const body of bodies) {
      for (const path of ['/agent/run', '/iswc/merge?preferredIswc=%ZZ&agency=%E0%A4%A']) {
        const a = await call(clean, { path, body });
        expect(a.status, `${path} ${body.slice(0, 20)}`).toBeLessThan(500);
      }
    }
    const badUtf8 = await fetch(`${clean.url}/agent/run`, { method: 'POST', headers: { 'Ocp-Apim-Subscription-Key': KEY }, body: new Uint8Array([0x7b, 0xff, 0x7d]) });
    expect(badUtf8.status).toBe(400);
  });
});

type Observed = string | number | boolean | null;

/** One request sequence per fault: the clean server and the faulty one must answer the last call differently. */
interface Probe {
  fault: string;
  calls: Call[];
  observe?: (a: Answer) => Observed;
  clean: Observed;
  faulty: Observed;
}

const noType = (c: Call): Call => ({ ...c, headers: {} });
const xmlRun = (inner: string): Call => ({ path: '/agent/run', body: `<AgentRun>${inner}</AgentRun>`, headers: XML_TYPE });
const mergeBody = (body: unknown): Call => ({ ...mergeOf(0), body: JSON.stringify(body) });
const seededDemerge = (): Call => {
  const d = at(profile.demerges, 0);
  return demergeOf(d.preferredIswc, d.agency, d.workcode);
};
const mergedWork = (): Call => {
  const m = at(profile.merges, 0);
  const w = at(m.agencyWorks ?? [], 0);
  return demergeOf(m.preferredIswc, w.agencyCode, w.agencyWorkCode);
};
const neverMerged = (): Call => demergeOf(at(profile.merges, 0).preferredIswc, profile.agency, 'NEVER-MERGED');
const text = (a: Answer): string => a.text;
const contentType = (a: Answer): string | null => a.contentType;

const PROBES: Probe[] = [
  {
    fault: 'demerge-removes-all',
    calls: [mergeOf(0), mergedWork(), demergeOf(at(profile.merges, 0).preferredIswc, at(at(profile.merges, 0).agencyWorks ?? [], 1).agencyCode, at(at(profile.merges, 0).agencyWorks ?? [], 1).agencyWorkCode)],
    clean: 204,
    faulty: 404,
  },
  { fault: 'delete-ignores-agency', calls: [deleteOf(0, { agency: '052' })], clean: 404, faulty: 204 },
  { fault: 'demerge-ignores-agency', calls: [demergeOf(at(profile.demerges, 0).preferredIswc, '052', at(profile.demerges, 0).workcode)], clean: 404, faulty: 204 },
  { fault: 'run-response-no-run-id', calls: [run({})], observe: (a: Answer) => a.text.includes('runId'), clean: true, faulty: false },
  { fault: 'array-tail-unchecked', calls: [mergeBody({ iswcs: [...profile.iswcs.slice(1, 4), 'T123'] })], clean: 400, faulty: 204 },
  { fault: 'double-percent-decoding', calls: [deleteOf(0, { agency: '%31%32%38' })], clean: 400, faulty: 204 },
  { fault: 'duplicate-items-500', calls: [mergeBody({ iswcs: [profile.iswcs[1], profile.iswcs[1]] })], clean: 204, faulty: 500 },
  { fault: 'delete-ignores-source-db', calls: [deleteOf(0, { sourceDb: '300' })], clean: 404, faulty: 204 },
  { fault: 'oversized-body-500', calls: [{ path: '/agent/run', body: `{}${' '.repeat(1100 * 1024)}`, headers: JSON_TYPE }], clean: 413, faulty: 500 },
  { fault: 'run-agency-code-loose', calls: [run({ agencyCode: 'ABCD' })], clean: 400, faulty: 200 },
  { fault: 'run-int32-loose', calls: [run({ overallSent: 2 ** 40 })], clean: 400, faulty: 200 },
  { fault: 'merge-iswc-pattern-loose', calls: [mergeBody({ iswcs: ['T123'] })], clean: 400, faulty: 204 },
  { fault: 'merge-agency-code-loose', calls: [mergeBody({ agencyWorks: [{ agencyCode: 'ABCD', agencyWorkCode: 'W1' }] })], clean: 400, faulty: 204 },
  { fault: 'merge-work-code-loose', calls: [mergeBody({ agencyWorks: [{ agencyCode: '128', agencyWorkCode: 'W'.repeat(21) }] })], clean: 400, faulty: 204 },
  { fault: 'int32-off-by-one', calls: [run({ overallSent: 2147483648 })], clean: 400, faulty: 200 },
  { fault: 'drop-invalid-iswcs', calls: [mergeBody({ iswcs: ['T123'] })], clean: 400, faulty: 204 },
  { fault: 'work-code-tight', calls: [deleteOf(0, { workcode: 'W'.repeat(20) })], clean: 404, faulty: 400 },
  { fault: 'int32-tight', calls: [deleteOf(0, { sourceDb: '-2147483648' })], clean: 404, faulty: 400 },
  { fault: 'run-success-201', calls: [run({})], clean: 200, faulty: 201 },
  // A fresh reading (2026-11-30): a check digit that does not hold, recomputed, names the submission's own ISWC.
  { fault: 'preferred-check-digit-ignored', calls: [deleteOf(0, { preferredIswc: withInvalidCheckDigit(at(profile.submissions, 0).preferredIswc) })], clean: 400, faulty: 204 },
  { fault: 'lenient.merge.iswcs.check-digit', calls: [mergeBody({ iswcs: [withInvalidCheckDigit(at(at(profile.merges, 0).iswcs ?? [], 0))] })], clean: 404, faulty: 204 },
  { fault: 'merge-success-200', calls: [mergeOf(0)], clean: 204, faulty: 200 },
  { fault: 'run-400-as-422', calls: [run({ overallSent: 'x' })], clean: 400, faulty: 422 },
  { fault: 'merge-400-as-422', calls: [{ ...mergeOf(0), query: { preferredIswc: at(profile.merges, 0).preferredIswc, agency: '1' } }], clean: 400, faulty: 422 },
  { fault: 'merge-404-as-400', calls: [mergeBody({ iswcs: [at(profile.unknownIswcs, 0)] })], clean: 404, faulty: 400 },
  { fault: 'demerge-404-as-410', calls: [neverMerged()], clean: 404, faulty: 410 },
  { fault: 'run-401-as-403', calls: [run({}, { auth: 'none' })], clean: 401, faulty: 403 },
  { fault: 'run-key-agency-only', calls: [run({ agentVersion: '1.0' }, { auth: 'none' })], clean: 401, faulty: 200 },
  { fault: 'run-bad-request-text', calls: [run({ overallSent: 'x' })], observe: text, clean: 'Bad Request', faulty: 'Invalid request' },
  { fault: 'run-not-authorized-text', calls: [run({}, { auth: 'wrong' })], observe: text, clean: 'Not Authorized', faulty: 'Unauthorized' },
  { fault: 'auth-missing-run', calls: [run({}, { auth: 'none' })], clean: 401, faulty: 200 },
  { fault: 'auth-missing-merge', calls: [{ ...mergeOf(0), auth: 'wrong' }], clean: 401, faulty: 204 },
  { fault: 'auth-missing-delete', calls: [{ ...deleteOf(0), auth: 'none' }], clean: 401, faulty: 204 },
  { fault: 'auth-missing-demerge', calls: [{ ...seededDemerge(), auth: 'none' }], clean: 401, faulty: 204 },
  { fault: 'auth-wrong-key-accepted', calls: [{ ...deleteOf(0), auth: 'wrong' }], clean: 401, faulty: 204 },
  { fault: 'run-response-schema', calls: [run({})], observe: (a) => typeof (JSON.parse(a.text) as { runId: unknown }).runId, clean: 'string', faulty: 'number' },
  { fault: 'xml-wrong-root-response', calls: [xmlRun('<runId>r</runId>')], observe: (a) => /<(\w+)>/.exec(a.text.replace(/<\?.*?\?>/, ''))?.[1] ?? null, clean: 'CsnNotification', faulty: 'AgentRun' },
  { fault: 'xml-request-unsupported', calls: [xmlRun('<runId>r</runId>')], clean: 200, faulty: 400 },
  { fault: 'fraction-truncated', calls: [run({ overallSent: 12, newRecordCount: 1.5 })], clean: 400, faulty: 200 },
  { fault: 'json-content-type-mislabelled', calls: [run({})], observe: contentType, clean: 'application/json; charset=utf-8', faulty: 'application/xml; charset=utf-8' },
  { fault: 'missing-content-type', calls: [run({}, { auth: 'none' })], observe: contentType, clean: 'text/plain; charset=utf-8', faulty: null },
  { fault: 'merge-no-effect', calls: [mergeOf(0), mergedWork()], clean: 204, faulty: 404 },
  { fault: 'demerge-no-effect', calls: [seededDemerge(), seededDemerge()], clean: 404, faulty: 204 },
  { fault: 'delete-no-effect', calls: [deleteOf(0), deleteOf(0)], clean: 404, faulty: 204 },
  { fault: 'after-merge-demerge-any', calls: [mergeOf(0), neverMerged()], clean: 404, faulty: 204 },
  { fault: 'crash-on-malformed', calls: [{ ...mergeOf(0), body: '{"iswcs": [' }], clean: 400, faulty: 500 },
  { fault: 'crash-on-malformed-json', calls: [{ ...mergeOf(0), body: '{"iswcs": [' }], clean: 400, faulty: 500 },
  { fault: 'crash-on-malformed-xml', calls: [{ ...mergeOf(0), body: '<MergeRequest><iswcs>', headers: XML_TYPE }], clean: 400, faulty: 500 },
  { fault: '405-without-allow', calls: [{ method: 'GET', path: '/agent/run' }], observe: (a) => a.headers.get('allow'), clean: 'POST', faulty: null },
  { fault: 'stack-trace-in-error', calls: [deleteOf(0, { agency: '1' })], observe: (a) => a.text.includes('at handleDelete (/srv/iswc/'), clean: false, faulty: true },
  { fault: 'xml-entities-expanded', calls: [{ path: '/agent/run', body: '<!DOCTYPE AgentRun [<!ENTITY e "x">]><AgentRun><runId>&e;</runId></AgentRun>', headers: XML_TYPE }], clean: 400, faulty: 200 },
  { fault: 'unknown-path-200', calls: [{ method: 'GET', path: '/nowhere' }], clean: 404, faulty: 200 },
  { fault: 'unsupported-media-500', calls: [run({}, { headers: { 'Content-Type': 'text/csv' } })], clean: 415, faulty: 500 },
  { fault: 'merge-wrong-key-accepted', calls: [{ ...mergeOf(0), auth: 'wrong' }], clean: 401, faulty: 204 },
  { fault: 'demerge-wrong-key-accepted', calls: [{ ...seededDemerge(), auth: 'wrong' }], clean: 401, faulty: 204 },
  { fault: 'delete-wrong-key-accepted', calls: [{ ...deleteOf(0), auth: 'wrong' }], clean: 401, faulty: 204 },
  { fault: 'merge-drops-invalid-works', calls: [mergeBody({ iswcs: [profile.iswcs[1]], agencyWorks: [{ agencyCode: profile.agency, agencyWorkCode: 'W'.repeat(21) }] })], clean: 400, faulty: 204 },
  { fault: 'merge-drops-unknown-iswcs', calls: [mergeBody({ iswcs: [profile.iswcs[1], at(profile.unknownIswcs, 0)] })], clean: 404, faulty: 204 },
  { fault: 'delete-no-workcode-500', calls: [withoutQuery(deleteOf(0), 'workcode')], clean: 400, faulty: 500 },
  // Issue 21: production as built, and the misses of the close reading.
  { fault: 'xml-bodies-415', calls: [xmlRun(`<agencyCode>${profile.agency}</agencyCode>`)], clean: 200, faulty: 415 },
  { fault: 'run-400-validation-problem', calls: [run({ overallSent: 'x' })], observe: (a) => a.contentType?.split(';')[0] ?? null, clean: 'text/plain', faulty: 'application/problem+json' },
  { fault: 'gateway-401-json', calls: [run({}, { auth: 'none' })], observe: (a) => a.text.includes('Not Authorized'), clean: true, faulty: false },
  { fault: 'run-end-unvalidated', calls: [run({ runId: 'an-end', agencyCode: '1234' })], clean: 400, faulty: 200 },
  { fault: 'auth-missing-run-end', calls: [run({ runId: 'an-end' }, { auth: 'none' })], clean: 401, faulty: 200 },
  { fault: 'merge-auth-after-action', calls: [{ ...mergeOf(0), auth: 'wrong-key' }, mergedWork()], clean: 404, faulty: 204 },
  { fault: 'work-code-long-refused', calls: [deleteOf(0, { workcode: 'W'.repeat(15) })], clean: 404, faulty: 400 },
  { fault: 'unknown-run-200-empty', calls: [run({ runId: 'never-issued' })], observe: (a) => a.text === '', clean: false, faulty: true },
  { fault: 'unknown-run-400-text', calls: [run({ runId: 'never-issued' })], clean: 200, faulty: 400 },
  { fault: 'key-case-insensitive', calls: [{ ...deleteOf(0), auth: KEY.toUpperCase() }], clean: 401, faulty: 204 },
  { fault: 'length-in-bytes', calls: [run({ agencyCode: '1\u00E9' })], clean: 400, faulty: 200 },
];

/** A call with one query parameter left out. */
function withoutQuery(c: Call, name: string): Call {
  const { [name]: _left, ...query } = c.query ?? {};
  return { ...c, query };
}

/** Faults whose effect fetch cannot see; they have their own test below. */
const COVERED_ELSEWHERE = ['no-body-204-violated', 'hang-on-unsupported-media'];

test.describe('faults', () => {
  test('an unknown fault id throws and lists the valid ids', async () => {
    await expect(startReferenceServer({ profile, key: KEY, faults: ['no-such-fault'] })).rejects.toThrow(/no-such-fault.*Valid ids: .*run-agency-code-loose/s);
  });

  test('every fault of the catalogue starts', async () => {
    expect(FAULTS.length).toBeGreaterThanOrEqual(45);
    for (const fault of FAULTS) {
      const server = await startReferenceServer({ profile, key: KEY, faults: [fault.id] });
      expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:[0-9]+$/);
      await server.close();
    }
  });

  test('the docs hold the generated fault table', () => {
    expect(readFileSync(fromRoot('docs', 'reference-server.md'), 'utf8')).toContain(faultTable());
  });

  test('hang-on-unsupported-media never answers an unsupported media type', async () => {
    await withServer(['hang-on-unsupported-media'], async (s) => {
      const pending = fetch(`${s.url}/agent/run`, { method: 'POST', headers: { 'Content-Type': 'text/csv', 'Ocp-Apim-Subscription-Key': KEY }, body: 'a,b', signal: AbortSignal.timeout(300) });
      await expect(pending).rejects.toThrow(/abort|timeout/i);
    });
    await withServer([], async (s) => {
      expect((await call(s, { path: '/agent/run', body: 'a,b', headers: { 'Content-Type': 'text/csv' } })).status).toBe(415);
    });
  });

  test('no-body-204-violated puts a body on the wire after a 204', async () => {
    await withServer(['no-body-204-violated'], async (s) => {
      const m = mergeOf(0);
      const body = m.body ?? '';
      const path = `/iswc/merge?${new URLSearchParams(m.query).toString()}`;
      const answer = await raw(
        s,
        `POST ${path} HTTP/1.1\r\nHost: x\r\nOcp-Apim-Subscription-Key: ${KEY}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
      );
      expect(answer).toMatch(/^HTTP\/1\.1 204 /);
      expect(answer.endsWith('\r\n\r\n{}')).toBe(true);
    });
  });

  test('xml-entities-expanded echoes an entity used in runId', async () => {
    await withServer(['xml-entities-expanded'], async (s) => {
      const xml = '<?xml version="1.0"?><!DOCTYPE AgentRun [<!ENTITY e "expanded">]><AgentRun><runId>&e;</runId></AgentRun>';
      const a = await call(s, { path: '/agent/run', body: xml, headers: XML_TYPE });
      expect([a.status, a.text]).toEqual([200, expect.stringContaining('<runId>expanded</runId>')]);
      const bomb = `<!DOCTYPE AgentRun [<!ENTITY e "${'x'.repeat(1000)}">]><AgentRun><runId>${'&e;'.repeat(100)}</runId></AgentRun>`;
      expect((await call(s, { path: '/agent/run', body: bomb, headers: XML_TYPE })).status).toBe(400);
    });
  });

  test('crash-on-malformed-json and -xml answer 500 to malformed bodies of their format only: the other is still refused 400', async () => {
    const malformed = { json: { ...mergeOf(0), body: '{"iswcs": [' }, xml: { path: '/agent/run', body: '<AgentRun><runId>', headers: XML_TYPE } };
    await withServer(['crash-on-malformed-xml'], async (s) => {
      expect([(await call(s, malformed.json)).status, (await call(s, malformed.xml)).status]).toEqual([400, 500]);
    });
    await withServer(['crash-on-malformed-json'], async (s) => {
      expect([(await call(s, malformed.json)).status, (await call(s, malformed.xml)).status]).toEqual([500, 400]);
    });
  });

  for (const probe of PROBES) {
    test(`${probe.fault} changes what it names`, async () => {
      const answers: Record<'clean' | 'faulty', Observed> = { clean: null, faulty: null };
      for (const which of ['clean', 'faulty'] as const) {
        await withServer(which === 'clean' ? [] : [probe.fault], async (s) => {
          let last: Answer | undefined;
          for (const c of probe.calls) last = await call(s, c);
          if (!last) throw new Error('a probe needs at least one call');
          answers[which] = (probe.observe ?? ((a: Answer) => a.status))(last);
        });
      }
      expect(answers).toEqual({ clean: probe.clean, faulty: probe.faulty });
    });
  }

  // A probe above shows a handler fault in one call; what proves every fault, probe or not, is the
  // self-check: the checks that catch it are pinned in tests/expectations/faults.json.
  test('every fault of the catalogue is pinned with the checks that catch it (npm run expectations:update)', () => {
    const pinned = readExpectations(fromRoot('tests', 'expectations', 'faults.json'));
    expect(FAULTS.map((f) => f.id).filter((id) => (pinned[id]?.caughtBy.length ?? 0) === 0 && !isBlind(id))).toEqual([]);
    expect(Object.keys(pinned).filter((id) => !FAULTS.some((f) => f.id === id))).toEqual([]);
    const probed = new Set([...PROBES.map((p) => p.fault), ...COVERED_ELSEWHERE]);
    expect(PROBES.length + COVERED_ELSEWHERE.length).toBe(probed.size);
  });
});

const VALID_RUN = { agentVersion: 'iswc-conformance/test', agencyCode: profile.agency, updateRecordCount: 1, newRecordCount: 1, overallRejected: 0, overallSent: 1, successfulCount: 1, businessRejectionCount: 0, technicalRejectionCount: 0 };
const validRun = (over: Record<string, unknown> = {}, extra: Partial<Call> = {}): Call => run({ ...VALID_RUN, ...over }, extra);
const rawRun = (body: string): Call => ({ path: '/agent/run', body, headers: JSON_TYPE });
const typePrefix = (a: Answer): string | null => a.contentType?.split(';')[0] ?? null;

/** One request sequence per legitimate choice: the reference server and the one making the choice answer the last call differently. */
interface ChoiceProbe {
  choice: string;
  /** The profile both servers are seeded from, when the embedded one cannot show the choice. */
  profile?: TargetProfile;
  /** Choices both servers make, where this one shows only through another (what a refused merge kept shows when a child is refused). */
  with?: readonly string[];
  calls: Call[];
  observe?: (a: Answer) => Observed;
  reference: Observed;
  chosen: Observed;
}

const s0 = () => at(profile.submissions, 0);
const CHOICE_PROBES: ChoiceProbe[] = [
  { choice: 'answer-xml-always', calls: [validRun()], observe: typePrefix, reference: 'application/json', chosen: 'application/xml' },
  { choice: 'answer-json-unless-accept-xml', calls: [xmlRun(`<agencyCode>${profile.agency}</agencyCode>`)], observe: typePrefix, reference: 'application/xml', chosen: 'application/json' },
  { choice: 'answer-json-always', calls: [validRun({}, { headers: { ...JSON_TYPE, Accept: 'application/xml' } })], observe: typePrefix, reference: 'application/xml', chosen: 'application/json' },
  { choice: 'auth-403-no-body', calls: [{ ...mergeOf(0), auth: 'wrong-key' }], reference: 401, chosen: 403 },
  { choice: 'auth-apim-json', calls: [validRun({}, { auth: 'none' })], observe: (a) => `${a.status} ${typePrefix(a)} ${a.text.includes('Not Authorized')}`, reference: '401 text/plain true', chosen: '401 application/json true' },
  { choice: 'auth-missing-key-400', calls: [{ ...deleteOf(0), auth: 'none' }], reference: 401, chosen: 400 },
  { choice: 'foreign-agency-refused', calls: [validRun({ agencyCode: '052' })], reference: 200, chosen: 401 },
  { choice: 'foreign-agency-403', calls: [validRun({ agencyCode: '052' })], reference: 200, chosen: 403 },
  { choice: 'error-text-bodies', calls: [deleteOf(0, { agency: '1' })], observe: typePrefix, reference: 'application/json', chosen: 'text/plain' },
  { choice: 'problem-json', calls: [deleteOf(0, { agency: '1' })], observe: typePrefix, reference: 'application/json', chosen: 'application/problem+json' },
  { choice: 'xml-error-bodies', calls: [deleteOf(0, { agency: '1' })], observe: typePrefix, reference: 'application/json', chosen: 'application/xml' },
  { choice: 'refuse-as-400', calls: [neverMerged()], reference: 404, chosen: 400 },
  { choice: 'query-limits-not-found', calls: [deleteOf(0, { workcode: 'W'.repeat(21) })], reference: 400, chosen: 404 },
  { choice: 'unknown-run-404', calls: [validRun({ runId: 'never-issued' })], reference: 200, chosen: 404 },
  { choice: 'unknown-run-400', calls: [validRun({ runId: 'never-issued' })], reference: 200, chosen: 400 },
  { choice: 'nulls-as-missing', calls: [validRun({ newRecordCount: null })], reference: 400, chosen: 200 },
  { choice: 'extra-fields-refused', calls: [validRun({ extra: 1 })], reference: 200, chosen: 400 },
  { choice: 'newtonsoft-json', calls: [rawRun(JSON.stringify(VALID_RUN).replace(/"/g, "'"))], reference: 400, chosen: 200 },
  { choice: 'coerce-boolean-integer', calls: [validRun({ newRecordCount: true })], reference: 400, chosen: 200 },
  { choice: 'xml-inner-text', calls: [xmlRun(`<agencyCode>${profile.agency}</agencyCode><agentVersion><v>1</v></agentVersion>`)], reference: 400, chosen: 200 },
  // Within its limits a value is trimmed before it is stored: the work merged is the one without the space.
  {
    choice: 'trim-strings',
    calls: [mergeBody({ agencyWorks: [{ agencyCode: profile.agency, agencyWorkCode: ` ${at(at(profile.merges, 0).agencyWorks ?? [], 0).agencyWorkCode}` }] }), demergeOf(at(profile.merges, 0).preferredIswc, profile.agency, at(at(profile.merges, 0).agencyWorks ?? [], 0).agencyWorkCode)],
    reference: 404,
    chosen: 204,
  },
  { choice: 'utf16-lengths', calls: [validRun({ agencyCode: '0😀' })], reference: 400, chosen: 200 },
  { choice: 'grapheme-lengths', calls: [validRun({ agencyCode: 'ae\u0301b' })], reference: 400, chosen: 200 },
  { choice: 'nfc-lengths', calls: [validRun({ agencyCode: 'ae\u0301b' })], reference: 400, chosen: 200 },
  { choice: 'preferred-iswc-unchecked', calls: [demergeOf('T12345', profile.agency, 'W1')], reference: 400, chosen: 404 },
  { choice: 'agency-code-digits', calls: [validRun({ agencyCode: 'ABC' })], reference: 200, chosen: 400 },
  { choice: 'business-odd-values', calls: [validRun({ newRecordCount: -1 })], reference: 200, chosen: 400 },
  { choice: 'empty-merge-400', calls: [mergeBody({ iswcs: [], agencyWorks: [] })], reference: 204, chosen: 400 },
  { choice: 'merge-duplicates-400', calls: [mergeBody({ iswcs: [profile.iswcs[1], profile.iswcs[1]] })], reference: 204, chosen: 400 },
  { choice: 'check-digit-all', calls: [mergeBody({ iswcs: [withWrongCheckDigit(String(profile.iswcs[1]))] })], reference: 404, chosen: 400 },
  { choice: 'source-db-known', calls: [deleteOf(0, { sourceDb: '7' })], reference: 404, chosen: 400 },
  { choice: 'reason-code-free', calls: [deleteOf(0, { reasonCode: ' ' })], reference: 400, chosen: 204 },
  {
    choice: 'repeated-query-first',
    calls: [{ method: 'DELETE', path: `/submission?preferredIswc=${s0().preferredIswc}&agency=${s0().agency}&agency=${s0().agency}&workcode=${s0().workcode}&sourceDb=${s0().sourceDb}&reasonCode=EdiV1` }],
    reference: 400,
    chosen: 204,
  },
  { choice: 'unsupported-media-400', calls: [validRun({}, { headers: { 'Content-Type': 'text/csv' } })], reference: 415, chosen: 400 },
  { choice: 'apim-404-unknown-operation', calls: [{ method: 'GET', path: '/agent/run' }], reference: 405, chosen: 404 },
  { choice: 'run-counters-consistent', calls: [validRun({ overallRejected: 1 })], reference: 200, chosen: 400 },
  { choice: 'xml-wrapped-arrays', calls: [{ ...mergeOf(0), body: '<MergeRequest><iswcs>T12345</iswcs></MergeRequest>', headers: XML_TYPE }], reference: 400, chosen: 204 },
  { choice: 'gzip-unasked', calls: [validRun()], observe: (a) => a.headers.get('content-encoding'), reference: null, chosen: 'gzip' },
  { choice: 'json-text-json', calls: [validRun()], observe: typePrefix, reference: 'application/json', chosen: 'text/json' },
  { choice: 'xml-answer-dotnet', calls: [xmlRun(`<agencyCode>${profile.agency}</agencyCode>`)], observe: (a) => a.text.includes('xmlns:xsi'), reference: false, chosen: true },
  { choice: 'xml-answer-datacontract', calls: [xmlRun(`<agencyCode>${profile.agency}</agencyCode>`)], observe: (a) => a.text.includes('datacontract'), reference: false, chosen: true },
  { choice: 'bad-request-detail', calls: [validRun({ agencyCode: '1' })], observe: (a) => a.text === 'Bad Request', reference: true, chosen: false },
  { choice: 'foreign-agency-first', calls: [validRun({ agencyCode: '1234' })], reference: 400, chosen: 401 },
  { choice: 'delete-by-work-400', calls: [deleteOf(0, { preferredIswc: at(profile.unknownIswcs, 0) })], reference: 404, chosen: 400 },
  { choice: 'xml-sequence-order', calls: [xmlRun(`<newRecordCount>1</newRecordCount><agencyCode>${profile.agency}</agencyCode>`)], reference: 200, chosen: 400 },
  { choice: 'no-content-type-json', calls: [noType(xmlRun(`<agencyCode>${profile.agency}</agencyCode>`))], reference: 200, chosen: 400 },
  { choice: 'reason-code-list', calls: [deleteOf(0)], reference: 204, chosen: 400 },
  { choice: 'chunked-answers', calls: [validRun()], observe: (a) => a.headers.get('content-length') !== null, reference: true, chosen: false },
  { choice: 'xml-any-root', calls: [{ path: '/agent/run', body: `<Run><agencyCode>${profile.agency}</agencyCode></Run>`, headers: XML_TYPE }], reference: 400, chosen: 200 },
  { choice: 'connection-close', calls: [validRun()], observe: (a) => a.headers.get('connection'), reference: 'keep-alive', chosen: 'close' },
  {
    choice: 'merge-items-in-order',
    calls: [mergeBody({ iswcs: [], agencyWorks: [{ agencyCode: profile.agency, agencyWorkCode: 'UNKNOWN1' }, { agencyCode: profile.agency, agencyWorkCode: 'W'.repeat(21) }] })],
    reference: 400,
    chosen: 404,
  },
  { choice: 'merge-unknown-works-404', calls: [mergeBody({ iswcs: [], agencyWorks: [{ agencyCode: profile.agency, agencyWorkCode: 'UNKNOWN1' }] })], reference: 204, chosen: 404 },
  {
    choice: 'demerge-merge-set',
    calls: [mergeOf(0), ...(at(profile.merges, 0).agencyWorks ?? []).slice(0, 2).map((w) => demergeOf(at(profile.merges, 0).preferredIswc, w.agencyCode, w.agencyWorkCode))],
    reference: 204,
    chosen: 404,
  },
  { choice: 'demerge-by-work-400', calls: [demergeOf(at(profile.unknownIswcs, 0), at(profile.demerges, 0).agency, at(profile.demerges, 0).workcode)], reference: 404, chosen: 400 },
  { choice: 'xml-answer-utf16', calls: [xmlRun(`<agencyCode>${profile.agency}</agencyCode>`)], observe: contentType, reference: 'application/xml; charset=utf-8', chosen: 'application/xml; charset=utf-16' },
  { choice: 'early-hints', calls: [validRun()], observe: (a) => a.headers.get('link'), reference: null, chosen: '</iswc.css>; rel=preload; as=style' },
  { choice: 'chunked-trailers', calls: [validRun()], observe: (a) => a.headers.get('trailer'), reference: null, chosen: 'Server-Timing' },
  {
    choice: 'xml-entities-dropped',
    calls: [{ path: '/agent/run', body: `<!DOCTYPE AgentRun [<!ENTITY ac "${profile.agency}">]><AgentRun><agencyCode>&ac;</agencyCode></AgentRun>`, headers: XML_TYPE }],
    reference: 400,
    chosen: 200,
  },
  { choice: 'agent-version-limit', calls: [validRun({ agentVersion: 'v'.repeat(21) })], reference: 200, chosen: 400 },
  { choice: 'unknown-path-403', calls: [{ method: 'GET', path: '/no-such-path' }], reference: 404, chosen: 403 },
  { choice: 'auth-after-lookup', calls: [{ ...deleteOf(0, { preferredIswc: at(profile.unknownIswcs, 0) }), auth: 'none' }], reference: 401, chosen: 404 },
  { choice: 'stated-text-colon-detail', calls: [validRun({ agencyCode: '1' })], observe: (a) => a.text.startsWith('Bad Request: '), reference: false, chosen: true },
  // A merge refused for an unknown ISWC kept the ISWC before it: merging that one again is refused as a child's.
  {
    choice: 'merge-commits-per-item',
    with: ['merge-child-refused'],
    calls: [{ ...mergeOf(0), body: JSON.stringify({ iswcs: [...(at(profile.merges, 0).iswcs ?? []), at(profile.unknownIswcs, 0)], agencyWorks: [] }) }, { ...mergeOf(0), body: JSON.stringify({ iswcs: at(profile.merges, 0).iswcs, agencyWorks: [] }) }],
    reference: 204,
    chosen: 400,
  },
  { choice: 'merge-child-refused', calls: [mergeOf(0), { ...mergeOf(1), body: JSON.stringify({ iswcs: at(profile.merges, 0).iswcs, agencyWorks: [] }) }], reference: 204, chosen: 400 },
  { choice: 'run-start-counters-zero', calls: [validRun()], reference: 200, chosen: 400 },
  { choice: 'submission-update-put', calls: [{ method: 'PUT', path: '/submission' }], reference: 405, chosen: 415 },
  { choice: 'submission-update-patch', calls: [{ method: 'PATCH', path: '/submission' }], reference: 405, chosen: 415 },
  // Review 3.
  { choice: 'content-type-no-charset', calls: [validRun()], observe: contentType, reference: 'application/json; charset=utf-8', chosen: 'application/json' },
  { choice: 'paths-case-insensitive', calls: [{ ...validRun(), path: '/Agent/Run/' }], reference: 404, chosen: 200 },
  {
    choice: 'query-names-case-insensitive',
    calls: [{ method: 'DELETE', path: '/submission', query: { PreferredIswc: s0().preferredIswc, Agency: s0().agency, WorkCode: s0().workcode, SourceDb: String(s0().sourceDb), ReasonCode: 'EdiV1' } }],
    reference: 400,
    chosen: 204,
  },
  { choice: 'options-cors', calls: [{ method: 'OPTIONS', path: '/agent/run' }], reference: 405, chosen: 204 },
  { choice: 'run-id-braced-upper', calls: [validRun()], observe: (a) => /"\{[0-9A-F-]{36}\}"/.test(a.text), reference: false, chosen: true },
  { choice: 'run-answer-extra-fields', calls: [validRun()], observe: (a) => a.text.includes('"status"'), reference: false, chosen: true },
  { choice: 'xml-answer-cdata', calls: [xmlRun(`<agencyCode>${profile.agency}</agencyCode>`)], observe: (a) => a.text.includes('<![CDATA['), reference: false, chosen: true },
  { choice: 'merge-extra-fields-refused', calls: [mergeBody({ iswcs: [profile.iswcs[1]], note: 'x' })], reference: 204, chosen: 400 },
  // A JSON body without one of its lists (here agencyWorks): read as empty by the reference, refused as invalid.
  { choice: 'merge-json-lists-required', calls: [mergeBody({ iswcs: [profile.iswcs[1]] })], reference: 204, chosen: 400 },
  { choice: 'rate-limit-429', calls: Array.from({ length: 300 }, () => validRun()), observe: (a) => `${a.status} ${a.headers.get('retry-after')}`, reference: '200 null', chosen: '429 1' },
  { choice: 'keep-alive-short', calls: [validRun()], observe: (a) => a.headers.get('keep-alive'), reference: 'timeout=10', chosen: 'timeout=0' },
  { choice: 'run-end-once', calls: [validRun({ runId: 'ended-once' }), validRun({ runId: 'ended-once' })], reference: 200, chosen: 400 },
  { choice: 'query-unknown-refused', calls: [deleteOf(0, { extra: 'x' })], reference: 204, chosen: 400 },
  {
    choice: 'merge-max-items',
    calls: [mergeBody({ iswcs: [], agencyWorks: Array.from({ length: 11 }, (_, i) => ({ agencyCode: profile.agency, agencyWorkCode: `MAX${i}` })) })],
    reference: 204,
    chosen: 400,
  },
  { choice: 'work-code-charset', calls: [deleteOf(0, { workcode: 'IM 009' })], reference: 404, chosen: 400 },
  { choice: 'accept-406', calls: [validRun({}, { headers: { ...JSON_TYPE, Accept: 'text/html' } })], reference: 200, chosen: 406 },
  { choice: 'delete-merged-child-400', calls: [{ ...mergeOf(0), body: JSON.stringify({ iswcs: [s0().preferredIswc], agencyWorks: [] }) }, deleteOf(0)], reference: 204, chosen: 400 },
  { choice: 'content-type-upper', calls: [validRun()], observe: contentType, reference: 'application/json; charset=utf-8', chosen: 'Application/Json; Charset=UTF-8' },
  { choice: 'xml-text-xml', calls: [xmlRun(`<agencyCode>${profile.agency}</agencyCode>`)], observe: typePrefix, reference: 'application/xml', chosen: 'text/xml' },
  { choice: 'error-no-body', calls: [deleteOf(0, { agency: '1' })], observe: (a) => a.text === '', reference: false, chosen: true },
  {
    choice: 'merge-preferred-child-refused',
    calls: [mergeOf(0), { ...mergeOf(0), query: { preferredIswc: at(at(profile.merges, 0).iswcs ?? [], 0), agency: profile.agency }, body: JSON.stringify({ iswcs: [profile.iswcs[1]], agencyWorks: [] }) }],
    reference: 204,
    chosen: 400,
  },
  {
    choice: 'merge-work-elsewhere-refused',
    calls: [mergeOf(0), { ...mergeOf(0), query: { preferredIswc: at(profile.iswcs, 0), agency: profile.agency }, body: JSON.stringify({ iswcs: [], agencyWorks: (at(profile.merges, 0).agencyWorks ?? []).slice(0, 1) }) }],
    reference: 204,
    chosen: 400,
  },
  { choice: 'merge-again-refused', calls: [mergeOf(0), mergeOf(0)], reference: 204, chosen: 400 },
  { choice: 'merge-own-works-only', calls: [mergeBody({ iswcs: [], agencyWorks: [{ agencyCode: '052', agencyWorkCode: 'PRS1' }] })], reference: 204, chosen: 403 },
  {
    choice: 'delete-with-merges-400',
    calls: [{ ...mergeOf(0), query: { preferredIswc: s0().preferredIswc, agency: profile.agency }, body: JSON.stringify({ iswcs: [], agencyWorks: [{ agencyCode: profile.agency, agencyWorkCode: 'MW1' }] }) }, deleteOf(0)],
    reference: 204,
    chosen: 400,
  },
  { choice: 'iis-html-errors', calls: [{ method: 'GET', path: '/no-such-path' }], observe: typePrefix, reference: 'text/plain', chosen: 'text/html' },
  { choice: 'uri-limit-414', calls: [deleteOf(0, { workcode: 'W'.repeat(3000) })], reference: 400, chosen: 414 },
  { choice: 'demerge-unmerged-400', calls: [demergeOf(at(profile.unknownIswcs, 0), profile.agency, 'NEVER-MERGED')], reference: 404, chosen: 400 },
  { choice: 'json-text-plain', calls: [validRun()], observe: typePrefix, reference: 'application/json', chosen: 'text/plain' },
  { choice: 'merge-items-looked-up-first', calls: [mergeBody({ iswcs: ['T123'] })], reference: 400, chosen: 404 },
  { choice: 'one-open-run', calls: [validRun(), validRun()], reference: 200, chosen: 400 },
  { choice: 'run-id-client-chosen', calls: [validRun()], reference: 200, chosen: 400 },
  { choice: 'large-bodies-accepted', calls: [{ path: '/agent/run', body: `${JSON.stringify(VALID_RUN)}${' '.repeat(2 * 1024 * 1024)}`, headers: JSON_TYPE }], reference: 413, chosen: 200 },
  // Issue 21: production as built, and the readings of the close reading.
  { choice: 'no-content-type-refused', calls: [noType(validRun())], reference: 200, chosen: 415 },
  {
    choice: 'demerge-merged-iswc',
    profile: twoWorksOfOneIswc(),
    calls: [
      { ...mergeOf(0), body: JSON.stringify({ iswcs: [], agencyWorks: sharedWorks().map((w) => ({ agencyCode: w.agency, agencyWorkCode: w.workcode })) }) },
      ...sharedWorks().map((w) => demergeOf(at(profile.merges, 0).preferredIswc, w.agency, w.workcode)),
    ],
    reference: 204,
    chosen: 404,
  },
  { choice: 'run-end-agency-checked', with: ['run-id-client-chosen', 'unknown-run-404'], calls: [validRun({ runId: 'started-by-128' }), validRun({ runId: 'started-by-128', agencyCode: '052' })], reference: 200, chosen: 404 },
  { choice: 'business-codes', calls: [deleteOf(0, { agency: '1' })], observe: (a) => (JSON.parse(a.text) as { code: string }).code, reference: 'BAD_PARAMETER', chosen: '103' },
  { choice: 'merge-items-lookup-400', calls: [mergeBody({ iswcs: [at(profile.unknownIswcs, 0)] })], reference: 404, chosen: 400 },
  { choice: 'merge-agency-unchecked', calls: [{ ...mergeBody({ iswcs: [], agencyWorks: [] }), query: { preferredIswc: at(profile.merges, 0).preferredIswc, agency: '1288' } }], reference: 400, chosen: 204 },
  { choice: 'key-source-db-scope', calls: [deleteOf(0, { sourceDb: '300' })], reference: 404, chosen: 403 },
  // What a merge refused for an unknown ISWC kept shows when the ISWC it found is merged again, as a child.
  {
    choice: 'merge-partial-404',
    with: ['merge-child-refused'],
    calls: [{ ...mergeOf(0), body: JSON.stringify({ iswcs: [...(at(profile.merges, 0).iswcs ?? []), at(profile.unknownIswcs, 0)], agencyWorks: [] }) }, { ...mergeOf(0), body: JSON.stringify({ iswcs: at(profile.merges, 0).iswcs, agencyWorks: [] }) }],
    reference: 204,
    chosen: 400,
  },
  { choice: 'json-fractions-truncated', calls: [validRun({ newRecordCount: 1.5 })], reference: 400, chosen: 200 },
  { choice: 'unknown-preferred-400', calls: [deleteOf(0, { preferredIswc: at(profile.unknownIswcs, 0) })], reference: 404, chosen: 400 },
  { choice: 'preferred-looked-up-first', calls: [deleteOf(0, { preferredIswc: at(profile.unknownIswcs, 0), agency: '1' })], reference: 400, chosen: 404 },
  // Issue 29, production as built read again from its source (docs/reference-server.md, "Production as built, behaviour by behaviour").
  { choice: 'binding-problem-json', calls: [deleteOf(0, { sourceDb: 'abc', agency: '1' })], observe: (a) => `${a.status} ${typePrefix(a)}`, reference: '400 application/json', chosen: '400 application/problem+json' },
  { choice: 'agency-registry', calls: [deleteOf(0, { agency: '999' })], reference: 404, chosen: 400 },
  { choice: 'merge-eligibility', calls: [{ ...mergeOf(0), query: { preferredIswc: at(profile.merges, 0).preferredIswc, agency: '058' } }], reference: 204, chosen: 400 },
  { choice: 'merge-self-refused', calls: [mergeBody({ iswcs: [at(profile.merges, 0).preferredIswc] })], reference: 204, chosen: 400 },
  // Issue 28: readings of values within their limits, and the three false alarms of its close reading.
  { choice: 'text-collation-ci', calls: [deleteOf(0, { workcode: s0().workcode.toLowerCase() })], reference: 404, chosen: 204 },
  { choice: 'query-integer-dotnet', calls: [deleteOf(0, { sourceDb: ` ${s0().sourceDb}` })], reference: 400, chosen: 204 },
  { choice: 'counter-plausibility-cap', calls: [validRun({ updateRecordCount: 200_000_000, newRecordCount: 0, overallSent: 200_000_000, successfulCount: 200_000_000 })], reference: 200, chosen: 400 },
  { choice: 'agent-version-typed', calls: [validRun({ agentVersion: 'conformance 0.1.0' })], reference: 200, chosen: 400 },
  { choice: 'run-id-empty-echo', calls: [validRun({ runId: '' })], observe: (a: Answer) => ((JSON.parse(a.text) as { runId?: unknown }).runId === '' ? 'empty runId' : 'a runId'), reference: 'a runId', chosen: 'empty runId' },
  { choice: 'xml-answer-doctype', calls: [xmlRun(`<agencyCode>${profile.agency}</agencyCode>`)], observe: (a) => a.text.includes('<!DOCTYPE CsnNotification>'), reference: false, chosen: true },
  { choice: 'run-counters-successful-sum', calls: [validRun({ updateRecordCount: 1, newRecordCount: 0, overallSent: 2, successfulCount: 2, overallRejected: 0 })], reference: 200, chosen: 400 },
  {
    choice: 'merge-after-demerge-refused',
    calls: [mergeOf(0), demergeOf(at(profile.merges, 0).preferredIswc, at(at(profile.merges, 0).agencyWorks ?? [], 0).agencyCode, at(at(profile.merges, 0).agencyWorks ?? [], 0).agencyWorkCode), mergeOf(0)],
    reference: 204,
    chosen: 400,
  },
  { choice: 'stated-text-status-message', calls: [validRun({ agencyCode: '1' })], observe: (a) => a.text, reference: 'Bad Request', chosen: '{"code":400,"message":"HTTP 400 Bad Request"}' },
  // The next fresh reading (2026-11-30): the forms frameworks write, new and updated as kinds of the records sent, an empty key malformed.
  { choice: 'stated-text-status-code-pages', calls: [validRun({ agencyCode: '1' })], observe: (a) => a.text, reference: 'Bad Request', chosen: 'Status Code: 400; Bad Request' },
  { choice: 'stated-text-json-detail', calls: [validRun({ agencyCode: '1' })], observe: (a) => `${typePrefix(a) ?? ''} ${a.text.slice(0, 13)}`, reference: 'text/plain Bad Request', chosen: 'application/json "Bad Request:' },
  { choice: 'run-counters-sent-by-kind', calls: [validRun({ updateRecordCount: 1, newRecordCount: 1, overallSent: 3, successfulCount: 2, overallRejected: 1, businessRejectionCount: 1, technicalRejectionCount: 0 })], reference: 200, chosen: 400 },
  { choice: 'empty-key-400', calls: [validRun({}, { auth: '' })], observe: (a) => `${a.status} ${a.text}`, reference: '401 Not Authorized', chosen: '400 Bad Request' },
  { choice: 'chunked-204', calls: [mergeOf(0)], observe: (a) => `${a.status} ${a.headers.get('transfer-encoding')}`, reference: '204 null', chosen: '204 chunked' },
  { choice: 'integer-python-int', calls: [deleteOf(0, { sourceDb: String(s0().sourceDb).replace(/[0-9]/g, (d) => String.fromCodePoint(0xff10 + Number(d))) })], reference: 400, chosen: 204 },
  { choice: 'integer-java-parseint', calls: [deleteOf(0, { sourceDb: String(s0().sourceDb).replace(/[0-9]/g, (d) => String.fromCodePoint(0x0660 + Number(d))) })], reference: 400, chosen: 204 },
];

/** Two works of one ISWC: the first submission's work and a second submission of the same ISWC. */
function sharedWorks(): Array<{ preferredIswc: string; agency: string; workcode: string; sourceDb: number }> {
  const first = s0();
  return [first, { ...first, workcode: `${first.workcode}B` }];
}

/** The embedded profile with a second work of the first submission's ISWC (a demerge of a merged ISWC removes both). */
function twoWorksOfOneIswc(): TargetProfile {
  return { ...profile, submissions: [...sharedWorks(), ...profile.submissions.slice(1)] };
}

test.describe('legitimate choices', () => {
  test('an unknown choice or choice set throws and lists the valid ones', async () => {
    await expect(startReferenceServer({ profile, key: KEY, choices: ['no-such-choice'] })).rejects.toThrow(/no-such-choice.*Valid ids: .*answer-xml-always/s);
    await expect(startReferenceServer({ profile, key: KEY, choices: 'no-such-set' as 'reference' })).rejects.toThrow(/no-such-set.*Valid sets: reference, alternative, production, exacting, wire, lenient/s);
  });

  for (const probe of CHOICE_PROBES) {
    test(`${probe.choice} changes what it names`, async () => {
      const answers: Record<'reference' | 'chosen', Observed> = { reference: null, chosen: null };
      for (const which of ['reference', 'chosen'] as const) {
        await withServer([], async (s) => {
          let last: Answer | undefined;
          for (const c of probe.calls) last = await call(s, c);
          if (!last) throw new Error('a probe needs at least one call');
          answers[which] = (probe.observe ?? ((a: Answer) => a.status))(last);
        }, undefined, which === 'reference' ? [...(probe.with ?? [])] : [...(probe.with ?? []), probe.choice], probe.profile);
      }
      expect(answers).toEqual({ reference: probe.reference, chosen: probe.chosen });
    });
  }

  test('every choice has a probe and belongs to a set; the docs hold the generated table', () => {
    expect(CHOICES.map((c) => c.id).filter((id) => !CHOICE_PROBES.some((p) => p.choice === id))).toEqual([]);
    const inSets = new Set(Object.values(CHOICE_SETS).flat() as string[]);
    expect(CHOICES.map((c) => c.id).filter((id) => !inSets.has(id))).toEqual([]);
    expect(readFileSync(fromRoot('docs', 'reference-server.md'), 'utf8')).toContain(choiceTable());
  });
});
