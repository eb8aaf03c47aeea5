import { isDeepStrictEqual } from 'node:util';
import { expect, _baseTest as test } from '@playwright/test';
import { propertyHolds } from '../support/property.ts';
import fc from 'fast-check';
import { decodeXml, encodeXml, xmlRepresentable } from '../../lib/contract/codec/xml.ts';
import { fieldConstraints } from '../../lib/contract/constraints.ts';
import { validateResource } from '../../lib/contract/validators.ts';
import { generatorNames, namedArbitrary } from '../../lib/generate/generators/registry.ts';
import { codePointString } from '../../lib/generate/generators/units.ts';
import { DEFAULT_GEN, exoticForConstraint, invalidForConstraint, validAgentRunArb, validForConstraint, validMergeBodyArb } from '../../lib/generate/generators/values.ts';
import { lengthsOf, readingsAgree } from '../../lib/contract/answer.ts';
import { constraintSchema } from '../../lib/generate/values.ts';
import { validateNode } from '../../lib/contract/validators.ts';
import { loadProfile } from '../../lib/contract/profile/load.ts';
import { fromRoot } from '../../lib/foundation/paths.ts';

const profile = loadProfile(fromRoot('fixtures', 'targets', 'embedded.json'));

test('valid generators only produce values the schemas accept, in JSON and in XML', () => {
  fc.assert(fc.property(validAgentRunArb(), (v) => validateResource('AgentRun', v).length === 0), { seed: 1, numRuns: 300 });
  fc.assert(fc.property(validMergeBodyArb(), (v) => validateResource('MergeRequest', v).length === 0), { seed: 1, numRuns: 300 });
  fc.assert(
    fc.property(validAgentRunArb({ xml: true, maxFree: 12 }), (v) => {
      if (!xmlRepresentable(v)) return false;
      const decoded = decodeXml('AgentRun', encodeXml('AgentRun', v));
      return decoded.ok && validateResource('AgentRun', decoded.value).length === 0;
    }),
    { seed: 1, numRuns: 200 },
  );
});

test('each constrained field: valid values satisfy it, invalid ones break it, and every reading of "characters" agrees on both', () => {
  for (const c of fieldConstraints()) {
    const schema = constraintSchema(c);
    const agree = (v: unknown) => typeof v !== 'string' || readingsAgree(v);
    fc.assert(fc.property(validForConstraint(c), (v) => validateNode(schema, v).length === 0 && agree(v)), { seed: 2, numRuns: 100 });
    const invalid = invalidForConstraint(c, c.type === 'integer' ? 1 : 'T0345246801');
    if (invalid) fc.assert(fc.property(invalid, ({ value }) => validateNode(schema, value).length > 0 && agree(value)), { seed: 2, numRuns: 100 });
  }
});

test('realistic values: counters from 0, agency codes of digits, non-empty ASCII text; exotic values on request', () => {
  const runs = fc.sample(validAgentRunArb(DEFAULT_GEN, '128'), { seed: 4, numRuns: 200 });
  expect(runs.every((r) => r.agencyCode === '128')).toBe(true);
  expect(runs.every((r) => Object.values(r).every((v) => (typeof v === 'number' ? v >= 0 : readingsAgree(String(v)))))).toBe(true);
  const merges = fc.sample(validMergeBodyArb(DEFAULT_GEN, { iswcs: profile.unknownIswcs.slice(1), agency: '128' }), { seed: 4, numRuns: 200 });
  for (const m of merges) {
    const iswcs = m.iswcs as string[];
    expect(iswcs.length).toBeGreaterThan(0);
    expect(new Set(iswcs).size).toBe(iswcs.length);
    expect(iswcs.every((i) => profile.unknownIswcs.slice(1).includes(i))).toBe(true);
    expect((m.agencyWorks as unknown[]).length).toBeGreaterThan(0);
  }
  const code = fieldConstraints().find((c) => c.id === 'notifyAgentRun.body.agencyCode');
  if (!code) throw new Error('agencyCode constraint missing');
  const exotic = fc.sample(exoticForConstraint(code, DEFAULT_GEN), { seed: 4, numRuns: 300 }).map((v) => String(v.value));
  expect(exotic.some((v) => !readingsAgree(v))).toBe(true);
});

test('strings are counted in code points, with the families that break naive counting', () => {
  const samples = fc.sample(codePointString(3, 3, { xml: false }), { seed: 5, numRuns: 500 });
  expect(samples.every((s) => [...s].length === 3)).toBe(true);
  expect(samples.some((s) => s.length > 3)).toBe(true); // astral characters: more UTF-16 units than code points
  expect(samples.some((s) => /\p{M}/u.test(s))).toBe(true); // combining marks
  expect(samples.some((s) => s.includes('\u0000'))).toBe(true); // NUL, JSON only
  expect(fc.sample(codePointString(0, 30, { xml: true }), { seed: 5, numRuns: 500 }).every(xmlRepresentable)).toBe(true);
});

test('lengthsOf counts every reading as a segmenter does, its shortcut for ASCII included (a CR LF is one grapheme cluster)', () => {
  const segmenter = new Intl.Segmenter('en', { granularity: 'grapheme' });
  const counted = (text: string) => ({ codePoints: [...text].length, utf16Units: text.length, graphemes: [...segmenter.segment(text)].length, utf8Bytes: Buffer.byteLength(text, 'utf8') });
  const ascii = fc.string({ unit: fc.constantFrom('a', '1', ' ', '\r', '\n', '\t', '\u0000', '~') });
  fc.assert(fc.property(fc.oneof(ascii, fc.string({ unit: 'grapheme' }), fc.string({ unit: 'binary' })), (text) => propertyHolds(isDeepStrictEqual(lengthsOf(text), counted(text)) ? [] : [`lengthsOf ${JSON.stringify(lengthsOf(text))}, counted ${JSON.stringify(counted(text))}`], JSON.stringify(text))), { numRuns: 300 });
  expect(lengthsOf('a\r\nb')).toEqual({ codePoints: 4, utf16Units: 4, graphemes: 3, utf8Bytes: 4 });
});

test('every named generator works, and unknown names fail loudly', () => {
  for (const name of generatorNames()) expect(fc.sample(namedArbitrary(name, profile), { seed: 3, numRuns: 5 })).toHaveLength(5);
  expect(() => namedArbitrary('no.such', profile)).toThrow(/Unknown generator "no.such"; known:/);
});

test('fixed-seed snapshot: a change to the generators is a deliberate commit (npx playwright test --update-snapshots)', () => {
  const snapshot = {
    agentRun: fc.sample(validAgentRunArb(), { seed: 42, numRuns: 3 }),
    mergeRequest: fc.sample(validMergeBodyArb(), { seed: 42, numRuns: 3 }),
    invalid: Object.fromEntries(
      fieldConstraints().flatMap((c) => {
        const a = invalidForConstraint(c, c.type === 'integer' ? 1 : 'T0345246801');
        return a ? [[c.id, fc.sample(a, { seed: 42, numRuns: 2 })]] : [];
      }),
    ),
  };
  expect(`${JSON.stringify(snapshot, null, 2)}\n`).toMatchSnapshot('generators.json');
});
