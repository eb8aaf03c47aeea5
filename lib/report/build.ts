import type { CheckExecution } from '../checks/types.ts';
import { gating } from '../engine/config.ts';
import type { ConformanceReport, RunMeta } from './model.ts';
import { sortExecutions, tallyByLevel } from './model.ts';
import { HARNESS_VERSION, documentDigest, safeBaseUrl, schemasDigest } from './meta.ts';

export interface RunStats {
  requests: number;
  retries: number;
  waitedMs: number;
}

export interface BuildInput {
  executions: CheckExecution[];
  stats: RunStats;
  baseUrl: string | undefined;
  embedded: boolean;
  profile: string;
  seed: number | null;
  runs: number;
  strict: boolean;
  destructive: boolean;
  startedAt: Date;
  finishedAt: Date;
}

/**
 * The one place a run becomes a ConformanceReport: the reporter (live or from merged blob reports) and
 * the tests that build fixture reports in-process all call it, so every writer sees the same verdicts.
 * When no base URL is known (a merge of blob reports in another process) it is taken from the first
 * recorded exchange, reduced to scheme, host and path.
 */
export function buildConformanceReport(input: BuildInput): ConformanceReport {
  const executions = sortExecutions([...input.executions]);
  const byLevel = tallyByLevel(executions);
  const gatingFailures = executions.filter((e) => e.verdict === 'fail' && gating(e.level, input.strict)).length;
  let baseUrl = safeBaseUrl(input.baseUrl);
  if (baseUrl === null) {
    const url = executions.find((e) => e.exchange)?.exchange?.request.url;
    if (url) {
      try {
        baseUrl = safeBaseUrl(new URL(url).origin);
      } catch {
        baseUrl = null;
      }
    }
  }
  const meta: RunMeta = {
    harnessVersion: HARNESS_VERSION,
    documentDigest: documentDigest(),
    schemasDigest: schemasDigest(),
    baseUrl,
    embedded: input.embedded,
    profile: input.profile,
    seed: input.seed,
    runs: input.runs,
    strict: input.strict,
    destructive: input.destructive,
    startedAt: input.startedAt.toISOString(),
    finishedAt: input.finishedAt.toISOString(),
    requests: input.stats.requests,
    retries: input.stats.retries,
    waitedMs: input.stats.waitedMs,
  };
  return { meta, summary: { byLevel, gatingFailures, verdict: gatingFailures === 0 ? 'conformant' : 'not conformant' }, executions };
}

/** Stable identity of an execution across runs: what the diff and the merge test key on. */
export function executionKey(e: Pick<CheckExecution, 'caseId' | 'format' | 'step' | 'checkId'>): string {
  return `${e.caseId}\u0001${e.format}\u0001${e.step}\u0001${e.checkId}`;
}
