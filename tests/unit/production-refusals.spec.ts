import { expect, _baseTest as test } from '@playwright/test';
import { loadProfile } from '../../lib/contract/profile/load.ts';
import { fromRoot } from '../../lib/foundation/paths.ts';
import { productionRefusals } from '../../lib/cli/production-refusals.ts';

/** Issue 29: `profile check` says which entries production as built would refuse (103) or hold for approval (150). */
test('profile check names the entries production would refuse: an agency outside its registry, another agency\'s works', () => {
  const profile = loadProfile(fromRoot('fixtures', 'targets', 'embedded.json'));
  expect(productionRefusals(profile)).toEqual([]);
  const merge = profile.merges[0];
  const submission = profile.submissions[0];
  if (!merge || !submission) throw new Error('the embedded profile has merges and submissions');
  const other = {
    ...profile,
    merges: [{ ...merge, agencyWorks: [{ agencyCode: '058', agencyWorkCode: 'SACEM1' }, { agencyCode: '777', agencyWorkCode: 'X1' }] }],
    demerges: [{ preferredIswc: merge.preferredIswc, agency: '021', workcode: 'BMI1' }],
    submissions: [{ ...submission, agency: '777' }],
  };
  const lines = productionRefusals(other);
  expect(lines.map((l) => l.split(':')[0])).toEqual(['merges[0].agencyWorks[0]', 'merges[0].agencyWorks[1]', 'demerges[0]', 'submissions[0]']);
  expect(lines[0]).toMatch(/400 "150"/);
  expect(lines[1]).toMatch(/400 "203"/);
  expect(lines[3]).toMatch(/400 "103"/);
});
