import * as targeted from '../../checks/targeted.ts';
import { encodeXml, decodeXml, xmlRepresentable } from '../../codec/xml.ts';
import type { FieldConstraint } from '../../contract/constraints.ts';
import { fieldConstraints, isLimited } from '../../contract/constraints.ts';
import { operation } from '../../contract/operations.ts';
import { validateResource } from '../../contract/validators.ts';
import type { DisposableKind, SubmissionEntry, TargetProfile } from '../../profile/types.ts';
import type { CaseDef, CaseFormat } from '../case.ts';
import { expectCheck } from '../case.ts';
import { bodyRequest, queryRequest } from '../requests.ts';
import { baseQuery, bodyWith, emptyMerge, otherIswc, queryFor, unknownIswc, validAgentRun, validExample } from '../templates.ts';
import { boundaryValues, wrongTypes } from '../values.ts';

/**
 * Limit and type cases, derived from every constrained field of schemas/openapi.yaml: values at each
 * limit (accepted) and one past it (400), and values of the wrong type (400), in JSON and XML.
 */

/** The XML twin of a body keeps the case's meaning only if it is still invalid (or still valid). */
export function xmlTwinKeeps(resource: 'AgentRun' | 'MergeRequest', value: unknown, valid: boolean): boolean {
  if (!xmlRepresentable(value)) return false;
  // Many XML binders trim text: a value whose meaning rests on edge whitespace has no fair XML twin.
  if (JSON.stringify(value).match(/"\s|\s"/)) return false;
  const decoded = decodeXml(resource, encodeXml(resource, value));
  const twinValid = decoded.ok && validateResource(resource, decoded.value).length === 0;
  return twinValid === valid;
}

function formatsFor(c: FieldConstraint, body: unknown, valid: boolean): CaseFormat[] {
  // A query parameter of an operation with a body: the body (valid, empty) is sent in JSON once.
  if (c.location === 'query') return ['json'];
  const resource = operation(c.operation).body?.resource;
  if (resource !== 'AgentRun' && resource !== 'MergeRequest') return ['json'];
  return xmlTwinKeeps(resource, body, valid) ? ['json', 'xml'] : ['json'];
}

/** The body a limit case sends: the field set on a valid base (agent run) or on an empty merge. */
function bodyFor(c: FieldConstraint, profile: TargetProfile, value: unknown): Record<string, unknown> {
  const base = c.operation === 'notifyAgentRun' ? validAgentRun(profile) : emptyMerge();
  return bodyWith(base, c.field, value, profile);
}

/**
 * Where the named data may not exist, an accepted value may get 404: a merge or delete that names an
 * unknown ISWC keeps data safe and still shows the limit is not enforced too tightly.
 */
function limitCase(c: FieldConstraint, profile: TargetProfile, label: string, value: unknown, valid: boolean, because: string, kind: 'limit' | 'type'): CaseDef {
  const op = operation(c.operation);
  const acceptOnUnknown = valid && c.operation !== 'notifyAgentRun';
  const preferred = acceptOnUnknown ? unknownIswc(profile) : undefined;
  // A query parameter of the merge: the body stays valid. Where acceptance is shown it names an existing
  // ISWC (an empty merge may be a bad request: the body carries ISWCs "and/or" works, 4.2); where 400 is
  // demanded it stays empty, so a server that wrongly takes the value merges nothing.
  const body = !op.body ? undefined : c.location === 'query' ? (valid ? { ...emptyMerge(), iswcs: [otherIswc(profile)] } : emptyMerge()) : bodyFor(c, profile, value);
  const checkId = kind === 'type' ? targeted.typeRejected.id : valid ? targeted.limitAccepted.id : targeted.limitRejected.id;
  const entryKind = existingDataFor(c, valid);
  return {
    id: `${kind}.${c.operation}.${c.location}.${c.field}.${label}`,
    title: `${op.method} ${op.path} ${c.location} ${c.field} ${label}: ${valid ? 'accepted' : '400'}`,
    operation: c.operation,
    formats: body ? formatsFor(c, body, valid) : ['none'],
    tags: ['@limits', valid ? '@accept' : '@reject'],
    checks: [checkId],
    requests: 1,
    ...(entryKind ? { claims: [{ kind: entryKind, count: 1, readOnly: true }] } : {}),
    group: { id: `limits.${c.operation}.${c.location}.${c.field}`, title: `${op.method} ${op.path} ${c.location} ${c.field}: values at and past its limits, and of the wrong type @limits` },
    async run(ctx) {
      // 400 is demanded with everything else valid and existing: the reserved profile entry supplies it.
      const entry = entryKind ? (ctx.entries[entryKind]?.[0] as Partial<SubmissionEntry> | undefined) : undefined;
      const query: Record<string, string | number | undefined> = { ...baseQuery(c.operation, profile, preferred), ...(entry && c.location === 'query' ? entry : {}) };
      if (c.location === 'query') query[c.field] = value as string | number;
      const q = queryFor(c.operation, query);
      const sent = entry && c.field.startsWith('agencyWorks[]') ? { ...emptyMerge(), agencyWorks: [{ agencyCode: entry.agency, agencyWorkCode: entry.workcode, [c.name]: value }] } : body;
      const request = sent && ctx.format !== 'none' ? bodyRequest(c.operation, ctx.format, sent, { query: q }) : queryRequest(c.operation, q);
      const sections = c.sections;
      const expectation =
        kind === 'type'
          ? expectCheck(targeted.typeRejected, { because, sections: [...sections, '7'] })
          : valid
            ? expectCheck(targeted.limitAccepted, { because, sections, mayNotExist: acceptOnUnknown })
            : expectCheck(targeted.limitRejected, { because, sections });
      await ctx.send({ label: `${c.field} ${label}`, operation: c.operation, request, expect: [expectation] });
    },
  };
}

export function limitCases(profile: TargetProfile): CaseDef[] {
  const out: CaseDef[] = [];
  for (const c of fieldConstraints()) {
    const example = validExample(c, profile);
    if (isLimited(c)) {
      for (const b of boundaryValues(c, example)) out.push(limitCase(c, profile, b.label, b.value, b.valid, b.because, 'limit'));
    }
    if (c.location === 'body') {
      for (const w of wrongTypes(c.type, example)) {
        const because = `${c.field} must be ${c.type === 'integer' ? 'an integer' : 'a string'}, sent ${w.label} ${JSON.stringify(w.value)} (section ${c.sections.join(', ')})`;
        out.push(limitCase(c, profile, w.label, w.value, false, because, 'type'));
      }
    } else if (c.type === 'integer') {
      for (const w of [{ label: 'word', value: 'abc' }, { label: 'fraction', value: '1.5' }]) {
        const because = `${c.field} must be a 32-bit integer, sent ${JSON.stringify(w.value)} (section ${c.sections.join(', ')})`;
        out.push(limitCase(c, profile, w.label, w.value, false, because, 'type'));
      }
    }
  }
  return out;
}

/**
 * Which profile entry a 400 case names so that everything but the broken value exists (the reading:
 * "checks that demand 400 keep everything else valid and existing"): a submission for delete and for an
 * agency work of a merge, merged metadata for demerge. Read-only: the entry is never consumed.
 */
function existingDataFor(c: FieldConstraint, valid: boolean): DisposableKind | undefined {
  if (valid) return undefined;
  if (c.location === 'query' && c.operation === 'deleteSubmission') return 'submissions';
  if (c.location === 'query' && c.operation === 'demergeIswcMetadata') return 'demerges';
  if (c.location === 'body' && c.field.startsWith('agencyWorks[]')) return 'submissions';
  return undefined;
}
