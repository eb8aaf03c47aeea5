import type { FieldConstraint } from '../lib/contract/constraints.ts';
import { fieldConstraints, isLimited, namesOnlySubmitter } from '../lib/contract/constraints.ts';
import type { NormalisationId } from '../lib/contract/normalisations.ts';
import { faultyNormalisationsFor, normalise } from '../lib/contract/normalisations.ts';
import type { OperationId } from '../lib/contract/operations.ts';
import { operation, operations } from '../lib/contract/operations.ts';
import { resourceSchema } from '../lib/contract/constraints.ts';
import { deref } from '../lib/contract/openapi.ts';

/**
 * Lenient fault families (issue 28): servers that normalise a value before they check it and look data up,
 * and act on what they find. They are derived from `schemas/`, never written one by one:
 *
 * - `lenient.<operation>.<field>.<normalisation>`: for every field with a stated limit or pattern (body and
 *   query, every operation), one fault for each normalisation of lib/contract/normalisations.ts that applies
 *   to its constraint (a work code cut to its 20 characters, an ISWC trimmed, a sourceDb in full-width digits
 *   read as one, …);
 * - `partial.<operation>.<list>.<how>`: for every list of a request body, a server that processes only the
 *   first item, only the last, or the first two (the others are dropped before they are checked, looked up
 *   or merged);
 * - `lenient.key.<how>`: the subscription key compared loosely (a longer one cut to its length, a prefix of
 *   it, all but its last character, its separators stripped, its tail).
 *
 * Every one breaks a limit or a pattern the document states, a list it carries, or the key (sections 2, 4,
 * 5, 8): a value outside its constraint names nothing the document lets a server act on. Legitimate readings
 * of values within their constraint (a database collation comparing without case) are choices
 * (server/choices.ts). The merge's query agency is left out: it names the submitter, and no limit is demanded
 * of it (docs/readings.md, "Characters").
 */

export const OPERATION_SHORT: Record<OperationId, string> = { notifyAgentRun: 'run', mergeIswcMetadata: 'merge', deleteSubmission: 'delete', demergeIswcMetadata: 'demerge' };

/** The list-processing faults: which items of a list a server reads. */
export const PARTIAL_KINDS = ['first-only', 'last-only', 'first-2'] as const;
export type PartialKind = (typeof PARTIAL_KINDS)[number];

/** How a server compares the key loosely (normalisations that apply to a secret compared whole). */
export const KEY_LENIENCIES = ['truncate', 'prefix', 'last-char', 'strip-separators', 'suffix'] as const;
export type KeyLeniency = (typeof KEY_LENIENCIES)[number];

export type LenientFaultId = `lenient.${string}` | `partial.${string}`;

interface FamilyBase {
  id: LenientFaultId;
  level: 'spec';
  section: string;
  description: string;
}

export type LenientFault =
  | (FamilyBase & { family: 'field'; constraint: FieldConstraint; normalisation: NormalisationId })
  | (FamilyBase & { family: 'list'; operation: OperationId; list: string; kind: PartialKind })
  | (FamilyBase & { family: 'key'; leniency: KeyLeniency });

/** `agencyWorks[].agencyWorkCode` -> `agencyWorks.agencyWorkCode`, `iswcs[]` -> `iswcs`. */
export const fieldSlug = (field: string): string => field.replace(/\[\]/g, '');

const where = (c: FieldConstraint): string => `${operation(c.operation).summary}: ${c.location === 'query' ? 'query' : 'body field'} ${c.field}`;

/** Fields whose stated limit the document demands (the merge's query agency names the submitter only). */
export function familyFields(): FieldConstraint[] {
  return fieldConstraints().filter((c) => isLimited(c) && !namesOnlySubmitter(c));
}

function fieldFaults(): LenientFault[] {
  // A reading of the same value where the field's limit is not stated is no fault (faultyNormalisationsFor).
  return familyFields().flatMap((c) =>
    faultyNormalisationsFor(c).map(
      (n): LenientFault => ({
        id: `lenient.${OPERATION_SHORT[c.operation]}.${fieldSlug(c.field)}.${n.id}`,
        level: 'spec',
        section: c.sections.join(', '),
        description: `${where(c)} is ${n.does(c)}: a value outside its constraint that reads as one the server holds is acted on as that one.`,
        family: 'field',
        constraint: c,
        normalisation: n.id,
      }),
    ),
  );
}

/** Every array of a request body, by its field path: the lists a request carries. */
export function bodyLists(): Array<{ operation: OperationId; list: string; sections: string[] }> {
  const out: Array<{ operation: OperationId; list: string; sections: string[] }> = [];
  for (const op of operations()) {
    if (!op.body) continue;
    for (const [name, raw] of Object.entries(resourceSchema(op.body.resource).properties ?? {})) {
      if (deref(raw).type === 'array') out.push({ operation: op.id, list: name, sections: [op.section] });
    }
  }
  return out;
}

const PARTIAL_TEXT: Record<PartialKind, string> = {
  'first-only': 'only its first item',
  'last-only': 'only its last item',
  'first-2': 'only its first two items',
};

function listFaults(): LenientFault[] {
  return bodyLists().flatMap(({ operation: opId, list, sections }) =>
    PARTIAL_KINDS.map(
      (kind): LenientFault => ({
        id: `partial.${OPERATION_SHORT[opId]}.${list}.${kind}`,
        level: 'spec',
        section: [...new Set(['2.3', ...sections])].join(', '),
        description: `${operation(opId).summary}: of the list ${list} the server reads ${PARTIAL_TEXT[kind]}; the others are dropped before they are checked, looked up or acted on, and the request succeeds.`,
        family: 'list',
        operation: opId,
        list,
        kind,
      }),
    ),
  );
}

const KEY_TEXT: Record<KeyLeniency, string> = {
  truncate: 'a longer key is cut to the length of the key (a column of its size) and accepted',
  prefix: 'a key the right one starts with is accepted (StartsWith)',
  'last-char': 'the key is compared on all but its last character: one that differs in its last character is accepted',
  'strip-separators': 'the key is compared with its separators (hyphens, spaces) removed: the key with a hyphen inside is accepted',
  suffix: 'the key is compared on its tail (EndsWith, or a scheme such as "Bearer " tolerated): one with a character before the key is accepted',
};

function keyFaults(): LenientFault[] {
  return KEY_LENIENCIES.map((leniency): LenientFault => ({ id: `lenient.key.${leniency}`, level: 'spec', section: '5', description: `Every operation: ${KEY_TEXT[leniency]}.`, family: 'key', leniency }));
}

/** The families, in the order of the docs: fields by operation, lists, the key. */
export const LENIENT_FAULTS: readonly LenientFault[] = [...fieldFaults(), ...listFaults(), ...keyFaults()];

const BY_ID = new Map(LENIENT_FAULTS.map((f) => [f.id, f]));

export function isLenientFaultId(id: string): id is LenientFaultId {
  return BY_ID.has(id as LenientFaultId);
}

export function lenientFault(id: string): LenientFault | undefined {
  return BY_ID.get(id as LenientFaultId);
}

/** The family faults among a server's faults, by kind. */
export interface ActiveFamilies {
  fields: Array<Extract<LenientFault, { family: 'field' }>>;
  lists: Array<Extract<LenientFault, { family: 'list' }>>;
  key: Array<Extract<LenientFault, { family: 'key' }>>;
}

export function activeFamilies(ids: Iterable<string>): ActiveFamilies {
  const out: ActiveFamilies = { fields: [], lists: [], key: [] };
  for (const id of ids) {
    const f = lenientFault(id);
    if (f?.family === 'field') out.fields.push(f);
    else if (f?.family === 'list') out.lists.push(f);
    else if (f?.family === 'key') out.key.push(f);
  }
  return out;
}

/** What a server holds of the kind of value a field names: what prefix and LIKE matching search. */
export type StoredOf = (c: FieldConstraint) => readonly string[];

/** Replaces every value at a field path (`agencyWorks[].agencyCode`) by what `f` makes of it. */
function mapField(value: unknown, path: readonly string[], f: (leaf: unknown) => unknown): unknown {
  const [head, ...rest] = path;
  if (head === undefined) return f(value);
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return value;
  const isArray = head.endsWith('[]');
  const name = isArray ? head.slice(0, -2) : head;
  const record = value as Record<string, unknown>;
  if (!(name in record)) return value;
  const child = record[name];
  if (isArray) return Array.isArray(child) ? { ...record, [name]: child.map((item) => mapField(item, rest, f)) } : value;
  return { ...record, [name]: mapField(child, rest, f) };
}

/** The items of a list a partial fault keeps. */
function keep<T>(items: readonly T[], kind: PartialKind): T[] {
  if (kind === 'first-only') return items.slice(0, 1);
  if (kind === 'last-only') return items.slice(-1);
  return items.slice(0, 2);
}

/**
 * A decoded body as a server with these family faults reads it, before anything checks it: each field a
 * fault names normalised, each list a fault names cut to the items it reads.
 */
export function lenientBody(families: ActiveFamilies, opId: OperationId, value: unknown, stored: StoredOf): unknown {
  let out = value;
  for (const f of families.lists) {
    if (f.operation !== opId || out === null || typeof out !== 'object' || Array.isArray(out)) continue;
    const items = (out as Record<string, unknown>)[f.list];
    if (Array.isArray(items)) out = { ...(out as Record<string, unknown>), [f.list]: keep(items, f.kind) };
  }
  for (const f of families.fields) {
    const c = f.constraint;
    if (c.operation !== opId || c.location !== 'body') continue;
    out = mapField(out, c.field.split('.'), (leaf) => normalise(f.normalisation, leaf, c, stored(c)));
  }
  return out;
}

/** A query value as a server with these family faults reads it (text, as a query carries it). */
export function lenientQueryValue(families: ActiveFamilies, opId: OperationId, name: string, value: string, stored: StoredOf): string {
  let out = value;
  for (const f of families.fields) {
    const c = f.constraint;
    if (c.operation !== opId || c.location !== 'query' || c.field !== name) continue;
    out = String(normalise(f.normalisation, out, c, stored(c)));
  }
  return out;
}

/** Does a key that is not the right one pass a loose comparison of these faults? */
export function keyPassesLoosely(families: ActiveFamilies, given: string, key: string): boolean {
  const codePoints = (s: string): string[] => Array.from(s);
  const strip = (s: string): string => s.replace(/[-\s]/g, '');
  return families.key.some(({ leniency }) => {
    switch (leniency) {
      case 'truncate':
        return codePoints(given).length > codePoints(key).length && codePoints(given).slice(0, codePoints(key).length).join('') === key;
      case 'prefix':
        return given.length > 0 && given.length < key.length && key.startsWith(given);
      case 'last-char':
        return codePoints(given).length === codePoints(key).length && codePoints(given).slice(0, -1).join('') === codePoints(key).slice(0, -1).join('');
      case 'strip-separators':
        return strip(given) === strip(key);
      case 'suffix':
        return codePoints(given).length > codePoints(key).length && codePoints(given).slice(-codePoints(key).length).join('') === key;
    }
    return false;
  });
}

/** The families per field and per list, counted (docs/reference-server.md). */
export function familyTable(): string {
  const rows: string[] = [];
  for (const c of familyFields()) {
    const ids = LENIENT_FAULTS.filter((f) => f.family === 'field' && f.constraint.id === c.id).map((f) => (f.family === 'field' ? f.normalisation : ''));
    rows.push(`| ${operation(c.operation).method} ${operation(c.operation).path} | ${c.location} \`${c.field}\` | ${describe(c)} | ${ids.length} | ${ids.map((n) => `\`${n}\``).join(', ')} |`);
  }
  for (const c of fieldConstraints().filter((x) => !familyFields().includes(x))) {
    const why = namesOnlySubmitter(c) ? 'none: it names the submitter, and no limit is demanded of it (docs/readings.md, "Characters")' : 'none: no limit or pattern is stated for it';
    rows.push(`| ${operation(c.operation).method} ${operation(c.operation).path} | ${c.location} \`${c.field}\` | ${isLimited(c) ? describe(c) : 'none stated'} | 0 | ${why} |`);
  }
  for (const { operation: opId, list } of bodyLists()) rows.push(`| ${operation(opId).method} ${operation(opId).path} | list \`${list}\` | items of a request | ${PARTIAL_KINDS.length} | ${PARTIAL_KINDS.map((k) => `\`${k}\``).join(', ')} |`);
  rows.push(`| every operation | the subscription key | compared whole (5) | ${KEY_LENIENCIES.length} | ${KEY_LENIENCIES.map((k) => `\`${k}\``).join(', ')} |`);
  return ['| operation | field | constraint | faults | normalisations |', '|---|---|---|---|---|', ...rows, '', `${LENIENT_FAULTS.length} family faults; ids \`lenient.<operation>.<field>.<normalisation>\`, \`partial.<operation>.<list>.<how>\`, \`lenient.key.<how>\` (\`--list-faults\` lists each with its description).`].join('\n');
}

function describe(c: FieldConstraint): string {
  if (c.pattern !== undefined) return `pattern \`${c.pattern}\``;
  if (c.type === 'integer') return 'int32';
  if (c.minLength !== undefined && c.minLength === c.maxLength) return `exactly ${c.maxLength} characters`;
  return `at most ${c.maxLength} characters`;
}
