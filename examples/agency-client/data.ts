import { readFileSync } from 'node:fs';
import type { AgencyData } from './flow.ts';

interface ProfileFile {
  agency: string;
  merges: Array<AgencyData['merge']>;
  demerges: Array<AgencyData['demerge']>;
  submissions: Array<AgencyData['submission']>;
  reasonCode?: string;
}

/**
 * The agency's data for a day, from a target profile of the harness (fixtures/targets/*.json): the
 * profile lists what exists in the target, so the client's merge, demerge and delete name real entries.
 * `index` picks other entries, for a second day against the same target.
 */
export function loadAgencyData(file: string, index = 0): AgencyData {
  const profile = JSON.parse(readFileSync(file, 'utf8')) as ProfileFile;
  const pick = <T extends object>(list: T[], what: string): T => {
    const item = list[index % Math.max(1, list.length)];
    if (item === undefined) throw new Error(`${file} lists no ${what}: the example client needs one`);
    // A profile's notes for people ($comment) are not data to send.
    const { $comment: _note, ...data } = item as T & { $comment?: unknown };
    return data as T;
  };
  return {
    agency: profile.agency,
    agentVersion: 'example-client 1.0',
    merge: pick(profile.merges, 'merges'),
    demerge: pick(profile.demerges, 'demerges'),
    submission: pick(profile.submissions, 'submissions'),
    reasonCode: profile.reasonCode ?? 'EdiV1',
  };
}
