import { documentDigest, HARNESS_VERSION, schemasDigest } from '../meta.ts';
import type { ClientFindings } from './collect.ts';
import type { Declared, SeenCell } from './coverage.ts';
import { clientCoverage, missingText, succeededText } from './coverage.ts';
import type { ClientCoverage, ClientReport, LateRequests, TroubleMet } from './model.ts';

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

/**
 * "conformant: run notification JSON, merge JSON, submission delete, demerge succeeded",
 * "not conformant: 3 gating violations of 2 checks; demerge never sent".
 */
export function clientVerdictText(verdict: ClientReport['verdict'], gating: number, checks: number, observed: number, coverage: ClientCoverage): string {
  if (verdict === 'incomplete') return 'incomplete: the client sent no request the sandbox judges, so the session shows nothing of it (no certificate)';
  if (verdict === 'not conformant') {
    const reasons = [...(gating > 0 ? [`${plural(gating, 'gating violation')} of ${plural(checks, 'check')}`] : []), ...(coverage.missing.length > 0 ? [missingText(coverage)] : [])];
    return `not conformant: ${reasons.join('; ')}`;
  }
  const done = `conformant: ${succeededText(coverage)} succeeded`;
  return observed > 0 ? `${done} (${plural(observed, 'observation')} on open points)` : done;
}

/** The client report of a session: verdict, tallies, findings, trouble met. The findings are already redacted. */
export function buildClientReport(input: ClientReportInput): ClientReport {
  const { checks, groups } = input.findings.tallies();
  const coverage = clientCoverage(input.cells, input.declared);
  // Conformant means it worked: no gating violation, and every declared operation succeeded.
  const verdict: ClientReport['verdict'] = checks.gatingFailures > 0 ? 'not conformant' : input.judged === 0 ? 'incomplete' : coverage.missing.length > 0 ? 'not conformant' : 'conformant';
  const gatingChecks = new Set(input.findings.violations.filter((v) => v.gating).map((v) => v.check)).size;
  const verdictText = clientVerdictText(verdict, checks.gatingFailures, gatingChecks, checks.observed, coverage);
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
