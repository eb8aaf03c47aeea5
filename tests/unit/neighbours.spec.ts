/**
 * Near neighbours of data the target holds (issue 28): lib/contract/normalisations.ts derives from each
 * field's constraint which lenient readings apply, and lib/generate/neighbours.ts sends the fewest values that
 * land on a held value under every variant of each. The reference server plays each reading as a fault of its
 * catalogue (server/lenient.ts): every such fault takes a neighbour the harness sends, where the clean server
 * refuses it.
 */
import { isDeepStrictEqual } from 'node:util';
import { expect, _baseTest as test } from '@playwright/test';
import { propertyHolds } from '../support/property.ts';
import fc from 'fast-check';
import type { FieldConstraint } from '../../lib/contract/constraints.ts';
import { fieldConstraints } from '../../lib/contract/constraints.ts';
import { coveringNeighbours, faultyNormalisationsFor, normalisation, fixedLengthOf, globMatches, likeMatches, lengthLimitOf, neighboursOf, normalisationsFor, normalise, sameValueReading, withinConstraint } from '../../lib/contract/normalisations.ts';
import { integerNamedBy, sameNumberSpellings } from '../../lib/contract/integer-readings.ts';
import { hasValidCheckDigit, withInvalidCheckDigit } from '../../lib/contract/iswc.ts';
import { loadProfile } from '../../lib/contract/profile/load.ts';
import { fromRoot } from '../../lib/foundation/paths.ts';
import { neighbourFields, neighboursToSend } from '../../lib/generate/neighbours.ts';
import { allCases } from '../../lib/generate/suite.ts';
import { familyFields, KEY_LENIENCIES, LENIENT_FAULTS } from '../../server/lenient.ts';
import { FAULTS } from '../../server/faults.ts';

const byComponent = (component: string): FieldConstraint => {
  const c = fieldConstraints().find((x) => x.component === component);
  if (!c) throw new Error(`no field of ${component}`);
  return c;
};

/** A value held by the target for each kind of field, at its limit. */
const HELD: Record<string, string | number> = { AgencyCode: '128', AgencyWorkCode: 'IM00900159L000000059', Iswc: 'T3100000117', Int32: 1000 };

test('the length a pattern fixes, and the limit a value is cut to, come from the schema', () => {
  expect(fixedLengthOf('^T[0-9]{10}$')).toBe(11);
  expect(fixedLengthOf('^[A-Z]+$')).toBeUndefined();
  expect(lengthLimitOf(byComponent('Iswc'))).toBe(11);
  expect(lengthLimitOf(byComponent('AgencyWorkCode'))).toBe(20);
  expect(lengthLimitOf(byComponent('AgencyCode'))).toBe(3);
});

test('which readings apply is derived from the constraint: case folding only where the pattern names a letter, integers read leniently only where the type is one', () => {
  const ids = (c: FieldConstraint) => normalisationsFor(c).map((n) => n.id);
  expect(ids(byComponent('Iswc'))).toEqual(['truncate', 'trim', 'fold', 'strip-separators', 'non-ascii-digits', 'extract', 'prefix', 'like', 'check-digit', 'delimiter']);
  expect(ids(byComponent('AgencyWorkCode'))).toEqual(['truncate', 'trim', 'strip-separators', 'prefix', 'like', 'delimiter']);
  // The run notification looks nothing up by its agency code: no prefix or LIKE matching there.
  expect(ids(fieldConstraints().find((c) => c.id === 'notifyAgentRun.body.agencyCode') as FieldConstraint)).toEqual(['truncate', 'trim', 'zero-pad', 'strip-separators', 'delimiter']);
  expect(ids(fieldConstraints().find((c) => c.id === 'deleteSubmission.query.agency') as FieldConstraint)).toEqual(['truncate', 'trim', 'zero-pad', 'strip-separators', 'prefix', 'like', 'delimiter']);
  // Underscores and digits of other scripts spell the same number (Python's int(), Java's parseInt): readings, not faults.
  expect(ids(byComponent('Int32'))).toEqual(['strip-separators', 'trailing-garbage', 'fraction', 'wraparound']);
});

test("an integer that names data (the delete's sourceDb) has neighbours within int32 too: another number in 16 bits, without its sign, and a fraction rounded or truncated (a fresh reading of 2026-12-01)", () => {
  const sourceDb = fieldConstraints().find((c) => c.id === 'deleteSubmission.query.sourceDb') as FieldConstraint;
  expect(normalisationsFor(sourceDb).map((n) => n.id)).toEqual(['strip-separators', 'trailing-garbage', 'fraction', 'wraparound', 'narrow', 'sign-dropped']);
  // Counters name no data: a valid int32 there is a count, no neighbour.
  expect(normalisationsFor(byComponent('Int32')).map((n) => n.id)).not.toContain('narrow');
  const sent = neighboursToSend(sourceDb, 128, { valid: true });
  const lands = (value: string | number): string[] => (sent.find((n) => n.value === value)?.lands ?? []).map((l) => `${l.normalisation}/${l.variant}`);
  expect(lands(65_664)).toEqual(['narrow/cast to 16 bits']);
  expect(lands('-128')).toEqual(['sign-dropped/digits after the sign']);
  // "128.4" is 128 to a reader that truncates and to one that rounds (.NET's Convert.ToInt32(double)).
  expect(lands('128.4')).toEqual(expect.arrayContaining(['fraction/truncated', 'fraction/rounded']));
  expect(normalisation('fraction').readers(sourceDb).map((r) => r.read('127.6', []))).toEqual([127, 128]);
  // Where a value within int32 names nothing the case can judge, those neighbours are not sent.
  expect(neighboursToSend(sourceDb, 128, { valid: false }).map((n) => n.value)).not.toContain(65_664);
});

test('a spelling some platform reads as the number its digits denote is a reading: never a neighbour, and a coercion where it is sent', () => {
  const int32 = byComponent('Int32');
  for (const s of sameNumberSpellings(1000)) {
    expect(s.readers.length, s.label).toBeGreaterThan(0);
    expect(integerNamedBy(s.value), s.label).toBe(1000);
    expect(neighboursOf(1000, int32).map((n) => n.value)).not.toContain(s.value);
  }
  expect(sameNumberSpellings(1000).map((s) => [s.value, s.readers])).toEqual([
    ['1_000', ['python']],
    ['１０００', ['python', 'java']],
    ['١٠٠٠', ['python', 'java']],
  ]);
  // What names another number is no reading of it: a thousands separator (a decimal mark in many locales), letters, a fraction.
  for (const other of ['1,000', '1000abc', '1000.5', '10 00', '1__000', '_1000']) expect(integerNamedBy(other), other).toBeUndefined();
  expect(integerNamedBy(' +128 ')).toBe(128);
});

test('the five readings the issue names: an ISWC one digit too long cut to 11, a work code of 21 cut to 20, a key compared loosely are each a neighbour the harness sends', () => {
  const iswc = neighboursToSend(byComponent('Iswc'), 'T3100000117', { valid: false });
  expect(iswc.some((n) => normalise('truncate', n.value, byComponent('Iswc')) === 'T3100000117')).toBe(true);
  expect(normalise('truncate', 'T31000001170', byComponent('Iswc'))).toBe('T3100000117');
  const workcode = fieldConstraints().find((c) => c.id === 'deleteSubmission.query.workcode') as FieldConstraint;
  const sent = neighboursToSend(workcode, HELD.AgencyWorkCode, { valid: true });
  // Past 20 characters and cut to the held value (one character more, or the value and a delimiter and more).
  expect(sent.some((n) => Array.from(String(n.value)).length > 20 && normalise('truncate', n.value, workcode) === HELD.AgencyWorkCode)).toBe(true);
});

test('every neighbour sent breaks its constraint or, where the field names data, names other data; each lands on the held value; together they land under every variant of every reading', () => {
  for (const c of neighbourFields()) {
    const held = HELD[c.component ?? ''];
    if (held === undefined) throw new Error(`no held value for ${c.id}`);
    const all = neighboursOf(held, c);
    const sent = neighboursToSend(c, held, { valid: true });
    for (const n of sent) {
      expect(n.value, c.id).not.toEqual(held);
      expect(n.valid, `${c.id} ${JSON.stringify(n.value)}`).toBe(withinConstraint(c, n.value));
      if (n.valid) expect(c.operation, `${c.id}: a neighbour within the limits is sent only where the field names data`).not.toBe('notifyAgentRun');
      expect(n.lands.length, `${c.id} ${JSON.stringify(n.value)}`).toBeGreaterThan(0);
    }
    // Every reading that applies has a neighbour; every variant a neighbour lands under is covered by those sent.
    // A neighbour a reading of the same value lands on (a trailing space where no limit is stated) is never sent.
    const landed = new Set(sent.flatMap((n) => n.lands.map((l) => `${l.normalisation}/${l.variant}`)));
    const sendable = all.filter((x) => (!x.valid || c.operation !== 'notifyAgentRun') && !x.lands.some((l) => sameValueReading(c, l.normalisation)));
    for (const n of sendable) for (const l of n.lands) expect(landed.has(`${l.normalisation}/${l.variant}`), `${c.id}: ${l.normalisation}/${l.variant}`).toBe(true);
    for (const n of faultyNormalisationsFor(c)) expect(sent.some((x) => x.lands.some((l) => l.normalisation === n.id)), `${c.id}: no neighbour for ${n.id}`).toBe(true);
    for (const n of sent) expect(n.lands.some((l) => sameValueReading(c, l.normalisation)), `${c.id} ${JSON.stringify(n.value)}`).toBe(false);
    expect(coveringNeighbours(all, () => false)).toEqual([]);
  }
});

test('held values with punctuation: the LIKE reading takes every character but % and _ as itself, and every field\'s neighbours are made', () => {
  // A work code such as NC-0001 stopped every planning: an escaped hyphen is an error under the `u` flag.
  for (const held of ['NC-0001', 'A.B*C+D?E', 'x(y)[z]{w}|/\\^$', 'ÉTÉ-2026', '-']) {
    expect(likeMatches(held, held), held).toBe(true);
    expect(likeMatches(held, `${held}x`), held).toBe(false);
    for (const c of neighbourFields().filter((f) => f.component === 'AgencyWorkCode' || f.component === 'AgencyCode')) expect(() => neighboursOf(held, c), `${c.id} ${held}`).not.toThrow();
  }
  expect(likeMatches('NC-000_', 'NC-0001')).toBe(true);
  expect(likeMatches('NC-%', 'NC-0001')).toBe(true);
  expect(likeMatches('N.-0001', 'NC-0001')).toBe(false);
  const workcode = byComponent('AgencyWorkCode');
  const like = neighboursOf('NC-0001', workcode).find((n) => n.lands.some((l) => l.normalisation === 'like'));
  expect(like?.value).toBe('NC-000_');
});

test('any value a profile may hold in a text field: its neighbours are made, and each one sent is another value that lands on it', () => {
  // Generated: a fixed list of awkward values found the hyphen; this looks for the next one.
  const fields = neighbourFields().filter((c) => c.type === 'string');
  const value = fc.oneof(fc.string({ unit: 'grapheme', minLength: 1, maxLength: 20 }), fc.string({ unit: fc.constantFrom('-', '%', '_', ' ', '0', 'a', 'Z', '\\', '[', '$', 'é', '١'), minLength: 1, maxLength: 20 }));
  fc.assert(
    fc.property(fc.constantFrom(...fields), value, (c, held) => {
      fc.pre(withinConstraint(c, held));
      const sent = neighboursToSend(c, held, { valid: true });
      const wrong = sent.flatMap((n) => [
        ...(isDeepStrictEqual(n.value, held) ? [`${JSON.stringify(n.value)} is the value held`] : []),
        ...(n.lands.length === 0 ? [`${JSON.stringify(n.value)} lands on nothing`] : []),
        ...(n.valid !== withinConstraint(c, n.value) ? [`${JSON.stringify(n.value)} said ${n.valid ? 'valid' : 'invalid'}`] : []),
      ]);
      propertyHolds(wrong, `${c.id}, held ${JSON.stringify(held)}`);
    }),
    { numRuns: 60, seed: 20261130 },
  );
});

test('a value not at its limit has no neighbour a cut lands on: the case needs data at the limit, and says so', () => {
  const workcode = byComponent('AgencyWorkCode');
  expect(neighboursOf('IM00900100', workcode).some((n) => n.lands.some((l) => l.normalisation === 'truncate'))).toBe(false);
  const profile = loadProfile(fromRoot('fixtures', 'targets', 'minimal.json'));
  const delWorkcode = allCases(profile).find((c) => c.id === 'neighbours.deleteSubmission.query.workcode');
  expect(delWorkcode?.needs).toEqual([{ atLimit: 'submissions', index: 0, value: 'workcode', length: 20 }]);
});

test('the lenient families are derived from the schemas: one fault per field and reading, three per list, one per loose comparison of the key, each in the catalogue', () => {
  const fields = familyFields();
  expect(fields.map((c) => c.id)).toEqual(neighbourFields().map((c) => c.id));
  expect(fields.some((c) => c.id === 'mergeIswcMetadata.query.agency')).toBe(false);
  const perField = fields.reduce((n, c) => n + faultyNormalisationsFor(c).length, 0);
  expect(LENIENT_FAULTS.length).toBe(perField + 2 * 3 + KEY_LENIENCIES.length);
  const ids = new Set(FAULTS.map((f) => f.id));
  for (const f of LENIENT_FAULTS) expect(ids.has(f.id), f.id).toBe(true);
  expect(LENIENT_FAULTS.map((f) => f.id)).toContain('partial.merge.agencyWorks.first-only');
  expect(LENIENT_FAULTS.map((f) => f.id)).toContain('lenient.merge.iswcs.truncate');
  expect(LENIENT_FAULTS.map((f) => f.id)).toContain('lenient.delete.workcode.truncate');
  expect(LENIENT_FAULTS.map((f) => f.id)).toContain('lenient.demerge.workcode.truncate');
  expect(LENIENT_FAULTS.map((f) => f.id)).toContain('lenient.key.last-char');
});

test('an ISWC whose check digit does not hold is a near neighbour of an ISWC the target holds, where it names data: a server recomputing the digit lands on it', () => {
  const iswc = byComponent('Iswc');
  const held = 'T3100000015';
  expect(hasValidCheckDigit(held)).toBe(true);
  const sent = neighboursToSend(iswc, held, { valid: true }).filter((n) => n.lands.some((l) => l.normalisation === 'check-digit'));
  expect(sent).toHaveLength(1);
  const [n] = sent;
  expect(n?.valid).toBe(true);
  expect(String(n?.value)).toMatch(/^T310000001[0-9]$/);
  expect(hasValidCheckDigit(String(n?.value))).toBe(false);
  // Whatever the held ISWC's own digit, the neighbour's holds for no ISWC of its nine digits.
  for (const own of ['T3100000010', 'T3100000019']) expect(hasValidCheckDigit(withInvalidCheckDigit(own)), own).toBe(false);
  // A held ISWC whose own check digit does not hold has none: a server recomputing the digit lands elsewhere.
  expect(neighboursToSend(iswc, 'T3100000016', { valid: true }).filter((x) => x.lands.some((l) => l.normalisation === 'check-digit'))).toEqual([]);
});

test('a value read up to a delimiter: the held value followed by a comma, a semicolon or a NUL and more, each variant covered; never an integer', () => {
  const workcode = byComponent('AgencyWorkCode');
  const sent = coveringNeighbours(neighboursOf('IM00900100', workcode), () => true).filter((n) => n.builtFor === 'delimiter');
  expect(sent.map((n) => n.value)).toEqual(['IM00900100,X', 'IM00900100;X', 'IM00900100\u0000X']);
  for (const n of sent) expect(n.valid, n.label).toBe(true);
  // At the limit of its field a delimiter and more break the limit: invalid, refused for it.
  expect(neighboursOf('128', byComponent('AgencyCode')).filter((n) => n.builtFor === 'delimiter').every((n) => !n.valid)).toBe(true);
  expect(normalise('delimiter', 'IM00900100,X', workcode)).toBe('IM00900100');
  // Nothing before the delimiter, or none at all: not read so.
  expect(normalise('delimiter', ',IM00900100', workcode)).toBe(',IM00900100');
  expect(normalise('delimiter', 'IM00900100', workcode)).toBe('IM00900100');
  expect(normalisationsFor(byComponent('Int32')).map((n) => n.id)).not.toContain('delimiter');
});

test('where the document states no limit (the query agency and workcode of delete and demerge), no neighbour a database or a trim takes for the same value is sent, and no fault of the catalogue reads so', () => {
  const unstated = neighbourFields().filter((c) => c.limitStated === false);
  expect(unstated.map((c) => c.id).sort()).toEqual(['deleteSubmission.query.agency', 'deleteSubmission.query.workcode', 'demergeIswcMetadata.query.agency', 'demergeIswcMetadata.query.workcode']);
  for (const c of unstated) {
    for (const held of c.component === 'AgencyCode' ? ['128', '021'] : ['IM00900100', 'IM0090010012345678AB']) {
      const sent = neighboursToSend(c, held, { valid: true });
      expect(sent.length, `${c.id} ${held}`).toBeGreaterThan(0);
      for (const n of sent) expect(n.lands.some((l) => l.normalisation === 'trim' || l.normalisation === 'zero-pad'), `${c.id} ${JSON.stringify(n.value)}`).toBe(false);
      // A cut still shows on a value at its length: one character more, not a trailing space.
      if (held.length === lengthLimitOf(c)) expect(sent.some((n) => n.lands.some((l) => l.normalisation === 'truncate'))).toBe(true);
    }
  }
  // The body fields keep their trimmed neighbours: section 8 states their limits.
  const body = neighbourFields().find((c) => c.id === 'mergeIswcMetadata.body.agencyWorks[].agencyCode');
  expect(body && neighboursToSend(body, '128', { valid: true }).some((n) => n.lands.some((l) => l.normalisation === 'trim'))).toBe(true);
  expect(LENIENT_FAULTS.map((f) => f.id).filter((id) => /^lenient\.(delete|demerge)\.(agency|workcode)\.(trim|zero-pad)$/.test(id))).toEqual([]);
});

test('a LIKE reading has a glob variant: * for any run and ? for one character, each a neighbour sent', () => {
  expect(globMatches('IM009*', 'IM00900100')).toBe(true);
  expect(globMatches('12?', '128')).toBe(true);
  expect(globMatches('A.B*', 'AXB1')).toBe(false);
  const workcode = fieldConstraints().find((c) => c.id === 'deleteSubmission.query.workcode') as FieldConstraint;
  const sent = neighboursToSend(workcode, 'IM0090010012345678AB', { valid: true });
  expect(sent.find((n) => n.lands.some((l) => l.normalisation === 'like' && l.variant === 'glob'))?.value).toBe('IM0090010012345678A*');
});
