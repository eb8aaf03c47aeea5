import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import type { ErrorObject, ValidateFunction } from 'ajv';
import { LineCounter, isNode, parseDocument } from 'yaml';
import type { Document } from 'yaml';
import { CHECK_MANIFEST } from '../checks.generated.ts';
import type { CheckId } from '../checks.generated.ts';
import { sharedAjv, handWrittenSchema } from '../../contract/validators.ts';
import type { OperationId } from '../../contract/operations.ts';
import { operation } from '../../contract/operations.ts';
import { generatorNames } from '../generators/registry.ts';
import { fromRoot, repoRoot } from '../../foundation/paths.ts';
import type { DisposableKind } from '../../contract/profile/types.ts';
import { DISPOSABLE_KINDS } from '../../contract/profile/types.ts';
import { fieldPathProblem, profileFields } from '../../contract/profile/fields.ts';
import type { Reference, TemplatePart } from './refs.ts';
import { STEP_FIELDS, pointerJoin, walkValue } from './refs.ts';
import type { Scenario, ScenarioFormat, ScenarioProblem, ScenarioSource, StepSource } from './types.ts';

export const SCENARIO_SCHEMA = 'scenario.schema.json';
export const DEFAULT_SCENARIO_DIR = fromRoot('fixtures', 'scenarios');

/** A scenario file (or several) that cannot be used: every problem with its file, path and reason. */
export class ScenarioError extends Error {
  readonly code = 'ISWC_SCENARIO_INVALID';
  constructor(readonly problems: ScenarioProblem[]) {
    super(`Invalid scenario file(s):\n${problems.map(formatProblem).join('\n')}`);
  }
}

export function formatProblem(p: ScenarioProblem): string {
  const where = p.line !== undefined ? `${p.file}:${p.line}:${p.col ?? 1}` : p.file;
  return `  ${where} at ${p.path || '/'}: ${p.message}`;
}

const COMMON_PARAMS = ['check', 'observed', 'because', 'sections'];

/** Checks whose pass means data changed: only on claimed (disposable) entries. */
const CHANGES_DATA = new Set(['status.success', 'outcome.merge', 'outcome.identity']);

let validators: { file: ValidateFunction; generate: ValidateFunction; firstOf: ValidateFunction; params: (id: string) => ValidateFunction | undefined; schema: Record<string, unknown> } | undefined;

function schemaValidators() {
  if (validators) return validators;
  const ajv = sharedAjv();
  const schema = handWrittenSchema(SCENARIO_SCHEMA);
  if (!ajv.getSchema(SCENARIO_SCHEMA)) ajv.addSchema(schema);
  const get = (ref: string): ValidateFunction => {
    const v = ajv.getSchema(ref);
    if (!v) throw new Error(`schemas/${SCENARIO_SCHEMA} lacks ${ref}`);
    return v;
  };
  // Each check's parameters, as its file declares them (generated into the schema by npm run generate).
  const params = (id: string) => ajv.getSchema(`${SCENARIO_SCHEMA}#/$defs/checkParams/${id.replace(/~/g, '~0').replace(/\//g, '~1')}`);
  validators = { file: get(SCENARIO_SCHEMA), generate: get(`${SCENARIO_SCHEMA}#/$defs/generate`), firstOf: get(`${SCENARIO_SCHEMA}#/$defs/firstOf`), params, schema };
  return validators;
}

function schemaAt(schema: Record<string, unknown>, schemaPath: string): Record<string, unknown> | undefined {
  let node: unknown = schema;
  for (const raw of schemaPath.replace(/^#\/?/, '').split('/').filter(Boolean)) {
    const key = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    if (node === null || typeof node !== 'object') return undefined;
    node = (node as Record<string, unknown>)[key];
  }
  return node !== null && typeof node === 'object' ? (node as Record<string, unknown>) : undefined;
}

/** Errors inside a $ref carry a path relative to the referenced schema: find the property's anyOf among the $defs. */
function anyOfOfProperty(schema: Record<string, unknown>, schemaPath: string): unknown {
  const m = /\/properties\/([^/]+)\/anyOf$/.exec(schemaPath);
  if (!m) return undefined;
  for (const def of Object.values((schema.$defs ?? {}) as Record<string, { properties?: Record<string, { anyOf?: unknown }> }>)) {
    const anyOf = def.properties?.[m[1] ?? '']?.anyOf;
    if (anyOf) return anyOf;
  }
  return undefined;
}

function describeBranch(branch: Record<string, unknown>): string {
  if (typeof branch.$ref === 'string') return branch.$ref.replace(/^#\/\$defs\//, '');
  if (Array.isArray(branch.type)) return branch.type.join(' or ');
  if (branch.type === 'object' && branch.properties && typeof branch.properties === 'object') return `a mapping of ${Object.keys(branch.properties).join(', ')}`;
  if (typeof branch.type === 'string') return branch.type === 'array' ? 'a list' : branch.type;
  return 'a value';
}

/**
 * Ajv reports every failing branch of an anyOf; keep one line per place: the anyOf itself ("must be a
 * string or an object") when its branches all failed, otherwise the deepest specific errors.
 */
function reduceErrors(errors: readonly ErrorObject[], schema: Record<string, unknown>): Array<{ path: string; message: string }> {
  const anyOfs = errors.filter((e) => e.keyword === 'anyOf');
  const out: Array<{ path: string; message: string }> = [];
  for (const e of errors) {
    if (e.keyword === 'anyOf') continue;
    const inside = anyOfs.find((a) => e.schemaPath.startsWith(`${a.schemaPath}/`) && e.instancePath.startsWith(a.instancePath));
    if (inside) continue;
    out.push({ path: e.instancePath, message: messageOf(e) });
  }
  for (const a of anyOfs) {
    // The top-level anyOf (one scenario or a list): say which of the two, with the scenario's own errors.
    if (a.schemaPath === '#/anyOf') continue;
    const branches = schemaAt(schema, a.schemaPath) ?? anyOfOfProperty(schema, a.schemaPath);
    const list = Array.isArray(branches) ? (branches as Array<Record<string, unknown>>).map(describeBranch) : [];
    out.push({ path: a.instancePath, message: `must be ${list.length ? list.join(' or ') : 'one of the allowed forms'}` });
  }
  return out;
}

function messageOf(e: ErrorObject): string {
  const p = e.params as Record<string, unknown>;
  switch (e.keyword) {
    case 'additionalProperties':
      return `unknown property "${String(p.additionalProperty)}"`;
    case 'required':
      return `missing property "${String(p.missingProperty)}"`;
    case 'enum':
      return `must be one of ${(p.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(', ')}`;
    case 'pattern':
      return `${e.message ?? 'does not match'}`;
    default:
      return e.message ?? e.keyword;
  }
}

/** Errors of the top-level anyOf: a list is judged item by item, one scenario as one. */
function validateFile(value: unknown): Array<{ path: string; message: string }> {
  const { file, schema } = schemaValidators();
  if (file(value)) return [];
  if (value === null || typeof value !== 'object') return [{ path: '', message: 'must be a scenario (a mapping) or a list of scenarios' }];
  const errors = file.errors ?? [];
  const isList = Array.isArray(value);
  const relevant = errors.filter((e) => {
    if (e.schemaPath === '#/anyOf') return false;
    // Errors inside a $ref carry the referenced schema's path: tell the branches apart by where they point.
    return isList ? e.instancePath !== '' || e.schemaPath.startsWith('#/anyOf/1') : !e.schemaPath.startsWith('#/anyOf/1');
  });
  const reduced = reduceErrors(relevant, schema);
  return reduced.length ? reduced : [{ path: '', message: 'does not match schemas/scenario.schema.json' }];
}

export function slug(name: string): string {
  return name
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '');
}

function displayPath(file: string): string {
  const rel = path.relative(repoRoot, file);
  return rel.startsWith('..') || path.isAbsolute(rel) ? file : rel;
}

/** Where a JSON pointer lands in the YAML text, 1-based. */
function positionOf(doc: Document, lines: LineCounter, pointer: string): { line: number; col: number } | undefined {
  const segments = pointer
    .split('/')
    .slice(1)
    .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
  for (let n = segments.length; n >= 0; n--) {
    const node: unknown = n === 0 ? doc.contents : doc.getIn(segments.slice(0, n).map((s) => (/^\d+$/.test(s) ? Number(s) : s)), true);
    if (isNode(node) && node.range) return lines.linePos(node.range[0]);
  }
  return undefined;
}

/** What the loader checks beyond the schema, for one scenario. */
function checkScenario(s: ScenarioSource, base: string, report: (path: string, message: string) => void): void {
  const uses = s.uses ?? {};
  const stepNames = new Map<string, number>();
  const hasBody = s.steps.some((step) => step.operation !== undefined && operation(step.operation).body !== null);
  if (s.formats && !hasBody) report(pointerJoin(base, 'formats'), 'formats applies only to a scenario with a body step; this one runs once, without a body format');
  const formats: ScenarioFormat[] = hasBody ? (s.formats ?? ['json', 'xml']) : [];
  const generators = new Set(generatorNames());
  const { generate, firstOf } = schemaValidators();

  s.steps.forEach((step, i) => {
    const at = pointerJoin(base, 'steps', i);
    if (stepNames.has(step.name)) report(pointerJoin(at, 'name'), `step name "${step.name}" is already used by step ${stepNames.get(step.name)}`);
    checkStep(step, at, { uses, formats }, report);

    const visit = {
      error: (message: string, pointer: string) => report(pointer, message),
      template: (parts: TemplatePart[], pointer: string) => {
        for (const part of parts) if (typeof part !== 'string') checkReference(part, pointer, uses, new Set(stepNames.keys()), step.name, report);
      },
      directive: (kind: 'generate' | 'firstOf', value: Record<string, unknown>, pointer: string) => {
        const validate = kind === 'generate' ? generate : firstOf;
        if (!validate(value)) {
          for (const e of validate.errors ?? []) report(pointer + e.instancePath, `${kind} directive: ${messageOf(e)}`);
          return;
        }
        if (kind === 'generate' && !generators.has(String(value.generate))) {
          report(pointerJoin(pointer, 'generate'), `unknown generator "${String(value.generate)}"; known: ${[...generators].join(', ')}`);
        }
      },
    };
    walkValue(step.query ?? {}, pointerJoin(at, 'query'), visit);
    if (step.body !== undefined) walkValue(step.body, pointerJoin(at, 'body'), visit);
    walkValue(step.headers ?? {}, pointerJoin(at, 'headers'), visit);
    step.expect.forEach((e, j) => {
      for (const [key, value] of Object.entries(e)) if (key !== 'check' && key !== 'observed' && key !== 'sections') walkValue(value, pointerJoin(at, 'expect', j, key), visit);
    });
    stepNames.set(step.name, i);
  });
}

function checkReference(ref: Reference, pointer: string, uses: Partial<Record<DisposableKind, number>>, earlier: Set<string>, self: string, report: (path: string, message: string) => void): void {
  const [first, second] = ref.path;
  switch (ref.root) {
    case 'format':
      if (ref.path.length > 0) report(pointer, `\${${ref.text}}: format takes no path`);
      return;
    case 'profile': {
      // A name the profile's schema does not have is a typo; an index a given profile lacks is only a need.
      const problem = typeof first === 'string' ? fieldPathProblem(ref.path) : `name a field, e.g. profile.iswcs[0]`;
      if (problem) report(pointer, `\${${ref.text}}: ${problem} (the target profile has ${profileFields().join(', ')})`);
      return;
    }
    case 'entry': {
      if (typeof first !== 'string' || !(DISPOSABLE_KINDS as readonly string[]).includes(first)) {
        report(pointer, `\${${ref.text}}: claimed entries are entry.merges, entry.demerges or entry.submissions`);
        return;
      }
      const count = uses[first as DisposableKind];
      if (!count) report(pointer, `\${${ref.text}}: the scenario does not claim ${first} (add uses: {${first}: 1})`);
      else if (typeof second !== 'number') report(pointer, `\${${ref.text}}: name one entry, e.g. entry.${first}[0]`);
      else if (second >= count) report(pointer, `\${${ref.text}}: the scenario claims ${count} ${first} entr${count === 1 ? 'y' : 'ies'} (index ${second} is beyond)`);
      else {
        const problem = fieldPathProblem(ref.path);
        if (problem) report(pointer, `\${${ref.text}}: ${problem}`);
      }
      return;
    }
    case 'steps': {
      if (typeof first !== 'string') {
        report(pointer, `\${${ref.text}}: name a step, e.g. steps.start.runId`);
        return;
      }
      if (first === self) report(pointer, `\${${ref.text}}: a step cannot reference its own answer`);
      else if (!earlier.has(first)) report(pointer, `\${${ref.text}}: no step "${first}" runs before this one`);
      if (typeof second !== 'string' || !(STEP_FIELDS as readonly string[]).includes(second) || ref.path.length !== 2) {
        report(pointer, `\${${ref.text}}: a step's answer gives ${STEP_FIELDS.map((f) => `steps.${first}.${f}`).join(', ')}`);
      }
      return;
    }
  }
}

interface StepFacts {
  uses: Partial<Record<DisposableKind, number>>;
  formats: ScenarioFormat[];
}

function checkStep(step: StepSource, at: string, facts: StepFacts, report: (path: string, message: string) => void): void {
  const http = step.method !== undefined || step.path !== undefined;
  if (step.operation !== undefined && http) report(pointerJoin(at, step.method !== undefined ? 'method' : 'path'), 'a step names either an operation or a method and path, not both');
  if (step.operation === undefined && !http) report(at, 'a step needs an operation (or method and path for a request outside the document)');
  if (http && (step.method === undefined || step.path === undefined)) report(at, `a request outside the document needs both method and path (missing ${step.method === undefined ? 'method' : 'path'})`);
  for (const name of Object.keys(step.headers ?? {})) {
    if (name.toLowerCase() === 'ocp-apim-subscription-key') report(pointerJoin(at, 'headers', name), 'the subscription key is never written in a scenario; use auth: key | none | wrong');
  }
  const op = step.operation !== undefined ? operation(step.operation) : null;
  const hasBody = step.body !== undefined || step.rawBody !== undefined;
  if (op) {
    if (!op.body) {
      if (hasBody) report(pointerJoin(at, step.body !== undefined ? 'body' : 'rawBody'), `${op.id} takes no body`);
      if (step.contentType !== undefined) report(pointerJoin(at, 'contentType'), `${op.id} takes no body, so no Content-Type`);
    } else {
      if (!hasBody) report(at, `${op.id} takes a body (${op.body.resource}): give body (or rawBody)`);
      if (step.body !== undefined && step.rawBody !== undefined) report(pointerJoin(at, 'rawBody'), 'give body or rawBody, not both');
      if (typeof step.rawBody === 'string' && facts.formats.length > 1) {
        report(pointerJoin(at, 'rawBody'), `one rawBody text cannot serve ${facts.formats.join(' and ')}: give {json: ..., xml: ...} or set the scenario's formats`);
      } else if (step.rawBody !== undefined && typeof step.rawBody === 'object') {
        for (const f of facts.formats) if (step.rawBody[f] === undefined) report(pointerJoin(at, 'rawBody'), `no rawBody for ${f}, one of the scenario's formats`);
      }
    }
  } else if (http) {
    if (step.rawBody !== undefined) report(pointerJoin(at, 'rawBody'), 'a request outside the document sends body as it is; use body (a string)');
    if (step.body !== undefined && typeof step.body !== 'string') report(pointerJoin(at, 'body'), 'a request outside the document takes its body as a string');
  }

  step.expect.forEach((e, j) => {
    const ep = pointerJoin(at, 'expect', j);
    if ((e.check === undefined) === (e.observed === undefined)) {
      report(ep, 'an expectation names exactly one of check or observed');
      return;
    }
    const id = (e.check ?? e.observed) as string;
    const key = e.check !== undefined ? 'check' : 'observed';
    const check = Object.hasOwn(CHECK_MANIFEST, id) ? CHECK_MANIFEST[id as CheckId] : undefined;
    if (!check) {
      const known = Object.entries(CHECK_MANIFEST)
        .filter(([, c]) => c.scope === 'targeted' && (key === 'check' || c.level === 'observed'))
        .map(([known]) => known);
      report(pointerJoin(ep, key), `unknown check id "${id}"; known: ${known.join(', ')}`);
      return;
    }
    if (check.scope === 'every-exchange') {
      report(pointerJoin(ep, key), `"${id}" is judged on every exchange already; list only targeted checks`);
      return;
    }
    if (key === 'observed' && check.level !== 'observed') report(pointerJoin(ep, key), `"${id}" is a ${check.level} check, not an observed one: write check: ${id}`);
    if ((step.probe !== undefined || http) && check.level === 'spec') {
      report(pointerJoin(ep, key), `"${id}" is a spec check, and this step ${http ? 'is outside the document' : 'probes a point the document leaves open'}: only http and observed checks may judge it`);
    }
    const declared = check.params?.properties ?? {};
    const own = Object.fromEntries(Object.entries(e).filter(([name]) => !COMMON_PARAMS.includes(name)));
    for (const name of Object.keys(own)) if (!Object.hasOwn(declared, name)) report(pointerJoin(ep, name), `check ${id} takes no parameter "${name}"`);
    for (const name of check.params?.required ?? []) if (e[name] === undefined) report(ep, `check ${id} needs the parameter "${name}"`);
    const validate = schemaValidators().params(id);
    if (validate && !validate(own)) {
      for (const err of validate.errors ?? []) {
        if (err.keyword === 'required' || err.keyword === 'additionalProperties') continue;
        report(pointerJoin(ep, err.instancePath.replace(/^\//, '').split('/')[0] ?? ''), `check ${id}: ${err.instancePath || 'parameters'} ${err.message ?? 'is invalid'}`);
      }
    }
    const changes = CHANGES_DATA.has(id);
    if (changes && op && op.id !== 'notifyAgentRun' && Object.keys(facts.uses).length === 0) {
      report(
        pointerJoin(ep, key),
        `expecting ${id} on ${op.id} means changing data: do it only on claimed disposable entries (uses: {...} and \${entry...} values), or name unknown ISWCs (\${profile.unknownIswcs[0]}) and compare with a nominal step (limit.accepted with nominalStatus)`,
      );
    }
  });
}

/** Parses and checks one scenario file's text; throws ScenarioError with every problem found. */
export function parseScenarioFile(file: string, text: string): Scenario[] {
  const shown = displayPath(file);
  const lines = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lines, prettyErrors: false, uniqueKeys: true, merge: true });
  const problems: ScenarioProblem[] = [];
  const report = (pointer: string, message: string) => {
    const pos = positionOf(doc, lines, pointer);
    problems.push({ file: shown, path: pointer, message, ...(pos ? { line: pos.line, col: pos.col } : {}) });
  };
  if (doc.errors.length > 0) {
    for (const e of doc.errors) {
      const pos = e.linePos?.[0] ?? lines.linePos(e.pos[0]);
      const hint = /flow/i.test(e.message) && text.includes('${') ? ' (inside [...] or {...}, quote values that hold ${...})' : '';
      problems.push({ file: shown, path: '', message: `YAML: ${e.message.split('\n')[0]}${hint}`, ...(pos ? { line: pos.line, col: pos.col } : {}) });
    }
    throw new ScenarioError(problems);
  }
  const value: unknown = doc.toJS({ maxAliasCount: 50 });
  for (const e of validateFile(value)) report(e.path, e.message);
  if (problems.length > 0) throw new ScenarioError(problems);

  const list = (Array.isArray(value) ? value : [value]) as ScenarioSource[];
  const stem = path.basename(file).replace(/\.ya?ml$/i, '');
  if (!/^[a-z0-9][a-z0-9-]*$/.test(stem)) report('', `the file name "${path.basename(file)}" makes the case ids: use lower-case letters, digits and dashes`);
  const seen = new Map<string, number>();
  const out: Scenario[] = [];
  list.forEach((s, i) => {
    const base = Array.isArray(value) ? `/${i}` : '';
    const id = `scenario.${stem}.${slug(s.name)}`;
    if (!slug(s.name)) report(pointerJoin(base, 'name'), 'the name needs letters or digits (it makes the case id)');
    if (seen.has(id)) report(pointerJoin(base, 'name'), `"${s.name}" makes the case id ${id}, already used by scenario ${seen.get(id)} of this file`);
    seen.set(id, i);
    checkScenario(s, base, report);
    const tags = [...(s.tags ?? [])];
    if (!tags.includes('@scenario')) tags.push('@scenario');
    if (s.uses && Object.keys(s.uses).length > 0 && !tags.includes('@destructive')) tags.push('@destructive');
    out.push({ ...s, id, file: shown, pointer: base, allTags: tags });
  });
  if (problems.length > 0) throw new ScenarioError(problems);
  return out;
}

const parsed = new Map<string, readonly Scenario[]>();

/** parseScenarioFile, once per file and text in a process: every planning reads the scenarios again. */
function parsedScenarioFile(file: string, text: string): readonly Scenario[] {
  const key = `${file}\u0000${text}`;
  let scenarios = parsed.get(key);
  if (!scenarios) {
    scenarios = parseScenarioFile(file, text);
    parsed.set(key, scenarios);
  }
  return scenarios;
}

/** Every scenario of a directory's *.yaml / *.yml files, in file-name order; all problems at once. */
export function loadScenarios(dir: string = DEFAULT_SCENARIO_DIR): Scenario[] {
  let files: string[];
  try {
    files = readdirSync(dir)
      .filter((f) => /\.ya?ml$/i.test(f))
      .sort();
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw e;
  }
  const problems: ScenarioProblem[] = [];
  const out: Scenario[] = [];
  const ids = new Map<string, string>();
  for (const name of files) {
    const file = path.join(dir, name);
    try {
      for (const s of parsedScenarioFile(file, readFileSync(file, 'utf8'))) {
        const other = ids.get(s.id);
        if (other) problems.push({ file: s.file, path: pointerJoin(s.pointer, 'name'), message: `case id ${s.id} is also made by ${other}` });
        ids.set(s.id, s.file);
        out.push(s);
      }
    } catch (e) {
      if (e instanceof ScenarioError) problems.push(...e.problems);
      else throw e;
    }
  }
  if (problems.length > 0) throw new ScenarioError(problems);
  return out;
}

/** Operation ids a scenario's steps name (for plans). */
export function operationsOf(s: ScenarioSource): OperationId[] {
  return s.steps.flatMap((step) => (step.operation ? [step.operation] : []));
}
