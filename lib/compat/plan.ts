import { answerFacts } from '../check/compat/facts.ts';
import type { ExchangeShape } from '../check/compat/shape.ts';
import { shapeOf } from '../check/compat/shape.ts';
import type { OperationId } from '../contract/operations.ts';
import type { TargetProfile } from '../contract/profile/types.ts';
import { keyModeOf } from '../traffic/key.ts';
import type { KeyMode, TrafficExchange, TrafficSession } from '../traffic/model.ts';
import type { Mapping } from './mapping.ts';
import { DESTRUCTIVE, EntryPool, mapBody, mapOntoEntry, mapQuery } from './mapping.ts';
import { parseQuery, viewOf } from '../check/client/request.ts';

/**
 * What a compatibility replay sends. Every recorded exchange gets a shape (lib/check/compat/shape.ts);
 * requests of one shape are sent once, for every agency that sent it. The one sent (the shape's
 * representative) is the first exchange of the shape that can be replayed, in a fixed order (agency, then
 * session, then the exchange's number in it), so that two replays of the same sessions send the same
 * requests; every other exchange of the shape takes its verdict. Shapes go in order of the number of
 * agencies that sent them (the most first), then of how many exchanges they hold, so that a budget covers
 * the most agencies first.
 */

export const SAMPLING_RULE =
  'Requests of one shape are sent once: the same operation with the same key mode, for the key\'s own agency or another, the same Content-Type and Accept, the same body format (XML root and namespace included), the same fields and JSON types (arrays of 0, 1 or more items), the same values refused by the same constraints of the contract, the same query parameters passing or failing alike, and the same status and answer format met when recorded. The request sent for a shape is its first exchange that can be replayed, ordered by agency, session and number; the other exchanges of the shape take its verdict. Shapes are sent in order of the agencies that sent them, the most first.';

/** Recorded answers that are no answer of the operation: throttling, maintenance, a gateway without its service. */
const TROUBLE_STATUSES = new Set([429, 502, 503, 504]);

export interface PlannedExchange {
  id: string;
  session: TrafficSession;
  exchange: TrafficExchange;
  agency: string;
  keyMode: KeyMode;
  shape: ExchangeShape;
  operation: OperationId | 'other';
  /** Why this exchange itself cannot be replayed, when it cannot. */
  reason?: string;
  /** The client met no answer of the API (trouble on purpose, none at all, throttling, a request outside the API): nothing to judge, and its agency is not the less judged for it. */
  inert?: boolean;
  /** For a run end: the exchange of its session that started the run (its recorded answer carries the runId). */
  start?: PlannedExchange;
}

export interface ReplayUnit {
  key: string;
  rep: PlannedExchange;
  members: PlannedExchange[];
  agencies: string[];
  /** The disposable entry a request that changes data is replayed on. */
  mapping?: Mapping;
}

export interface ReplayPlan {
  exchanges: PlannedExchange[];
  /** Shapes that are sent, in order. */
  units: ReplayUnit[];
  /** Shapes none of whose exchanges can be replayed (each exchange keeps its reason). */
  unplayable: number;
  shapes: number;
}

export interface PlanOptions {
  profile: TargetProfile;
  /** Requests that change data may be replayed (on disposable entries only). */
  destructive: boolean;
  /** Why they may not, when they may not. */
  destructiveOff?: string;
  /** Agencies replayed with a key of their own: their requests are shapes of their own. */
  keyedAgencies?: ReadonlySet<string>;
}

/** The runId a recorded 200 of the run notification carried, JSON or XML. */
export function recordedRunId(x: TrafficExchange): string | undefined {
  if (!x.response || x.response.status !== 200) return undefined;
  const facts = answerFacts({ status: x.response.status, headers: x.response.headers, body: x.response.body });
  const value = facts.texts.get('$.runId') ?? facts.texts.get('/CsnNotification/runId') ?? facts.texts.get('/CsnNotification/@runId');
  return value !== undefined && value !== '' ? value : undefined;
}

/** The client met nothing of the API to compare with: trouble on purpose, no answer, throttling, a request outside the API that may change data. */
function isInert(p: PlannedExchange): boolean {
  const x = p.exchange;
  if (x.trouble !== null || !x.response || TROUBLE_STATUSES.has(x.response.status)) return true;
  return !p.shape.request.operation && !['GET', 'HEAD', 'OPTIONS'].includes(x.request.method.toUpperCase());
}

function ownReason(p: PlannedExchange, options: PlanOptions): string | undefined {
  const x = p.exchange;
  if (x.trouble !== null) return x.trouble === 'late' ? 'sent after the sandbox session had ended (--requests): nothing of the API to compare' : `the sandbox gave trouble on purpose (${x.trouble}) instead of the API's answer: nothing to compare`;
  if (!x.response) return `the client met no answer (${x.error ?? 'none'}): nothing to compare`;
  if (TROUBLE_STATUSES.has(x.response.status)) return `the client met ${x.response.status} (throttling, maintenance or a gateway without its service), no answer of the operation: its retry, when recorded, is replayed`;
  const op = p.shape.request.operation;
  const method = x.request.method.toUpperCase();
  if (!op && !['GET', 'HEAD', 'OPTIONS'].includes(method)) return `${method} ${p.shape.request.path} is no operation of the document and may change data: not replayed`;
  if (op && DESTRUCTIVE.has(op.id) && !options.destructive) return options.destructiveOff ?? 'changes data and requests that change data are off: pass --destructive to replay it on the target profile\'s disposable entries';
  if (p.shape.endsRun !== undefined && !p.start) return `ends a run (${p.shape.endsRun}) its session did not start: its runId cannot be matched with a run of the build`;
  return undefined;
}

/** The string values of a decoded body, at any depth (bounded). */
function stringsIn(value: unknown, out: Set<string>, depth = 0): Set<string> {
  if (depth > 32) return out;
  if (typeof value === 'string') out.add(value);
  else if (Array.isArray(value)) for (const v of value) stringsIn(v, out, depth + 1);
  else if (value !== null && typeof value === 'object') for (const v of Object.values(value as Record<string, unknown>)) stringsIn(v, out, depth + 1);
  return out;
}

/**
 * Why a request mapped onto a disposable entry would still name recorded data, or undefined when it names
 * none: its body read again after the mapping must hold none of the values mapped away (a value written
 * with escapes, a character reference or CDATA is not where the mapping looks), and a body that is not
 * UTF-8 text cannot be mapped at all. Such a request is not replayed: it could change data that is not
 * disposable.
 */
export function unmappedIn(p: PlannedExchange, mapping: Mapping): string | undefined {
  const req = p.shape.request;
  const stale = (v: string): boolean => mapping.values.has(v) && mapping.values.get(v) !== v;
  // A parameter the mapping does not name (another spelling of a name, one repeated under another case) may carry recorded data.
  const inQuery = parseQuery(mapQuery(req.rawQuery, mapping.query, () => false)).filter((q) => stale(q.value));
  if (inQuery.length > 0) return `its query names ${inQuery.map((q) => `${q.name}=${q.value}`).join(', ')} where the mapping does not reach: it would name recorded data, not disposable data`;
  if (req.body.length === 0) return undefined;
  const text = req.body.toString('utf8');
  if (!Buffer.from(text, 'utf8').equals(req.body)) return 'its body is not UTF-8 text: its identifiers cannot be mapped onto a disposable entry';
  const view = viewOf({ ...req, body: Buffer.from(mapBody(text, mapping.values), 'utf8') });
  if (!view.parsed?.ok) return 'its body does not parse once mapped: its identifiers cannot be mapped onto a disposable entry';
  const left = [...stringsIn(view.parsed.value, new Set())].filter(stale);
  return left.length > 0 ? `its body writes ${left.map((v) => JSON.stringify(v)).join(', ')} in a way the mapping does not reach (escaped, a character reference, CDATA): it would name recorded data, not disposable data` : undefined;
}

/** Every exchange planned, and the shapes to send in order. */
export function planReplay(sessions: readonly TrafficSession[], options: PlanOptions): ReplayPlan {
  const ordered = [...sessions].sort((a, b) => (a.agency < b.agency ? -1 : a.agency > b.agency ? 1 : a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  const exchanges: PlannedExchange[] = [];
  for (const session of ordered) {
    const starts = new Map<string, PlannedExchange>();
    for (const exchange of [...session.exchanges].sort((a, b) => a.seq - b.seq)) {
      const keyMode = keyModeOf(exchange, session);
      const shape = shapeOf(exchange, keyMode, options.profile.agency, options.keyedAgencies);
      const p: PlannedExchange = { id: `e${exchanges.length + 1}`, session, exchange, agency: session.agency, keyMode, shape, operation: shape.operation ?? 'other' };
      if (shape.endsRun !== undefined) {
        const start = starts.get(shape.endsRun);
        if (start) p.start = start;
      } else if (shape.operation === 'notifyAgentRun') {
        const runId = recordedRunId(exchange);
        if (runId !== undefined && !starts.has(runId)) starts.set(runId, p);
      }
      exchanges.push(p);
    }
  }
  for (const p of exchanges) {
    const reason = ownReason(p, options);
    if (reason !== undefined) p.reason = reason;
    if (isInert(p)) p.inert = true;
  }
  const groups = new Map<string, PlannedExchange[]>();
  for (const p of exchanges) {
    const list = groups.get(p.shape.key);
    if (list) list.push(p);
    else groups.set(p.shape.key, [p]);
  }
  const candidates = [...groups.entries()]
    .map(([key, members], order) => ({ key, members, order, agencies: [...new Set(members.map((m) => m.agency))] }))
    .sort((a, b) => b.agencies.length - a.agencies.length || b.members.length - a.members.length || a.order - b.order);
  const pool = new EntryPool(options.profile);
  const units: ReplayUnit[] = [];
  let unplayable = 0;
  for (const c of candidates) {
    const eligible = c.members.filter((m) => m.reason === undefined);
    let unit: ReplayUnit | undefined;
    let mappingProblem: string | undefined;
    for (const rep of eligible) {
      const op = rep.shape.operation;
      if (op === null || !DESTRUCTIVE.has(op)) {
        unit = { key: c.key, rep, members: c.members, agencies: c.agencies };
        break;
      }
      const mapped = mapOntoEntry({ operation: op, view: rep.shape.view, status: rep.exchange.response?.status ?? null, refused: rep.shape.refused, refusedQuery: rep.shape.refusedQuery }, pool);
      const leftover = mapped.ok ? unmappedIn(rep, mapped.mapping) : undefined;
      if (mapped.ok && leftover === undefined) {
        unit = { key: c.key, rep, members: c.members, agencies: c.agencies, mapping: mapped.mapping };
        break;
      }
      // Every exchange of a shape refuses alike: one reason for all.
      mappingProblem = mapped.ok ? leftover : mapped.reason;
      break;
    }
    if (unit) units.push(unit);
    else {
      unplayable += 1;
      if (mappingProblem !== undefined) for (const m of c.members) m.reason ??= mappingProblem;
    }
  }
  return { exchanges, units, unplayable, shapes: groups.size };
}

/** Requests a plan sends to the build at most: one per shape, and a run's start before an end whose start is not sent otherwise. */
export function plannedRequests(plan: ReplayPlan): number {
  const sent = new Set(plan.units.map((u) => u.rep.id));
  let total = 0;
  for (const u of plan.units) {
    total += 1;
    const start = u.rep.start;
    if (start && !sent.has(start.id)) {
      sent.add(start.id);
      total += 1;
    }
  }
  return total;
}
