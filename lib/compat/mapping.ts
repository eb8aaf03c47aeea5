import type { OperationId } from '../contract/operations.ts';
import type { DemergeEntry, DisposableKind, MergeEntry, SubmissionEntry, TargetProfile } from '../contract/profile/types.ts';
import type { RequestView } from '../check/client/types.ts';

/**
 * A request that changes data (merge, demerge, submission delete) is replayed only on data the target
 * profile marks disposable: its identifiers (ISWCs, agency, work codes, source database) are replaced by
 * those of one disposable entry of its kind, never given twice (merges for a merge, demerges for a demerge,
 * submissions for a delete). What the recorded answer says decides how: a success, a refusal of the key
 * (401, 403) or of the request's form (415, 405, …) goes onto the entry as it is; a 404 (not found) names
 * an ISWC the profile lists as unknown instead of the entry's preferred one. A request the contract
 * refuses a value of, or refused for a reason that depends on the recorded environment's data (a 400 with
 * values the contract accepts), or whose body does not parse, is not replayed: no disposable entry stands
 * in for it, and a lenient build could read its value as existing data.
 */

export const DESTRUCTIVE: ReadonlySet<OperationId> = new Set(['mergeIswcMetadata', 'demergeIswcMetadata', 'deleteSubmission']);

export const KIND_OF: Partial<Record<OperationId, DisposableKind>> = { mergeIswcMetadata: 'merges', demergeIswcMetadata: 'demerges', deleteSubmission: 'submissions' };

/** The identifiers of one replayed request: the recorded value → the one sent. */
export interface Mapping {
  kind: DisposableKind;
  /** The entry's index in the profile's list. */
  index: number;
  values: Map<string, string>;
  /** Query parameters whose value is replaced, by name. */
  query: Map<string, string>;
}

export type MappingResult = { ok: true; mapping: Mapping } | { ok: false; reason: string };

/** Hands out disposable entries, each once, the first that fits. */
export class EntryPool {
  private readonly used: Record<DisposableKind, Set<number>> = { merges: new Set(), demerges: new Set(), submissions: new Set() };
  constructor(readonly profile: TargetProfile) {}

  take(kind: DisposableKind, fits: (entry: unknown) => boolean): { index: number; entry: unknown } | { index: -1; free: number; total: number } {
    const list = this.profile[kind] as readonly unknown[];
    for (let i = 0; i < list.length; i++) {
      if (this.used[kind].has(i) || !fits(list[i])) continue;
      this.used[kind].add(i);
      return { index: i, entry: list[i] };
    }
    return { index: -1, free: list.length - this.used[kind].size, total: list.length };
  }
}

function addValue(values: Map<string, string>, from: string | undefined, to: string): string | undefined {
  if (from === undefined || from === '') return undefined;
  const known = values.get(from);
  if (known !== undefined && known !== to) return `it names ${JSON.stringify(from)} in two places that map onto different data (${known}, ${to})`;
  values.set(from, to);
  return undefined;
}

function strings(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [];
}

function works(value: unknown): Array<{ agencyCode?: string; agencyWorkCode?: string }> {
  if (!Array.isArray(value)) return [];
  return value.map((w) => (w !== null && typeof w === 'object' ? (w as Record<string, unknown>) : {})).map((w) => ({ ...(typeof w.agencyCode === 'string' ? { agencyCode: w.agencyCode } : {}), ...(typeof w.agencyWorkCode === 'string' ? { agencyWorkCode: w.agencyWorkCode } : {}) }));
}

export interface MappingInput {
  operation: OperationId;
  view: RequestView;
  /** The recorded status; null when the client met no answer. */
  status: number | null;
  /** Values the contract refuses, in words (from the shape), empty when none. */
  refused: readonly string[];
  /** Query parameters whose value the contract refuses. */
  refusedQuery: readonly string[];
}

/** Maps a destructive request onto one disposable entry of the pool, or says why it cannot be replayed. */
export function mapOntoEntry(input: MappingInput, pool: EntryPool): MappingResult {
  const { operation, view, status } = input;
  const kind = KIND_OF[operation];
  if (kind === undefined) return { ok: false, reason: 'not an operation that changes data' };
  if (input.refused.length > 0 || input.refusedQuery.length > 0) {
    return { ok: false, reason: `it carries a value the contract refuses (${[...input.refused, ...input.refusedQuery].join(', ')}): a lenient build could read it as existing data, and no disposable entry stands in for it` };
  }
  if (status !== null && status >= 400 && ![401, 403, 404].includes(status) && status !== 405 && status !== 406 && status !== 413 && status !== 415) {
    return { ok: false, reason: `it was refused (${status}) with values the contract accepts: a refusal that depends on the recorded environment's data, which disposable entries do not reproduce` };
  }
  const q = (name: string): string | undefined => view.query.find((p) => p.name === name)?.value;
  const notFound = status === 404;
  const profile = pool.profile;
  const unknown = profile.unknownIswcs[0];
  if (notFound && unknown === undefined) return { ok: false, reason: 'it was answered 404 and the target profile lists no unknown ISWC (unknownIswcs) to name instead' };
  const values = new Map<string, string>();
  const query = new Map<string, string>();
  const problems: string[] = [];
  const set = (name: string, to: string): void => {
    const recorded = q(name);
    if (recorded === undefined) return;
    query.set(name, to);
    const p = addValue(values, recorded, to);
    if (p) problems.push(p);
  };
  if (kind === 'merges') {
    if (view.bodyBytes > 0 && !view.parsed?.ok) return { ok: false, reason: 'its body does not parse: its identifiers cannot be mapped onto a disposable entry' };
    const body = view.parsed?.ok && view.parsed.value !== null && typeof view.parsed.value === 'object' ? (view.parsed.value as Record<string, unknown>) : {};
    const iswcs = strings(body.iswcs);
    const agencyWorks = works(body.agencyWorks);
    const taken = pool.take('merges', (e) => ((e as MergeEntry).iswcs?.length ?? 0) >= iswcs.length && ((e as MergeEntry).agencyWorks?.length ?? 0) >= agencyWorks.length);
    if (taken.index < 0) {
      const t = taken as { free: number; total: number };
      return { ok: false, reason: `no disposable merge entry left with ${iswcs.length} or more iswcs and ${agencyWorks.length} or more agencyWorks (the target profile's merges: ${t.total}, ${t.free} unused)` };
    }
    const entry = (taken as { entry: MergeEntry }).entry;
    set('preferredIswc', notFound && unknown !== undefined ? unknown : entry.preferredIswc);
    set('agency', profile.agency);
    iswcs.forEach((v, i) => {
      const p = addValue(values, v, entry.iswcs?.[i] ?? v);
      if (p) problems.push(p);
    });
    agencyWorks.forEach((w, i) => {
      const to = entry.agencyWorks?.[i];
      if (!to) return;
      for (const p of [addValue(values, w.agencyCode, to.agencyCode), addValue(values, w.agencyWorkCode, to.agencyWorkCode)]) if (p) problems.push(p);
    });
    if (problems.length > 0) return { ok: false, reason: problems[0] ?? '' };
    return { ok: true, mapping: { kind, index: taken.index, values, query } };
  }
  const taken = pool.take(kind, () => true);
  if (taken.index < 0) return { ok: false, reason: `no disposable ${kind === 'demerges' ? 'demerge' : 'submission'} entry left (the target profile's ${kind}: ${(taken as { total: number }).total}, all given)` };
  if (kind === 'demerges') {
    const entry = (taken as { entry: DemergeEntry }).entry;
    set('preferredIswc', notFound && unknown !== undefined ? unknown : entry.preferredIswc);
    set('agency', entry.agency);
    set('workcode', entry.workcode);
  } else {
    const entry = (taken as { entry: SubmissionEntry }).entry;
    set('preferredIswc', notFound && unknown !== undefined ? unknown : entry.preferredIswc);
    set('agency', entry.agency);
    set('workcode', entry.workcode);
    set('sourceDb', String(entry.sourceDb));
  }
  if (problems.length > 0) return { ok: false, reason: problems[0] ?? '' };
  return { ok: true, mapping: { kind, index: taken.index, values, query } };
}

/** The body with each mapped value replaced where it stands as a whole value (a JSON string, an XML element's or attribute's text), in one pass. */
export function mapBody(text: string, values: ReadonlyMap<string, string>): string {
  const forms = new Map<string, string>();
  for (const [from, to] of values) {
    if (from === to) continue;
    forms.set(JSON.stringify(from), JSON.stringify(to));
    forms.set(`>${from}<`, `>${to}<`);
    forms.set(`="${from}"`, `="${to}"`);
  }
  if (forms.size === 0) return text;
  const pattern = new RegExp([...forms.keys()].sort((a, b) => b.length - a.length).map((f) => f.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('|'), 'g');
  return text.replace(pattern, (m) => forms.get(m) ?? m);
}

/** The raw query with the named parameters' values replaced (encoded), every other pair as it was sent; parameters named in `drop` left out. */
export function mapQuery(raw: string, replace: ReadonlyMap<string, string>, drop: (name: string) => boolean): string {
  return raw
    .split('&')
    .filter((part) => part !== '')
    .flatMap((part) => {
      const eq = part.indexOf('=');
      const rawName = eq < 0 ? part : part.slice(0, eq);
      let name = rawName;
      try {
        name = decodeURIComponent(rawName.replace(/\+/g, ' '));
      } catch {
        name = rawName;
      }
      if (drop(name)) return [];
      const to = replace.get(name);
      return [to === undefined ? part : `${rawName}=${encodeURIComponent(to)}`];
    })
    .join('&');
}
