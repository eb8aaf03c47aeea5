import { documentDigest, HARNESS_VERSION, schemasDigest } from '../meta.ts';
import type { ClientFindings } from './collect.ts';
import type { ClientReport, TroubleMet } from './model.ts';

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
}

/** "conformant", "conformant (2 observations)", "not conformant: 3 violations of 2 checks". */
export function clientVerdictText(verdict: ClientReport['verdict'], gating: number, checks: number, observed: number): string {
  if (verdict === 'incomplete') return 'incomplete: the client sent no request the sandbox judges, so the session shows nothing of it (no certificate)';
  if (verdict === 'not conformant') return `not conformant: ${gating} gating violation${gating === 1 ? '' : 's'} of ${checks} check${checks === 1 ? '' : 's'}`;
  return observed > 0 ? `conformant (${observed} observation${observed === 1 ? '' : 's'} on open points)` : 'conformant';
}

/** The client report of a session: verdict, tallies, findings, trouble met. The findings are already redacted. */
export function buildClientReport(input: ClientReportInput): ClientReport {
  const { checks, groups } = input.findings.tallies();
  const verdict: ClientReport['verdict'] = checks.gatingFailures > 0 ? 'not conformant' : input.judged === 0 ? 'incomplete' : 'conformant';
  const gatingChecks = new Set(input.findings.violations.filter((v) => v.gating).map((v) => v.check)).size;
  const verdictText = clientVerdictText(verdict, checks.gatingFailures, gatingChecks, checks.observed);
  return {
    kind: 'iswc-conformance-client-report',
    reportVersion: 1,
    verdict,
    verdictText: input.defect === null ? verdictText : `${verdictText}, of the requests judged before an internal error of the sandbox ended the session`,
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
    trouble: input.trouble,
    runs: input.runs,
    ...(input.defect === null ? {} : { defect: input.defect }),
  };
}
