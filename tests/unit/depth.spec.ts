/**
 * The nesting bound (lib/config/limits.ts) and the linear scans that measure it (lib/contract/codec/depth.ts):
 * exact on text that parses, never fooled by brackets in strings or markup in comments and CDATA, never
 * recursing, and applied by both decoders and by nestingOf (what the HTTP client measures).
 */
import { expect, _baseTest as test } from '@playwright/test';
import { MAX_NESTING_DEPTH } from '../../lib/config/limits.ts';
import { bodyShape, carriesText, decodeAnswer, nestingOf, runIdOf } from '../../lib/contract/answer.ts';
import type { Exchange } from '../../lib/contract/exchange.ts';
import { createJudge } from '../../lib/check/judge.ts';
import { allChecks } from '../../lib/check/registry.ts';
import type { Step } from '../../lib/generate/case.ts';
import { jsonDepth, xmlDepth } from '../../lib/contract/codec/depth.ts';
import { decodeJson } from '../../lib/contract/codec/json.ts';
import { decodeXml } from '../../lib/contract/codec/xml.ts';

const nestedJson = (depth: number): string => `${'['.repeat(depth)}${']'.repeat(depth)}`;
const nestedXml = (depth: number, root = 'CsnNotification'): string => `<${root}>${'<a>'.repeat(depth - 1)}x${'</a>'.repeat(depth - 1)}</${root}>`;

const JSON_CASES: ReadonlyArray<[string, string, number]> = [
  ['a scalar', '42', 0],
  ['a string', '"[[[{{{"', 0],
  ['an empty array', '[]', 1],
  ['an object in an array in an object', '{"a":[{}]}', 3],
  ['siblings do not add up', '[[1],[2],[3],{"a":1}]', 2],
  ['brackets inside strings', '{"runId":"[[[[{{{{","x":"]]]]"}', 1],
  ['an escaped quote does not end a string', '{"a":"\\"[[[[","b":[1]}', 2],
  ['an escaped backslash before the closing quote', '{"a":"\\\\","b":[[1]]}', 3],
  ['unicode escapes', '["\\u005b\\u005b",{"\\u007b":[]}]', 3],
  ['a problem+json answer', '{"type":"https://tools.ietf.org/html/rfc9110#section-15.5.1","title":"Bad Request","status":400,"errors":{"agencyCode":["must be 3 characters"]}}', 3],
  ['unbalanced closers are not negative depth', ']]]][[', 2],
  ['unclosed', '[[[[[', 5],
];
for (const [label, text, depth] of JSON_CASES) {
  test(`jsonDepth: ${label} → ${depth}`, () => {
    expect(jsonDepth(text)).toBe(depth);
  });
}

const XML_CASES: ReadonlyArray<[string, string, number]> = [
  ['text alone', 'Bad Request', 0],
  ['an empty element', '<CsnNotification/>', 1],
  ['an empty element with a space', '<CsnNotification />', 1],
  ['a CsnNotification', '<?xml version="1.0" encoding="utf-8"?><CsnNotification xmlns="urn:x"><runId>abc</runId></CsnNotification>', 2],
  ['siblings do not add up', '<r><a/><b>1</b><c><d/></c></r>', 3],
  ['markup inside a comment', '<r><!-- <a><b><c> --><x/></r>', 2],
  ['markup inside CDATA', '<r><![CDATA[<a><b><c></c>]]></r>', 1],
  ['a processing instruction', '<?xml-stylesheet href="a>b"?><r><x/></r>', 2],
  ['a DOCTYPE with an internal subset', '<!DOCTYPE r [ <!ENTITY e "<a><b>"> <!ELEMENT r ANY> ]><r>&e;</r>', 1],
  ['> and /> inside attribute values', '<r a="x>y" b=\'/>\'><s c="/>"/></r>', 2],
  ['a < that starts no markup', '<r>1 < 2 <x/></r>', 2],
  ['prefixed names', '<s:Envelope xmlns:s="urn:s"><s:Body><m/></s:Body></s:Envelope>', 3],
  ['unclosed', '<a><b><c>', 3],
  ['a tag that never ends', '<a><b attr="x', 1],
];
for (const [label, text, depth] of XML_CASES) {
  test(`xmlDepth: ${label} → ${depth}`, () => {
    expect(xmlDepth(text)).toBe(depth);
  });
}

test('the scans measure a million levels without recursing', () => {
  expect(jsonDepth(nestedJson(1_000_000))).toBe(1_000_000);
  expect(jsonDepth(`${'{"a":'.repeat(1_000_000)}1${'}'.repeat(1_000_000)}`)).toBe(1_000_000);
  expect(xmlDepth(`${'<a>'.repeat(1_000_000)}${'</a>'.repeat(1_000_000)}`)).toBe(1_000_000);
  expect(xmlDepth(`${'<a x="1">'.repeat(1_000_000)}`)).toBe(1_000_000);
});

test(`the decoders read ${MAX_NESTING_DEPTH} levels and refuse one more, saying how deep and the limit`, () => {
  expect(decodeJson(nestedJson(MAX_NESTING_DEPTH)).ok).toBe(true);
  expect(decodeJson(nestedJson(MAX_NESTING_DEPTH + 1))).toEqual({ ok: false, error: `JSON nested ${MAX_NESTING_DEPTH + 1} levels deep, over the limit of ${MAX_NESTING_DEPTH} levels: not decoded` });
  expect(decodeXml('CsnNotification', nestedXml(MAX_NESTING_DEPTH)).ok).toBe(true);
  const deeper = decodeXml('CsnNotification', nestedXml(MAX_NESTING_DEPTH + 1));
  expect(deeper).toEqual({ ok: false, code: 'too-deep', error: `XML nested ${MAX_NESTING_DEPTH + 1} levels deep, over the limit of ${MAX_NESTING_DEPTH} levels: not decoded` });
});

test('the decoders refuse a million levels quickly and without a throw', () => {
  for (const depth of [10_000, 1_000_000]) {
    const json = decodeJson(nestedJson(depth));
    expect(json.ok).toBe(false);
    if (!json.ok) expect(json.error).toContain(`nested ${depth} levels deep`);
    const xml = decodeXml('CsnNotification', nestedXml(depth));
    expect(xml.ok).toBe(false);
    if (!xml.ok) expect(xml.code).toBe('too-deep');
  }
});

test('nestingOf: JSON when declared or when it starts like JSON, XML when declared or sniffed; HTML is not counted as XML', () => {
  const deepJson = nestedJson(100);
  const deepXml = nestedXml(100, 'r');
  expect(nestingOf(deepJson, 'application/json')).toEqual({ format: 'json', depth: 100 });
  expect(nestingOf(deepJson, 'application/problem+json; charset=utf-8')).toEqual({ format: 'json', depth: 100 });
  // A plain-text body that starts like JSON is read as JSON by the stated-text check.
  expect(nestingOf(`  ${deepJson}`, 'text/plain')).toEqual({ format: 'json', depth: 100 });
  expect(nestingOf(deepJson, undefined)).toEqual({ format: 'json', depth: 100 });
  expect(nestingOf(deepXml, 'application/xml')).toEqual({ format: 'xml', depth: 100 });
  expect(nestingOf(deepXml, 'text/xml; charset=utf-8')).toEqual({ format: 'xml', depth: 100 });
  expect(nestingOf(deepXml, undefined)).toEqual({ format: 'xml', depth: 100 });
  expect(nestingOf('Bad Request', 'text/plain')).toBeUndefined();
  expect(nestingOf('', undefined)).toBeUndefined();
  // HTML leaves void elements unclosed: an IIS error page with many <br> and <meta> is not deep.
  const page = `<!DOCTYPE html><html><head>${'<meta charset="utf-8"><link rel="x">'.repeat(40)}</head><body>${'line<br>'.repeat(200)}</body></html>`;
  expect(nestingOf(page, 'text/html')).toBeUndefined();
  expect(nestingOf(page, undefined)).toBeUndefined();
  expect(nestingOf(`<html>${'<br>'.repeat(200)}</html>`, undefined)).toBeUndefined();
});

test('legitimate answers are far below the bound', () => {
  const answers: ReadonlyArray<[string, string | undefined]> = [
    ['{"runId":"3f2504e0-4f89-11d3-9a0c-0305e82c3301"}', 'application/json; charset=utf-8'],
    ['<?xml version="1.0" encoding="utf-8"?><CsnNotification xmlns:i="http://www.w3.org/2001/XMLSchema-instance" xmlns="http://schemas.datacontract.org/2004/07/Iswc"><runId>abc</runId></CsnNotification>', 'application/xml'],
    ['{"type":"https://tools.ietf.org/html/rfc9110#section-15.5.1","title":"One or more validation errors occurred.","status":400,"errors":{"$.agencyCode":["The JSON value could not be converted."]},"traceId":"00-1-2-00"}', 'application/problem+json'],
    ['{ "statusCode": 401, "message": "Access denied due to missing subscription key." }', 'application/json'],
    ['"Bad Request"', 'application/json'],
  ];
  for (const [body, type] of answers) expect(nestingOf(body, type)?.depth ?? 0).toBeLessThanOrEqual(3);
});

/** An exchange whose body reached the checks although it nests `depth` levels deep (the client would have refused it). */
function deepExchange(status: number, format: 'json' | 'xml', depth: number): Exchange {
  const body = format === 'json' ? nestedJson(depth) : `${'<a>'.repeat(depth)}${'</a>'.repeat(depth)}`;
  return {
    request: { method: 'POST', url: 'http://127.0.0.1:1/agent/run', headers: {}, body: '{}', bodyBytes: 2, bodyTruncated: false, auth: 'key' },
    response: { status, headers: { 'content-type': format === 'json' ? 'application/json' : 'application/xml' }, body, bodyBytes: body.length, truncated: false },
    durationMs: 1,
    attempts: 1,
    waitedMs: 0,
  };
}

test('every reader of an answer survives a deep body handed to it anyway (defence in depth)', () => {
  for (const format of ['json', 'xml'] as const) {
    for (const depth of [10_000, 1_000_000]) {
      for (const status of [200, 400, 401]) {
        const x = deepExchange(status, format, depth);
        expect(bodyShape(x)).toBe(format === 'json' ? `json nested deeper than ${MAX_NESTING_DEPTH} levels` : 'xml <a>');
        expect(carriesText(x.response?.body ?? '', 'Bad Request')).toBe(false);
        expect(runIdOf(x)).toBeUndefined();
        const decoded = decodeAnswer(x, 'CsnNotification');
        expect(decoded.ok).toBe(false);
        if (!decoded.ok) expect(decoded.error).toContain(`nested ${depth} levels deep`);
      }
    }
  }
});

test('every check judges a deep body handed to it anyway without a throw', () => {
  const judge = createJudge({ strict: true, agency: '128' });
  // Every targeted check that needs no parameter of its own, next to every every-exchange check.
  const targeted = allChecks().filter((c) => c.scope === 'targeted' && (c.params?.required ?? []).length === 0);
  expect(targeted.length).toBeGreaterThan(10);
  for (const format of ['json', 'xml'] as const) {
    for (const status of [200, 400, 401]) {
      const exchange = deepExchange(status, format, 100_000);
      const step: Step = {
        label: 'deep',
        operation: 'notifyAgentRun',
        request: { method: 'POST', path: '/agent/run', body: '{}' },
        expect: targeted.map((c) => ({ checkId: c.id, params: { because: 'a deep answer' } }) as Step['expect'][number]),
      };
      const judged = judge(step, exchange, format);
      expect(judged.length).toBeGreaterThan(targeted.length);
      if (status === 200) expect(judged.find((j) => j.checkId === 'response.schema')?.received).toContain('levels deep, over the limit of 64 levels');
      expect(JSON.stringify(judged)).not.toMatch(/RangeError|call stack/);
    }
  }
});
