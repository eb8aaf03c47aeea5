import { expect, _baseTest as test } from '@playwright/test';
import fc from 'fast-check';
import { decodeJson } from '../../lib/contract/codec/json.ts';
import { decodeXml, encodeXml, xmlRepresentable } from '../../lib/contract/codec/xml.ts';
import { formatOfContentType, sniffFormat } from '../../lib/contract/codec/index.ts';

const xmlText = fc.string({ unit: 'grapheme', maxLength: 24 }).filter((s) => xmlRepresentable(s));

test('XML round-trips agent runs, strings kept exactly (no trimming, no number parsing)', () => {
  fc.assert(
    fc.property(xmlText, xmlText, fc.integer({ min: -2147483648, max: 2147483647 }), (agencyCode, runId, count) => {
      const value = { agencyCode, runId, newRecordCount: count };
      const decoded = decodeXml('AgentRun', encodeXml('AgentRun', value));
      expect(decoded).toEqual({ ok: true, value });
    }),
    { seed: 42, numRuns: 200 },
  );
});

test('XML round-trips merge requests with unwrapped arrays', () => {
  fc.assert(
    fc.property(fc.array(xmlText, { maxLength: 4 }), fc.array(fc.record({ agencyCode: xmlText, agencyWorkCode: xmlText }), { maxLength: 3 }), (iswcs, agencyWorks) => {
      const value = { iswcs, agencyWorks };
      const decoded = decodeXml('MergeRequest', encodeXml('MergeRequest', value));
      // An empty array has no element in unwrapped XML: it reads back as absent.
      const expected = Object.fromEntries(Object.entries(value).filter(([, v]) => v.length > 0));
      expect(decoded).toEqual({ ok: true, value: expected });
    }),
    { seed: 7, numRuns: 200 },
  );
  expect(encodeXml('MergeRequest', { iswcs: ['T0345246801', 'T2010000117'] })).toContain('<MergeRequest><iswcs>T0345246801</iswcs><iswcs>T2010000117</iswcs></MergeRequest>');
});

const refused: Array<[string, string, string]> = [
  ['DOCTYPE', '<!DOCTYPE AgentRun [<!ENTITY a "b">]><AgentRun><runId>&a;</runId></AgentRun>', 'doctype'],
  ['billion laughs', `<?xml version="1.0"?><!DOCTYPE l [<!ENTITY l0 "ha">${Array.from({ length: 9 }, (_, i) => `<!ENTITY l${i + 1} "${`&l${i};`.repeat(10)}">`).join('')}]><AgentRun>&l9;</AgentRun>`, 'doctype'],
  ['a parameter entity', '<!DOCTYPE AgentRun [<!ENTITY % p "x">]><AgentRun><runId>x</runId></AgentRun>', 'doctype'],
  ['a DOCTYPE whose entities live in an external DTD', '<!DOCTYPE AgentRun SYSTEM "agent-run.dtd"><AgentRun><runId>&ext;</runId></AgentRun>', 'doctype'],
  ['wrong root', '<CsnNotification/>', 'root'],
  ['unclosed', '<AgentRun><runId>x</AgentRun>', 'malformed'],
  ['empty', '   ', 'empty'],
  ['two roots', '<AgentRun/><AgentRun/>', 'malformed'],
];
for (const [label, xml, code] of refused) {
  test(`XML decoder refuses ${label}`, () => {
    const result = decodeXml('AgentRun', xml);
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.code).toBe(code);
  });
}

test('XML with a DOCTYPE that declares no entity is read, never fetched: there is nothing to expand', () => {
  const read = { ok: true, value: { runId: 'a<b' } };
  expect(decodeXml('CsnNotification', '<?xml version="1.0" encoding="UTF-8"?>\n<!DOCTYPE CsnNotification>\n<CsnNotification><runId>a&lt;b</runId></CsnNotification>')).toEqual(read);
  expect(decodeXml('CsnNotification', '<!DOCTYPE CsnNotification SYSTEM "http://example.invalid/csn.dtd"><CsnNotification><runId>a&#60;b</runId></CsnNotification>')).toEqual(read);
  expect(decodeXml('CsnNotification', '<!DOCTYPE CsnNotification [<!ELEMENT CsnNotification (runId)><!ELEMENT runId (#PCDATA)>]><CsnNotification><runId>a&lt;b</runId></CsnNotification>')).toEqual(read);
});

test('XML integers are numbers only when their text is an integer', () => {
  expect(decodeXml('AgentRun', '<AgentRun><newRecordCount>1.5</newRecordCount><overallSent> 7 </overallSent></AgentRun>')).toEqual({ ok: true, value: { newRecordCount: '1.5', overallSent: 7 } });
  expect(decodeXml('AgentRun', '<AgentRun><agencyCode>1</agencyCode><agencyCode>2</agencyCode></AgentRun>')).toEqual({ ok: true, value: { agencyCode: ['1', '2'] } });
});

test('JSON decoding never throws, even 200,000 levels deep: too deep is an error value', () => {
  expect(decodeJson('{"a":').ok).toBe(false);
  const deep = `${'['.repeat(200_000)}${']'.repeat(200_000)}`;
  let decoded: ReturnType<typeof decodeJson> | undefined;
  expect(() => {
    decoded = decodeJson(deep);
  }).not.toThrow();
  expect(decoded).toEqual({ ok: false, error: 'JSON nested 200000 levels deep, over the limit of 64 levels: not decoded' });
});

test('content types and sniffing', () => {
  expect(formatOfContentType('application/problem+json; charset=utf-8')).toBe('json');
  expect(formatOfContentType('text/xml')).toBe('xml');
  expect(formatOfContentType('text/plain')).toBe('text');
  expect(formatOfContentType(undefined)).toBeUndefined();
  expect(sniffFormat('  <x/>')).toBe('xml');
  expect(sniffFormat('{}')).toBe('json');
  expect(sniffFormat('Bad Request')).toBeUndefined();
});
