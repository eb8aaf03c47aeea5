import { documentDigest, HARNESS_VERSION, schemasDigest } from '../meta.ts';
import type { ClientFindings } from './collect.ts';
import type { Declared, SeenCell } from './coverage.ts';
import { clientCoverage, missingText, succeededText } from './coverage.ts';
import type { ClientCheckTally, ClientCoverage, ClientReport, LateRequests, NotGating, TroubleMet } from './model.ts';

/** What a sandbox session saw, apart from its findings: the counts and facts its report states. */
export interface SessionSummary {
  requests: number;
  /** Requests the client checks judged (CORS preflights are not): none, and the verdict is incomplete. */
  judged: number;
  operations: Record<string, number>;
  userAgents: string[];
  agencies: Record<string, number>;
  agency: string | null;
  trouble: TroubleMet[];
  runs: { started: number; ended: number };
  /** Each documented operation × format the client sent: requests, successes, other answers. */
  cells: SeenCell[];
  lateRequests: LateRequests;
  /** A defect of the sandbox that ended the session (judging a request raised), or null. */
  defect: string | null;
}

export interface ClientReportInput extends SessionSummary {
  findings: ClientFindings;
  strict: boolean;
  startedAt: number;
  finishedAt: number;
  endedBy: ClientReport['endedBy'];
  sandbox: ClientReport['sandbox'];
  /** What the client declares it does (--operations, --formats); each must succeed. */
  declared: Declared;
}

function plural(n: number, one: string, many = `${one}s`): string {
  return `${n} ${n === 1 ? one : many}`;
}

/** The check whose observations say where production as built answers otherwise. */
export const PRODUCTION_CHECK = 'client.production-as-built';

/**
 * The checks that failed without gating the session (http ones, without --strict), and what --strict
 * would have made of the session: every failure is counted somewhere a reader looks, gating or not.
 */
export function notGatingOf(exercised: readonly ClientCheckTally[], strict: boolean, verdict: ClientReport['verdict']): NotGating {
  const checks = exercised.filter((c) => c.failed > 0 && !(c.level === 'spec' || (c.level === 'http' && strict))).map((c) => ({ id: c.id, level: c.level, failed: c.failed }));
  const failures = checks.reduce((n, c) => n + c.failed, 0);
  // --strict gates the http checks: any of them failing makes the session not conformant.
  const withStrict = checks.some((c) => c.level === 'http') ? 'not conformant' : verdict;
  return { checks, failures, withStrict };
}

/** "2 http client checks failed 4 times, not gating without --strict (client.retry-after ×3, client.retries-bounded ×1): with --strict, not conformant". */
export function notGatingText(ng: NotGating): string | undefined {
  if (ng.checks.length === 0) return undefined;
  const levels = [...new Set(ng.checks.map((c) => c.level))].join(' and ');
  return `${plural(ng.checks.length, `${levels} client check`)} failed ${ng.failures === 1 ? 'once' : `${ng.failures} times`}, not gating without --strict (${ng.checks.map((c) => `${c.id} ×${c.failed}`).join(', ')}): with --strict, ${ng.withStrict}`;
}

/** "3 observations on open points, 2 where production as built answers otherwise". */
export function observationsText(observed: number, production: number): string {
  return `${plural(observed, 'observation')} on open points${production > 0 ? `, ${production} where production as built answers otherwise` : ''}`;
}

/**
 * "conformant: run notification JSON, merge JSON, submission delete, demerge succeeded",
 * "not conformant: 3 gating violations of 2 checks; demerge never sent". Failures that do not gate are
 * counted too, with what --strict would have made of the session, and so are the observations.
 */
export function clientVerdictText(verdict: ClientReport['verdict'], gating: number, checks: number, observed: number, coverage: ClientCoverage, notGating?: NotGating, production = 0): string {
  if (verdict === 'incomplete') return 'incomplete: the client sent no request the sandbox judges, so the session shows nothing of it (no certificate)';
  const ng = notGating ? notGatingText(notGating) : undefined;
  if (verdict === 'not conformant') {
    const reasons = [...(gating > 0 ? [`${plural(gating, 'gating violation')} of ${plural(checks, 'check')}`] : []), ...(coverage.missing.length > 0 ? [missingText(coverage)] : []), ...(ng ? [`besides, ${ng.replace(/: with --strict, .*$/, '')}`] : [])];
    return `not conformant: ${reasons.join('; ')}`;
  }
  const done = `conformant: ${succeededText(coverage)} succeeded${ng ? `; ${ng}` : ''}`;
  return observed > 0 ? `${done} (${observationsText(observed, production)})` : done;
}

/** The client report of a session: verdict, tallies, findings, trouble met. The findings are already redacted. */
export function buildClientReport(input: ClientReportInput): ClientReport {
  const { checks, groups } = input.findings.tallies();
  const coverage = clientCoverage(input.cells, input.declared);
  // Conformant means it worked: no gating violation, and every declared operation succeeded.
  const verdict: ClientReport['verdict'] = checks.gatingFailures > 0 ? 'not conformant' : input.judged === 0 ? 'incomplete' : coverage.missing.length > 0 ? 'not conformant' : 'conformant';
  const gatingChecks = new Set(input.findings.violations.filter((v) => v.gating).map((v) => v.check)).size;
  const notGating = notGatingOf(checks.exercised, input.strict, verdict);
  const production = checks.exercised.find((c) => c.id === PRODUCTION_CHECK)?.observed ?? 0;
  const verdictText = clientVerdictText(verdict, checks.gatingFailures, gatingChecks, checks.observed, coverage, notGating, production);
  const late = input.lateRequests.count;
  const endedText = input.endedBy === 'requests' ? `; the session ended after its ${plural(input.requests, 'request')} (--requests)${late > 0 ? `, and ${plural(late, 'later request')} got 503, not judged` : ''}` : '';
  return {
    kind: 'iswc-conformance-client-report',
    reportVersion: 2,
    verdict,
    verdictText: input.defect === null ? `${verdictText}${endedText}` : `${verdictText}, of the requests judged before an internal error of the sandbox ended the session`,
    strict: input.strict,
    startedAt: new Date(input.startedAt).toISOString(),
    finishedAt: new Date(input.finishedAt).toISOString(),
    endedBy: input.endedBy,
    harnessVersion: HARNESS_VERSION,
    documentDigest: documentDigest(),
    schemasDigest: schemasDigest(),
    sandbox: input.sandbox,
    client: { userAgents: input.userAgents, agency: input.agency, agencies: input.agencies },
    requests: input.requests,
    operations: input.operations,
    checks,
    notGating,
    groups,
    violations: input.findings.violations,
    violationsOmitted: input.findings.violationsOmitted,
    observations: input.findings.observations,
    observationsOmitted: input.findings.observationsOmitted,
    coverage,
    trouble: input.trouble,
    runs: input.runs,
    lateRequests: input.lateRequests,
    ...(input.defect === null ? {} : { defect: input.defect }),
  };
}
