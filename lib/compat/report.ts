import type { Exchange } from '../contract/exchange.ts';
import type { TargetProfile } from '../contract/profile/types.ts';
import { profileDigest } from '../report/binding.ts';
import { HARNESS_VERSION, safeBaseUrl } from '../report/meta.ts';
import type { CompatAgency, CompatCell, CompatExchange, CompatReport, CompatVerdict, ExchangeSide } from '../report/compat/model.ts';
import { emptyCounts, worstOf } from '../report/compat/model.ts';
import type { TrafficExchange } from '../traffic/model.ts';
import type { PlannedExchange, ReplayPlan } from './plan.ts';
import { SAMPLING_RULE } from './plan.ts';
import type { Halt, ReplayRun, UnitResult } from './replay.ts';
import type { ClientWait } from './waits.ts';
import { DEFAULT_CLIENT_WAIT_MS, timingOf } from './waits.ts';

/** The compatibility report of a replay: every recorded exchange with its verdict, the matrix, the outcome. */

/** Bodies kept whole in the report up to this many characters. */
const BODY_KEPT = 16 * 1024;

const utf8 = new TextDecoder('utf-8', { fatal: true });

function bodyText(bytes: Buffer): string {
  let text: string;
  try {
    text = utf8.decode(bytes);
  } catch {
    return `(${bytes.length} bytes, not UTF-8; base64) ${bytes.toString('base64').slice(0, BODY_KEPT)}`;
  }
  return text.length > BODY_KEPT ? `${text.slice(0, BODY_KEPT)}… [${text.length - BODY_KEPT} more characters]` : text;
}

function clip(text: string): string {
  return text.length > BODY_KEPT ? `${text.slice(0, BODY_KEPT)}… [${text.length - BODY_KEPT} more characters]` : text;
}

function recordedSide(x: TrafficExchange): ExchangeSide {
  return {
    request: { method: x.request.method, target: x.request.target, headers: { ...x.request.headers }, body: bodyText(x.request.body), bodyBytes: x.request.body.length },
    answer: x.response ? { status: x.response.status, headers: { ...x.response.headers }, body: bodyText(x.response.body), bodyBytes: x.response.body.length } : { status: null, headers: {}, body: '', bodyBytes: 0, error: x.error ?? 'no answer' },
  };
}

function sentSide(x: Exchange): ExchangeSide {
  const r = x.response;
  return {
    request: { method: x.request.method, target: x.request.url, headers: { ...x.request.headers }, body: clip(x.request.body), bodyBytes: x.request.bodyBytes },
    answer: r && !(x.error && x.error.code !== 'THROTTLED') ? { status: r.status, headers: { ...r.headers }, body: clip(r.body), bodyBytes: r.bodyBytes } : { status: r?.status ?? null, headers: { ...(r?.headers ?? {}) }, body: clip(r?.body ?? ''), bodyBytes: r?.bodyBytes ?? 0, error: x.error ? `${x.error.code}: ${x.error.message}` : 'no answer' },
  };
}

export interface ReportInput {
  plan: ReplayPlan;
  run: Pick<ReplayRun, 'results' | 'halt' | 'figures' | 'baseUrl'>;
  profile: TargetProfile;
  embedded: boolean;
  startedAt: Date;
  finishedAt: Date;
  settings: CompatReport['settings'];
  /** What a client certificate beside a session says of it, by session id. */
  certified?: ReadonlyMap<string, string>;
  /** How long each session's client waits for an answer (lib/compat/waits.ts), by session id; absent: the default wait. */
  waits?: ReadonlyMap<string, ClientWait>;
}

function verdictOf(result: UnitResult | undefined, p: PlannedExchange): { verdict: CompatVerdict; reasons: string[] } {
  if (!result) return { verdict: 'skipped', reasons: [p.reason ?? 'not replayed'] };
  if (result.notSent !== undefined) return { verdict: 'skipped', reasons: [result.notSent] };
  const c = result.comparison;
  if (!c) return { verdict: 'skipped', reasons: ['not judged'] };
  return { verdict: c.verdict, reasons: c.reasons };
}

export function buildCompatReport(input: ReportInput): CompatReport {
  const { plan, run, profile } = input;
  const byUnit = new Map<string, UnitResult>();
  for (const r of run.results) byUnit.set(r.unit.key, r);
  const repOf = new Map<string, string>();
  for (const u of plan.units) for (const m of u.members) repOf.set(m.id, u.rep.id);
  const exchanges: CompatExchange[] = plan.exchanges.map((p) => {
    const unitKey = p.shape.key;
    const rep = repOf.get(p.id);
    const result = rep !== undefined ? byUnit.get(unitKey) : undefined;
    const own = rep === p.id;
    const { verdict, reasons } = rep === undefined ? { verdict: 'skipped' as const, reasons: [p.reason ?? 'no exchange of its shape could be replayed'] } : verdictOf(result, p);
    const e: CompatExchange = {
      id: p.id,
      agency: p.agency,
      session: p.session.id,
      seq: p.exchange.seq,
      where: p.exchange.where,
      operation: p.operation,
      format: p.shape.format,
      shape: { key: p.shape.key, text: p.shape.text },
      verdict,
      reasons: own || rep === undefined ? reasons : [...reasons, `judged by the replay of ${rep} (the same shape)`],
      judgedBy: rep ?? p.id,
      recorded: recordedSide(p.exchange),
    };
    const wait = input.waits?.get(p.session.id) ?? { ms: DEFAULT_CLIENT_WAIT_MS, source: 'the default wait of clients' };
    e.clientWait = wait;
    // The answer's time, for this exchange's client: past its wait it met no answer; slower than recorded is a finding.
    const sent = result?.sent;
    if (sent?.response && result?.comparison && e.verdict !== 'skipped' && (!sent.error || sent.error.code === 'THROTTLED')) {
      const timing = timingOf(sent.durationMs, p.exchange.durationMs, wait);
      if (timing.broken !== undefined) {
        e.verdict = 'broken';
        e.reasons = [timing.broken, ...e.reasons];
      } else if (timing.finding !== undefined) e.findings = [timing.finding];
    }
    if (e.verdict === 'skipped' && !p.inert) e.notJudged = true;
    if (own && result) {
      if (result.sent) e.replayed = sentSide(result.sent);
      if (result.noise.length > 0) e.noise = result.noise;
      if (result.documentFailures.length > 0) e.documentFailures = result.documentFailures.map((f) => ({ ...f, sections: [...f.sections] }));
      if (result.mappingText !== undefined) e.mapping = result.mappingText;
      if (result.unstable.length > 0) e.reasons = [...e.reasons, `the baseline answered it differently twice (${result.unstable.join('; ')}): compared all the same`];
    }
    return e;
  });
  const halt: Halt | undefined = run.halt;
  const unusable = halt?.kind === 'target-unusable';
  if (unusable) {
    // A build found unusable (the key refused on every request, unreachable, unresponsive, every path 404) judges nothing: what it answered before the stop is shown, not counted.
    for (const e of exchanges) {
      if (e.verdict === 'skipped' && e.notJudged !== true) continue;
      e.reasons = [`not judged: the build was found unusable (${halt.reason}): nothing is judged`, ...(e.verdict !== 'skipped' ? [`as answered before the stop: ${e.verdict}`] : [])];
      e.verdict = 'skipped';
      e.notJudged = true;
      delete e.findings;
    }
  }
  const cellsByKey = new Map<string, CompatCell>();
  const agenciesByName = new Map<string, CompatAgency>();
  for (const e of exchanges) {
    const key = `${e.agency}\u0000${e.operation}\u0000${e.format}`;
    let cell = cellsByKey.get(key);
    if (!cell) cellsByKey.set(key, (cell = { agency: e.agency, operation: e.operation, format: e.format, verdict: 'skipped', counts: emptyCounts(), notJudged: 0, exchanges: [] }));
    cell.counts[e.verdict] += 1;
    if (e.notJudged === true) cell.notJudged += 1;
    cell.exchanges.push(e.id);
    let agency = agenciesByName.get(e.agency);
    if (!agency) agenciesByName.set(e.agency, (agency = { agency: e.agency, sessions: [], verdict: 'skipped', counts: emptyCounts(), notJudged: 0 }));
    agency.counts[e.verdict] += 1;
    if (e.notJudged === true) agency.notJudged += 1;
    if (!agency.sessions.includes(e.session)) {
      agency.sessions.push(e.session);
      const note = input.certified?.get(e.session);
      if (note !== undefined) agency.certified = { ...agency.certified, [e.session]: note };
    }
  }
  for (const c of cellsByKey.values()) c.verdict = worstOf(c.counts, c.notJudged);
  for (const a of agenciesByName.values()) a.verdict = worstOf(a.counts, a.notJudged);
  const agencies = [...agenciesByName.values()].sort((a, b) => (a.agency < b.agency ? -1 : 1));
  const broken = agencies.filter((a) => a.verdict === 'broken');
  const notJudged = agencies.filter((a) => a.verdict === 'skipped');
  const changed = agencies.filter((a) => a.verdict === 'changed');
  const judged = exchanges.filter((e) => e.verdict !== 'skipped').length;
  const verdict: CompatReport['outcome']['verdict'] = unusable ? 'unusable' : broken.length > 0 ? 'broken' : judged === 0 ? 'incomplete' : notJudged.length > 0 ? 'not judged' : changed.length > 0 ? 'changed' : 'compatible';
  // An agency not judged is never passed: the gate says the build could not be judged for it (exit 3), unless one is broken.
  const exitCode = halt?.kind === 'interrupted' ? 130 : unusable ? 3 : broken.length > 0 ? 1 : notJudged.length > 0 || (judged === 0 && exchanges.some((e) => e.notJudged === true)) ? 3 : 0;
  const names = (list: CompatAgency[]): string => list.map((a) => a.agency).join(', ');
  const notJudgedText = notJudged.length > 0 ? `${notJudged.length} not judged (${names(notJudged)}: exchanges not replayed, see why)` : '';
  const text =
    verdict === 'unusable'
      ? `the build was found unusable: nothing is judged`
      : verdict === 'broken'
        ? `${broken.length} of ${agencies.length} agencies broken (${names(broken)})${notJudgedText ? `, ${notJudgedText}` : ''}${changed.length > 0 ? `, ${changed.length} changed (${names(changed)})` : ''}`
        : verdict === 'not judged'
          ? `no agency broken, but ${notJudged.length} of ${agencies.length} agencies not judged (${names(notJudged)}): exchanges of theirs were not replayed (the reasons are in the report)${changed.length > 0 ? `; ${changed.length} changed (${names(changed)})` : ''}`
          : verdict === 'changed'
            ? `no agency broken; ${changed.length} of ${agencies.length} meet something different (${names(changed)})`
            : verdict === 'compatible'
              ? `every agency compatible (${agencies.length}): each replayed exchange met what its client met`
              : 'nothing could be replayed: every exchange was skipped (the reasons are in the report)';
  const replayedShapes = run.results.filter((r) => r.comparison !== undefined).length;
  return {
    kind: 'iswc-conformance-compat',
    reportVersion: 1,
    harnessVersion: HARNESS_VERSION,
    startedAt: input.startedAt.toISOString(),
    finishedAt: input.finishedAt.toISOString(),
    target: { baseUrl: input.embedded ? null : safeBaseUrl(run.baseUrl), embedded: input.embedded, profile: profile.name, profileDigest: profileDigest(profile), agency: profile.agency },
    settings: input.settings,
    baseline: 'the embedded reference server, twice for each request sent (fresh each time, with the choices the session was recorded with; for a HAR file or a gateway log, the reference ones, then, where a text, a field or a charset still differs, each documented choice set in turn): what differs between two of its answers is noise',
    sampling: SAMPLING_RULE,
    outcome: { verdict, text: `${text}${halt ? `; ${halt.kind === 'interrupted' ? 'interrupted' : 'stopped'}: ${halt.reason}` : ''}`, exitCode, ...(halt ? { halt } : {}) },
    figures: {
      sessions: new Set(plan.exchanges.map((p) => p.session.id)).size,
      agencies: agencies.length,
      exchanges: exchanges.length,
      shapes: plan.shapes,
      replayed: replayedShapes,
      requests: run.figures,
    },
    agencies,
    cells: [...cellsByKey.values()],
    exchanges,
  };
}
