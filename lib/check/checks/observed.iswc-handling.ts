import { observe } from '../helpers.ts';
import { defineCheck } from '../types.ts';

/** What a malformed preferredIswc or a wrong check digit gets (the document states no pattern for the parameter). */
export default defineCheck({
  id: 'observed.iswc-handling',
  level: 'observed',
  sections: ['2.5', '4.2', '4.3', '4.4'],
  reading: 'Open points',
  description: 'What a malformed preferredIswc or a wrong check digit gets (the document states no pattern for the parameter).',
  scope: 'targeted',
  judge: observe,
});
