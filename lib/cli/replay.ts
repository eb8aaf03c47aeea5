import { createJudge } from '../check/judge.ts';
import { keySourceDbs } from '../contract/agency.ts';
import { isLoopback } from '../config/config.ts';
import type { Exchange, RequestSpec } from '../contract/exchange.ts';
import type { TargetProfile } from '../contract/profile/types.ts';
import type { CaseDef, CaseFormat, CaseReplay } from '../generate/case.ts';
import { allCases } from '../generate/suite.ts';
import { profileDigest, shortDigest } from '../report/binding.ts';
import { failureId, hasFailureId } from '../report/identity.ts';
import { HARNESS_VERSION } from '../report/meta.ts';
import type { ConformanceReport } from '../report/model.ts';
import { exchangeLine, sectionsText } from '../report/view.ts';
import type { CheckExecution } from '../run/execution.ts';
import { createHttpClient } from '../run/http/client.ts';
import type { RunClient } from '../run/http/client.ts';
import { localGate } from '../run/http/pacer.ts';
import { targetClientOptions } from '../run/http/target-client.ts';
import type { TargetSettings } from '../run/http/target-client.ts';
import { DIRECT } from '../config/proxy.ts';
import { planSuite } from '../run/plan.ts';
import type { PlannedCase } from '../run/planned.ts';
import { runPlannedCase } from '../run/runner.ts';
import { withoutGuids } from '../contract/guid.ts';
import { EMBEDDED_KEY, startReferenceServer } from '../../server/index.ts';
import type { RunningServer } from '../../server/index.ts';

/**
 * `replay <id>`: sends exactly the requests of one failure of a report again and judges them as the run
 * did. A fixed case runs its steps in order, with the disposable entries the run gave it (the same
 * deterministic partition of the report's profile and plan). A generated failure sends only its input:
 * fast-check walks the recorded seed and path (and the model test's replayPath) to the shrunk
 * counterexample, which is sent once, with the case's fixed steps around it (a nominal request that a
 * differential check compares with); the property is not run again.
 */

/** A replay that cannot start: the caller's to fix (exit 2). */
export class ReplayError extends Error {
  readonly code = 'ISWC_REPLAY';
}

/** Ids are hex; a unique prefix of at least this many digits is accepted too. */
const MIN_PREFIX = 4;

function idOf(e: CheckExecution): string | undefined {
  // Reports of earlier versions carry no ids: the id is a function of the execution key.
  return e.failureId ?? (hasFailureId(e) ? failureId(e) : undefined);
}

/** The failure of a report with this id (or a unique prefix of one). */
export function findFailure(report: ConformanceReport, id: string): CheckExecution {
  const wanted = id.trim().toLowerCase();
  if (!/^[0-9a-f]+$/.test(wanted) || wanted.length < MIN_PREFIX) throw new ReplayError(`"${id}" is not a failure id (hex digits, as printed next to each failure: npx iswc-conformance replay 3fa9c01b)`);
  const failures = report.executions.filter((e) => idOf(e) !== undefined);
  const exact = failures.filter((e) => idOf(e) === wanted);
  const found = exact.length > 0 ? exact : failures.filter((e) => idOf(e)?.startsWith(wanted));
  if (found.length === 1 && found[0]) return found[0];
  if (found.length > 1) {
    throw new ReplayError(`"${id}" names ${found.length} failures of the report:\n${found.map((e) => `  ${idOf(e) ?? ''}  ${e.checkId} · ${e.caseId} (${e.format}) / ${e.step}`).join('\n')}`);
  }
  const some = failures.slice(0, 5).map((e) => `  ${idOf(e) ?? ''}  ${e.checkId} · ${e.caseId} (${e.format})`);
  throw new ReplayError(
    failures.length === 0 ? `the report holds no failure (no id "${id}")` : `no failure with id "${id}" in the report; it holds ${failures.length}, e.g.:\n${some.join('\n')}`,
  );
}

/** The format a case ran in for an execution: its body format, or 'none' for a case without a body. */
function caseFormat(def: CaseDef, format: string): CaseFormat {
  if (def.formats.includes(format as CaseFormat)) return format as CaseFormat;
  if (def.formats.includes('none')) return 'none';
  throw new ReplayError(`case ${def.id} has no ${format} variant in this harness (formats ${def.formats.join(', ')})`);
}

export interface ReplayOptions {
  report: ConformanceReport;
  failure: CheckExecution;
  /** The profile the run used (checked against the report's digest). */
  profile: TargetProfile;
  /** Where the profile came from, for messages. */
  profileSource: string;
  /**
   * The target the caller named, and how it was named (for the output). Required unless the run was made
   * against the embedded server (a fresh one is started then): the key is never sent to a base URL read
   * from a report alone, which anyone could have written.
   */
  target?: { baseUrl: string; named: string };
  /**
   * The run's configuration for the target (lib/config/config.ts readConfig): its key, timeout, body cap,
   * extra headers and proxy route. The embedded server gets its own key and a direct connection.
   */
  settings: TargetSettings;
  /** The caller allows sending a case that consumes disposable entries to a target not on this machine. */
  allowDestructive: boolean;
  /** Requests per second, or null for no limit. */
  rate: number | null;
}

export interface ReplayResult {
  /** 0: the failure does not happen any more; 1: it does (or its step was not reached); 3: the target is unusable. */
  code: 0 | 1 | 3;
  lines: string[];
  /** Every request sent, in order. */
  exchanges: Exchange[];
}

/** Checks the profile against the report's and finds the case as the run's plan gave it (entries, runs). */
async function plannedCaseOf(options: ReplayOptions): Promise<{ planned: PlannedCase; notes: string[] }> {
  const { report, failure, profile } = options;
  const meta = report.meta;
  const notes: string[] = [];
  const digest = profileDigest(profile);
  if (meta.profileDigest !== undefined && meta.profileDigest !== digest) {
    throw new ReplayError(
      `the run was made with profile "${meta.profile}" ${shortDigest(meta.profileDigest)}, not "${profile.name}" ${shortDigest(digest)} (${options.profileSource}): pass --target with the run's profile (its entries decide what the case sends)`,
    );
  }
  if (meta.profileDigest === undefined) {
    if (meta.profile !== profile.name) throw new ReplayError(`the run was made with profile "${meta.profile}", not "${profile.name}" (${options.profileSource}): pass --target with the run's profile`);
    notes.push(`the report records no profile digest: profile "${profile.name}" is matched by name only`);
  }
  if (meta.harnessVersion !== HARNESS_VERSION) notes.push(`the run was made with iswc-conformance ${meta.harnessVersion}, this is ${HARNESS_VERSION}: its cases and generators may differ`);
  const def = allCases(profile).find((d) => d.id === failure.caseId);
  if (!def) throw new ReplayError(`case ${failure.caseId} is not one of this harness's cases (harness ${HARNESS_VERSION}; the run's was ${meta.harnessVersion})`);
  const key = `${def.id}@${caseFormat(def, failure.format)}`;
  // The whole plan, as the run made it: disposable entries are partitioned over every case in order.
  const plan = meta.plan;
  const planned = (
    await planSuite(profile, { destructive: meta.destructive, runs: meta.runs, strict: meta.strict, ...(plan ? { plan: plan.name, ...(plan.budget !== null ? { budget: plan.budget } : {}) } : {}) })
  ).find((p) => p.key === key);
  if (!planned) throw new ReplayError(`case ${key} is not in this harness's plan`);
  if (planned.skipReason !== undefined) throw new ReplayError(`with the run's settings this harness would not send case ${key}: ${planned.skipReason}`);
  return { planned, notes };
}

/** Which of the case's generated inputs to send: the failure's own, or none for a failure of a fixed step. */
function caseReplayOf(failure: CheckExecution, report: ConformanceReport): CaseReplay {
  if (failure.path === undefined) return { kind: 'fixed' };
  return {
    kind: 'generated',
    seed: failure.seed ?? report.meta.seed ?? 0,
    path: failure.path,
    ...(failure.replayPath !== undefined ? { replayPath: failure.replayPath } : {}),
    ...(failure.modelState !== undefined ? { modelState: failure.modelState } : {}),
  };
}

/** What a case may change in the target, in a line; undefined when it changes nothing. */
function consumption(p: PlannedCase): string | undefined {
  const consumed = (p.def.claims ?? []).filter((c) => !c.readOnly);
  if (consumed.length === 0) return p.def.changesData ? 'it names existing data, which a faulty server may change' : undefined;
  return `it consumes disposable entries, the same ones the run gave it: ${consumed.map((c) => `${c.kind} ${JSON.stringify(p.entries[c.kind] ?? []).slice(0, 160)}`).join('; ')}`;
}

/** A client that keeps every exchange it sends, probes included, in order. */
function recording(client: RunClient, log: Exchange[]): RunClient {
  return {
    async send(spec: RequestSpec): Promise<Exchange> {
      const exchange = await client.send(spec);
      log.push(exchange);
      return exchange;
    },
    curl: (spec) => client.curl(spec),
    close: () => client.close(),
    unusable: () => client.unusable(),
    budgetSpent: () => client.budgetSpent(),
    limitBudget: (requests) => client.limitBudget(requests),
    stop: (reason) => client.stop(reason),
    stopped: () => client.stopped(),
    progress: () => client.progress(),
  };
}

/** The step index of a model-test step label (`… · step 3: …`), which a replayed sequence keeps. */
function stepIndex(label: string): string | undefined {
  return /· step (\d+): /.exec(label)?.[1];
}

/** The replay's executions of the replayed failure: same check, same step (or, generated, the same input). */
function sameFailure(failure: CheckExecution, e: CheckExecution): boolean {
  if (e.checkId !== failure.checkId) return false;
  if (failure.path === undefined) return e.step === failure.step;
  return e.path !== undefined && stepIndex(e.step) === stepIndex(failure.step);
}

function failureLine(e: CheckExecution): string {
  return `${e.checkId} [${e.level}, ${sectionsText(e.sections)}]: expected ${e.expected ?? ''}; received ${e.received ?? ''}`;
}

/** Sends the failure's requests again against the target and says whether it still happens. */
export async function replayFailure(options: ReplayOptions): Promise<ReplayResult> {
  const { report, failure, profile } = options;
  const meta = report.meta;
  const { planned, notes } = await plannedCaseOf(options);
  const replay = caseReplayOf(failure, report);
  const consumes = consumption(planned);
  let server: RunningServer | undefined;
  const named = options.target;
  let where: string;
  if (named !== undefined) where = `${named.baseUrl} (${named.named})`;
  else if (meta.embedded) where = 'a fresh embedded reference server (the run was made against the embedded one)';
  else throw new ReplayError(`the run was made against ${meta.baseUrl ?? 'a base URL the report does not record'}: name the target to send the subscription key to (--base-url)`);
  if (named !== undefined) {
    if (options.settings.key === '') throw new ReplayError(`ISWC_SUBSCRIPTION_KEY is not set: replaying against ${named.baseUrl} needs that target's subscription key in the environment`);
    if (consumes !== undefined && !isLoopback(named.baseUrl) && !options.allowDestructive) {
      throw new ReplayError(`case ${planned.def.id} may change data (${consumes}) and ${named.baseUrl} is not on this machine: pass --destructive to replay it there`);
    }
  }
  const lines = [
    `replay failure ${idOf(failure) ?? '?'}: ${failure.checkId} [${failure.level}, ${sectionsText(failure.sections)}] · ${failure.caseId} (${failure.format}) / ${failure.step}`,
    `  in the run (${meta.startedAt}, seed ${meta.seed ?? '—'}): expected ${failure.expected ?? ''}; received ${failure.received ?? ''}`,
    replay.kind === 'generated'
      ? `  generated input: only the one at seed ${replay.seed}, path ${replay.path}${replay.replayPath !== undefined ? ` (replayPath ${replay.replayPath})` : ''} is sent, with the case's fixed steps; the property is not run again`
      : `  fixed case: its steps in order${planned.def.id.startsWith('property.') || planned.def.id.startsWith('model.') ? ', without its generated inputs' : ''}`,
    ...(failure.modelState !== undefined
      ? ["  model test: the sequence is sent from the model the run had before it, so its requests are the run's; its answers depend on what the run's earlier sequences did to the target"]
      : []),
    `  target: ${where}`,
    ...notes.map((n) => `  note: ${n}`),
  ];
  if (consumes !== undefined) {
    lines.push(
      `  ! this case changes data: ${consumes}. The run changed them already: a target not reset since may answer differently (a refusal where the run got its answer). Replay on a fresh or restarted target to send exactly what the run sent.`,
    );
  }
  const sent: Exchange[] = [];
  try {
    let baseUrl: string;
    let settings = options.settings;
    if (named !== undefined) baseUrl = named.baseUrl;
    else {
      server = await startReferenceServer({ profile, key: EMBEDDED_KEY });
      baseUrl = server.url;
      // The embedded server is in this process: its own key, no proxy, none of a gateway's headers.
      settings = { ...settings, key: EMBEDDED_KEY, headers: [], network: DIRECT };
    }
    const gate = options.rate === null ? undefined : localGate(options.rate);
    const client = recording(
      createHttpClient(targetClientOptions(baseUrl, settings, profile.agency, gate ? { beforeSend: gate } : {})),
      sent,
    );
    let outcome;
    try {
      outcome = await runPlannedCase(planned, client, profile, { seed: meta.seed ?? 0, runs: planned.runs ?? meta.runs, strict: meta.strict, replay }, createJudge({ strict: meta.strict, agency: profile.agency, sourceDbs: keySourceDbs(profile) }));
    } catch (e) {
      const message = e instanceof Error ? e.message : String(e);
      if (/Unable to replay|offered no (input|sequence)/.test(message)) {
        throw new ReplayError(`cannot find the generated input again (seed ${replay.kind === 'generated' ? replay.seed : '?'}, path ${failure.path ?? '?'}): ${message}. The generators changed since the run (its harness ${meta.harnessVersion}, this is ${HARNESS_VERSION}), or the report lacks the replayPath of a shrunk sequence.`);
      }
      throw e;
    } finally {
      await client.close();
      await gate?.close();
    }
    return { ...verdict(failure, outcome.executions, outcome.exchanges, sent, client.unusable(), lines), exchanges: sent };
  } finally {
    await server?.close();
  }
}

/** The exchanges with their failing checks, then whether the failure happened again, and the exit code. */
function verdict(failure: CheckExecution, executions: readonly CheckExecution[], recorded: ReadonlyArray<{ label: string; exchange: Exchange }>, sent: readonly Exchange[], unusable: string | undefined, lines: string[]): Omit<ReplayResult, 'exchanges'> {
  lines.push(`sent ${sent.length} request${sent.length === 1 ? '' : 's'}:`);
  sent.forEach((exchange, i) => {
    const label = recorded.find((r) => r.exchange === exchange)?.label;
    lines.push(`  ${i + 1}. ${exchangeLine(exchange)}${label !== undefined ? `  [${label}]` : '  [not recorded: a step the case only probes]'}`);
    if (label === undefined) return;
    for (const e of executions.filter((x) => x.step === label && x.verdict === 'fail')) lines.push(`       ✗ ${failureLine(e)}`);
  });
  const again = executions.filter((e) => sameFailure(failure, e));
  const failed = again.find((e) => e.verdict === 'fail');
  // No answer at all, where the run had one: the target is unusable now (a failure that was itself "no
  // answer" is judged as usual, and happens again).
  const noAnswer = sent.length > 0 && sent.every((x) => x.error !== undefined);
  if (unusable !== undefined || (noAnswer && failure.exchange?.response !== undefined)) {
    const first = sent[0]?.error;
    lines.push(`verdict: cannot tell: the target is unusable (${unusable ?? `${first?.code ?? ''}: ${first?.message ?? ''}`})`);
    return { code: 3, lines };
  }
  if (failed) {
    const same = failed.received === failure.received;
    // A runId is a new GUID on every call: an answer that differs only in its GUIDs is the run's answer again.
    const sameButIds = !same && withoutGuids(failed.received ?? '') === withoutGuids(failure.received ?? '');
    lines.push(`verdict: the failure happens again: ${failureLine(failed)}`);
    lines.push(same ? '  the same answer as in the run' : sameButIds ? '  the same answer as in the run, but for the GUIDs (a runId) a target gives anew on every call' : `  differently from the run, which received: ${failure.received ?? ''}`);
    if (failed.curl) lines.push(`  reproduce with: ${failed.curl}`);
    return { code: 1, lines };
  }
  const judged = again.find((e) => e.verdict !== 'skip');
  if (judged) {
    lines.push(`verdict: the failure does not happen any more: ${failure.checkId} ${judged.verdict === 'pass' ? 'passes' : `is ${judged.verdict}`} on that step${judged.received ? ` (received ${judged.received})` : ''}`);
    return { code: 0, lines };
  }
  const skipped = again.find((e) => e.verdict === 'skip');
  lines.push(
    skipped
      ? `verdict: cannot tell: ${failure.checkId} was skipped on that step: ${skipped.skipReason ?? ''}`
      : `verdict: cannot tell: the replay did not reach the failing step ("${failure.step}"); the answers before it differed from the run's`,
  );
  // Throttled even after the retries, or not sent once the target was found unusable: the target's doing.
  return { code: skipped && /throttled|not sent|unusable/i.test(skipped.skipReason ?? '') ? 3 : 1, lines };
}
