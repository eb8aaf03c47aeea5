import { observe } from '../helpers.ts';
import { defineCheck } from '../types.ts';

/**
 * Sections 4.1 and 4.2: Content-Type is optional for the client, and the document does not say how a body
 * without it is read. A server may read it as JSON, sniff it, or take it for application/octet-stream and
 * refuse it with 415 (RFC 9110 §8.3; ASP.NET Core does, and so did a server written from the document
 * alone). What a JSON or an XML body without it gets is recorded; a 5xx to it is an `http` failure
 * (`http.no-5xx`, an every-answer check).
 */
export default defineCheck({
  id: 'observed.content-type-default',
  level: 'observed',
  sections: ['4.1', '4.2'],
  reading: 'Acceptance',
  description: 'What a JSON or XML body sent without Content-Type gets: understood (read as JSON, or sniffed), or refused as a media type the server does not read (415, or 400).',
  scope: 'targeted',
  judge: observe,
});
