import { observe } from '../helpers.ts';
import { defineCheck } from '../types.ts';

/**
 * Sections 4.1 and 4.2: Content-Type is optional, and the document does not say how a body without it is
 * read. A JSON body without it must be understood (the usual default); what an XML body without it gets
 * (sniffed, or read as JSON and refused) is recorded.
 */
export default defineCheck({
  id: 'observed.content-type-default',
  level: 'observed',
  sections: ['4.1', '4.2'],
  reading: 'Acceptance',
  description: 'What an XML body sent without Content-Type gets: servers that sniff the body understand it, servers that read a body without Content-Type as JSON refuse it.',
  scope: 'targeted',
  judge: observe,
});
