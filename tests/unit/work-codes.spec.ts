/**
 * The work code the harness sends as "never submitted" (lib/generate/templates.ts sampleWorkCode): the
 * probes that promise to change nothing and the refusals of a work the target does not have rely on it
 * naming no work of the profile.
 */
import { expect, _baseTest as test } from '@playwright/test';
import { loadProfile } from '../../lib/contract/profile/load.ts';
import type { TargetProfile } from '../../lib/contract/profile/types.ts';
import { profileWorkCodes, sampleWorkCode } from '../../lib/generate/templates.ts';
import { fromRoot } from '../../lib/foundation/paths.ts';

const minimal = loadProfile(fromRoot('fixtures', 'targets', 'minimal.json'));
const withCodes = (demerge: string, ...others: string[]): TargetProfile => ({
  ...minimal,
  demerges: [{ preferredIswc: 'T3200000002', agency: '128', workcode: demerge }],
  submissions: others.map((workcode, i) => ({ preferredIswc: 'T3300000000', agency: '128', workcode, sourceDb: 128 + i })),
});

test('the sample work code names no work of the profile, keeps the shape of its codes and stays within 20 characters', () => {
  const cases: Array<[TargetProfile, string]> = [
    // The usual case: the third and fourth characters made 99.
    [withCodes('IM00800100'), 'IM99800100'],
    // Codes whose third and fourth characters are already 99, or too short to change, once came back unchanged.
    [withCodes('SA99001234'), 'SA98001234'],
    [withCodes('W1'), 'W199'],
    [withCodes('0099123'), '0098123'],
    // Another work of the profile in the first shape tried, in any case: the next one.
    [withCodes('IM00800100', 'im99800100', 'IM98800100'), 'IM97800100'],
    // At the limit of 20 characters, it stays there.
    [withCodes('ABCDEFGHIJKLMNOPQRST'), 'AB99EFGHIJKLMNOPQRST'],
    // No demerges nor submissions: a code of its own, never an agency work of a merge entry.
    [{ ...minimal, merges: [{ preferredIswc: 'T3100000004', agencyWorks: [{ agencyCode: '128', agencyWorkCode: 'W0990001' }] }] }, 'W0980001'],
  ];
  for (const [profile, expected] of cases) {
    const code = sampleWorkCode(profile);
    expect(code, JSON.stringify(profileWorkCodes(profile))).toBe(expected);
    expect(profileWorkCodes(profile).map((c) => c.toUpperCase())).not.toContain(code.toUpperCase());
    expect(code.length).toBeLessThanOrEqual(20);
  }
  // A profile that has taken every code of that shape still gets one it does not have.
  const crowded = withCodes('AB00', ...Array.from({ length: 100 }, (_, n) => `AB${String(n).padStart(2, '0')}`));
  expect(profileWorkCodes(crowded)).not.toContain(sampleWorkCode(crowded));
  // The shipped profiles.
  for (const file of ['embedded.json', 'minimal.json', 'readme-example.json', 'three-entries.json', 'staging-example.json']) {
    const profile = loadProfile(fromRoot('fixtures', 'targets', file));
    expect(profileWorkCodes(profile), file).not.toContain(sampleWorkCode(profile));
  }
});
