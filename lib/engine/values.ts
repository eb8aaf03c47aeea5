import type { FieldConstraint } from '../contract/constraints.ts';
import type { SchemaNode } from '../contract/openapi.ts';
import { validateNode } from '../contract/validators.ts';

/** A value at or one past a stated limit, with what the schema says of it. */
export interface BoundaryValue {
  /** 'at-min', 'above-max', 'astral-at-max', 'pattern-lower-case', ... */
  label: string;
  value: string | number;
  /** Derived from the schema, never asserted by hand: true when the value satisfies the constraint. */
  valid: boolean;
  because: string;
}

/** The constraint as a schema node, to let the validator decide validity. */
export function constraintSchema(c: FieldConstraint): SchemaNode {
  const node: Record<string, unknown> = { type: c.type };
  for (const key of ['minLength', 'maxLength', 'pattern', 'minimum', 'maximum'] as const) if (c[key] !== undefined) node[key] = c[key];
  return node;
}

export function codePoints(s: string): number {
  return [...s].length;
}

const ASTRAL = '\u{1F600}';

/** `n` code points built from a realistic valid value, padded with 'X'. */
export function fill(valid: string, n: number): string {
  const chars = [...valid];
  while (chars.length < n) chars.push('X');
  return chars.slice(0, n).join('');
}

/** `n` code points of which one is astral (2 UTF-16 units): breaks naive `.length` counting. */
export function astral(valid: string, n: number): string {
  if (n < 1) return '';
  const chars = [...fill(valid, n)];
  chars[Math.min(1, n - 1)] = ASTRAL;
  return chars.join('');
}

function describeLength(c: FieldConstraint): string {
  if (c.minLength !== undefined && c.minLength === c.maxLength) return `exactly ${c.minLength} characters`;
  const parts = [c.minLength !== undefined ? `at least ${c.minLength}` : '', c.maxLength !== undefined ? `at most ${c.maxLength}` : ''].filter(Boolean);
  return `${parts.join(' and ')} characters`;
}

/** Near misses of a pattern, made by mutating a valid value (lower case, one digit less or more, letters, spaces, full-width digits). */
export function nearMisses(valid: string): Array<{ label: string; value: string }> {
  const fullWidth = valid.replace(/[0-9]/g, (d) => String.fromCharCode(0xff10 + Number(d)));
  const firstDigit = valid.search(/[0-9]/);
  return [
    { label: 'lower-case', value: valid.slice(0, 1).toLowerCase() + valid.slice(1) },
    { label: 'one-char-short', value: valid.slice(0, -1) },
    { label: 'one-char-long', value: `${valid}${valid.slice(-1)}` },
    { label: 'letter-for-digit', value: firstDigit >= 0 ? `${valid.slice(0, firstDigit)}O${valid.slice(firstDigit + 1)}` : `${valid}O` },
    { label: 'inner-space', value: `${valid.slice(0, 1)} ${valid.slice(1)}` },
    { label: 'trailing-space', value: `${valid} ` },
    { label: 'full-width-digits', value: fullWidth },
    { label: 'separators', value: `${valid.slice(0, 1)}-${valid.slice(1, 4)}.${valid.slice(4, 7)}.${valid.slice(7, -1)}-${valid.slice(-1)}` },
  ];
}

/**
 * Values at and one past each limit of a field, from the constraint alone. Validity is decided by the
 * validator on the constraint's schema, so a label can never contradict the contract.
 */
export function boundaryValues(c: FieldConstraint, validExample: string | number): BoundaryValue[] {
  const schema = constraintSchema(c);
  const out: Array<{ label: string; value: string | number; rule: string }> = [];
  if (c.type === 'string') {
    const valid = String(validExample);
    const rule = `${c.name} is ${describeLength(c)} (code points)`;
    if (c.minLength !== undefined && c.minLength > 0) {
      out.push({ label: 'at-min', value: fill(valid, c.minLength), rule });
      out.push({ label: 'below-min', value: fill(valid, c.minLength - 1), rule });
      out.push({ label: 'astral-at-min', value: astral(valid, c.minLength), rule });
      if (c.minLength - 1 >= 1) out.push({ label: 'astral-below-min', value: astral(valid, c.minLength - 1), rule });
    }
    if (c.maxLength !== undefined) {
      if (c.maxLength !== c.minLength) {
        out.push({ label: 'at-max', value: fill(valid, c.maxLength), rule });
        out.push({ label: 'astral-at-max', value: astral(valid, c.maxLength), rule });
      }
      out.push({ label: 'above-max', value: fill(valid, c.maxLength + 1), rule });
    }
    if (c.pattern !== undefined) {
      const rule = `${c.name} matches ${c.pattern}`;
      out.push({ label: 'pattern-match', value: valid, rule });
      for (const miss of nearMisses(valid)) out.push({ label: `pattern-${miss.label}`, value: miss.value, rule });
    }
  } else {
    const rule = `${c.name} is a 32-bit integer`;
    if (c.minimum !== undefined) {
      out.push({ label: 'at-min', value: c.minimum, rule });
      out.push({ label: 'below-min', value: c.minimum - 1, rule });
    }
    if (c.maximum !== undefined) {
      out.push({ label: 'at-max', value: c.maximum, rule });
      out.push({ label: 'above-max', value: c.maximum + 1, rule });
    }
  }
  const seen = new Set<string>();
  return out
    .filter((v) => {
      const key = JSON.stringify(v.value);
      if (seen.has(key)) return false;
      seen.add(key);
      return true;
    })
    .map((v) => {
      const valid = validateNode(schema, v.value).length === 0;
      const size = typeof v.value === 'string' ? `${codePoints(v.value)} code points, ${v.value.length} UTF-16 units` : 'integer';
      return {
        label: v.label,
        value: v.value,
        valid,
        because: `${c.name} ${JSON.stringify(v.value)} (${size}) ${valid ? 'is within' : 'breaks'} the limit: ${v.rule} (section ${c.sections.join(', ')})`,
      };
    });
}

/** Values of the wrong JSON type for a field of the given type. */
export function wrongTypes(type: 'string' | 'integer', valid: string | number): Array<{ label: string; value: unknown }> {
  if (type === 'integer') {
    return [
      { label: 'number-as-string', value: String(valid) },
      { label: 'word', value: 'twelve' },
      { label: 'fraction', value: Number(valid) + 0.5 },
      { label: 'boolean', value: true },
      { label: 'array', value: [valid] },
      { label: 'object', value: { value: valid } },
    ];
  }
  return [
    { label: 'number', value: 128 },
    { label: 'boolean', value: true },
    { label: 'array', value: [valid] },
    { label: 'object', value: { value: valid } },
  ];
}
