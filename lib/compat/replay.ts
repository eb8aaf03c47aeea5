import { expectCheck } from '../generate/expectations.ts';
import { createJudge } from '../check/judge.ts';
import { compareAnswers, learnNoise } from '../check/compat/compare.ts';
import type { Comparison, CompareInput, DocumentFailure, NoiseKind } from '../check/compat/compare.ts';
import { answerFacts, noAnswer } from '../check/compat/facts.ts';
import type { AnswerFacts } from '../check/compat/facts.ts';
import { parseQuery } from '../check/client/request.ts';
import { keySourceDbs } from '../contract/agency.ts';
import { runIdOf } from '../contract/answer.ts';
import { subscriptionKeyHeader } from '../contract/openapi.ts';
import type { Exchange, RequestSpec } from '../contract/exchange.ts';
import type { TargetProfile } from '../contract/profile/types.ts';
import { DIRECT } from '../config/proxy.ts';
import type { Step } from '../generate/case.ts';
import { createHttpClient } from '../run/http/client.ts';
import type { RunClient } from '../run/http/client.ts';
import { localGate } from '../run/http/pacer.ts';
import { decodeResponseText } from '../run/http/text.ts';
import type { Gate } from '../run/http/pacer.ts';
import { targetClientOptions } from '../run/http/target-client.ts';
import type { TargetSettings } from '../run/http/target-client.ts';
import { namesSecret } from '../traffic/credentials.ts';
import { agencyOfRequest } from '../traffic/targets.ts';
import { CHOICE_SETS, EMBEDDED_KEY, profileForChoiceSet, startReferenceServer } from '../../server/index.ts';
import type { ChoiceSetName, RunningServer } from '../../server/index.ts';
import type { Mapping } from './mapping.ts';
import { mapBody, mapQuery } from './mapping.ts';
import type { PlannedExchange, ReplayPlan, ReplayUnit } from './plan.ts';
import { recordedRunId } from './plan.ts';

/**
 * Sends a replay plan: for each shape, its request twice to a fresh embedded reference server (the
 * baseline: what differs between those two answers is noise), then once to the build, through the run's
 * own HTTP client (lib/run/http: the rate, the budget as a cap, the proxy and CA settings, the timeouts, the
 * stop on a signal). Each answer of the build is judged against the document (the every-answer checks of
 * lib/check, as the gate judges them) and against what the client met when recorded.
 */

/** Headers of a recorded request that are not replayed: the connection's own, the credentials, and those the client sets itself. */
const NOT_REPLAYED = new Set(['host', 'content-length', 'transfer-encoding', 'connection', 'keep-alive', 'te', 'trailer', 'upgrade', 'expect', 'accept-encoding', 'user-agent', 'cookie', 'authorization', 'proxy-authorization', 'proxy-connection']);

export type Halt = { kind: 'interrupted' | 'target-unusable' | 'budget' | 'max-duration'; reason: string };

export interface UnitResult {
  unit: ReplayUnit;
  /** Why the shape was not replayed (the run stopped, the budget, the build's answer to the run's start). */
  notSent?: string;
  sent?: Exchange;
  recorded: AnswerFacts;
  replayed?: AnswerFacts;
  comparison?: Comparison;
  documentFailures: DocumentFailure[];
  noise: string[];
  /** What differed between the two baseline answers beyond noise (a status, a format): compared all the same. */
  unstable: string[];
  mappingText?: string;
  /** The agency whose own key (--agency-keys) it was sent with. */
  ownKeyOf?: string;
}

export interface ReplayTarget {
  /** The build's base URL; undefined: an embedded reference server started for the replay. */
  baseUrl: string | undefined;
  settings: TargetSettings;
  /** Requests per second, or null for no limit. */
  rate: number | null;
  budget?: number;
  /** A key per agency (--agency-keys, ISWC_SUBSCRIPTION_KEY_<agency>): a request that acts for one goes with its key. Never recorded, never printed. */
  agencyKeys?: ReadonlyMap<string, string>;
}

export interface ReplayOptions {
  plan: ReplayPlan;
  profile: TargetProfile;
  target: ReplayTarget;
  strict: boolean;
  /** Called after each shape, for progress. */
  onUnit?: (result: UnitResult, index: number, total: number) => void;
}

export interface ReplayRun {
  results: UnitResult[];
  halt?: Halt;
  figures: { planned: number; sent: number; retried: number; answered: number; waitedMs: number };
  /** The build's base URL (the embedded server's when none was given). */
  baseUrl: string;
  /** Stops sending for good: nothing starts after it. */
  stop(halt: Halt): void;
  done: Promise<void>;
}

/** A recorded request as the replay sends it: its identifiers mapped, the credentials and the connection's own headers left out. */
export function replayedSpec(p: PlannedExchange, mapping: Mapping | undefined, runIds: ReadonlyMap<string, string>): RequestSpec & { query: Array<[string, string]> } {
  const req = p.shape.request;
  const values = new Map<string, string>([...(mapping?.values ?? []), ...runIds]);
  const rawQuery = mapQuery(req.rawQuery, mapping?.query ?? new Map(), (name) => namesSecret(name, 'query'));
  const headers: Record<string, string> = {};
  const keyHeader = subscriptionKeyHeader().toLowerCase();
  for (const [name, value] of Object.entries(req.headers)) {
    if (NOT_REPLAYED.has(name) || name === keyHeader || name.startsWith('proxy-') || namesSecret(name, 'header')) continue;
    headers[name] = value;
  }
  let body: string | Uint8Array | undefined;
  if (req.body.length > 0) {
    const text = req.body.toString('utf8');
    const isText = Buffer.from(text, 'utf8').equals(req.body);
    body = isText ? (values.size > 0 ? mapBody(text, values) : text) : new Uint8Array(req.body);
  }
  return {
    method: req.method,
    path: req.path,
    ...(rawQuery !== '' ? { rawQuery } : {}),
    query: parseQuery(rawQuery).map((q) => [q.name, q.value] as [string, string]),
    headers,
    ...(body !== undefined ? { body } : {}),
    auth: p.keyMode,
  };
}

/** The documented choice set a session was recorded with (a sandbox's), else undefined (a HAR file, a gateway's log). */
function recordedChoices(p: PlannedExchange): ChoiceSetName | undefined {
  const c = p.session.meta.choices;
  return c !== undefined && Object.hasOwn(CHOICE_SETS, c) ? (c as ChoiceSetName) : undefined;
}

/** Facets noise may cover (compare.ts): a difference of another facet is never noise, whatever a baseline says. */
const NOISE_FACETS: ReadonlySet<string> = new Set(['shape', 'text', 'charset']);

/** Adds the noise learned from another baseline; what is known already keeps its kind. */
function widenNoise(noise: Map<string, NoiseKind>, more: ReadonlyMap<string, NoiseKind>): void {
  for (const [key, kind] of more) if (!noise.has(key)) noise.set(key, kind);
}

function factsOf(exchange: Exchange): AnswerFacts {
  const r = exchange.response;
  if (!r || (exchange.error && exchange.error.code !== 'THROTTLED')) return noAnswer(exchange.error ? `${exchange.error.code}: ${exchange.error.message}` : 'none');
  return answerFacts({ status: r.status, headers: r.headers, body: r.body, ...(r.encoding !== undefined ? { encoding: r.encoding } : {}) });
}

/** The exchange the client met, as the checks read one (the key as its placeholder, never in it). */
function recordedExchange(p: PlannedExchange): Exchange {
  const x = p.exchange;
  const request = { method: x.request.method, url: x.request.target, headers: { ...x.request.headers }, body: x.request.body.toString('utf8'), bodyBytes: x.request.body.length, bodyTruncated: false, auth: p.keyMode };
  if (!x.response) return { request, error: { code: 'CONNECTION_RESET', message: x.error ?? 'no answer' }, durationMs: 0, attempts: 1, waitedMs: 0 };
  const decoded = decodeResponseText(x.response.body, x.response.headers['content-type']);
  return {
    request,
    response: { status: x.response.status, headers: { ...x.response.headers }, body: decoded.text, bodyBytes: x.response.body.length, truncated: false, ...(decoded.encoding !== undefined ? { encoding: decoded.encoding } : {}) },
    durationMs: 0,
    attempts: 1,
    waitedMs: 0,
  };
}

function recordedFacts(p: PlannedExchange): AnswerFacts {
  const r = p.exchange.response;
  return r ? answerFacts({ status: r.status, headers: r.headers, body: r.body }) : noAnswer(p.exchange.error ?? 'none');
}

/** Transport outcomes that say the request was not sent (or nothing more can be): no verdict on the build. */
const NOT_SENT_CODES = new Set(['NOT_SENT', 'UNRESPONSIVE', 'THROTTLED']);
/**
 * Transport outcomes that say the request never reached the build's HTTP server (a refused connection, an
 * unknown host, a proxy's refusal, a certificate this machine does not trust): the network's doing, no
 * verdict on the build. The run's client stops after them (exit 3), as a run does.
 */
const UNREACHED_CODES = new Set(['CONNECTION_REFUSED', 'PROXY', 'TLS']);

/** Why a request that never reached the build is not judged, or undefined when it reached it. */
function unreached(exchange: Exchange, client: RunClient): string | undefined {
  if (exchange.response || !exchange.error || !UNREACHED_CODES.has(exchange.error.code)) return undefined;
  return client.unusable() ?? `${exchange.error.code}: ${exchange.error.message}`;
}

/** How the judge sees a replayed request: probes of what the document does not settle are judged as the gate judges its own. */
function stepOf(p: PlannedExchange, spec: RequestSpec, otherRunId?: string, endedRunId?: string): Step {
  const op = p.shape.request.operation;
  const view = p.shape.view;
  const recordedStatus = p.exchange.response?.status;
  const outside = op === null || (view.bodyBytes > 0 && (view.declared === 'other' || view.declared === 'text'));
  const documented = op !== null && recordedStatus !== undefined && [...op.statuses, ...op.notShownStatuses].includes(recordedStatus);
  return {
    label: `replay of ${p.id}`,
    operation: op?.id ?? null,
    request: spec,
    // A run the replay started before was answered its own runId: this one must get another (2.2, 4.1).
    // The end of a run the replay started on the build: the answer names that run (2.2, 4.1).
    expect: [
      ...(otherRunId !== undefined ? [expectCheck('outcome.run-ids-distinct', { because: 'the build answered it to another run the replay started before (the answer identifies the run, 2.2)', otherRunId })] : []),
      ...(endedRunId !== undefined ? [expectCheck('outcome.run-end-same-id', { because: 'it ends the run the replay started on the build, which the answer identifies (2.2, 4.1)', runId: endedRunId })] : []),
    ],
    // The build before answered outside the statuses the document lists: which status answers it is not settled by the document.
    ...(outside ? { probe: 'outside-document' as const } : !documented ? { probe: 'open-point' as const } : {}),
  };
}

function mappingText(m: Mapping | undefined, runIds: ReadonlyMap<string, string>): string | undefined {
  const parts: string[] = [];
  if (m) parts.push(`identifiers mapped onto ${m.kind}[${m.index}] of the target profile: ${[...m.values].filter(([a, b]) => a !== b).map(([a, b]) => `${a} → ${b}`).join(', ') || 'the same values'}`);
  for (const [a, b] of runIds) parts.push(`runId ${a} → ${b} (the run the replay started)`);
  return parts.length > 0 ? parts.join('; ') : undefined;
}

/** The agency a replayed request acts for (its query's or body's agency), if it names one. */
function agencyOf(spec: RequestSpec, headers: Readonly<Record<string, string>>): string | undefined {
  return agencyOfRequest({ method: spec.method, target: `${spec.path}${spec.rawQuery !== undefined ? `?${spec.rawQuery}` : ''}`, headers, body: typeof spec.body === 'string' ? Buffer.from(spec.body, 'utf8') : Buffer.from(spec.body ?? new Uint8Array()) });
}

/** Sends one request and, for a run's start, the runId the target answered. */
async function send(client: RunClient, spec: RequestSpec): Promise<Exchange> {
  return client.send(spec);
}

/** Replays one shape on a fresh embedded reference server: its run's start first when it ends a run. */
async function onBaseline(unit: ReplayUnit, profile: TargetProfile, choices: ChoiceSetName): Promise<AnswerFacts | undefined> {
  // The baseline plays the build the agency met: its key acts for the agency the request acts for (a build
  // whose key acts for another would refuse it, and nothing would vary to learn from).
  const spec = replayedSpec(unit.rep, unit.mapping, new Map());
  const agency = agencyOfRequest({ method: spec.method, target: `${spec.path}${spec.rawQuery !== undefined ? `?${spec.rawQuery}` : ''}`, headers: {}, body: typeof spec.body === 'string' ? Buffer.from(spec.body, 'utf8') : Buffer.from(spec.body ?? new Uint8Array()) }) ?? profile.agency;
  let server: RunningServer | undefined;
  let client: RunClient | undefined;
  try {
    server = await startReferenceServer({ profile: { ...profileForChoiceSet(profile, choices), agency }, key: EMBEDDED_KEY, choices });
    client = createHttpClient({ baseUrl: server.url, key: EMBEDDED_KEY, throttling: false, timeoutMs: 10_000, userAgent: 'iswc-conformance compat baseline' });
    const runIds = new Map<string, string>();
    const start = unit.rep.start;
    if (start && unit.rep.shape.endsRun !== undefined) {
      const started = await send(client, replayedSpec(start, undefined, new Map()));
      const id = runIdOf(started);
      if (id === undefined) return undefined;
      runIds.set(unit.rep.shape.endsRun, id);
    }
    const facts = factsOf(await send(client, replayedSpec(unit.rep, unit.mapping, runIds)));
    // Each fresh baseline starts a run of its own: the runId a run's end names is the request's, not noise.
    // Written alike in both answers, it stays compared: a build that answers an end with another run is seen.
    const started = [...runIds.values()];
    if (started.length === 0) return facts;
    const named = (text: string): string => started.reduce((t, id) => t.split(id).join('(the run its start was answered)'), text);
    return { ...facts, texts: new Map([...facts.texts].map(([path, text]) => [path, named(text)])) };
  } finally {
    await client?.close();
    await server?.close();
  }
}

/** Starts the replay; `done` resolves once every shape is judged or the replay stopped. */
export async function startReplay(options: ReplayOptions): Promise<ReplayRun> {
  const { plan, profile, target } = options;
  let server: RunningServer | undefined;
  let baseUrl = target.baseUrl;
  let settings = target.settings;
  if (baseUrl === undefined) {
    server = await startReferenceServer({ profile, key: EMBEDDED_KEY });
    baseUrl = server.url;
    settings = { ...settings, key: EMBEDDED_KEY, headers: [], network: DIRECT };
  }
  const gate: Gate | undefined = target.rate === null ? undefined : localGate(target.rate);
  const client = createHttpClient({ ...targetClientOptions(baseUrl, settings, profile.agency, gate ? { beforeSend: gate } : {}), ...(target.budget !== undefined ? { budget: target.budget } : {}) });
  // A client per agency with a key of its own (never on the embedded server, whose key acts for the profile's agency):
  // each watches its own key, and the budget left when it starts caps it.
  const defaultClient = client;
  const agencyKeys = server ? new Map<string, string>() : new Map(target.agencyKeys ?? []);
  const agencyClients = new Map<string, RunClient>();
  const allClients = (): RunClient[] => [client, ...agencyClients.values()];
  const totalSent = (): number => allClients().reduce((n, c) => n + c.progress().sent, 0);
  const clientFor = (agency: string | undefined): RunClient => {
    const key = agency !== undefined && agency !== profile.agency ? agencyKeys.get(agency) : undefined;
    if (agency === undefined || key === undefined) return client;
    let c = agencyClients.get(agency);
    if (!c) {
      const left = target.budget !== undefined ? Math.max(0, target.budget - totalSent()) : undefined;
      c = createHttpClient({ ...targetClientOptions(baseUrl, { ...settings, key }, agency, gate ? { beforeSend: gate } : {}), ...(left !== undefined ? { budget: left } : {}) });
      if (run.halt) c.stop(run.halt.reason);
      agencyClients.set(agency, c);
    }
    return c;
  };
  const judge = createJudge({ strict: options.strict, agency: profile.agency, sourceDbs: keySourceDbs(profile) });
  const results: UnitResult[] = [];
  /** The build's runIds for the runs the replay started, by the recorded runId. */
  const runIdsOnBuild = new Map<string, string>();
  /** Exchanges already sent to the build (a run's start sent before its end), by planned exchange id. */
  const sentBefore = new Map<string, Exchange>();
  /** The runId the build answered the last run start the replay sent. */
  let lastRunId: string | undefined;
  /** The first replayed run start the build answered each runId to, with what it was compared on. */
  const firstStartOf = new Map<string, { result: UnitResult; input: CompareInput }>();
  let planned = 0;
  {
    const reps = new Set(plan.units.map((u) => u.rep.id));
    for (const u of plan.units) {
      planned += 1;
      if (u.rep.start && !reps.has(u.rep.start.id)) {
        reps.add(u.rep.start.id);
        planned += 1;
      }
    }
  }
  const run: ReplayRun = {
    results,
    figures: { planned, sent: 0, retried: 0, answered: 0, waitedMs: 0 },
    baseUrl,
    stop(halt: Halt): void {
      run.halt ??= halt;
      for (const c of allClients()) c.stop(halt.reason);
    },
    done: Promise.resolve(),
  };

  const budgetLeft = (): number => (target.budget === undefined ? Number.POSITIVE_INFINITY : target.budget - totalSent());

  const replayUnit = async (unit: ReplayUnit): Promise<UnitResult> => {
    const rep = unit.rep;
    const recorded = recordedFacts(rep);
    const actingFor = agencyOf(replayedSpec(rep, unit.mapping, new Map()), rep.shape.request.headers) ?? rep.agency;
    const client = clientFor(actingFor);
    const ownKey = client !== defaultClient;
    const base: UnitResult = { unit, recorded, documentFailures: [], noise: [], unstable: [], ...(ownKey ? { ownKeyOf: actingFor } : {}) };
    const unusable = client.unusable();
    if (unusable !== undefined) {
      // One agency's own key refused: that agency is not judged; the others go on.
      if (ownKey) return { ...base, notSent: `not judged: the key given for agency ${actingFor} (--agency-keys) is unusable: ${unusable}` };
      run.halt ??= { kind: 'target-unusable', reason: unusable };
      return { ...base, notSent: `not sent: ${unusable}` };
    }
    const halted = (): Halt | undefined => run.halt;
    if (halted()) return { ...base, notSent: `not sent: ${halted()?.reason ?? ''}` };
    const runIds = new Map<string, string>();
    const endsRun = rep.shape.endsRun;
    const start = rep.start;
    const needsStart = start !== undefined && endsRun !== undefined && !runIdsOnBuild.has(endsRun);
    const cached = sentBefore.get(rep.id);
    const need = (cached ? 0 : 1) + (needsStart ? 1 : 0);
    if (need > budgetLeft()) {
      run.halt ??= { kind: 'budget', reason: `the request budget is used up: ${totalSent()} of ${target.budget ?? 0} requests sent, resends included (--budget); the shapes left were not sent` };
      return { ...base, notSent: `not sent: ${run.halt.reason}` };
    }
    // The noise of this request: what differs between two answers of the baseline to it.
    const choices = recordedChoices(rep);
    const [first, second] = [await onBaseline(unit, profile, choices ?? 'reference'), await onBaseline(unit, profile, choices ?? 'reference')];
    const learned = first && second ? learnNoise(first, second) : undefined;
    const noise = new Map<string, NoiseKind>(learned?.noise ?? []);
    if (halted()) return { ...base, notSent: `not sent: ${halted()?.reason ?? ''}` };
    if (needsStart && start && endsRun !== undefined) {
      const started = sentBefore.get(start.id) ?? (await send(client, replayedSpec(start, undefined, new Map())));
      sentBefore.set(start.id, started);
      const id = runIdOf(started);
      if (id !== undefined) lastRunId = id;
      const startedRecorded = recordedRunId(start.exchange);
      if (id !== undefined && startedRecorded !== undefined) runIdsOnBuild.set(startedRecorded, id);
      if (started.error && NOT_SENT_CODES.has(started.error.code)) return { ...base, notSent: `not sent: ${started.error.message.replace(/^not sent: /, '')}` };
      const startNotReached = unreached(started, client);
      if (startNotReached !== undefined) {
        run.halt ??= { kind: 'target-unusable', reason: startNotReached };
        return { ...base, notSent: `not judged: the start of its run (${start.id}) never reached the build: ${startNotReached}` };
      }
      if (id === undefined) return { ...base, notSent: `the start of its run (${start.id}) got no runId from the build (${started.response ? started.response.status : (started.error?.code ?? 'no answer')}): its end cannot name a run of the build` };
    }
    if (endsRun !== undefined) {
      const onBuild = runIdsOnBuild.get(endsRun);
      if (onBuild !== undefined) runIds.set(endsRun, onBuild);
    }
    const spec = replayedSpec(rep, unit.mapping, runIds);
    const exchange = cached ?? (await send(client, spec));
    sentBefore.set(rep.id, exchange);
    const startsRun = rep.shape.operation === 'notifyAgentRun' && endsRun === undefined;
    // The run start it is judged against: the one before it (a start already sent as another's dependency is its own).
    const otherRunId = startsRun && !cached ? lastRunId : undefined;
    if (startsRun) {
      const id = runIdOf(exchange);
      const was = recordedRunId(rep.exchange);
      if (id !== undefined && was !== undefined) runIdsOnBuild.set(was, id);
      if (id !== undefined && !cached) lastRunId = id;
    }
    const mapText = mappingText(unit.mapping, runIds);
    if (exchange.error && NOT_SENT_CODES.has(exchange.error.code)) {
      if (exchange.error.code === 'UNRESPONSIVE' && !ownKey) run.halt ??= { kind: 'target-unusable', reason: exchange.error.message.replace(/^not sent: /, '') };
      return { ...base, sent: exchange, notSent: exchange.error.code === 'THROTTLED' ? `throttled: ${exchange.error.message}` : `not sent: ${exchange.error.message.replace(/^not sent: /, '')}`, ...(mapText !== undefined ? { mappingText: mapText } : {}) };
    }
    const notReached = unreached(exchange, client);
    if (notReached !== undefined) {
      run.halt ??= { kind: 'target-unusable', reason: notReached };
      return { ...base, sent: exchange, notSent: `not judged: the request never reached the build: ${notReached}`, ...(mapText !== undefined ? { mappingText: mapText } : {}) };
    }
    const replayed = factsOf(exchange);
    const format = rep.shape.view.format ?? 'json';
    const endedRunId = endsRun !== undefined && !cached ? runIdsOnBuild.get(endsRun) : undefined;
    const judged = judge(stepOf(rep, spec, otherRunId, endedRunId), exchange, format);
    // What the client met, judged the same way: a violation it already lived with is no change of this build.
    const failedWhenRecorded = new Set(judge(stepOf(rep, replayedSpec(rep, undefined, new Map())), recordedExchange(rep), format).filter((j) => j.verdict === 'fail').map((j) => j.checkId));
    const documentFailures: DocumentFailure[] = judged
      .filter((j) => j.verdict === 'fail' && (j.gating || (j.level === 'http' && !failedWhenRecorded.has(j.checkId))))
      .map((j) => ({ checkId: j.checkId, level: j.level, sections: j.sections, expected: j.expected, received: j.received, alsoWhenRecorded: failedWhenRecorded.has(j.checkId) }));
    const mappedValues = new Map<string, string>([...(unit.mapping?.values ?? []), ...runIds]);
    const mapRecorded = (text: string): string => {
      let out = text;
      for (const [a, b] of mappedValues) if (a !== b) out = out.split(a).join(b);
      return out;
    };
    const agency = agencyOf(spec, rep.shape.request.headers);
    // With a key of its own for the agency, a refusal is the build's doing, not a question of which agency the profile's key acts for.
    const input: CompareInput = { recorded, replayed, noise, documentFailures, actsForOther: agency !== undefined && agency !== profile.agency && !ownKey ? agency : undefined, mapText: mapRecorded, refusedValues: [...rep.shape.refused, ...rep.shape.refusedQuery], ...(rep.shape.request.headers.accept !== undefined ? { accept: rep.shape.request.headers.accept } : {}) };
    let comparison = compareAnswers(input);
    // Traffic of unknown provenance (a HAR file, a gateway's log) was met by a server whose habits are not
    // known: where a text, a field or a charset still differs, the noise is also learned from each
    // documented choice set of the reference server in turn (production's trace ids, …), twice each as
    // above, until nothing of those facets differs. Only what varies between two answers of one server
    // to the same request is learned; a status, a media type, an encoding or a format is never noise.
    if (choices === undefined) {
      for (const set of Object.keys(CHOICE_SETS) as ChoiceSetName[]) {
        if (set === 'reference' || !comparison.differences.some((d) => NOISE_FACETS.has(d.facet))) continue;
        const [a, b] = [await onBaseline(unit, profile, set), await onBaseline(unit, profile, set)];
        if (!a || !b) continue;
        const before = noise.size;
        widenNoise(noise, learnNoise(a, b).noise);
        if (noise.size > before) comparison = compareAnswers(input);
      }
    }
    const result: UnitResult = {
      ...base,
      sent: exchange,
      replayed,
      comparison,
      documentFailures,
      noise: comparison.ignored.map((d) => `${d.facet}${d.path !== undefined ? ` at ${d.path}` : ''}`),
      unstable: (learned?.unstable ?? []).map((d) => `${d.facet}: ${d.recorded} then ${d.replayed}`),
      ...(mapText !== undefined ? { mappingText: mapText } : {}),
    };
    if (startsRun && !cached) {
      const id = runIdOf(exchange);
      const first = id !== undefined ? firstStartOf.get(id) : undefined;
      // A later start answered the same runId: the earlier start shares it too, and is judged so.
      if (first && id !== undefined && documentFailures.some((f) => f.checkId === 'outcome.run-ids-distinct')) {
        first.input.documentFailures = [...first.input.documentFailures, { checkId: 'outcome.run-ids-distinct', level: 'spec', sections: ['2.2', '4.1'], expected: 'a runId no other run the replay started was answered', received: `the same runId ${JSON.stringify(id)} as the run start of ${rep.id}`, alsoWhenRecorded: false }];
        first.result.comparison = compareAnswers(first.input);
        first.result.documentFailures = [...first.input.documentFailures];
      } else if (id !== undefined && !firstStartOf.has(id)) firstStartOf.set(id, { result, input });
    }
    return result;
  };

  run.done = (async () => {
    try {
      const total = plan.units.length;
      for (let i = 0; i < total; i++) {
        const unit = plan.units[i];
        if (!unit) continue;
        const result = await replayUnit(unit);
        results.push(result);
        // An agency's own key refused on every request that shows it: none of its answers says anything of the build.
        const keyed = result.ownKeyOf !== undefined ? agencyClients.get(result.ownKeyOf)?.unusable() : undefined;
        if (keyed !== undefined) {
          for (let k = 0; k < results.length; k++) {
            const r = results[k];
            if (r && r.ownKeyOf === result.ownKeyOf && r.notSent === undefined) {
              const { comparison: _c, replayed: _r, ...rest } = r;
              results[k] = { ...rest, notSent: `not judged: the key given for agency ${result.ownKeyOf} (--agency-keys) is unusable: ${keyed}` };
            }
          }
        }
        options.onUnit?.(result, i, total);
      }
    } finally {
      const sum = (pick: (p: ReturnType<RunClient['progress']>) => number): number => allClients().reduce((n, c) => n + pick(c.progress()), 0);
      run.figures = { planned, sent: sum((p) => p.sent), retried: sum((p) => p.retried), answered: sum((p) => p.answered), waitedMs: sum((p) => p.waitedMs) };
      for (const c of allClients()) await c.close();
      await gate?.close();
      await server?.close();
    }
  })();
  return run;
}
