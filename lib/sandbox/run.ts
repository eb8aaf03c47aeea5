import path from 'node:path';
import { subscriptionKeyHeader } from '../contract/openapi.ts';
import { INTERRUPTED_EXIT, onStop } from '../foundation/interrupt.ts';
import { shownPath } from '../foundation/paths.ts';
import { createRedactor, SANDBOX_KEY_PLACEHOLDER } from '../foundation/redact.ts';
import { answersText, cellLabel } from '../report/client/labels.ts';
import { buildClientReport } from '../report/client/build.ts';
import type { ClientReport, ExercisedCell } from '../report/client/model.ts';
import type { WrittenClientReports } from '../report/client/write.ts';
import { writeClientReports } from '../report/client/write.ts';
import { profileForChoiceSet, startReferenceServer } from '../../server/index.ts';
import type { SandboxOptions } from './options.ts';
import { LATE_MAX_SECONDS, LATE_QUIET_SECONDS } from './options.ts';
import { ProductionShadow } from './production.ts';
import { reportDirProblem } from './report-dir.ts';
import { SESSION_FILE, SessionRecorder } from './recorder.ts';
import { SandboxSession } from './session.ts';

/** How long the end of a session waits for production as built's answers to the last requests. */
const PRODUCTION_SETTLE_MS = 5_000;

/** A running sandbox: its URL, and the session's end (reports written) as a promise. */
export interface RunningSandbox {
  url: string;
  port: number;
  /** Resolves once the session has ended and its reports are written. */
  done: Promise<SandboxResult>;
  /** Ends the session now (as a signal does). */
  stop(reason?: ClientReport['endedBy']): Promise<SandboxResult>;
}

export interface SandboxResult {
  report: ClientReport;
  files: WrittenClientReports;
  /** 0 conformant, 1 not conformant or incomplete (no request judged), 4 the session ended on a defect of the sandbox (the reports hold what was judged before). */
  exitCode: 0 | 1 | 4;
  /** Every exchange of the session, recorded beside the reports (lib/sandbox/recorder.ts), and how many. */
  session: { file: string; exchanges: number };
}

/** The sandbox key in the session's redactor: written `$ISWC_SANDBOX_KEY`, the variable it is read from. */
export function sandboxRedactor(key: string): ReturnType<typeof createRedactor> {
  return createRedactor([{ value: key, placeholder: SANDBOX_KEY_PLACEHOLDER }]);
}

/**
 * Starts the reference server for a client under test, with the session as its request hook, and ends
 * the session after `requests` requests (later ones get 503 until the client is quiet), after
 * `idleSeconds` without a request in progress counted from the first request (from the arrival of a
 * head to the end of its answer), when no request came within `waitFirstSeconds`, or on stop().
 * The reports are written when it ends; nothing is written before.
 */
export async function startSandbox(options: SandboxOptions): Promise<RunningSandbox> {
  const unwritable = reportDirProblem(options.reportDir);
  if (unwritable !== undefined) throw new Error(unwritable);
  const profile = profileForChoiceSet(options.profile, options.choices);
  // Production as built beside the sandbox, whatever --choices says: where it would answer otherwise is recorded.
  const production = await ProductionShadow.start(options.profile, options.key);
  const session = new SandboxSession({
    key: options.key,
    keyHeader: subscriptionKeyHeader().toLowerCase(),
    xmlArrays: profile.xmlArrays,
    strict: options.strict,
    inject: options.inject,
    rateLimit: options.rateLimit,
    retryAfterSeconds: options.retryAfterSeconds,
    slowMs: options.slowMs,
    requestLimit: options.requests,
    production,
  });
  const recorder = new SessionRecorder(session, path.join(options.reportDir, SESSION_FILE), { agency: profile.agency, startedAt: new Date(session.startedAt).toISOString(), choices: options.choices, profile: options.profile.name, keyPlaceholder: SANDBOX_KEY_PLACEHOLDER }, sandboxRedactor(options.key), options.key);
  let server: Awaited<ReturnType<typeof startReferenceServer>>;
  try {
    server = await startReferenceServer({ profile, key: options.key, choices: options.choices, port: options.port, host: options.host, hook: recorder });
  } catch (e) {
    recorder.close();
    await production.close();
    throw e;
  }

  let resolveDone: (r: SandboxResult) => void = () => undefined;
  let rejectDone: (e: unknown) => void = () => undefined;
  const done = new Promise<SandboxResult>((resolve, reject) => {
    resolveDone = resolve;
    rejectDone = reject;
  });
  let idleTimer: NodeJS.Timeout | undefined;
  let waitFirstTimer: NodeJS.Timeout | undefined;
  let lateMaxTimer: NodeJS.Timeout | undefined;
  let firstCame = false;
  /** Set once the --requests N-th answer is complete: the session is over, late requests get 503 until the client is quiet. */
  let countReached = false;
  let ending: Promise<SandboxResult> | undefined;

  const end = (endedBy: ClientReport['endedBy']): Promise<SandboxResult> => {
    ending ??= (async () => {
      for (const t of [idleTimer, waitFirstTimer, lateMaxTimer]) if (t) clearTimeout(t);
      session.close();
      await server.close();
      // Production as built's answers to the last requests, at most a few seconds (loopback: milliseconds).
      await Promise.race([session.productionSettled(), new Promise((r) => setTimeout(r, PRODUCTION_SETTLE_MS).unref())]);
      await production.close();
      recorder.close();
      const summary = session.conclude();
      const report = buildClientReport({
        findings: session.findings,
        strict: options.strict,
        startedAt: session.startedAt,
        finishedAt: Date.now(),
        endedBy,
        sandbox: {
          url: server.url,
          choices: options.choices,
          profile: options.profile.name,
          inject: options.inject.map((i) => ({ ...i })),
          rateLimit: options.rateLimit?.text ?? null,
          requestLimit: options.requests,
          idleSeconds: options.idleSeconds,
          waitFirstSeconds: options.waitFirstSeconds,
        },
        declared: { operations: options.operations, formats: options.formats },
        ...summary,
      });
      const files = writeClientReports(report, options.reportDir, sandboxRedactor(options.key));
      const result: SandboxResult = { report, files, exitCode: report.defect !== undefined ? 4 : report.verdict === 'conformant' ? 0 : 1, session: { file: recorder.file, exchanges: recorder.exchanges } };
      resolveDone(result);
      return result;
    })();
    ending.catch(rejectDone);
    return ending;
  };

  // Quiet after the count: once the client has stopped coming back; otherwise --idle, counted from the first request.
  const armIdle = (): void => {
    const seconds = countReached ? LATE_QUIET_SECONDS : firstCame ? options.idleSeconds : null;
    if (seconds === null) return;
    if (idleTimer) clearTimeout(idleTimer);
    idleTimer = setTimeout(() => void end(countReached ? 'requests' : 'idle'), seconds * 1000);
  };
  session.onDefect = () => void end('defect');
  session.onArrival = () => {
    firstCame = true;
    if (waitFirstTimer) clearTimeout(waitFirstTimer);
    if (idleTimer) clearTimeout(idleTimer);
  };
  session.onAnswered = (answered, open) => {
    if (!countReached && options.requests !== null && answered >= options.requests) {
      countReached = true;
      lateMaxTimer = setTimeout(() => void end('requests'), LATE_MAX_SECONDS * 1000);
    }
    // A request still uploading or waiting for its answer is activity: idle counts from the last one's end.
    if (open === 0) armIdle();
  };
  if (options.waitFirstSeconds !== null) waitFirstTimer = setTimeout(() => void end('wait-first'), options.waitFirstSeconds * 1000);

  return { url: server.url, port: server.port, done, stop: (reason = 'stop') => end(reason) };
}

export interface SandboxIo {
  out(line: string): void;
  err(line: string): void;
  /** Whether SIGINT and SIGTERM end the session (the command line); default true. */
  signals?: boolean;
}

/** The sandbox as the command runs it: start, print the key (when made up) and the URL, wait for the end, print the verdict. */
export async function runSandbox(options: SandboxOptions, io: SandboxIo): Promise<number> {
  // Refused before the session, in one line: never an hour of a client's requests and then no report.
  const unwritable = reportDirProblem(options.reportDir);
  if (unwritable !== undefined) {
    io.err(`iswc-conformance sandbox: ${unwritable}`);
    return 2;
  }
  let running: RunningSandbox;
  try {
    running = await startSandbox(options);
  } catch (e) {
    io.err(`iswc-conformance sandbox: cannot start on ${options.host}:${options.port}: ${(e as Error).message}`);
    return 2;
  }
  // SIGINT, SIGTERM, SIGHUP, or the end of the process that started it (npm, npx, a shell): the session
  // ends, the reports are written and the port is freed; the exit code is then 130, the verdict in the reports.
  let signalled = false;
  const unwatch =
    io.signals !== false
      ? onStop(() => {
          signalled = true;
          void running.stop('signal');
        })
      : () => undefined;
  if (options.keyGenerated) io.out(`key ${options.key} (ISWC_SANDBOX_KEY is not set: send this one in Ocp-Apim-Subscription-Key)`);
  io.out(`listening ${running.url}`);
  let result: SandboxResult;
  try {
    result = await running.done;
  } finally {
    unwatch();
  }
  for (const line of summaryLines(result.report, result.files)) io.out(line);
  io.out(`  ${result.session.exchanges} exchange(s) recorded in ${shownPath(result.session.file, process.cwd())} (replay them against another build: npx iswc-conformance compat --help)`);
  if (result.report.defect !== undefined) {
    io.err(`iswc-conformance sandbox: internal error: ${result.report.defect}`);
    io.err('This is a defect of iswc-conformance, not of the client under test: please report it. The reports hold what was judged before it.');
  }
  if (signalled && result.report.endedBy === 'signal') {
    io.out(`  ended by a signal: exit code ${INTERRUPTED_EXIT} (the verdict above is the session's, in its reports; --idle SECONDS or --requests N end a session with the verdict as its exit status)`);
    return INTERRUPTED_EXIT;
  }
  return result.exitCode;
}

/** The console summary: verdict, requests, what was exercised, each violated check with its count and first example, the report files. */
export function summaryLines(report: ClientReport, files: WrittenClientReports): string[] {
  const lines = [`client conformance: ${report.verdictText} — ${report.requests} request(s), ${report.checks.passed} passed, ${report.checks.failed} failed, ${report.checks.observed} observed`];
  for (const c of report.coverage.cells) {
    const mark = c.succeeded > 0 ? '✓' : c.declared ? '✗' : '·';
    const others = answersText(c.answers);
    lines.push(`  ${mark} ${cellLabel(c.operation, c.format)}: ${c.requests} sent, ${c.succeeded} succeeded${others ? ` (${others})` : ''}${c.declared ? '' : ' (not declared)'}`);
    if (c.succeeded === 0) {
      const hint = refusalHint(report, c);
      if (hint !== undefined) lines.push(hint);
    }
  }
  for (const m of report.coverage.missing.filter((x) => x.format === 'any')) lines.push(`  ✗ ${cellLabel(m.operation, m.format)}: ${m.reason}`);
  const failing = report.checks.exercised.filter((c) => c.failed > 0);
  for (const c of failing) {
    const first = report.violations.find((v) => v.check === c.id);
    const gate = first?.gating ? '' : c.level === 'http' ? ', not gating without --strict' : ', not gating';
    lines.push(`  ✗ ${c.id} [${c.level}${gate}] ×${c.failed}: ${first ? `#${first.request.seq} ${first.received}` : ''}`.slice(0, 300));
  }
  for (const t of report.trouble.slice(0, 20)) lines.push(`  trouble ${t.kind} on request ${t.request}: ${t.survived ? `survived (request ${t.survivedBy ?? '?'} with the same data succeeded)` : 'not survived (the same request never succeeded after it)'}`);
  if (report.trouble.length > 20) lines.push(`  … ${report.trouble.length - 20} more trouble in client-conformance.json`);
  if (report.lateRequests.count > 0) lines.push(`  ${report.lateRequests.count} request(s) after the session ended (--requests ${report.sandbox.requestLimit ?? '?'}): answered 503, not judged`);
  const cwd = process.cwd();
  lines.push(`  ${[files.json, files.junit, files.html].map((f) => shownPath(f, cwd)).join(' · ')}`);
  return lines;
}

/**
 * Of an operation the client never got to succeed: the first of its refused requests and what the client
 * checks found in it, failures and observations alike (a lower-case ISWC, a parameter left out), the likely
 * reason for the refusal, where the verdict line only counts statuses. Undefined when no check found anything
 * in those requests (the reports hold the answers).
 */
function refusalHint(report: ClientReport, cell: ExercisedCell): string | undefined {
  const found = [...report.violations, ...report.observations]
    .filter((f) => f.operation === cell.operation && f.format === cell.format && typeof f.request.answer === 'number' && f.request.answer >= 400)
    .sort((a, b) => a.request.seq - b.request.seq);
  const first = found[0];
  if (first === undefined) return undefined;
  const onIt = found.filter((f) => f.request.seq === first.request.seq).map((f) => `${f.check}: ${f.received}`);
  return `      request ${first.request.seq} answered ${String(first.request.answer)}; the client checks found in it: ${[...new Set(onIt)].join('; ')}`.slice(0, 300);
}
