import { CLIENT_CHECK_FILES } from './registry.generated.ts';
import type { ClientCheck } from './types.ts';

/**
 * Every client check, one file each in lib/check/client/checks/, listed by the generated
 * registry.generated.ts (npm run generate). Duplicate ids, ids outside `client.`, checks without a section
 * and checks that judge nothing are refused at load.
 */
function indexById(checks: readonly ClientCheck[]): Map<string, ClientCheck> {
  const byId = new Map<string, ClientCheck>();
  for (const check of checks) {
    if (byId.has(check.id)) throw new Error(`Duplicate client check id ${check.id}`);
    if (!check.id.startsWith('client.')) throw new Error(`Client check ${check.id}: ids start with "client."`);
    if (check.sections.length === 0) throw new Error(`Client check ${check.id} names no section`);
    if (!check.judge && !check.conclude && !check.compare) throw new Error(`Client check ${check.id} judges nothing (no judge, conclude or compare)`);
    if (check.compare && check.level !== 'observed') throw new Error(`Client check ${check.id}: a check that compares with production as built only records (level observed)`);
    byId.set(check.id, check);
  }
  return byId;
}

const BY_ID = indexById(CLIENT_CHECK_FILES);

/** Every client check, in report order. */
export function allClientChecks(): readonly ClientCheck[] {
  return CLIENT_CHECK_FILES;
}

export function clientCheckById(id: string): ClientCheck {
  const check = BY_ID.get(id);
  if (!check) throw new Error(`Unknown client check ${id}`);
  return check;
}

export function isClientCheckId(id: string): boolean {
  return BY_ID.has(id);
}
