import { readFileSync } from 'node:fs';
import type { FieldConstraint } from '../contract/constraints.ts';
import { resourceSchema } from '../contract/constraints.ts';
import { componentName, deref } from '../contract/openapi.ts';
import type { OperationId } from '../contract/operations.ts';
import { operation } from '../contract/operations.ts';
import { fromRoot } from '../paths.ts';
import type { TargetProfile } from '../contract/profile/types.ts';
import type { Query } from './requests.ts';

/**
 * Valid inputs built from the target profile and the schemas: the base every case changes one thing of.
 * Field lists come from the schemas; only the document's meaning of a parameter (which profile value
 * fills it) is named here.
 */

export const HARNESS_VERSION = (JSON.parse(readFileSync(fromRoot('package.json'), 'utf8')) as { version: string }).version;
/** Marks the harness's traffic where the document allows free text (agentVersion). */
export const HARNESS_TAG = `iswc-conformance/${HARNESS_VERSION}`;
/** A reason code for deletes; allowed values are not shown, DOMAIN.md gives "EdiV1" as a real one. */
export const REASON_CODE = 'EdiV1';

/** A valid agent run that starts a run (no runId), every other field present. */
export function validAgentRun(profile: TargetProfile, counter = 1): Record<string, unknown> {
  const schema = resourceSchema('AgentRun');
  const out: Record<string, unknown> = {};
  for (const [name, raw] of Object.entries(schema.properties ?? {})) {
    const node = deref(raw);
    if (name === 'runId') continue;
    if (raw.$ref && componentName(raw.$ref) === 'AgencyCode') out[name] = profile.agency;
    else if (node.type === 'integer') out[name] = counter;
    else if (node.type === 'string') out[name] = HARNESS_TAG;
  }
  return out;
}

/** A merge body with every array present and empty. */
export function emptyMerge(): Record<string, unknown[]> {
  const out: Record<string, unknown[]> = {};
  for (const [name, raw] of Object.entries(resourceSchema('MergeRequest').properties ?? {})) if (deref(raw).type === 'array') out[name] = [];
  return out;
}

/** A realistic agency work code of the profile's agency (never one the profile marks as existing work). */
export function sampleWorkCode(profile: TargetProfile): string {
  const known = profile.demerges[0]?.workcode ?? profile.submissions[0]?.workcode ?? 'W0000001';
  return `${known.slice(0, 2)}99${known.slice(4)}`.slice(0, Math.max(known.length, 1));
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
    reasonCode: REASON_CODE,
  };
}

/** A valid example value for a constrained field, from the profile. */
export function validExample(c: FieldConstraint, profile: TargetProfile): string | number {
  if (c.type === 'integer') return c.location === 'query' ? sourceDbOf(profile) : 1;
  if (c.component === 'Iswc') return unknownIswc(profile, 1);
  if (c.component === 'AgencyCode') return profile.agency;
  if (c.component === 'AgencyWorkCode') return sampleWorkCode(profile);
  return HARNESS_TAG;
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
