/** A target profile (`fixtures/targets/*.json`, schema `schemas/target-profile.schema.json`). */
export interface AgencyWorkRef {
  agencyCode: string;
  agencyWorkCode: string;
}

export interface MergeEntry {
  preferredIswc: string;
  iswcs?: string[];
  agencyWorks?: AgencyWorkRef[];
}

export interface DemergeEntry {
  preferredIswc: string;
  agency: string;
  workcode: string;
}

export interface SubmissionEntry {
  preferredIswc: string;
  agency: string;
  workcode: string;
  sourceDb: number;
}

export interface TargetProfile {
  name: string;
  /** The agency the subscription key acts for (query `agency` of merge). */
  agency: string;
  /** ISWCs that exist in the target; never changed by the harness. */
  iswcs: string[];
  /** Well-formed ISWCs that do not exist in the target. */
  unknownIswcs: string[];
  /** Disposable: merge requests the target accepts with 204. */
  merges: MergeEntry[];
  /** Disposable: metadata currently merged into the preferred ISWC. */
  demerges: DemergeEntry[];
  /** Disposable: existing submissions. */
  submissions: SubmissionEntry[];
}

export type DisposableKind = 'merges' | 'demerges' | 'submissions';
export const DISPOSABLE_KINDS: readonly DisposableKind[] = ['merges', 'demerges', 'submissions'];
