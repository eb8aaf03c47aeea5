import { CHECK_FILES } from './registry.generated.ts';
import type { Check } from './types.ts';

/**
 * Every check of the harness, one file each in lib/check/checks/, listed by the generated
 * registry.generated.ts (npm run generate). Duplicate ids and checks without a section are refused at load.
 */
function indexById(checks: ReadonlyArray<Check<never>>): Map<string, Check<never>> {
  const byId = new Map<string, Check<never>>();
  for (const check of checks) {
    if (byId.has(check.id)) throw new Error(`Duplicate check id ${check.id}`);
    if (check.sections.length === 0) throw new Error(`Check ${check.id} names no section`);
    byId.set(check.id, check);
  }
  return byId;
}

const BY_ID = indexById(CHECK_FILES);

/** Every check, in report order. */
export function allChecks(): ReadonlyArray<Check<never>> {
  return CHECK_FILES;
}

export function checkById(id: string): Check<never> {
  const check = BY_ID.get(id);
  if (!check) throw new Error(`Unknown check ${id}`);
  return check;
}

export function everyExchangeChecks(): ReadonlyArray<Check<never>> {
  return CHECK_FILES.filter((c) => c.scope === 'every-exchange');
}
