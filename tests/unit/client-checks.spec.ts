import { expect, _baseTest as test } from '@playwright/test';
import { judgeRequest } from '../../lib/check/client/judge.ts';
import { viewOf } from '../../lib/check/client/request.ts';
import type { ClientRequest, SessionView } from '../../lib/check/client/types.ts';
import { operations } from '../../lib/contract/operations.ts';
import type { XmlArrays } from '../../lib/contract/profile/types.ts';

/**
 * The client checks on requests written by hand, table-driven: a client that keeps the document passes
 * every check; each case names the checks that fail and those that record an observation, and no others.
 * The cases on the edges (readings of "characters", lossless coercion, open points) are where a client
 * check must not raise a false alarm.
 */

const KEY = 'unit-key-0123456789';
const HEADER = 'ocp-apim-subscription-key';

interface Case {
  name: string;
  method: string;
  target: string;
  headers?: Record<string, string>;
  body?: string;
  xmlArrays?: XmlArrays;
  /** Over the sandbox's body cap (the bytes are not kept). */
  tooLarge?: boolean;
  session?: Partial<SessionView>;
  fail?: string[];
  observed?: string[];
}

const RUN = { agentVersion: 'agent 1.0', agencyCode: '128', updateRecordCount: 0, newRecordCount: 0, overallRejected: 0, overallSent: 0, successfulCount: 0, businessRejectionCount: 0, technicalRejectionCount: 0 };
const MERGE = { iswcs: ['T3100000015'], agencyWorks: [{ agencyCode: '128', agencyWorkCode: 'IM00700100' }] };
const json = (v: unknown): { headers: Record<string, string>; body: string } => ({ headers: { 'content-type': 'application/json' }, body: JSON.stringify(v) });
const xml = (body: string): { headers: Record<string, string>; body: string } => ({ headers: { 'content-type': 'application/xml' }, body });
const MERGE_Q = '/iswc/merge?preferredIswc=T3100000004&agency=128';
const DELETE_Q = '/submission?preferredIswc=T3300000000&agency=128&workcode=IM00900100&sourceDb=128&reasonCode=EdiV1';

const CASES: Case[] = [
  { name: 'a run start in JSON', method: 'POST', target: '/agent/run', ...json(RUN) },
  { name: 'a run end in JSON naming an issued run', method: 'POST', target: '/agent/run', ...json({ ...RUN, runId: 'r-1' }), session: { issuedRunIds: new Set(['r-1']) } },
  { name: 'a run start in XML, white space around a counter', method: 'POST', target: '/agent/run', ...xml('<?xml version="1.0"?>\n<AgentRun>\n  <agentVersion>a</agentVersion><agencyCode>128</agencyCode><updateRecordCount> 5 </updateRecordCount>\n  <newRecordCount>0</newRecordCount><overallRejected>0</overallRejected><overallSent>0</overallSent><successfulCount>0</successfulCount><businessRejectionCount>0</businessRejectionCount><technicalRejectionCount>0</technicalRejectionCount></AgentRun>') },
  { name: 'a merge in JSON, a Content-Type with a charset', method: 'POST', target: MERGE_Q, headers: { 'content-type': 'application/json; charset=utf-8' }, body: JSON.stringify(MERGE) },
  { name: 'a merge of ISWCs only', method: 'POST', target: MERGE_Q, ...json({ iswcs: ['T3100000015'] }) },
  { name: 'a merge in XML, unwrapped', method: 'POST', target: MERGE_Q, ...xml('<MergeRequest><iswcs>T3100000015</iswcs><agencyWorks><agencyCode>128</agencyCode><agencyWorkCode>IM00700100</agencyWorkCode></agencyWorks></MergeRequest>') },
  { name: 'a merge in XML, wrapped, for a target that reads them wrapped', method: 'POST', target: MERGE_Q, xmlArrays: 'wrapped', ...xml('<MergeRequest><iswcs><string>T3100000015</string></iswcs><agencyWorks><AgencyWork><agencyCode>128</agencyCode><agencyWorkCode>IM00700100</agencyWorkCode></AgencyWork></agencyWorks></MergeRequest>') },
  { name: 'a merge in XML, wrapped, for a target that reads them unwrapped', method: 'POST', target: MERGE_Q, ...xml('<MergeRequest><iswcs><string>T3100000015</string></iswcs></MergeRequest>'), observed: ['client.xml'] },
  { name: 'XML with a comment, CDATA and character references', method: 'POST', target: MERGE_Q, ...xml('<MergeRequest><!-- ours --><iswcs><![CDATA[T3100000015]]></iswcs><agencyWorks><agencyCode>&#49;28</agencyCode><agencyWorkCode>IM&amp;1</agencyWorkCode></agencyWorks></MergeRequest>') },
  { name: 'XML with an attribute holding ">" and a processing instruction', method: 'POST', target: MERGE_Q, ...xml('<?xml version="1.0"?><?agency tool?><MergeRequest note="a>b"><iswcs>T3100000015</iswcs></MergeRequest>') },
  { name: 'XML with an empty counter element', method: 'POST', target: '/agent/run', ...xml('<AgentRun><agentVersion>a</agentVersion><agencyCode>128</agencyCode><updateRecordCount/><newRecordCount>0</newRecordCount><overallRejected>0</overallRejected><overallSent>0</overallSent><successfulCount>0</successfulCount><businessRejectionCount>0</businessRejectionCount><technicalRejectionCount>0</technicalRejectionCount></AgentRun>'), observed: ['client.body.fields'] },
  { name: 'XML with a DOCTYPE whose entity is never expanded', method: 'POST', target: MERGE_Q, ...xml('<!DOCTYPE MergeRequest [<!ENTITY x "T3100000015">]><MergeRequest><iswcs>&x;</iswcs></MergeRequest>'), fail: ['client.body.limits'], observed: ['client.xml'] },
  { name: 'a JSON body with a byte order mark', method: 'POST', target: MERGE_Q, headers: { 'content-type': 'application/json' }, body: `\uFEFF${JSON.stringify(MERGE)}` },
  { name: 'a JSON body without Content-Type', method: 'POST', target: MERGE_Q, headers: {}, body: JSON.stringify(MERGE) },
  { name: 'an XML body without Content-Type', method: 'POST', target: MERGE_Q, headers: {}, body: '<MergeRequest><iswcs>T3100000015</iswcs></MergeRequest>', observed: ['client.xml'] },
  { name: 'a delete', method: 'DELETE', target: DELETE_Q },
  { name: 'a delete with a Content-Type and no body', method: 'DELETE', target: DELETE_Q, headers: { 'content-type': 'application/json' } },
  { name: 'a demerge', method: 'DELETE', target: '/iswc/merge?preferredIswc=T3200000002&agency=128&workcode=IM00800100' },
  // The key (5.1).
  { name: 'no key', method: 'DELETE', target: DELETE_Q, headers: { [HEADER]: '' }, fail: ['client.key'] },
  { name: 'another key', method: 'DELETE', target: DELETE_Q, headers: { [HEADER]: 'some-other-key' }, fail: ['client.key'] },
  // Section 8: size limits not shown. A body over the sandbox's cap is recorded, its content not judged.
  { name: 'a JSON merge larger than the sandbox reads', method: 'POST', target: MERGE_Q, headers: { 'content-type': 'application/json' }, tooLarge: true, observed: ['client.body.fields'] },
  { name: 'a merge of unknown format larger than the sandbox reads', method: 'POST', target: MERGE_Q, headers: {}, tooLarge: true, observed: ['client.body.fields'] },
  { name: 'an XML run larger than the sandbox reads', method: 'POST', target: '/agent/run', headers: { 'content-type': 'application/xml' }, tooLarge: true, observed: ['client.xml'] },
  { name: 'a delete with a body larger than the sandbox reads', method: 'DELETE', target: DELETE_Q, tooLarge: true, fail: ['client.body.presence'] },
  // Method and path (4).
  { name: 'a trailing slash', method: 'POST', target: '/agent/run/', ...json(RUN), fail: ['client.operation'] },
  { name: 'GET on a documented path', method: 'GET', target: '/agent/run', fail: ['client.operation'] },
  // Bodies (4.1-4.4, 2).
  { name: 'a merge without a body', method: 'POST', target: MERGE_Q, fail: ['client.body.presence'] },
  { name: 'a demerge with a body', method: 'DELETE', target: '/iswc/merge?preferredIswc=T3200000002&agency=128&workcode=IM00800100', ...json({}), fail: ['client.body.presence'] },
  { name: 'JSON labelled XML', method: 'POST', target: MERGE_Q, headers: { 'content-type': 'application/xml' }, body: JSON.stringify(MERGE), fail: ['client.content-type', 'client.body.syntax'] },
  { name: 'a single-quoted JSON body', method: 'POST', target: MERGE_Q, ...json(MERGE), body: "{'iswcs': ['T3100000015']}", fail: ['client.body.syntax'] },
  { name: 'invalid UTF-8 in JSON', method: 'POST', target: MERGE_Q, headers: { 'content-type': 'application/json' }, body: '{"iswcs":["T31000000\u00ff5"]}', fail: ['client.body.syntax'] },
  { name: 'unclosed XML', method: 'POST', target: MERGE_Q, ...xml('<MergeRequest><iswcs>T3100000015</iswcs>'), fail: ['client.body.syntax'] },
  { name: 'a JSON array for the body', method: 'POST', target: MERGE_Q, ...json([MERGE]), fail: ['client.body.root'] },
  { name: 'another XML root', method: 'POST', target: '/agent/run', ...xml('<Run><agencyCode>128</agencyCode></Run>'), fail: ['client.body.root'], observed: ['client.body.fields'] },
  { name: 'XML nested 60,000 levels deep: not read, recorded', method: 'POST', target: '/agent/run', ...xml(`<AgentRun><agentVersion>${'<a>'.repeat(60_000)}${'</a>'.repeat(60_000)}</agentVersion></AgentRun>`), observed: ['client.xml'] },
  { name: 'XML nested 60,000 levels deep and not closed: not well-formed', method: 'POST', target: '/agent/run', ...xml(`<AgentRun><agentVersion>${'<a>'.repeat(60_000)}</agentVersion></AgentRun>`), fail: ['client.body.syntax'] },
  { name: 'a namespaced XML root', method: 'POST', target: MERGE_Q, ...xml('<MergeRequest xmlns="urn:x"><iswcs>T3100000015</iswcs></MergeRequest>'), observed: ['client.xml'] },
  { name: 'a field spelt with another case', method: 'POST', target: '/agent/run', ...json({ ...RUN, AgencyCode: '128', agencyCode: undefined }), fail: ['client.body.field-names'], observed: ['client.body.fields'] },
  { name: 'a field the document does not name', method: 'POST', target: '/agent/run', ...json({ ...RUN, comment: 'x' }), observed: ['client.body.fields'] },
  { name: 'a null counter', method: 'POST', target: '/agent/run', ...json({ ...RUN, overallSent: null }), observed: ['client.body.fields'] },
  { name: 'a null agency work (as a null ISWC)', method: 'POST', target: MERGE_Q, ...json({ iswcs: [null], agencyWorks: [null] }), observed: ['client.body.fields'] },
  { name: 'an empty string for a counter in JSON (as an empty counter element in XML)', method: 'POST', target: '/agent/run', ...json({ ...RUN, overallSent: '' }), observed: ['client.body.fields'] },
  { name: 'an empty merge', method: 'POST', target: MERGE_Q, ...json({}), observed: ['client.body.fields'] },
  { name: 'a fraction for a counter', method: 'POST', target: '/agent/run', ...json({ ...RUN, overallSent: 1.5 }), fail: ['client.body.types'] },
  { name: 'an object for the agency code', method: 'POST', target: '/agent/run', ...json({ ...RUN, agencyCode: { code: '128' } }), fail: ['client.body.types'] },
  { name: 'an object for the list of ISWCs', method: 'POST', target: MERGE_Q, ...json({ iswcs: { a: 'T3100000015' } }), fail: ['client.body.types'] },
  { name: 'a word for a counter, in XML', method: 'POST', target: '/agent/run', ...xml('<AgentRun><agencyCode>128</agencyCode><overallSent>many</overallSent></AgentRun>'), fail: ['client.body.types'], observed: ['client.body.fields'] },
  { name: '"5" for a counter (lossless)', method: 'POST', target: '/agent/run', ...json({ ...RUN, overallSent: '5' }), observed: ['client.coercion'] },
  { name: 'a boolean for a counter (lossless)', method: 'POST', target: '/agent/run', ...json({ ...RUN, overallSent: true }), observed: ['client.coercion'] },
  { name: 'a number for the agency code (lossless)', method: 'POST', target: '/agent/run', ...json({ ...RUN, agencyCode: 128 }), observed: ['client.coercion'] },
  { name: 'one agency work where a list is expected (lossless, as XML\'s single element)', method: 'POST', target: MERGE_Q, ...json({ agencyWorks: { agencyCode: '128', agencyWorkCode: 'IM00700100' } }), observed: ['client.coercion'] },
  // XML as careful writers send it: never a false violation.
  { name: 'an empty XML list element (<iswcs />, XmlSerializer\'s empty list)', method: 'POST', target: MERGE_Q, ...xml('<MergeRequest><iswcs /><agencyWorks><agencyCode>128</agencyCode><agencyWorkCode>IM00700100</agencyWorkCode></agencyWorks></MergeRequest>'), observed: ['client.xml'] },
  { name: 'a nil XML list (as JSON null)', method: 'POST', target: MERGE_Q, ...xml('<MergeRequest xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"><iswcs xsi:nil="true" /><agencyWorks><agencyCode>128</agencyCode><agencyWorkCode>IM00700100</agencyWorkCode></agencyWorks></MergeRequest>'), observed: ['client.body.fields'] },
  { name: 'XML with a charset, a declared encoding and a byte order mark', method: 'POST', target: MERGE_Q, headers: { 'content-type': 'application/xml; charset=utf-8' }, body: '\uFEFF<?xml version="1.0" encoding="UTF-8"?>\n<MergeRequest><iswcs>T3100000015</iswcs></MergeRequest>' },
  { name: 'latin1 XML labelled by its Content-Type charset', method: 'POST', target: MERGE_Q, headers: { 'content-type': 'text/xml; charset="ISO-8859-1"' }, body: '<MergeRequest><agencyWorks><agencyCode>128</agencyCode><agencyWorkCode>IM\u00e91</agencyWorkCode></agencyWorks></MergeRequest>' },
  { name: 'latin1 XML declaring windows-1252', method: 'POST', target: MERGE_Q, ...xml('<?xml version="1.0" encoding="windows-1252"?><MergeRequest><agencyWorks><agencyCode>128</agencyCode><agencyWorkCode>IM\u00e91</agencyWorkCode></agencyWorks></MergeRequest>') },
  { name: 'latin1 XML declaring an encoding the sandbox does not decode: not judged, recorded', method: 'POST', target: MERGE_Q, ...xml('<?xml version="1.0" encoding="x-agency-private"?><MergeRequest><iswcs>\u00e9</iswcs></MergeRequest>'), observed: ['client.xml'] },
  { name: 'latin1 XML declaring nothing (invalid UTF-8)', method: 'POST', target: MERGE_Q, ...xml('<MergeRequest><agencyWorks><agencyCode>128</agencyCode><agencyWorkCode>IM\u00e91</agencyWorkCode></agencyWorks></MergeRequest>'), fail: ['client.body.syntax'] },
  { name: 'one ISWC where a list is expected', method: 'POST', target: MERGE_Q, ...json({ iswcs: 'T3100000015' }), observed: ['client.coercion'] },
  // Limits (2, 8), on every reading of "characters".
  { name: 'a 4-character agency code', method: 'POST', target: '/agent/run', ...json({ ...RUN, agencyCode: '1280' }), fail: ['client.body.limits'] },
  { name: 'an ISWC in lower case', method: 'POST', target: MERGE_Q, ...json({ iswcs: ['t3100000015'] }), fail: ['client.body.limits'] },
  { name: 'an ISWC with separators', method: 'POST', target: MERGE_Q, ...json({ iswcs: ['T-310.000.001-5'] }), fail: ['client.body.limits'] },
  { name: 'a counter past int32', method: 'POST', target: '/agent/run', ...json({ ...RUN, overallSent: 2147483648 }), fail: ['client.body.limits'] },
  { name: 'a negative counter (within int32)', method: 'POST', target: '/agent/run', ...json({ ...RUN, overallRejected: -1 }) },
  { name: 'a 20-character work code', method: 'POST', target: MERGE_Q, ...json({ agencyWorks: [{ agencyCode: '128', agencyWorkCode: 'A'.repeat(20) }] }) },
  { name: 'a 21-character work code', method: 'POST', target: MERGE_Q, ...json({ agencyWorks: [{ agencyCode: '128', agencyWorkCode: 'A'.repeat(21) }] }), fail: ['client.body.limits'] },
  { name: 'a work code of 20 code points ending in an emoji (21 UTF-16 units)', method: 'POST', target: MERGE_Q, ...json({ agencyWorks: [{ agencyCode: '128', agencyWorkCode: `${'A'.repeat(19)}\u{1F3B5}` }] }), observed: ['client.characters'] },
  { name: 'an agency code of 3 graphemes and 4 code points', method: 'POST', target: '/agent/run', ...json({ ...RUN, agencyCode: 'e\u0301ab' }), observed: ['client.characters'] },
  { name: 'a work code of 20 accented letters (40 UTF-8 bytes)', method: 'POST', target: MERGE_Q, ...json({ agencyWorks: [{ agencyCode: '128', agencyWorkCode: '\u00e9'.repeat(20) }] }), observed: ['client.characters'] },
  // Query parameters (4.2-4.4, 8).
  { name: 'a 4-character query agency', method: 'DELETE', target: DELETE_Q.replace('agency=128', 'agency=1280'), fail: ['client.query.limits'] },
  { name: 'a 21-character workcode', method: 'DELETE', target: `/iswc/merge?preferredIswc=T3200000002&agency=128&workcode=${'W'.repeat(21)}`, fail: ['client.query.limits'] },
  { name: 'a fraction for sourceDb', method: 'DELETE', target: DELETE_Q.replace('sourceDb=128', 'sourceDb=12.5'), fail: ['client.query.limits'] },
  { name: 'sourceDb past int32', method: 'DELETE', target: DELETE_Q.replace('sourceDb=128', 'sourceDb=2147483648'), fail: ['client.query.limits'] },
  { name: 'sourceDb written +128 (lossless)', method: 'DELETE', target: DELETE_Q.replace('sourceDb=128', 'sourceDb=%2B128'), observed: ['client.coercion'] },
  { name: 'a blank reasonCode', method: 'DELETE', target: DELETE_Q.replace('reasonCode=EdiV1', 'reasonCode='), observed: ['client.query.open'] },
  { name: 'no reasonCode', method: 'DELETE', target: DELETE_Q.replace('&reasonCode=EdiV1', ''), observed: ['client.query.open'] },
  { name: 'any reasonCode value', method: 'DELETE', target: DELETE_Q.replace('reasonCode=EdiV1', 'reasonCode=01') },
  { name: 'a query parameter written with another case', method: 'DELETE', target: DELETE_Q.replace('preferredIswc', 'PreferredIswc'), observed: ['client.query.open'] },
  { name: 'a repeated agency', method: 'DELETE', target: `${DELETE_Q}&agency=128`, observed: ['client.query.open'] },
  { name: 'a query on the run notification', method: 'POST', target: '/agent/run?trace=1', ...json(RUN), observed: ['client.query.open'] },
  { name: 'a preferredIswc with separators (no pattern stated for it)', method: 'DELETE', target: DELETE_Q.replace('T3300000000', 'T-330.000.000-0'), observed: ['client.iswc'] },
  { name: 'an ISWC with a wrong check digit', method: 'POST', target: MERGE_Q, ...json({ iswcs: ['T3100000016'] }), observed: ['client.iswc'] },
  // Runs (2.2, 4.1).
  { name: 'the end of a run the server never issued', method: 'POST', target: '/agent/run', ...json({ ...RUN, runId: 'made-up' }), observed: ['client.run-id.issued'] },
  // HTTP conventions, as the session sees them.
  { name: 'a request before Retry-After elapsed', method: 'DELETE', target: DELETE_Q, session: { throttle: { setBy: 1, status: 429, notBefore: Date.now() + 60_000, retryAfter: '60' } }, fail: ['client.retry-after'] },
  { name: 'a request after Retry-After elapsed', method: 'DELETE', target: DELETE_Q, session: { throttle: { setBy: 1, status: 503, notBefore: Date.now() - 1, retryAfter: '2' } } },
  // At the edge: clock and timer resolution (a timer may fire a millisecond early) are not a violation.
  { name: 'a request 50 ms before Retry-After elapsed (clock resolution)', method: 'DELETE', target: DELETE_Q, session: { throttle: { setBy: 1, status: 503, notBefore: Date.now() + 50, retryAfter: '2' } } },
  { name: 'a sixth retry of a request that met trouble', method: 'DELETE', target: DELETE_Q, session: { retry: { of: 1, attempt: 6 } }, fail: ['client.retries-bounded'] },
  { name: 'a fifth retry', method: 'DELETE', target: DELETE_Q, session: { retry: { of: 1, attempt: 5 } } },
  { name: 'a request over the rate limit', method: 'DELETE', target: DELETE_Q, session: { rate: { limit: 10, windowMs: 60_000, toleranceMs: 1000, inWindow: 11, exceeded: true, text: '10/min' } }, fail: ['client.rate-limit'] },
];

function judged(c: Case): { fail: string[]; observed: string[] } {
  const q = c.target.indexOf('?');
  const path = q < 0 ? c.target : c.target.slice(0, q);
  const headers: Record<string, string> = { [HEADER]: KEY, ...c.headers };
  if (headers[HEADER] === '') delete headers[HEADER];
  const body = c.body === undefined ? Buffer.alloc(0) : c.name.includes('invalid UTF-8') || c.name.startsWith('latin1') ? Buffer.from(c.body, 'latin1') : Buffer.from(c.body, 'utf8');
  const request: ClientRequest = { seq: 2, at: Date.now(), method: c.method, target: c.target, path, rawQuery: q < 0 ? '' : c.target.slice(q + 1), headers, body, tooLarge: c.tooLarge ?? false, operation: operations().find((op) => op.method === c.method && op.path === path) ?? null };
  const session: SessionView = { keyHeader: HEADER, key: KEY, xmlArrays: c.xmlArrays ?? 'unwrapped', issuedRunIds: new Set(), throttle: undefined, retry: undefined, rate: undefined, ...c.session };
  const verdicts = judgeRequest({ request, view: viewOf(request), session }, false);
  return { fail: verdicts.filter((v) => v.verdict === 'fail').map((v) => v.check).sort(), observed: verdicts.filter((v) => v.verdict === 'observed').map((v) => v.check).sort() };
}

for (const c of CASES) {
  test(`client checks: ${c.name}`, () => {
    expect(judged(c)).toEqual({ fail: [...(c.fail ?? [])].sort(), observed: [...(c.observed ?? [])].sort() });
  });
}

test('every client check that judges requests is exercised by a failing or observed case of this table', async () => {
  const { allClientChecks } = await import('../../lib/check/client/registry.ts');
  const named = new Set(CASES.flatMap((c) => [...(c.fail ?? []), ...(c.observed ?? [])]));
  expect(allClientChecks().filter((c) => c.judge && !named.has(c.id)).map((c) => c.id)).toEqual([]);
});
