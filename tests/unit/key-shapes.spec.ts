/**
 * The key on every shape of a request (issue 38): keyShapes derives, from a request that succeeds with the
 * key, the same request without it in each shape a key filter may miss that a server may also refuse for
 * itself, one at a time. The spellings every reader takes alike go at once (spelledAtOnce, with the key in
 * another letter case): every query value encoded (a filter that looks for one parameter in the raw query,
 * whichever it is, skips the key when that one is encoded: a fresh reading of 2026-12-01).
 */
import { expect, _baseTest as test } from '@playwright/test';
import type { RequestSpec } from '../../lib/contract/exchange.ts';
import { keyShapes, spelledAtOnce, TEXT_JSON_SHAPE, TEXT_XML_SHAPE, UNDOCUMENTED_PARAMETER } from '../../lib/generate/cases/key-proofs.ts';

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

test('every shape of a query request goes without the key, one at a time: the paths a router may take besides', () => {
  const shapes = keyShapes(DELETE);
  expect(shapes.every((s) => s.request.auth === 'none')).toBe(true);
  expect(shapes.map((s) => s.shape)).toEqual(['an Accept of application/xml', 'the query parameter preferredIswc given twice', 'an Accept of */*', 'an undocumented query parameter', 'the path with a trailing slash', 'the path in capitals']);
  expect(shapes.find((s) => s.shape === 'an undocumented query parameter')?.request.query).toEqual([...(DELETE.query ?? []), [UNDOCUMENTED_PARAMETER, '1']]);
  expect(shapes.filter((s) => s.otherPath).map((s) => s.request.path)).toEqual(['/submission/', '/SUBMISSION']);
  // Each shape changes one thing: the query of the path shapes is the request's.
  expect(shapes.filter((s) => s.otherPath).every((s) => s.request.query === DELETE.query)).toBe(true);
});

test('a request with a body: without Content-Type first; the merge success case keeps the first shapes only', () => {
  const shapes = keyShapes(RUN);
  expect(shapes.map((s) => s.shape)).toEqual(['a body without Content-Type', 'an Accept of application/xml', TEXT_JSON_SHAPE, 'an Accept of */*', 'an undocumented query parameter', 'the path with a trailing slash', 'the path in capitals']);
  expect(shapes[0]?.request.headers).toEqual({});
  // A JSON body is labelled text/json, which ASP.NET Core's JSON input reads by default, the body unchanged.
  expect(shapes.find((s) => s.shape === TEXT_JSON_SHAPE)?.request).toEqual({ ...RUN, auth: 'none', headers: { ...RUN.headers, 'Content-Type': 'text/json' } });
  // An XML body has one shape more: its registered alias text/xml as its label (RFC 7303), the body unchanged.
  const xmlRun: RequestSpec = { ...RUN, headers: { 'Content-Type': 'application/xml' }, body: '<AgentRun><agencyCode>128</agencyCode></AgentRun>' };
  const xmlShapes = keyShapes(xmlRun);
  expect(xmlShapes.map((s) => s.shape)).toEqual(['a body without Content-Type', 'an Accept of application/json', TEXT_XML_SHAPE, 'an Accept of */*', 'an undocumented query parameter', 'the path with a trailing slash', 'the path in capitals']);
  expect(xmlShapes.find((s) => s.shape === TEXT_XML_SHAPE)?.request).toEqual({ ...xmlRun, auth: 'none', headers: { 'Content-Type': 'text/xml' } });
  expect(keyShapes(xmlRun, false).map((s) => s.shape)).not.toContain(TEXT_XML_SHAPE);
  expect(keyShapes(RUN, false).map((s) => s.shape)).not.toContain(TEXT_JSON_SHAPE);
  expect(keyShapes(DELETE, false).map((s) => s.shape)).toEqual(['an Accept of application/xml', 'the query parameter preferredIswc given twice']);
});

test('spelled every other valid way at once: a charset parameter, an Accept of its format first and the other after it, every query value encoded, and the same request to every reader', () => {
  const query = spelledAtOnce({ ...DELETE, auth: 'key-case' });
  expect(query.auth).toBe('key-case');
  expect(query.headers).toEqual({ Accept: 'application/json, application/xml;q=0.5' });
  expect(query.rawQuery).toBe('preferredIswc=%54%33%33%30%30%30%30%30%30%30%30&agency=%31%32%38&workcode=%49%4D%30%30%39%30%30%31%30%30');
  expect([...new URLSearchParams(query.rawQuery)]).toEqual(DELETE.query);
  const body = spelledAtOnce(RUN);
  expect(body.headers).toEqual({ 'Content-Type': 'application/json; charset=utf-8', Accept: 'application/json, application/xml;q=0.5' });
  expect(body.rawQuery).toBeUndefined();
  expect(body.body).toBe(RUN.body);
  const xml = spelledAtOnce({ ...RUN, headers: { 'content-type': 'application/xml', accept: 'application/xml' } });
  // A header given already is kept as given: its Accept, a Content-Type with its parameter added once.
  expect(xml.headers).toEqual({ 'content-type': 'application/xml; charset=utf-8', accept: 'application/xml' });
  expect(spelledAtOnce({ ...RUN, headers: { 'Content-Type': 'application/xml' } }).headers?.Accept).toBe('application/xml, application/json;q=0.5');
  // On the demerge, one query parameter the document does not name as well, encoded like the others.
  const more = spelledAtOnce(DELETE, true);
  expect([...new URLSearchParams(more.rawQuery)]).toEqual([...(DELETE.query ?? []), [UNDOCUMENTED_PARAMETER, '1']]);
  expect(more.rawQuery?.endsWith(`&${UNDOCUMENTED_PARAMETER}=%31`)).toBe(true);
});
