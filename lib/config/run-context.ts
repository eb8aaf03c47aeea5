/**
 * What the global setup decided for a run, handed to every worker and reporter in one environment
 * variable (Playwright starts workers as processes of their own): the target actually used (the embedded
 * server's URL when none was given), the seed, when the run started, the breaker file, the plan computed
 * once for the whole run and the engine that runs the cases.
 */
export interface RunContext {
  baseUrl: string;
  /** The harness started the embedded reference server for this run. */
  embedded: boolean;
  seed: number;
  /** ISO time the run started (waivers are judged on its UTC day). */
  startedAt: string;
  /** Shared by every client of the run: once the target is found unresponsive, no worker waits on it again. */
  breakerFile: string;
  /** The run's plan (lib/run/plan-file.ts), computed once by the global setup. */
  planFile?: string;
  /** The run's engine (lib/engine/service.ts): the tests ask it to run their cases. */
  engineUrl?: string;
  /** Keeps other local processes from driving the engine; not a secret of the target. */
  engineToken?: string;
}

export const RUN_CONTEXT_VARIABLE = 'ISWC_RUN_CONTEXT';

/** The run context of this process, or undefined outside a run the global setup prepared. */
export function runContext(env: Readonly<Record<string, string | undefined>> = process.env): RunContext | undefined {
  const text = env[RUN_CONTEXT_VARIABLE];
  return text ? (JSON.parse(text) as RunContext) : undefined;
}
