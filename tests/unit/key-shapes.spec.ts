/**
 * The key on every shape of a request (issue 38): keyShapes derives, from a request that succeeds with the
 * key, the same request without it in each shape a key filter may miss. Each is the same request to every
 * reader; the percent-encoded shape encodes every query value (a filter that looks for one parameter in the
 * raw query, whichever it is, skips the key when that one is encoded: a fresh reading of 2026-12-01).
 */
import { expect, _baseTest as test } from '@playwright/test';
import type { RequestSpec } from '../../lib/contract/exchange.ts';
import { keyShapes, UNDOCUMENTED_PARAMETER } from '../../lib/generate/cases/key-proofs.ts';

const DELETE: RequestSpec = {
  method: 'DELETE',
  path: '/submission',
  query: [
    ['preferredIswc', 'T3300000000'],
    ['agency', '128'],
    ['workcode', 'IM00900100'],
  ],
  headers: {},
  auth: 'key',
};

const RUN: RequestSpec = { method: 'POST', path: '/agent/run', query: [], headers: { 'Content-Type': 'application/json' }, body: '{"agencyCode":"128"}', auth: 'key' };

test('every shape of a query request goes without the key; the encoded one encodes every value and decodes to the same query', () => {
  const shapes = keyShapes(DELETE);
  expect(shapes.every((s) => s.request.auth === 'none')).toBe(true);
  expect(shapes.map((s) => s.shape)).toEqual(['an Accept of application/xml', 'the query parameter preferredIswc given twice', 'the query values percent-encoded', 'an undocumented query parameter']);
  const encoded = shapes.find((s) => s.shape === 'the query values percent-encoded')?.request.rawQuery ?? '';
  expect(encoded).toBe('preferredIswc=%54%33%33%30%30%30%30%30%30%30%30&agency=%31%32%38&workcode=%49%4D%30%30%39%30%30%31%30%30');
  expect([...new URLSearchParams(encoded)]).toEqual(DELETE.query);
  expect(shapes.find((s) => s.shape === 'an undocumented query parameter')?.request.query).toEqual([...(DELETE.query ?? []), [UNDOCUMENTED_PARAMETER, '1']]);
});

test('a request with a body: without Content-Type and with a charset parameter to it; the merge success case keeps the first three shapes only', () => {
  const shapes = keyShapes(RUN);
  expect(shapes.map((s) => s.shape)).toEqual(['a body without Content-Type', 'a Content-Type with a charset parameter', 'an Accept of application/xml', 'an undocumented query parameter']);
  expect(shapes[0]?.request.headers).toEqual({});
  expect(shapes[1]?.request.headers).toEqual({ 'Content-Type': 'application/json; charset=utf-8' });
  expect(keyShapes(DELETE, false).map((s) => s.shape)).toEqual(['an Accept of application/xml', 'the query parameter preferredIswc given twice']);
});
