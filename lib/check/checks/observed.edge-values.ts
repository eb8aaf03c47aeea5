import { observe } from '../helpers.ts';
import { defineCheck } from '../types.ts';

/** What values within or near the limits but unrealistic get: empty strings, control, NUL and bidi characters, negative or extreme counters and sourceDb, edge whitespace, ISWCs in lower case, with separators or full-width digits, duplicates. */
export default defineCheck({
  id: 'observed.edge-values',
  level: 'observed',
  sections: ['2.1', '2.3', '2.4', '4.3', '8'],
  reading: 'Acceptance',
  description: 'What values within or near the limits but unrealistic get: empty strings, control, NUL and bidi characters, negative or extreme counters and sourceDb, edge whitespace, ISWCs in lower case, with separators or full-width digits, duplicates.',
  scope: 'targeted',
  judge: observe,
});
