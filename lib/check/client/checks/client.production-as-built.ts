import type { AnswerSeen, ClientRequest } from '../types.ts';
import { defineClientCheck, noted, PASSED } from '../types.ts';

const succeeded = (a: AnswerSeen): boolean => typeof a.status === 'number' && a.status >= 200 && a.status < 300;

/** `application/problem+json`, `text/xml; charset=utf-8` → JSON, XML, or the media type as sent. */
function formatOf(contentType: string | undefined): string | undefined {
  const type = contentType?.split(';')[0]?.trim().toLowerCase();
  if (type === undefined || type === '') return undefined;
  if (type === 'application/json' || type.endsWith('+json') || type === 'text/json') return 'JSON';
  if (type === 'application/xml' || type === 'text/xml' || type.endsWith('+xml')) return 'XML';
  return type;
}

/** What production as built says when it refuses: the title, message or text of its body, short. */
function whatItSays(a: AnswerSeen): string {
  const text = a.body.trim();
  if (text === '') return '';
  try {
    const value = JSON.parse(text) as unknown;
    if (value !== null && typeof value === 'object') {
      const o = value as Record<string, unknown>;
      const said = [o.code, o.title, o.message].filter((v): v is string => typeof v === 'string').join(' ');
      if (said !== '') return ` "${said.slice(0, 120)}"`;
    }
  } catch {
    // not JSON: its text
  }
  return ` "${text.replace(/\s+/g, ' ').slice(0, 120)}"`;
}

/** What of the request a 415 is about: its Content-Type, or its lack. */
function mediaHint(request: ClientRequest): string {
  const type = request.headers['content-type'];
  return type === undefined ? ': the body was sent without Content-Type' : `: the body was sent as ${type}`;
}

function answerText(a: AnswerSeen): string {
  if (a.status === 'reset') return 'a reset connection';
  if (a.status === 'none') return 'no answer';
  return `${a.status}${whatItSays(a)}`;
}

/**
 * Production as built (the model production-as-built of the reference server: its legitimate choices and
 * its deviations from the document) answers the request otherwise than the sandbox's server did: what
 * the client gets away with here, it will not there. Recorded in every choice set, never a failure.
 */
export default defineClientCheck({
  id: 'client.production-as-built',
  level: 'observed',
  sections: ['4.1', '4.2', '4.3', '4.4'],
  reading: 'Open points',
  description:
    'Where production as built (the reference server\'s model production-as-built: its choices and its deviations from the document, docs/reference-server.md) answers a request otherwise than the sandbox did: a request the sandbox took and production refuses (415 for a body without Content-Type or in XML, 404 for the end of a run named with another agency, …), or a success in another format (JSON where the client asked for XML). Each request the sandbox\'s own server answered is also sent, in the same order, to a second server playing production as built; recorded whatever --choices says, never a failure: the client meets it against production.',
  compare({ request, sandbox, production, earlierRefused }) {
    if (!succeeded(sandbox)) return PASSED;
    const after = earlierRefused.count > 0 ? ` (production as built refused ${earlierRefused.count} earlier request${earlierRefused.count === 1 ? '' : 's'} of this session, the first #${earlierRefused.first ?? '?'}: what follows may differ because of ${earlierRefused.count === 1 ? 'it' : 'them'})` : '';
    const expected = 'what production as built answers the same request: what the sandbox answered';
    if (!succeeded(production)) return noted(expected, `production as built answers ${answerText(production)} where the sandbox answered ${sandbox.status}${production.status === 415 ? mediaHint(request) : ''}${after}`);
    const here = formatOf(sandbox.contentType);
    const there = formatOf(production.contentType);
    if (here !== undefined && there !== undefined && here !== there && sandbox.body.trim() !== '' && production.body.trim() !== '') {
      return noted(expected, `production as built answers ${production.status} in ${there} where the sandbox answered ${here}${after}`);
    }
    return PASSED;
  },
});
