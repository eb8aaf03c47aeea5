import type { FieldConstraint } from '../lib/contract/constraints.ts';
import { fieldConstraints } from '../lib/contract/constraints.ts';
import type { ResourceName } from '../lib/contract/json-schema.ts';
import type { SchemaNode } from '../lib/contract/openapi.ts';
import { deref, openApi } from '../lib/contract/openapi.ts';
import type { OperationId } from '../lib/contract/operations.ts';
import type { SchemaViolation } from '../lib/contract/validators.ts';
import { validateNode, validateResource } from '../lib/contract/validators.ts';
import type { ChoiceSet } from './choices.ts';
import type { FaultSet } from './faults.ts';

/**
 * Validation of bodies and query parameters against the contract, with the limit faults applied.
 *
 * The verdict of record is the contract's own validator (`validateResource` / `validateNode`, Ajv over
 * `schemas/openapi.yaml`), which counts code points. Another reading of "characters" (UTF-16 units,
 * grapheme clusters, NFC: choices) re-counts lengths; a business rule (agency codes of digits: a choice)
 * adds a violation; limit faults waive a violation the contract found (a limit too loose) or add one it
 * did not find (a limit too tight). Fields are recognised by the schema component they use (AgencyCode,
 * AgencyWorkCode, Int32, Iswc), never by a limit typed here.
 */

/** Schema components the faults are stated for. */
const AGENCY_CODE = 'AgencyCode';
const AGENCY_WORK_CODE = 'AgencyWorkCode';
const INT32 = 'Int32';
const ISWC = 'Iswc';

export interface Violation {
  /** Field path (`agencyWorks[].agencyCode`) or query parameter name. */
  field: string;
  keyword: string;
  message: string;
}

const LENGTH = new Set(['minLength', 'maxLength']);
/** Fault `work-code-long-refused`: the work code column is narrower than the document's limit. */
const WORK_CODE_COLUMN = 14;
const RANGE = new Set(['minimum', 'maximum', 'format']);

function codePoints(text: string): number {
  return Array.from(text).length;
}

/** `/agencyWorks/0/agencyCode` -> `agencyWorks[].agencyCode` (the FieldConstraint.field form). */
function fieldOfPointer(pointer: string): string {
  let out = '';
  for (const raw of pointer.split('/').slice(1)) {
    const part = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    if (/^[0-9]+$/.test(part)) out += '[]';
    else out += out ? `.${part}` : part;
  }
  return out;
}

function valueAtPointer(root: unknown, pointer: string): unknown {
  let node = root;
  for (const raw of pointer.split('/').slice(1)) {
    if (node === null || typeof node !== 'object') return undefined;
    const part = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    node = (node as Record<string, unknown>)[part];
  }
  return node;
}

/** Every value found at a field path such as `agencyWorks[].agencyCode` (none when the shape differs). */
function valuesAtField(root: unknown, field: string): unknown[] {
  let nodes: unknown[] = [root];
  for (const segment of field.split('.')) {
    const isArray = segment.endsWith('[]');
    const name = isArray ? segment.slice(0, -2) : segment;
    const next: unknown[] = [];
    for (const node of nodes) {
      if (node === null || typeof node !== 'object' || Array.isArray(node)) continue;
      const child = (node as Record<string, unknown>)[name];
      if (child === undefined) continue;
      if (isArray) {
        if (Array.isArray(child)) next.push(...(child as unknown[]));
      } else {
        next.push(child);
      }
    }
    nodes = next;
  }
  return nodes;
}

function fromSchema(field: string, v: SchemaViolation): Violation {
  return { field, keyword: v.keyword, message: v.message };
}

/** The schema of the Iswc component (the pattern of 2.3), used for `preferredIswc` as well. */
export function iswcSchema(): SchemaNode {
  if (iswcNode === undefined) {
    const node = openApi().components.schemas[ISWC];
    if (!node) throw new Error(`schemas/openapi.yaml lacks the ${ISWC} component`);
    iswcNode = deref(node);
  }
  return iswcNode;
}

/** The contract's ISWC schema, read once: its compiled validator is then found by the node. */
let iswcNode: SchemaNode | undefined;

const graphemes = new Intl.Segmenter('en', { granularity: 'grapheme' });

export class Limits {
  readonly #faults: FaultSet;
  readonly #choices: ChoiceSet;
  readonly #constraints: readonly FieldConstraint[] = fieldConstraints();

  constructor(faults: FaultSet, choices: ChoiceSet) {
    this.#faults = faults;
    this.#choices = choices;
  }

  /** Does this server count characters otherwise than the contract's validator (code points)? */
  #recounts(): boolean {
    const c = this.#choices;
    return c.has('utf16-lengths') || c.has('grapheme-lengths') || c.has('nfc-lengths') || this.#faults.has('length-in-bytes');
  }

  /** The constraint of a body field or query parameter of an operation (throws when the contract lacks it). */
  constraint(operation: OperationId, location: 'body' | 'query', field: string): FieldConstraint {
    const c = this.#constraints.find((x) => x.operation === operation && x.location === location && x.field === field);
    if (!c) throw new Error(`schemas/openapi.yaml: no ${location} field ${field} on ${operation}`);
    return c;
  }

  /** Length as the server counts it: code points, or by its choice UTF-16 units, grapheme clusters or NFC code points (bytes by a fault). */
  length(text: string): number {
    const c = this.#choices;
    // Fault `length-in-bytes`: UTF-8 bytes, which no reading of "characters" counts.
    if (this.#faults.has('length-in-bytes')) return Buffer.byteLength(text, 'utf8');
    if (c.has('utf16-lengths')) return text.length;
    if (c.has('grapheme-lengths')) return [...graphemes.segment(text)].length;
    if (c.has('nfc-lengths')) return codePoints(text.normalize('NFC'));
    return codePoints(text);
  }

  /** Does a "limit too loose" fault waive this violation? */
  #looseWaives(c: FieldConstraint, keyword: string, value: unknown): boolean {
    const f = this.#faults;
    const body = c.location === 'body';
    // Choice `query-limits-not-found`: delete and demerge do not check their query values; nothing matches them.
    if (!body && c.operation !== 'mergeIswcMetadata' && this.#choices.has('query-limits-not-found') && (LENGTH.has(keyword) || RANGE.has(keyword))) return true;
    // Choice `merge-agency-unchecked`: the merge's query agency names the submitter; section 8 limits the body field only.
    if (!body && c.operation === 'mergeIswcMetadata' && c.component === AGENCY_CODE && this.#choices.has('merge-agency-unchecked') && LENGTH.has(keyword)) return true;
    if (LENGTH.has(keyword)) {
      if (c.component === AGENCY_CODE) {
        if (body && c.operation === 'notifyAgentRun' && f.has('run-agency-code-loose')) return true;
        if (body && c.operation === 'mergeIswcMetadata' && f.has('merge-agency-code-loose')) return true;
      }
      if (c.component === AGENCY_WORK_CODE) {
        if (body && f.has('merge-work-code-loose')) return true;
      }
    }
    if (keyword === 'pattern' && body && c.component === ISWC && f.has('merge-iswc-pattern-loose')) return true;
    if (RANGE.has(keyword) && c.component === INT32 && typeof value === 'number') {
      if (body && c.operation === 'notifyAgentRun' && f.has('run-int32-loose') && Number.isSafeInteger(value)) return true;
      if (f.has('int32-off-by-one') && c.maximum !== undefined && value === c.maximum + 1) return true;
      if (f.has('int32-min-loose') && c.minimum !== undefined && value < c.minimum && Number.isSafeInteger(value)) return true;
    }
    return false;
  }

  #waived(c: FieldConstraint, keyword: string, value: unknown): boolean {
    // Counting otherwise, the code-point verdict is dropped and lengths are re-checked in #extra.
    return this.#looseWaives(c, keyword, value) || (LENGTH.has(keyword) && this.#recounts());
  }

  /** Violations the contract does not have but a fault imposes (limits too tight, UTF-16 lengths). */
  #extra(c: FieldConstraint, value: unknown): Violation[] {
    const f = this.#faults;
    const out: Violation[] = [];
    const add = (keyword: string, message: string): void => {
      if (!this.#looseWaives(c, keyword, value)) out.push({ field: c.field, keyword, message });
    };
    if (typeof value === 'string') {
      if (this.#recounts()) {
        const n = this.length(value);
        if (c.maxLength !== undefined && n > c.maxLength) add('maxLength', `must NOT have more than ${c.maxLength} characters`);
        if (c.minLength !== undefined && n < c.minLength) add('minLength', `must NOT have fewer than ${c.minLength} characters`);
      }
      if (f.has('work-code-tight') && c.component === AGENCY_WORK_CODE && c.maxLength !== undefined && this.length(value) > c.maxLength - 1) {
        add('maxLength', `must NOT have more than ${c.maxLength - 1} characters`);
      }
      if (f.has('work-code-long-refused') && c.component === AGENCY_WORK_CODE && this.length(value) >= WORK_CODE_COLUMN + 1) add('maxLength', `must NOT have more than ${WORK_CODE_COLUMN} characters`);
      if (this.#choices.has('agency-code-digits') && c.component === AGENCY_CODE && !/^[0-9]{3}$/.test(value)) add('pattern', 'must be three digits');
    }
    if (typeof value === 'number' && f.has('int32-tight') && c.component === INT32 && (value === c.maximum || value === c.minimum)) {
      add('exclusiveBound', 'must be strictly inside the int32 range');
    }
    return out;
  }

  /** Validates a decoded body against its resource; an empty list means valid. */
  checkBody(operation: OperationId, resource: ResourceName, value: unknown): Violation[] {
    const bodyConstraints = this.#constraints.filter((c) => c.operation === operation && c.location === 'body');
    const byField = new Map(bodyConstraints.map((c) => [c.field, c]));
    const out: Violation[] = [];
    for (const v of validateResource(resource, value)) {
      const field = fieldOfPointer(v.path);
      const c = byField.get(field);
      if (c && this.#waived(c, v.keyword, valueAtPointer(value, v.path))) continue;
      // Fault array-tail-unchecked: the pattern of iswcs items is checked on the first three only.
      if (c?.component === ISWC && v.keyword === 'pattern' && this.#faults.has('array-tail-unchecked') && Number(v.path.split('/').pop()) >= 3) continue;
      out.push(fromSchema(field || '/', v));
    }
    for (const c of bodyConstraints) {
      for (const leaf of valuesAtField(value, c.field)) out.push(...this.#extra(c, leaf));
    }
    return out;
  }

  /** Validates one query value (already converted: sourceDb as a number) against a schema, as field `c`. */
  checkValue(c: FieldConstraint, schema: SchemaNode, value: unknown): Violation[] {
    const out: Violation[] = [];
    for (const v of validateNode(schema, value)) {
      if (!this.#waived(c, v.keyword, value)) out.push(fromSchema(c.field, v));
    }
    out.push(...this.#extra(c, value));
    return out;
  }

  /** Under `fraction-truncated`: integer fields of a body given as fractions are truncated to integers. */
  truncateFractions(operation: OperationId, value: unknown): unknown {
    if (value === null || typeof value !== 'object' || Array.isArray(value)) return value;
    const out: Record<string, unknown> = { ...(value as Record<string, unknown>) };
    for (const c of this.#constraints) {
      if (c.operation !== operation || c.location !== 'body' || c.type !== 'integer' || c.field.includes('.') || c.field.includes('[]')) continue;
      const v = out[c.field];
      if (typeof v === 'string' && /^\s*[+-]?[0-9]+\.[0-9]+\s*$/.test(v)) out[c.field] = Math.trunc(Number(v));
      else if (typeof v === 'number' && Number.isFinite(v) && !Number.isInteger(v)) out[c.field] = Math.trunc(v);
    }
    return out;
  }
}
