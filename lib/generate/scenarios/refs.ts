/**
 * References inside scenario values: `${profile.iswcs[0]}`, `${entry.merges[0].preferredIswc}`,
 * `${steps.start.runId}`, `${format}`. A string that is exactly one reference takes the referenced
 * value with its type (array, object, number); references inside a longer string are interpolated.
 * `$${` writes a literal `${`.
 */

export type RefRoot = 'profile' | 'entry' | 'steps' | 'format';
export const REF_ROOTS: readonly RefRoot[] = ['profile', 'entry', 'steps', 'format'];
/** What a later step may read of an earlier step's answer. */
export const STEP_FIELDS = ['runId', 'status', 'body'] as const;
export type StepField = (typeof STEP_FIELDS)[number];

export interface Reference {
  /** The text between `${` and `}`. */
  text: string;
  root: RefRoot;
  /** Segments after the root: names and array indexes. */
  path: Array<string | number>;
}

export type TemplatePart = string | Reference;

export class TemplateError extends Error {}

const SEGMENT = /^(?:\.([A-Za-z_][A-Za-z0-9_-]*)|\[(\d+)\])/;

export function parseReference(text: string): Reference {
  const head = /^([A-Za-z_][A-Za-z0-9_]*)/.exec(text);
  if (!head) throw new TemplateError(`"\${${text}}" is not a reference: it must start with one of ${REF_ROOTS.join(', ')}`);
  const root = head[1] as RefRoot;
  if (!REF_ROOTS.includes(root)) throw new TemplateError(`"\${${text}}" starts with "${head[1]}"; a reference starts with one of ${REF_ROOTS.join(', ')}`);
  const path: Array<string | number> = [];
  let rest = text.slice(head[0].length);
  while (rest.length > 0) {
    const m = SEGMENT.exec(rest);
    if (!m) throw new TemplateError(`"\${${text}}": cannot read "${rest}" (use .name or [index])`);
    path.push(m[1] !== undefined ? m[1] : Number(m[2]));
    rest = rest.slice(m[0].length);
  }
  return { text, root, path };
}

/** Splits a string into literal text and references; throws on the first malformed reference. */
export function parseTemplate(value: string): TemplatePart[] {
  const { parts, errors } = scanTemplate(value);
  if (errors.length > 0) throw new TemplateError(errors[0]);
  return parts;
}

/** Like parseTemplate, but keeps going: every malformed reference is reported, the others are kept. */
export function scanTemplate(value: string): { parts: TemplatePart[]; errors: string[] } {
  const parts: TemplatePart[] = [];
  const errors: string[] = [];
  let literal = '';
  let i = 0;
  while (i < value.length) {
    if (value.startsWith('$${', i)) {
      literal += '${';
      i += 3;
      continue;
    }
    if (value.startsWith('${', i)) {
      const end = value.indexOf('}', i + 2);
      if (end < 0) {
        errors.push(`unclosed "\${" in ${JSON.stringify(value)}`);
        break;
      }
      if (literal) parts.push(literal);
      literal = '';
      try {
        parts.push(parseReference(value.slice(i + 2, end).trim()));
      } catch (e) {
        if (!(e instanceof TemplateError)) throw e;
        errors.push(e.message);
      }
      i = end + 1;
      continue;
    }
    literal += value[i];
    i += 1;
  }
  if (literal || parts.length === 0) parts.push(literal);
  return { parts, errors };
}

/** Follows names and indexes into a value; undefined when a segment is missing. */
export function dig(value: unknown, path: ReadonlyArray<string | number>): unknown {
  let current = value;
  for (const segment of path) {
    if (current === null || current === undefined) return undefined;
    if (typeof segment === 'number') {
      if (!Array.isArray(current)) return undefined;
      current = current[segment] as unknown;
    } else {
      if (typeof current !== 'object' || Array.isArray(current)) return undefined;
      current = (current as Record<string, unknown>)[segment];
    }
  }
  return current;
}

/** How an interpolated value reads inside a longer string. */
export function asText(value: unknown): string {
  if (typeof value === 'string') return value;
  if (value === null || value === undefined) return '';
  if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint') return String(value);
  return JSON.stringify(value) ?? '';
}

/** Renders a template with a lookup; a lone reference keeps the looked-up value's type. */
export function renderTemplate(parts: readonly TemplatePart[], lookup: (ref: Reference) => unknown): unknown {
  if (parts.length === 1 && typeof parts[0] !== 'string') return lookup(parts[0]);
  return parts.map((p) => (typeof p === 'string' ? p : asText(lookup(p)))).join('');
}

/** Directive objects a value may be instead of a literal. */
export function directiveOf(value: unknown): 'generate' | 'firstOf' | null {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return null;
  if ('generate' in value) return 'generate';
  if ('firstOf' in value) return 'firstOf';
  return null;
}

/** JSON pointer segment escaping (RFC 6901). */
export function pointerJoin(base: string, ...segments: Array<string | number>): string {
  return segments.reduce<string>((p, s) => `${p}/${String(s).replace(/~/g, '~0').replace(/\//g, '~1')}`, base);
}

/**
 * Visits every string (its parsed template) and every directive inside a value, with its JSON pointer.
 * Directive contents (`with`, `firstOf`, `except`) are visited as values too.
 */
export function walkValue(
  value: unknown,
  pointer: string,
  visit: { template?: (parts: TemplatePart[], pointer: string) => void; directive?: (kind: 'generate' | 'firstOf', value: Record<string, unknown>, pointer: string) => void; error?: (message: string, pointer: string) => void },
): void {
  if (typeof value === 'string') {
    const { parts, errors } = scanTemplate(value);
    for (const message of errors) visit.error?.(message, pointer);
    visit.template?.(parts, pointer);
    return;
  }
  if (Array.isArray(value)) {
    value.forEach((item, i) => walkValue(item, pointerJoin(pointer, i), visit));
    return;
  }
  if (value === null || typeof value !== 'object') return;
  const object = value as Record<string, unknown>;
  const kind = directiveOf(object);
  if (kind) visit.directive?.(kind, object, pointer);
  for (const [key, item] of Object.entries(object)) {
    if (kind === 'generate' && (key === 'generate' || key === 'seed')) continue;
    walkValue(item, pointerJoin(pointer, key), visit);
  }
}
