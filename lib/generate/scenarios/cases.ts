import { statusOf } from '../../contract/answer.ts';
import type { TargetedCheckId } from '../checks.generated.ts';
import type { Format } from '../../contract/codec/index.ts';
import type { OperationId } from '../../contract/operations.ts';
import { operation, operations } from '../../contract/operations.ts';
import type { CaseContext, CaseDef, CaseFormat, Expectation, Replay, Step } from '../case.ts';
import { runIdOf } from '../../contract/answer.ts';
import { bodyRequest, queryRequest, rawBodyRequest } from '../requests.ts';
import type { Query } from '../requests.ts';
import { DEFAULT_GEN } from '../generators/values.ts';
import { sampleNamed } from '../generators/registry.ts';
import type { Exchange, RequestSpec } from '../../contract/exchange.ts';
import type { DisposableKind, TargetProfile } from '../../contract/profile/types.ts';
import { DISPOSABLE_KINDS } from '../../contract/profile/types.ts';
import { loadScenarios } from './load.ts';
import type { EntryNeed, Need, ProfileList, ValueNeed } from '../needs.ts';
import { PROFILE_LISTS } from '../needs.ts';
import type { Reference, StepField, TemplatePart } from './refs.ts';
import { asText, dig, directiveOf, parseTemplate, renderTemplate, walkValue } from './refs.ts';
import type { Scenario, StepSource } from './types.ts';

/** What a later step can read of an earlier step's answer. */
export interface StepAnswer {
  status: number | null;
  runId: string | undefined;
  body: string;
}

/** Everything a value of a step can refer to while the step is built. */
export interface Scope {
  profile: TargetProfile;
  entries: Partial<Record<DisposableKind, unknown[]>>;
  format: CaseFormat;
  steps: Map<string, StepAnswer>;
  /** The run's seed (ISWC_SEED, ctx.seed): seeds {generate} values without their own seed. */
  baseSeed: number;
  /** Generated values of the step being built, for its label (replay). */
  generated: Array<{ name: string; seed: number; fixed: boolean }>;
}

export function answerOf(exchange: Exchange): StepAnswer {
  return { status: statusOf(exchange), runId: runIdOf(exchange), body: exchange.response?.body ?? '' };
}

function lookup(ref: Reference, scope: Scope): unknown {
  switch (ref.root) {
    case 'format':
      return scope.format;
    case 'profile':
      return dig(scope.profile, ref.path);
    case 'entry': {
      const [kind, ...rest] = ref.path;
      const entries = scope.entries[kind as DisposableKind];
      if (!entries) throw new Error(`\${${ref.text}}: no ${String(kind)} entry was allocated to this scenario`);
      return dig(entries, rest);
    }
    case 'steps': {
      const [name, field] = ref.path as [string, StepField];
      const answer = scope.steps.get(name);
      if (!answer) throw new Error(`\${${ref.text}}: step "${name}" has not run`);
      // A run that did not answer a runId has already failed its own check; go on with a marked value.
      if (field === 'runId') return answer.runId ?? `iswc-conformance-no-runId-from-${name}`;
      return answer[field];
    }
  }
}

/** Resolves a scenario value: references, {generate}, {firstOf}; literals as they are. */
export function resolveValue(value: unknown, scope: Scope): unknown {
  if (typeof value === 'string') return renderTemplate(parseTemplate(value), (ref) => lookup(ref, scope));
  if (Array.isArray(value)) return value.map((item) => resolveValue(item, scope));
  if (value === null || typeof value !== 'object') return value;
  const object = value as Record<string, unknown>;
  const kind = directiveOf(object);
  if (kind === 'generate') {
    const name = String(object.generate);
    const fixed = typeof object.seed === 'number';
    const seed = fixed ? (object.seed as number) : (scope.baseSeed + scope.generated.length) | 0;
    scope.generated.push({ name, seed, fixed });
    const options = { ...DEFAULT_GEN, xml: scope.format === 'xml' };
    const generated = sampleNamed(name, scope.profile, seed, options);
    const over = object.with === undefined ? undefined : resolveValue(object.with, scope);
    if (over && typeof over === 'object' && generated && typeof generated === 'object' && !Array.isArray(generated)) return { ...generated, ...over };
    return generated;
  }
  if (kind === 'firstOf') {
    const candidates = resolveValue(object.firstOf, scope) as unknown[];
    const except = resolveValue(object.except, scope);
    const excluded = (Array.isArray(except) ? except : [except]).map(asText);
    return candidates.find((c) => !excluded.includes(asText(c))) ?? candidates[candidates.length - 1];
  }
  return Object.fromEntries(Object.entries(object).map(([k, v]) => [k, resolveValue(v, scope)]));
}

/** Query parameters: documented ones in the contract's order, then the others as written; null is not sent. */
function buildQuery(opId: OperationId | null, raw: Record<string, unknown> | undefined, scope: Scope): Query {
  const values = Object.entries(raw ?? {}).map(([name, v]) => [name, resolveValue(v, scope)] as const);
  const order = opId ? operation(opId).params.map((p) => p.name) : [];
  const rank = (name: string) => {
    const i = order.indexOf(name);
    return i < 0 ? order.length : i;
  };
  return values
    .map((entry, i) => ({ entry, i }))
    .sort((a, b) => rank(a.entry[0]) - rank(b.entry[0]) || a.i - b.i)
    .filter(({ entry }) => entry[1] !== null && entry[1] !== undefined)
    .map(({ entry }) => [entry[0], asText(entry[1])] as const);
}

function resolveHeaders(raw: Record<string, string> | undefined, scope: Scope): Record<string, string> {
  return Object.fromEntries(Object.entries(raw ?? {}).map(([k, v]) => [k, asText(resolveValue(v, scope))]));
}

function documentedOperation(method: string, path: string): OperationId | null {
  return operations().find((op) => op.method === method && op.path === path)?.id ?? null;
}

/** How to replay a step with generated values: the run's seed, or the value's own fixed seed. */
export function replayOf(scope: Scope): Replay | undefined {
  if (scope.generated.length === 0) return undefined;
  const own = scope.generated.every((g) => g.fixed) ? scope.generated[0]?.seed : undefined;
  return { seed: own ?? scope.baseSeed };
}

/** Builds the engine step of one scenario step, in the case's format. */
export function buildStep(step: StepSource, scope: Scope): Step {
  scope.generated = [];
  const auth = step.auth ?? 'key';
  const headers = resolveHeaders(step.headers, scope);
  let request: RequestSpec;
  let opId: OperationId | null;
  let probe: Step['probe'] = step.probe;
  if (step.operation) {
    opId = step.operation;
    const op = operation(opId);
    const query = buildQuery(opId, step.query, scope);
    if (op.body) {
      const format: Format = scope.format === 'xml' ? 'xml' : 'json';
      const options = { query, auth, headers, ...(step.contentType !== undefined ? { contentType: step.contentType } : {}) };
      if (step.rawBody !== undefined) {
        const text = typeof step.rawBody === 'string' ? step.rawBody : (step.rawBody[format] ?? '');
        request = rawBodyRequest(opId, format, asText(resolveValue(text, scope)), options);
      } else {
        request = bodyRequest(opId, format, resolveValue(step.body, scope), options);
      }
    } else {
      request = queryRequest(opId, query, { auth, headers });
    }
  } else {
    const method = step.method ?? 'GET';
    const path = step.path ?? '/';
    opId = documentedOperation(method, path);
    probe = 'outside-document';
    if (step.contentType) headers['Content-Type'] = step.contentType;
    const body = step.body === undefined ? undefined : asText(resolveValue(step.body, scope));
    request = { method, path, query: buildQuery(opId, step.query, scope), headers, auth, ...(body !== undefined ? { body } : {}) };
  }
  const expect: Expectation[] = step.expect.map((e) => {
    const params: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(e)) {
      if (key === 'check' || key === 'observed') continue;
      params[key] = key === 'sections' ? value : key === 'because' ? asText(resolveValue(value, scope)) : resolveValue(value, scope);
    }
    return { checkId: (e.check ?? e.observed) as TargetedCheckId, params: params as Expectation['params'] };
  });
  const seeds = scope.generated;
  const replay = seeds.length
    ? ` [generated ${seeds.map((g) => (g.fixed ? `${g.name} seed ${g.seed}` : g.name)).join(', ')}${seeds.some((g) => !g.fixed) ? `; replay with ISWC_SEED=${scope.baseSeed}` : ''}]`
    : '';
  return {
    label: `${step.label ?? step.name}${replay}`,
    operation: opId,
    request,
    expect,
    ...(step.extraStatuses?.length ? { extraStatuses: step.extraStatuses } : {}),
    ...(probe ? { probe } : {}),
  };
}

/**
 * What a scenario needs of the target profile, from the references it makes: `${profile.iswcs[1]}` needs
 * two iswcs, `${entry.merges[0].agencyWorks[1].agencyCode}` a claimed merge entry with two agency works.
 * A profile without them skips the scenario with what it lacks; a name the profile's schema does not have
 * is refused when the file is loaded, whatever the profile.
 */
export function scenarioNeeds(s: Scenario): Need[] {
  const lists = new Map<ProfileList, number>();
  const entries = new Map<string, EntryNeed>();
  const values = new Map<string, ValueNeed>();
  const template = (parts: TemplatePart[]) => {
    for (const part of parts) {
      if (typeof part === 'string') continue;
      const [first, second, third, fourth] = part.path;
      if (part.root === 'profile') {
        const isList = (PROFILE_LISTS as readonly unknown[]).includes(first);
        if (isList && typeof second === 'number') lists.set(first as ProfileList, Math.max(lists.get(first as ProfileList) ?? 0, second + 1));
        // Deeper than one item of a list, or a field a profile may leave out: the value itself is needed.
        if (!isList || part.path.slice(2).some((segment) => typeof segment === 'number')) values.set(part.text, { reference: part.text, path: part.path });
      }
      if (part.root === 'entry' && first === 'merges' && typeof second === 'number' && (third === 'iswcs' || third === 'agencyWorks') && typeof fourth === 'number') {
        const key = `${second}\u0000${third}`;
        const atLeast = Math.max(entries.get(key)?.atLeast ?? 0, fourth + 1);
        entries.set(key, { entry: 'merges', index: second, list: third, atLeast });
      }
    }
  };
  for (const step of s.steps) walkValue({ query: step.query, body: step.body, headers: step.headers, expect: step.expect }, '', { template });
  return [...[...lists].map(([list, atLeast]): Need => ({ list, atLeast })), ...entries.values(), ...values.values()];
}

function caseOf(s: Scenario): CaseDef {
  const hasBody = s.steps.some((step) => step.operation !== undefined && operation(step.operation).body !== null);
  const formats: CaseFormat[] = hasBody ? [...(s.formats ?? ['json', 'xml'])] : ['none'];
  const claims = DISPOSABLE_KINDS.flatMap((kind) => (s.uses?.[kind] ? [{ kind, count: s.uses[kind] }] : []));
  const needs = scenarioNeeds(s);
  return {
    id: s.id,
    title: `Scenario ${s.name} ${s.allTags.join(' ')}`,
    operation: s.steps.find((step) => step.operation)?.operation ?? null,
    formats,
    tags: s.allTags,
    ...(claims.length ? { claims } : {}),
    ...(needs.length ? { needs } : {}),
    async run(ctx: CaseContext) {
      for (const claim of claims) {
        if ((ctx.entries[claim.kind]?.length ?? 0) < claim.count) throw new Error(`${s.id}: no ${claim.kind} entry allocated`);
      }
      const scope: Scope = { profile: ctx.profile, entries: ctx.entries, format: ctx.format, steps: new Map(), baseSeed: ctx.seed, generated: [] };
      for (const step of s.steps) {
        const built = buildStep(step, scope);
        const exchange = await ctx.send(built, replayOf(scope));
        scope.steps.set(step.name, answerOf(exchange));
      }
    },
  };
}

/**
 * The scenarios of a directory as engine cases. What a scenario needs of the target profile is stated
 * on its case (scenarioNeeds), so any profile plans them: one that lacks the data skips them with the reason.
 */
export function scenarioCasesFrom(scenarios: readonly Scenario[], _profile?: TargetProfile): CaseDef[] {
  return scenarios.map(caseOf);
}

/** Every scenario of fixtures/scenarios (or `dir`) as engine cases: what allCases() includes. */
export function scenarioCases(profile: TargetProfile, dir?: string): CaseDef[] {
  return scenarioCasesFrom(loadScenarios(dir), profile);
}
