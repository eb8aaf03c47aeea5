import { readFileSync } from 'node:fs';
import type { FieldConstraint } from '../contract/constraints.ts';
import { resourceSchema } from '../contract/constraints.ts';
import { componentName, deref } from '../contract/openapi.ts';
import type { OperationId } from '../contract/operations.ts';
import { operation } from '../contract/operations.ts';
import { fromRoot } from '../foundation/paths.ts';
import type { TargetProfile } from '../contract/profile/types.ts';
import type { Query } from './requests.ts';
import type { AuthMode } from '../contract/exchange.ts';

/**
 * Valid inputs built from the target profile and the schemas: the base every case changes one thing of.
 * Field lists come from the schemas; only the document's meaning of a parameter (which profile value
 * fills it) is named here.
 */

export const HARNESS_VERSION = (JSON.parse(readFileSync(fromRoot('package.json'), 'utf8')) as { version: string }).version;
/** Marks the harness's traffic: the User-Agent of every request. */
export const HARNESS_TAG = `iswc-conformance/${HARNESS_VERSION}`;
/**
 * The agentVersion of the harness's agent runs (the document states no constraint, 2.1): a version number,
 * like a real agent's, since a server may read it as one (.NET's System.Version takes two to four integers
 * separated by dots, so "conformance 0.1.0" would be refused) or store it in a narrow column. The harness
 * names itself in the User-Agent of every request instead.
 */
export const AGENT_VERSION = /^[0-9]+(\.[0-9]+){1,3}/.exec(HARNESS_VERSION)?.[0] ?? '1.0';

/**
 * A large but realistic count of records in one run (a big agency's resend): what a server must take in a
 * counter. The document states a type and a range (2.1, 8), not that every value in it is taken: a server
 * may refuse an implausible count, so the 32-bit maximum itself is only recorded (issue 28).
 */
export const LARGE_COUNT = 1_000_000;

/**
 * The counters of an agent run as a server with business rules reads them (the document states none, 2.1;
 * a server may check that they add up): the records that succeeded are the new and the updated ones; sent
 * are successful or rejected; rejected are business or technical rejections. These relations hold together
 * in every run, rejections or not (a server checking any of them takes the harness's counters).
 */
const COUNTERS = {
  update: 'updateRecordCount',
  new: 'newRecordCount',
  sent: 'overallSent',
  successful: 'successfulCount',
  rejected: 'overallRejected',
  business: 'businessRejectionCount',
  technical: 'technicalRejectionCount',
} as const;

const COUNTER_KEYS = Object.keys(COUNTERS) as Array<keyof typeof COUNTERS>;

/** The body's counters, in the order of COUNTERS (an encoded body, and so a case's digest, follows it). */
function counters(c: Record<keyof typeof COUNTERS, number>): Record<string, number> {
  const out: Record<string, number> = {};
  for (const k of COUNTER_KEYS) out[COUNTERS[k]] = c[k];
  return out;
}

/** Counters that add up, from the records updated and new (the successful ones) and the rejections of each kind. */
export function countersOf(parts: { update: number; new: number; business: number; technical: number }): Record<string, number> {
  const successful = parts.update + parts.new;
  const rejected = parts.business + parts.technical;
  return counters({ ...parts, successful, rejected, sent: successful + rejected });
}

/** Counters that add up, `n` records updated and `n` new, all sent successfully. */
export function consistentCounters(n: number): Record<string, number> {
  return counters({ update: n, new: n, sent: 2 * n, successful: 2 * n, rejected: 0, business: 0, technical: 0 });
}

/**
 * Counters that add up with `field` at `value` (a value at the int32 limit stays within it: the others are
 * chosen around it), or undefined when `field` is not one of them.
 */
export function countersWith(field: string, value: number): Record<string, number> | undefined {
  const v = value;
  switch (field) {
    case COUNTERS.update:
    case COUNTERS.sent:
    case COUNTERS.successful:
      return counters({ update: v, new: 0, sent: v, successful: v, rejected: 0, business: 0, technical: 0 });
    case COUNTERS.new:
      return counters({ update: 0, new: v, sent: v, successful: v, rejected: 0, business: 0, technical: 0 });
    case COUNTERS.rejected:
    case COUNTERS.business:
      return counters({ update: 0, new: 0, sent: v, successful: 0, rejected: v, business: v, technical: 0 });
    case COUNTERS.technical:
      return counters({ update: 0, new: 0, sent: v, successful: 0, rejected: v, business: 0, technical: v });
    default:
      return undefined;
  }
}

/**
 * A valid agent run that starts a run (no runId), every other field present, its counters adding up. A run
 * that starts has counted nothing yet: by default its counters are 0, the one value every server takes on a
 * start (a server may refuse counts on a start; the document states no rule, 2.1, 3).
 */
export function validAgentRun(profile: TargetProfile, counter = 0): Record<string, unknown> {
  const schema = resourceSchema('AgentRun');
  const consistent = consistentCounters(counter);
  const out: Record<string, unknown> = {};
  for (const [name, raw] of Object.entries(schema.properties ?? {})) {
    const node = deref(raw);
    if (name === 'runId') continue;
    if (raw.$ref && componentName(raw.$ref) === 'AgencyCode') out[name] = profile.agency;
    else if (node.type === 'integer') out[name] = consistent[name] ?? counter;
    else if (node.type === 'string') out[name] = AGENT_VERSION;
  }
  return out;
}

/**
 * How the request about to succeed on a disposable entry is sent first, each refused (`auth.key-checked`):
 * without the key, with an empty one (a header present but blank: a gateway that tests presence lets it
 * through), with a wrong one, and with the key whose letters changed case (a server that compares without
 * case takes it).
 */
export const KEY_PROOFS = ['none', 'empty', 'wrong', 'key-case'] as const satisfies readonly AuthMode[];
export const KEY_PROOF_LABEL: Record<(typeof KEY_PROOFS)[number], string> = { none: 'without the key', empty: 'with an empty key', wrong: 'with a wrong key', 'key-case': 'with the key in another letter case' };
export const KEY_PROOF_STATE: Record<(typeof KEY_PROOFS)[number], string> = { none: 'missing', empty: 'empty', wrong: 'wrong', 'key-case': 'the key with the case of its letters changed, so a wrong one' };

/** A merge body with every array present and empty. */
export function emptyMerge(): Record<string, unknown[]> {
  const out: Record<string, unknown[]> = {};
  for (const [name, raw] of Object.entries(resourceSchema('MergeRequest').properties ?? {})) if (deref(raw).type === 'array') out[name] = [];
  return out;
}

/** Every agency work code the profile names: of its submissions, demerges and merge entries' agency works. */
export function profileWorkCodes(profile: Pick<TargetProfile, 'submissions' | 'demerges' | 'merges'>): string[] {
  return [...profile.submissions.map((s) => s.workcode), ...profile.demerges.map((d) => d.workcode), ...profile.merges.flatMap((m) => (m.agencyWorks ?? []).map((w) => w.agencyWorkCode))];
}

const WORK_CODE_MAX = 20;

/**
 * A realistic agency work code of the profile's agency that names no work of the profile: what "a work
 * code never submitted" and the probes that promise to change nothing send. Shaped like the profile's own
 * codes (its third and fourth characters made 99, 98, …; a short code gets two digits more), never one of
 * them however case is compared (a database collation may ignore case), and within the 20 characters of 2.4.
 */
export function sampleWorkCode(profile: Pick<TargetProfile, 'submissions' | 'demerges' | 'merges'>): string {
  // Asked for by every generated body: kept per profile, while its three lists are the ones it was worked out from.
  const kept = sampleWorkCodes.get(profile);
  if (kept && kept.submissions === profile.submissions && kept.demerges === profile.demerges && kept.merges === profile.merges) return kept.code;
  const code = workCodeNamingNothing(profile);
  sampleWorkCodes.set(profile, { submissions: profile.submissions, demerges: profile.demerges, merges: profile.merges, code });
  return code;
}

const sampleWorkCodes = new WeakMap<object, Pick<TargetProfile, 'submissions' | 'demerges' | 'merges'> & { code: string }>();

function workCodeNamingNothing(profile: Pick<TargetProfile, 'submissions' | 'demerges' | 'merges'>): string {
  const base = profile.demerges[0]?.workcode ?? profile.submissions[0]?.workcode ?? 'W0000001';
  const taken = new Set(profileWorkCodes(profile).map((c) => c.toUpperCase()));
  const shaped = (digits: string): string => (base.length >= 4 ? `${base.slice(0, 2)}${digits}${base.slice(4)}` : `${base}${digits}`).slice(0, WORK_CODE_MAX);
  for (let n = 99; n >= 0; n--) {
    const code = shaped(String(n).padStart(2, '0'));
    if (!taken.has(code.toUpperCase())) return code;
  }
  // A hundred of the profile's codes in that shape: a code of the harness's own, numbered past them.
  for (let n = 0; ; n++) {
    const code = `ICNEVER${n}`;
    if (!taken.has(code)) return code;
  }
}

export function validWork(profile: TargetProfile): Record<string, string> {
  return { agencyCode: profile.agency, agencyWorkCode: sampleWorkCode(profile) };
}

export function existingIswc(profile: TargetProfile): string {
  return profile.iswcs[0];
}

/** An existing ISWC other than the first (what merges into an unknown preferred ISWC carry). */
export function otherIswc(profile: TargetProfile): string {
  return profile.iswcs[1] ?? existingIswc(profile);
}

export function unknownIswc(profile: TargetProfile, index = 0): string {
  return profile.unknownIswcs[index % profile.unknownIswcs.length];
}

export function sourceDbOf(profile: TargetProfile): number {
  return profile.submissions[0]?.sourceDb ?? 1;
}

/** Query values by the document's parameter names, in the contract's order. */
export function queryFor(opId: OperationId, values: Record<string, string | number | undefined>): Query {
  const out: Array<readonly [string, string]> = [];
  for (const param of operation(opId).params) {
    const value = values[param.name];
    if (value !== undefined) out.push([param.name, String(value)]);
  }
  return out;
}

/** Query naming existing data except where a case changes it (preferred ISWC exists; work and submission need not). */
export function baseQuery(_opId: OperationId, profile: TargetProfile, preferredIswc = existingIswc(profile)): Record<string, string | number> {
  return {
    preferredIswc,
    agency: profile.agency,
    workcode: sampleWorkCode(profile),
    sourceDb: sourceDbOf(profile),
    reasonCode: profile.reasonCode,
  };
}

/** A valid example value for a constrained field, from the profile. */
export function validExample(c: FieldConstraint, profile: TargetProfile): string | number {
  if (c.type === 'integer') return c.location === 'query' ? sourceDbOf(profile) : 1;
  if (c.component === 'Iswc') return unknownIswc(profile, 1);
  if (c.component === 'AgencyCode') return profile.agency;
  if (c.component === 'AgencyWorkCode') return sampleWorkCode(profile);
  return AGENT_VERSION;
}

/** Puts a value into a body at a constraint's field path (`agencyWorks[].agencyCode`, `iswcs[]`, `agencyCode`). */
export function bodyWith(base: Record<string, unknown>, field: string, value: unknown, profile: TargetProfile): Record<string, unknown> {
  const body = structuredClone(base);
  const arrayItem = /^(\w+)\[\]$/.exec(field);
  if (arrayItem) {
    body[arrayItem[1]] = [value];
    return body;
  }
  const nested = /^(\w+)\[\]\.(\w+)$/.exec(field);
  if (nested) {
    body[nested[1]] = [{ ...validWork(profile), [nested[2]]: value }];
    return body;
  }
  body[field] = value;
  return body;
}

/** Another well-formed agency code, for requests that must not match the profile's data. */
export function otherAgency(agency: string): string {
  return agency === '052' ? '021' : '052';
}
