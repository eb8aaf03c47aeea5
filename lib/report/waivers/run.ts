import { utcDay } from './apply.ts';
import { loadWaivers } from './load.ts';
import type { WaiverSet } from './types.ts';

/**
 * The UTC day a run's waivers are judged against: the day the run started (the run context the global
 * setup hands every worker), so that a run crossing midnight judges every test alike.
 */
export function runDay(startedAt: string | undefined, now: Date = new Date()): string {
  const started = startedAt ? new Date(startedAt) : undefined;
  return utcDay(started && !Number.isNaN(started.getTime()) ? started : now);
}

const cache = new Map<string, WaiverSet>();

/** The run's waivers file (ISWC_WAIVERS), loaded once per process; undefined when none is set. */
export function runWaivers(file: string | undefined): WaiverSet | undefined {
  if (file === undefined) return undefined;
  let set = cache.get(file);
  if (!set) {
    set = loadWaivers(file);
    cache.set(file, set);
  }
  return set;
}
