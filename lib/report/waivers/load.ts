import { readFileSync } from 'node:fs';
import type { ErrorObject, ValidateFunction } from 'ajv';
import { LineCounter, isNode, parseDocument } from 'yaml';
import type { Document } from 'yaml';
import { allChecks } from '../../check/registry.ts';
import type { Format } from '../../contract/codec/index.ts';
import type { OperationId } from '../../contract/operations.ts';
import { sharedAjv, handWrittenSchema } from '../../contract/validators.ts';
import { shownPath } from '../../foundation/paths.ts';
import type { Waiver, WaiverProblem, WaiverSet } from './types.ts';
import { WAIVERS_SCHEMA, WaiverError } from './error.ts';

// The error and its wording live apart, so that what only needs to tell a user's mistake (the command
// line's main) loads neither Ajv nor the checks' registry.
export { formatWaiverProblem, WAIVERS_SCHEMA, WaiverError } from './error.ts';

let validators: { file: ValidateFunction; entry: ValidateFunction } | undefined;

/** The whole file's schema, and one entry's (so that every entry is judged, each on its own). */
function schemaValidators(): { file: ValidateFunction; entry: ValidateFunction } {
  if (validators) return validators;
  const ajv = sharedAjv();
  const schema = handWrittenSchema(WAIVERS_SCHEMA);
  // The shared instance may hold it already (validateWith of the same file).
  const file = ajv.getSchema(String(schema.$id)) ?? ajv.compile(schema);
  const entry = ajv.getSchema(`${String(schema.$id)}#/$defs/waiver`);
  if (!entry) throw new Error(`schemas/${WAIVERS_SCHEMA} lacks $defs/waiver`);
  validators = { file, entry };
  return validators;
}

const FIELDS = ['check', 'operation', 'format', 'statuses', 'case', 'step', 'code', 'text', 'reason', 'until'];

function messageOf(e: ErrorObject): string {
  const p = e.params as Record<string, unknown>;
  const field = e.instancePath.split('/')[2];
  switch (e.keyword) {
    case 'additionalProperties':
      return `unknown property "${String(p.additionalProperty)}" (a waiver has ${FIELDS.join(', ')})`;
    case 'required':
      if (p.missingProperty === 'statuses') return STATUSES_MISSING;
      return `missing "${String(p.missingProperty)}" (required: check, statuses, reason, until)`;
    case 'enum':
      return `must be one of ${(p.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(', ')}`;
    case 'pattern':
      if (field === 'until') return 'must be a date written YYYY-MM-DD';
      if (field === 'reason') return 'must say why (not blank)';
      return e.message ?? 'does not match';
    case 'minLength':
      return 'must not be empty';
    case 'minItems':
      return 'must name at least one status';
    case 'uniqueItems':
      return 'names a status twice';
    case 'minimum':
    case 'maximum':
      return 'must be an HTTP status (100 to 599)';
    case 'type':
      if (e.instancePath === '') return 'must be a list of waivers (each item "- check: …")';
      if (/^\/\d+$/.test(e.instancePath)) return 'must be a mapping (check, statuses, reason, until; optionally operation, format, case, step, code, text)';
      return `must be a ${String(p.type)}`;
    default:
      return e.message ?? e.keyword;
  }
}

function displayPath(file: string): string {
  return shownPath(file);
}

/** Where a JSON pointer lands in the YAML text, 1-based (the nearest enclosing node that exists). */
function positionOf(doc: Document, lines: LineCounter, pointer: string): { line: number; col: number } | undefined {
  const segments = pointer.split('/').slice(1);
  for (let n = segments.length; n >= 0; n--) {
    const node: unknown = n === 0 ? doc.contents : doc.getIn(segments.slice(0, n).map((s) => (/^\d+$/.test(s) ? Number(s) : s)), true);
    if (isNode(node) && node.range) return lines.linePos(node.range[0]);
  }
  return undefined;
}

/** A real calendar day: 2026-02-29 is not one. */
export function isRealDate(text: string): boolean {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(text)) return false;
  const d = new Date(`${text}T00:00:00Z`);
  return !Number.isNaN(d.getTime()) && d.toISOString().slice(0, 10) === text;
}

/**
 * A waiver written before waivers said what their deviation looks like covered a whole check: refused,
 * saying what to add (CHANGELOG, docs/staging.md#waivers).
 */
export const STATUSES_MISSING =
  'missing "statuses": a waiver now says what the deviation looks like, at least the statuses it answers (add, for example, `statuses: [400]`; where needed `case`, `step`, `code` or `text` too), so that a failure of the same check that looks otherwise still fails. A run without this file shows, under each failing check, what the target answered and in which case (docs/staging.md#waivers)';

interface WaiverSource {
  check: string;
  operation?: OperationId;
  format?: Format;
  statuses: number[];
  case?: string | string[];
  step?: string;
  code?: string;
  text?: string;
  reason: string;
  until: string;
}

/**
 * Parses and checks a waivers file's text: YAML, then schemas/waivers.schema.json, then what the schema
 * cannot say (a known check id that can fail, a real date, no entry repeating another). Throws
 * WaiverError with every problem found. An empty file holds no waivers.
 */
export function parseWaivers(file: string, text: string): WaiverSet {
  const shown = displayPath(file);
  const lines = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lines, prettyErrors: false, uniqueKeys: true });
  const problems: WaiverProblem[] = [];
  const report = (pointer: string, message: string) => {
    const pos = positionOf(doc, lines, pointer);
    const index = /^\/(\d+)/.exec(pointer)?.[1];
    problems.push({ file: shown, path: pointer, message, ...(index !== undefined ? { index: Number(index) } : {}), ...(pos ? { line: pos.line, col: pos.col } : {}) });
  };
  if (doc.errors.length > 0) {
    for (const e of doc.errors) {
      const pos = e.linePos?.[0] ?? lines.linePos(e.pos[0]);
      problems.push({ file: shown, path: '', message: `YAML: ${e.message.split('\n')[0]}`, line: pos.line, col: pos.col });
    }
    throw new WaiverError(shown, problems);
  }
  const value: unknown = doc.toJS({ maxAliasCount: 50 }) ?? [];
  const { file: validFile, entry: validEntry } = schemaValidators();
  if (!Array.isArray(value)) {
    validFile(value);
    for (const e of validFile.errors ?? []) report(e.instancePath, messageOf(e));
    throw new WaiverError(shown, problems);
  }
  const checks = new Map(allChecks().map((c) => [c.id, c]));
  const waivable = allChecks()
    .filter((c) => c.level !== 'observed')
    .map((c) => c.id);
  const seen = new Map<string, number>();
  const waivers: Waiver[] = [];
  (value as unknown[]).forEach((item, index) => {
    const at = `/${index}`;
    if (!validEntry(item)) {
      for (const e of validEntry.errors ?? []) {
        const extra = e.keyword === 'additionalProperties' ? `/${String((e.params as Record<string, unknown>).additionalProperty)}` : '';
        report(`${at}${e.instancePath}${extra}`, messageOf({ ...e, instancePath: `${at}${e.instancePath}` }));
      }
      return;
    }
    const source = item as WaiverSource;
    const check = checks.get(source.check);
    if (!check) report(`${at}/check`, `unknown check id "${source.check}"; known: ${waivable.join(', ')}`);
    else if (check.level === 'observed') report(`${at}/check`, `"${source.check}" is an observed check: it records behaviour and never fails, so there is nothing to waive`);
    if (!isRealDate(source.until)) report(`${at}/until`, `"${source.until}" is not a date of the calendar`);
    const selector = JSON.stringify([source.check, source.operation ?? '*', source.format ?? '*', [...source.statuses].sort(), [source.case ?? '*'].flat().sort(), source.step ?? '*', source.code ?? '*', source.text ?? '*']);
    const earlier = seen.get(selector);
    if (earlier !== undefined) report(at, `waives exactly what entry ${earlier} waives (same check, operation, format, statuses, case, step, code and text): keep one`);
    else seen.set(selector, index);
    const line = positionOf(doc, lines, at)?.line ?? 1;
    waivers.push({
      index,
      line,
      check: source.check,
      ...(source.operation ? { operation: source.operation } : {}),
      ...(source.format ? { format: source.format } : {}),
      statuses: [...source.statuses],
      ...(source.case !== undefined ? { case: typeof source.case === 'string' ? [source.case] : [...source.case] } : {}),
      ...(source.step !== undefined ? { step: source.step } : {}),
      ...(source.code !== undefined ? { code: source.code } : {}),
      ...(source.text !== undefined ? { text: source.text } : {}),
      reason: source.reason.trim(),
      until: source.until,
    });
  });
  if (problems.length > 0) throw new WaiverError(shown, problems);
  return { file: shown, waivers };
}

/** Reads and checks a waivers file (ISWC_WAIVERS); throws WaiverError, naming the file, when it cannot be used. */
export function loadWaivers(file: string): WaiverSet {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (e) {
    const reason = (e as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (e as Error).message;
    throw new WaiverError(displayPath(file), [{ file: displayPath(file), path: '', message: `cannot read the waivers file: ${reason}` }]);
  }
  return parseWaivers(file, text);
}
