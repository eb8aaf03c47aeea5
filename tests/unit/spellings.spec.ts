import { expect, _baseTest as test } from '@playwright/test';
import fc from 'fast-check';
import { isDeepStrictEqual } from 'node:util';
import type { Format } from '../../lib/contract/codec/index.ts';
import { decodeBody, encodeBody } from '../../lib/contract/codec/index.ts';
import { bodyAllAtOnce, bodySpellings, GATED_SPELLINGS, queryAllAtOnce, querySpellings } from '../../lib/contract/codec/spellings.ts';
import { xmlRepresentable } from '../../lib/contract/codec/xml.ts';
import { operation } from '../../lib/contract/operations.ts';
import { bodyAsMisread, keyHeaderMissed, querySpellingRefused, SPELLING_FAULTS } from '../../server/spelling-faults.ts';
import { propertyHolds } from '../support/property.ts';

const text = fc.string({ unit: 'grapheme', minLength: 1, maxLength: 12 }).filter((s) => xmlRepresentable(s));
const agentRun = fc.record({ agentVersion: text, agencyCode: text, updateRecordCount: fc.integer({ min: -2147483648, max: 2147483647 }) });
const mergeRequest = fc.record({ iswcs: fc.array(text, { minLength: 1, maxLength: 3 }), agencyWorks: fc.array(fc.record({ agencyCode: text, agencyWorkCode: text }), { minLength: 1, maxLength: 2 }) });
const FORMATS: readonly Format[] = ['json', 'xml'];

for (const format of FORMATS) {
  test(`every gated ${format.toUpperCase()} spelling reads as the plain body (agent runs and merge requests, any text)`, () => {
    const sameAsPlain = (resource: 'AgentRun' | 'MergeRequest', value: unknown): void => {
      const encoded = encodeBody(format, resource, value);
      const plain = decodeBody(format, resource, encoded);
      const wrong = bodySpellings(format, resource, value)
        .filter((s) => s.gated && (s.body === encoded || !isDeepStrictEqual(decodeBody(format, resource, s.body), plain)))
        .map((s) => `${s.id}: ${s.body === encoded ? 'spelled as the plain body' : `read otherwise: ${s.body}`}`);
      propertyHolds(wrong, `spellings of ${JSON.stringify(value)} that do not read as the plain body`);
    };
    fc.assert(fc.property(agentRun, (v) => sameAsPlain('AgentRun', v)), { seed: 38, numRuns: 100 });
    fc.assert(fc.property(mergeRequest, (v) => sameAsPlain('MergeRequest', v)), { seed: 39, numRuns: 100 });
  });
}

for (const format of FORMATS) {
  test(`the ${format.toUpperCase()} body spelled every gated way at once reads as the plain body, and every body fault of its format refuses or misreads it`, () => {
    const bodyFaults = GATED_SPELLINGS.filter((id) => id.startsWith(`${format}-`));
    const check = (resource: 'AgentRun' | 'MergeRequest', value: unknown): void => {
      const plain = decodeBody(format, resource, encodeBody(format, resource, value));
      const body = bodyAllAtOnce(format, resource, value);
      const misreadBy = (fault: string): boolean => {
        const read = bodyAsMisread((id) => id === `spelling.${fault}`, format, resource, body);
        return read === null || !isDeepStrictEqual(decodeBody(format, resource, read), plain);
      };
      propertyHolds(isDeepStrictEqual(decodeBody(format, resource, body), plain) ? [] : ['read otherwise than the plain body'], body);
      propertyHolds(bodyFaults.filter((fault) => !misreadBy(fault)), `body faults that read ${body} as the plain body`);
    };
    fc.assert(fc.property(agentRun, (v) => check('AgentRun', v)), { seed: 40, numRuns: 100 });
    fc.assert(fc.property(mergeRequest, (v) => check('MergeRequest', v)), { seed: 41, numRuns: 100 });
  });
}

test('the query spelled both ways at once names the same parameters, and each query fault refuses it', () => {
  const query = [['preferredIswc', 'T3100000004'], ['agency', '128'], ['workcode', 'WRK 1/é']] as const;
  const raw = queryAllAtOnce(query);
  expect([...new URLSearchParams(raw)].sort()).toEqual([...query].map(([k, v]) => [k, v]).sort());
  const op = operation('demergeIswcMetadata');
  for (const fault of GATED_SPELLINGS.filter((id) => id.startsWith('query-'))) expect(querySpellingRefused((id) => id === `spelling.${fault}`, op, raw), fault).toBeDefined();
});

test('the query spellings name the same parameters with the same values', () => {
  const query = [['preferredIswc', 'T3100000004'], ['agency', '128'], ['workcode', 'WRK 1/é']] as const;
  const spellings = querySpellings(query);
  expect(spellings.map((s) => s.id)).toEqual(['query-percent-encoded', 'query-order']);
  for (const s of spellings) {
    const read = [...new URLSearchParams(s.rawQuery)];
    expect(read.sort(), s.rawQuery).toEqual([...query].map(([k, v]) => [k, v]).sort());
  }
  expect(spellings[0]?.rawQuery).toContain('preferredIswc=%54%33%31');
  expect(querySpellings([['preferredIswc', 'T3100000004']]).map((s) => s.id)).toEqual(['query-percent-encoded']);
});

test('each fault of the spelling family refuses its own spelling and reads every other one as a correct server does', () => {
  const run = { agentVersion: '1.0', agencyCode: '128', updateRecordCount: 5 };
  expect(SPELLING_FAULTS.map((f) => f.id)).toEqual(GATED_SPELLINGS.map((id) => `spelling.${id}`));
  const op = operation('deleteSubmission');
  const query = [['preferredIswc', 'T3100000004'], ['agency', '128'], ['workcode', 'W1'], ['sourceDb', '300'], ['reasonCode', 'X']] as const;
  for (const fault of GATED_SPELLINGS) {
    const has = (id: string): boolean => id === `spelling.${fault}`;
    for (const format of FORMATS) {
      const plain = encodeBody(format, 'AgentRun', run);
      expect(bodyAsMisread(has, format, 'AgentRun', plain), `${fault} on the plain ${format}`).toBe(plain);
      for (const s of bodySpellings(format, 'AgentRun', run).filter((x) => x.gated)) {
        const read = bodyAsMisread(has, format, 'AgentRun', s.body);
        const misread = read === null || decodeBody(format, 'AgentRun', read).ok === false || !isDeepStrictEqual(decodeBody(format, 'AgentRun', read), decodeBody(format, 'AgentRun', plain));
        expect(misread, `${fault} on ${s.id}`).toBe(s.id === fault);
      }
    }
    expect(querySpellingRefused(has, op, new URLSearchParams(query.map(([k, v]) => [k, v])).toString()), `${fault} on the plain query`).toBeUndefined();
    for (const s of querySpellings(query)) expect(querySpellingRefused(has, op, s.rawQuery) !== undefined, `${fault} on ${s.id}`).toBe(s.id === fault);
    expect(keyHeaderMissed(has, { rawHeaders: ['Host', 'x', 'Ocp-Apim-Subscription-Key', 'k'] }), `${fault} on the documented header name`).toBe(false);
    expect(keyHeaderMissed(has, { rawHeaders: ['host', 'x', 'ocp-apim-subscription-key', 'k'] }), `${fault} on the name in lower case`).toBe(fault === 'key-header-lower');
  }
});
