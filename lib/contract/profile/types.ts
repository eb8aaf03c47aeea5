import type { Format } from '../codec/index.ts';

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
  /** The reasonCode the target accepts on a delete (allowed values are not shown, 4.3); default EdiV1. */
  reasonCode: string;
  /** How the target reads XML arrays of a MergeRequest (not shown); default unwrapped, as production. */
  xmlArrays: XmlArrays;
  /**
   * How many agent runs of the agency the target lets be open at once (run states are not shown, 3);
   * default many. With one, the harness ends each run it started before it starts another, across the workers of one run (a sharded run is refused).
   */
  openRuns: OpenRuns;
  /**
   * Who names an agent run (2.1 states no rule for runId); default server, as production: a start carries
   * no runId and the answer gives the server's. With client, a start carries a runId of the harness's.
   */
  runIds: RunIds;
  /**
   * The body formats the target serves (the document states JSON and XML); default both. A target that
   * serves no XML is sent no XML request, and its reports say JSON only.
   */
  formats: readonly Format[];
  /**
   * The disposable entries are never recreated (absent: false): a destructive run makes only changes it
   * undoes and shows undone, and consumes no entry (lib/run/restore.ts).
   */
  reusable?: boolean;
}

/** Whether a run on this profile may change disposable entries only in ways it undoes: destructive, on a reusable profile. */
export function reusableRun(profile: Pick<TargetProfile, 'reusable'>, destructive: boolean): boolean {
  return destructive && profile.reusable === true;
}

/** Why a case that consumes entries, or may change data it cannot undo, is left out of a run on a reusable profile. */
export const NOT_UNDONE_REASON =
  'would consume disposable entries or make a change no request undoes, and the profile\'s entries are never recreated (profile reusable: true): a run on it makes only the changes it undoes';

export type XmlArrays = 'unwrapped' | 'wrapped';
export type OpenRuns = 'many' | 'one';
export type RunIds = 'server' | 'client';

/** The settings a profile file may leave out: what a client must know to succeed where the document is silent. */
export type ProfileSettings = Pick<TargetProfile, 'reasonCode' | 'xmlArrays' | 'openRuns' | 'runIds' | 'formats'>;

/** Profile defaults for the settings a profile file may leave out. */
export const PROFILE_DEFAULTS = { reasonCode: 'EdiV1', xmlArrays: 'unwrapped', openRuns: 'many', runIds: 'server', formats: ['json', 'xml'] } as const satisfies ProfileSettings;

/** Does the target serve this body format (profile `formats`)? A case without a body ('none') always runs. */
export function servesFormat(profile: Partial<Pick<TargetProfile, 'formats'>>, format: Format | 'none'): boolean {
  return format === 'none' || (profile.formats ?? PROFILE_DEFAULTS.formats).includes(format);
}

const NOT_SERVED = 'the target serves no ';

/** Why a case in a format the target does not serve is not sent: "the target serves no XML (profile formats: json)". */
export function formatNotServedReason(profile: Pick<TargetProfile, 'formats'>, format: Format | 'none'): string {
  return `${NOT_SERVED}${format.toUpperCase()} (profile formats: ${profile.formats.join(', ')})`;
}

/** Whether a skip reason is formatNotServedReason's: nothing the profile could add changes it. */
export function isFormatNotServedReason(reason: string): boolean {
  return reason.startsWith(NOT_SERVED);
}

/** "JSON only", "XML only", or undefined when the target serves both formats. */
export function formatsLabel(profile: Partial<Pick<TargetProfile, 'formats'>>): string | undefined {
  const formats: readonly Format[] = profile.formats ?? PROFILE_DEFAULTS.formats;
  if (formats.includes('json') && formats.includes('xml')) return undefined;
  return `${formats.map((f) => f.toUpperCase()).join(', ')} only`;
}

export type DisposableKind = 'merges' | 'demerges' | 'submissions';
export const DISPOSABLE_KINDS: readonly DisposableKind[] = ['merges', 'demerges', 'submissions'];
