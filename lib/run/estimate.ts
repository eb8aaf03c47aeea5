import type { PlanName } from './budget.ts';
import { choose, estimatedRequests } from './budget.ts';
import { applyChoice } from './plan.ts';
import type { PlannedCase } from './planned.ts';

/**
 * How long a run will take at its rate, and what costs less: what the plan command prints, and what a
 * run prints before it starts when it would take long.
 */

/** A run estimated over this long prints its estimate and the cheaper choices before it starts. */
export const LONG_RUN_SECONDS = 15 * 60;

/** A duration for people: `40 s`, `12 min`, `3.9 h`. */
export function humanDuration(seconds: number): string {
  return seconds >= 3600 ? `${(seconds / 3600).toFixed(1)} h` : seconds >= 60 ? `${Math.ceil(seconds / 60)} min` : `${Math.ceil(seconds)} s`;
}

/** Requests the cases that run are estimated to send (each generated case at its plan's runs, or `runs`). */
export function plannedRequests(planned: readonly PlannedCase[], runs: number): number {
  return planned.filter((p) => !p.skipReason).reduce((n, p) => n + estimatedRequests(p, p.runs ?? runs), 0);
}

export interface RunChoice {
  plan: PlanName;
  budget: number | undefined;
  runs: number;
  destructive: boolean;
  /** Requests per second, or null for no limit. */
  rate: number | null;
}

/**
 * When the run is estimated over LONG_RUN_SECONDS at its rate: the estimate and the cheaper choices
 * (--smoke with its requests and time, --budget N that fits in the limit, --max-duration); else nothing.
 */
export function longRunNotice(planned: readonly PlannedCase[], choice: RunChoice): string[] {
  if (choice.rate === null) return [];
  const requests = plannedRequests(planned, choice.runs);
  const seconds = requests / choice.rate;
  if (seconds <= LONG_RUN_SECONDS) return [];
  const lines = [`  estimated ${requests} requests at ${choice.rate.toFixed(3)} requests/s: about ${humanDuration(seconds)}. Cheaper choices:`];
  if (choice.plan === 'full' && choice.budget === undefined) {
    // The smoke plan of the same cases (those the plan left out for other reasons stay out).
    const runnable = planned.map((p) => ({ ...p }));
    const smoke = choose(runnable, { plan: 'smoke', budget: undefined, runs: choice.runs, destructive: choice.destructive });
    // As the smoke plan itself counts them: a case it takes in part sends only those parts.
    applyChoice(runnable, smoke, 'not in the smoke plan', 'smoke plan');
    const smokeRequests = plannedRequests(runnable, choice.runs);
    lines.push(`    --smoke          ${smokeRequests} requests, about ${humanDuration(smokeRequests / choice.rate)}: every spec check once, and every fault of the catalogue this mode can catch`);
  }
  const fits = Math.floor(LONG_RUN_SECONDS * choice.rate);
  if (fits >= 1) lines.push(`    --budget ${fits}`.padEnd(21) + `at most ${fits} requests, about ${humanDuration(fits / choice.rate)}: the cases that catch the most per request first`);
  lines.push(`    --max-duration 15m  stops sending in time and reports a partial run`);
  return lines;
}
