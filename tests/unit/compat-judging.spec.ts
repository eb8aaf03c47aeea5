import { expect, _baseTest as test } from '@playwright/test';
import { compareAnswers, learnNoise } from '../../lib/check/compat/compare.ts';
import { answerFacts, noAnswer } from '../../lib/check/compat/facts.ts';
import { shapeOf } from '../../lib/check/compat/shape.ts';
import { loadProfile } from '../../lib/contract/profile/load.ts';
import { fromRoot } from '../../lib/foundation/paths.ts';
import { planReplay, plannedRequests } from '../../lib/compat/plan.ts';
import { mapBody, mapQuery } from '../../lib/compat/mapping.ts';
import type { TrafficExchange, TrafficSession } from '../../lib/traffic/model.ts';

/**
 * The second judgement and the sample, without a server: what a client may read of an answer, what noise
 * hides and what it never does, what makes two requests the same shape, and how a plan chooses, maps and
 * counts what it sends.
 */

const json = (status: number, body: unknown, type = 'application/json; charset=utf-8') => answerFacts({ status, headers: { 'content-type': type }, body: JSON.stringify(body) });

test('an answer\'s facts: status, media type and charset, format, shape (an XML namespace included) and texts', () => {
  const f = json(200, { runId: 'a', items: [{ n: 1 }, { n: 2 }] });
  expect([f.status, f.mediaType, f.charset, f.format]).toEqual([200, 'application/json', 'utf-8', 'json']);
  expect([...f.shape]).toEqual([['$', 'object'], ['$.runId', 'string'], ['$.items', 'array'], ['$.items[]', 'object'], ['$.items[].n', 'number']]);
  expect(f.texts.get('$.items[].n')).toBe('1 \u241e 2');
  const x = answerFacts({ status: 200, headers: { 'content-type': 'application/xml' }, body: '<?xml version="1.0"?><CsnNotification xmlns="urn:x"><runId>r</runId></CsnNotification>' });
  expect(x.format).toBe('xml');
  expect(x.shape.get('/CsnNotification@xmlns')).toBe('ns urn:x');
  expect(x.texts.get('/CsnNotification/runId')).toBe('r');
  const t = answerFacts({ status: 404, headers: { 'content-type': 'text/plain' }, body: ' ISWC not found\n' });
  expect([t.format, t.texts.get('$body')]).toEqual(['text', 'ISWC not found']);
  // A UTF-16 answer with its byte order mark reads as its text.
  const u = answerFacts({ status: 200, headers: { 'content-type': 'application/xml; charset=utf-16' }, body: Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('<a>1</a>', 'utf16le')]) });
  expect(u.texts.get('/a')).toBe('1');
});

test('compatible, changed, broken: the document first, then a success turned refusal, then what differs', () => {
  const recorded = json(200, { runId: 'r-1' });
  const noDocFailures = { documentFailures: [], actsForOther: undefined };
  const { noise } = learnNoise(json(200, { runId: 'b-1' }), json(200, { runId: 'b-2' }));
  expect([...noise]).toEqual([['text $.runId', 'value']]);
  expect(compareAnswers({ recorded, replayed: json(200, { runId: 'c-1' }), noise, ...noDocFailures }).verdict).toBe('compatible');
  // Without the noise learned, the runId that differs on every call would read as a change.
  expect(compareAnswers({ recorded, replayed: json(200, { runId: 'c-1' }), noise: new Map(), ...noDocFailures }).verdict).toBe('changed');
  // Noise hides a value, not its form: a runId written another way is a change (a client parses it).
  const guids = learnNoise(json(200, { runId: '8fe38974-1c2d-4e5f-9a0b-1234567890ab' }), json(200, { runId: '0b1c2d3e-4f50-4a6b-8c7d-e9f0a1b2c3d4' })).noise;
  const braced = compareAnswers({ recorded: json(200, { runId: '5d9c3b2a-0f1e-4d2c-9b8a-7f6e5d4c3b2a' }), replayed: json(200, { runId: '{5D9C3B2A-0F1E-4D2C-9B8A-7F6E5D4C3B2A}' }), noise: guids, ...noDocFailures });
  expect(braced.verdict).toBe('changed');
  expect(braced.reasons[0]).toMatch(/^text at \$\.runId: 5d9c3b2a-.* → \{5D9C3B2A-/);
  expect(compareAnswers({ recorded: json(200, { runId: '5d9c3b2a-0f1e-4d2c-9b8a-7f6e5d4c3b2a' }), replayed: json(200, { runId: '11111111-2222-4333-8444-555555555555' }), noise: guids, ...noDocFailures }).verdict).toBe('compatible');
  // Within the document but different: a media type, a field more, an XML answer instead of JSON.
  const changed = compareAnswers({ recorded, replayed: json(200, { runId: 'c-1' }, 'text/json'), noise, ...noDocFailures });
  expect(changed.verdict).toBe('changed');
  expect(changed.reasons).toEqual(['media type: application/json → text/json']);
  expect(compareAnswers({ recorded, replayed: json(200, { runId: 'c-2', at: 'x' }), noise, ...noDocFailures }).reasons).toEqual(['shape at $.at: — → string']);
  // Noise never hides a status or a format.
  const statusNoise = learnNoise(json(200, {}), json(404, {}));
  expect(statusNoise.noise.size).toBe(0);
  expect(statusNoise.unstable.map((d) => d.facet)).toEqual(['status']);
  // A success became a refusal; the document violated; no answer.
  const refused = compareAnswers({ recorded, replayed: json(415, { title: 'x' }), noise, ...noDocFailures });
  expect(refused.verdict).toBe('broken');
  expect(refused.reasons[0]).toBe('a success became a refusal: 200 → 415');
  const violated = compareAnswers({ recorded: json(400, 'Bad Request'), replayed: json(400, 'Invalid'), noise, documentFailures: [{ checkId: 'text.bad-request', level: 'spec', sections: ['4.1'], expected: 'Bad Request', received: 'Invalid', alsoWhenRecorded: false }], actsForOther: undefined });
  expect(violated.verdict).toBe('broken');
  expect(violated.reasons[0]).toMatch(/^violates the document: text\.bad-request \[spec, 4\.1\]/);
  // The same violation the client met when recorded breaks nothing by itself: it is said.
  const lived = compareAnswers({ recorded: json(400, 'Invalid'), replayed: json(400, 'Invalid'), noise, documentFailures: [{ checkId: 'text.bad-request', level: 'spec', sections: ['4.1'], expected: 'Bad Request', received: 'Invalid', alsoWhenRecorded: true }], actsForOther: undefined });
  expect(lived.verdict).toBe('compatible');
  expect(lived.reasons).toEqual(['violates the document as the answer the client met did (text.bad-request [spec]): not a change of this build']);
  // A byte order mark before the JSON is what a client's parser meets first, and RFC 8259 §8.1 says it must not be added: broken.
  const bom = answerFacts({ status: 200, headers: { 'content-type': 'application/json; charset=utf-8' }, body: Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('{"runId":"c-9"}')]) });
  const withBom = compareAnswers({ recorded, replayed: bom, noise, ...noDocFailures });
  expect(withBom.verdict).toBe('broken');
  expect(withBom.reasons).toEqual([expect.stringMatching(/^a byte order mark before the JSON answer: RFC 8259 §8\.1/), 'encoding: utf-8 → utf-8 (byte order mark)']);
  expect(compareAnswers({ recorded, replayed: noAnswer('TIMEOUT: no complete answer'), noise, ...noDocFailures }).verdict).toBe('broken');
  // A refusal turned success, of a value the contract refuses: changed, and the reason says the gate judges whether a build may take it.
  const taken = compareAnswers({ recorded: json(400, { title: 'Bad Request' }), replayed: json(200, { runId: 'c-3' }), noise, ...noDocFailures, refusedValues: ['/agencyCode maxLength'] });
  expect(taken.verdict).toBe('changed');
  expect(taken.reasons.slice(0, 2)).toEqual(['refused when recorded (400), a success now (200)', "the request carries values the contract refuses (/agencyCode maxLength), which this build took: whether it may is the gate's to judge (npx iswc-conformance run)"]);
  // A refusal between documented statuses (404 → 400) changes what a client meets: changed, not broken.
  expect(compareAnswers({ recorded: json(404, {}), replayed: json(400, {}), noise, ...noDocFailures }).verdict).toBe('changed');
  // The build refusing the key for another agency says nothing of the build (5.3: not shown).
  expect(compareAnswers({ recorded, replayed: json(403, {}), noise, documentFailures: [], actsForOther: '058' }).verdict).toBe('skipped');
});

function exchange(seq: number, method: string, target: string, body: string, status: number, answer = '', headers: Record<string, string> = { 'content-type': 'application/json' }): TrafficExchange {
  return {
    seq,
    at: null,
    agency: null,
    request: { method, target, headers: { 'ocp-apim-subscription-key': '$ISWC_SANDBOX_KEY', ...headers }, body: Buffer.from(body) },
    response: { status, headers: answer ? { 'content-type': answer.startsWith('<') ? 'application/xml' : 'application/json' } : {}, body: Buffer.from(answer) },
    error: null,
    trouble: null,
    where: `t:${seq}`,
  };
}

function session(agency: string, exchanges: TrafficExchange[], id = `${agency}.jsonl`): TrafficSession {
  return { file: id, id, source: 'sandbox', agency, meta: { keyPlaceholder: '$ISWC_SANDBOX_KEY', choices: 'production' }, exchanges };
}

const run = (agency: string, extra = ''): string => `{"agentVersion":"a 1.0","agencyCode":"${agency}","overallSent":0${extra}}`;

test('the shape: data does not make a shape, how a client writes it does (types, namespace, refused values, the answer met)', () => {
  const shape = (x: TrafficExchange) => shapeOf(x, 'key', '128').key;
  const base = shape(exchange(1, 'POST', '/agent/run', run('128'), 200, '{"runId":"a"}'));
  expect(shape(exchange(2, 'POST', '/agent/run', '{"agentVersion":"other 2.0","agencyCode":"128","overallSent":17}', 200, '{"runId":"b"}'))).toBe(base);
  // Counters as strings, another agency, a value the contract refuses, another answer met: each another shape.
  expect(shape(exchange(3, 'POST', '/agent/run', run('128').replace('"overallSent":0', '"overallSent":"0"'), 200, '{"runId":"c"}'))).not.toBe(base);
  expect(shape(exchange(4, 'POST', '/agent/run', run('058'), 200, '{"runId":"d"}'))).not.toBe(base);
  expect(shape(exchange(5, 'POST', '/agent/run', run('1280'), 400, '"Bad Request"'))).not.toBe(base);
  const xml = (ns: string) => exchange(6, 'POST', '/agent/run', `<AgentRun${ns}><agencyCode>128</agencyCode></AgentRun>`, 200, '<CsnNotification><runId>e</runId></CsnNotification>', { 'content-type': 'application/xml' });
  expect(shape(xml(''))).not.toBe(shape(xml(' xmlns="http://schemas.datacontract.org/2004/07/Iswc.Api.Models"')));
  // The same merge of other ISWCs is the same shape; a charset on the Content-Type is another.
  const merge = (iswc: string, type = 'application/json') => exchange(7, 'POST', `/iswc/merge?preferredIswc=${iswc}&agency=128`, `{"iswcs":["${iswc}"]}`, 204, '', { 'content-type': type });
  expect(shape(merge('T0345246801'))).toBe(shape(merge('T2010000117')));
  expect(shape(merge('T0345246801'))).not.toBe(shape(merge('T0345246801', 'application/json; charset=utf-8')));
  expect(shapeOf(merge('T123'), 'key', '128').refused).toEqual(['/iswcs/[] pattern']);
  // A run's end names its run however the client spells the field: a server that matches names without case reads RunId as runId.
  const end = (field: string) => shapeOf(exchange(8, 'POST', '/agent/run', `{"agencyCode":"128","${field}":"8fe38974-1c2d-4e5f-9a0b-1234567890ab"}`, 200, '{"runId":"8fe38974-1c2d-4e5f-9a0b-1234567890ab"}'), 'key', '128').endsRun;
  expect([end('runId'), end('RunId'), end('runid')]).toEqual(Array(3).fill('8fe38974-1c2d-4e5f-9a0b-1234567890ab'));
  expect(end('runIdentifier')).toBeUndefined();
});

test('the plan: one request per shape for every agency that sent it, the first replayable one, run ends after their start, data mapped onto disposable entries', () => {
  const profile = loadProfile(fromRoot('fixtures/targets/sandbox-client.json'));
  const day = (agency: string, runId: string) => [
    exchange(1, 'POST', '/agent/run', run(agency), 200, `{"runId":"${runId}"}`),
    exchange(2, 'POST', `/iswc/merge?preferredIswc=T3100000004&agency=${agency}`, '{"iswcs":["T3100000015"],"agencyWorks":[{"agencyCode":"128","agencyWorkCode":"IM00700100"}]}', 204),
    exchange(3, 'DELETE', `/iswc/merge?preferredIswc=T9999999994&agency=${agency}&workcode=IM00800100`, '', 404, '{"title":"Not Found"}'),
    exchange(4, 'POST', '/agent/run', run(agency, `,"runId":"${runId}"`), 200, `{"runId":"${runId}"}`),
  ];
  const sessions = [session('128', day('128', 'r1')), session('128', day('128', 'r2'), '128-b.jsonl'), session('058', day('058', 'r3'))];
  const plan = planReplay(sessions, { profile, destructive: true });
  // Sessions in the order agency, file (058 first; 128-b.jsonl before 128.jsonl); shapes sent by more agencies or exchanges first.
  // 128's two days are one shape each; 058 acts for another agency than the key's: shapes of its own.
  expect(plan.shapes).toBe(8);
  expect(plan.units.map((u) => [u.rep.id, u.agencies.join(',')])).toEqual([
    ['e5', '128'],
    ['e6', '128'],
    ['e7', '128'],
    ['e8', '128'],
    ['e1', '058'],
    ['e2', '058'],
    ['e3', '058'],
    ['e4', '058'],
  ]);
  expect(plannedRequests(plan)).toBe(8);
  // The run's end knows its start; the merge goes onto merges[0], the 404 demerge onto an unknown ISWC.
  const end = plan.units[3];
  expect(end?.rep.start?.id).toBe('e5');
  expect(plan.units[1]?.mapping).toMatchObject({ kind: 'merges', index: 0 });
  const demerge = plan.units[2]?.mapping;
  expect(demerge?.kind).toBe('demerges');
  expect(demerge?.query.get('preferredIswc')).toBe('T9999999994');
  expect(demerge?.query.get('workcode')).toBe(profile.demerges[0]?.workcode);
  // 058's merge: its agency becomes the key's, on the next entry.
  expect(plan.units[5]?.mapping?.index).toBe(1);
  expect(plan.units[5]?.mapping?.query.get('agency')).toBe('128');
  // Without --destructive, what changes data is not replayed, and says why.
  const safe = planReplay(sessions, { profile, destructive: false });
  expect(safe.units.length).toBe(4);
  expect(safe.exchanges.find((p) => p.id === 'e2')?.reason).toMatch(/^changes data and requests that change data are off: pass --destructive/);
  // A run end whose start is not in its session, trouble on purpose: not replayed, with the reason.
  const lone = planReplay([session('128', [exchange(1, 'POST', '/agent/run', run('128', ',"runId":"zz"'), 200, '{"runId":"zz"}'), { ...exchange(2, 'POST', '/agent/run', run('128'), 429, '{}'), trouble: '429' }])], { profile, destructive: true });
  expect(lone.units).toEqual([]);
  expect(lone.exchanges.map((p) => p.reason)).toEqual(['ends a run (zz) its session did not start: its runId cannot be matched with a run of the build', 'the sandbox gave trouble on purpose (429) instead of the API\'s answer: nothing to compare']);
  // An identifier the mapping cannot reach (a JSON escape, an XML character reference) would name recorded data: not replayed.
  const escaped = planReplay([session('128', [exchange(1, 'POST', '/iswc/merge?preferredIswc=T0345246801&agency=128', '{"iswcs":["\\u00542010000117"]}', 204)])], { profile, destructive: true });
  expect(escaped.units).toEqual([]);
  expect(escaped.exchanges[0]?.reason).toBe('its body writes "T2010000117" in a way the mapping does not reach (escaped, a character reference, CDATA): it would name recorded data, not disposable data');
  const referenced = planReplay([session('128', [exchange(1, 'POST', '/iswc/merge?preferredIswc=T0345246801&agency=128', '<MergeRequest><iswcs>&#84;2010000117</iswcs></MergeRequest>', 204, '', { 'content-type': 'application/xml' })])], { profile, destructive: true });
  expect(referenced.exchanges[0]?.reason).toMatch(/^its body writes "T2010000117" in a way the mapping does not reach/);
  const respelt = planReplay([session('128', [exchange(1, 'DELETE', '/iswc/merge?preferredIswc=T0345246801&PreferredIswc=T0345246801&agency=128&workcode=W1', '', 204)])], { profile, destructive: true });
  expect(respelt.exchanges[0]?.reason).toBe('its query names PreferredIswc=T0345246801 where the mapping does not reach: it would name recorded data, not disposable data');
  // Entries run out: the shape is not replayed, with what the profile lacks.
  const many = Array.from({ length: 5 }, (_, i) => session(String(100 + i), [exchange(1, 'DELETE', `/submission?preferredIswc=T3300000000&agency=${100 + i}&workcode=W${i}&sourceDb=${100 + i}&reasonCode=EdiV1`, '', 204)]));
  const short = planReplay(many, { profile, destructive: true });
  expect(short.units.length).toBe(1);
  expect(short.exchanges.map((p) => p.reason).filter(Boolean)).toEqual([]);
});

test('identifiers are mapped where they stand as whole values, in one pass; the query keeps what is not mapped as it was sent', () => {
  expect(mapBody('{"iswcs":["A","B"],"x":"AB"}<v>A</v><w k="B"/>', new Map([['A', 'B'], ['B', 'C']]))).toBe('{"iswcs":["B","C"],"x":"AB"}<v>B</v><w k="C"/>');
  expect(mapQuery('preferredIswc=T1&agency=058&x=%41&subscription-key=%3Credacted%3E', new Map([['preferredIswc', 'T2'], ['agency', '128']]), (n) => n === 'subscription-key')).toBe('preferredIswc=T2&agency=128&x=%41');
});
