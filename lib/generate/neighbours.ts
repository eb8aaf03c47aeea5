import type { FieldConstraint } from '../contract/constraints.ts';
import { fieldConstraints, isLimited, namesData, namesOnlySubmitter } from '../contract/constraints.ts';
import type { Neighbour, NormalisationId } from '../contract/normalisations.ts';
import { coveringNeighbours, lengthLimitOf, neighboursOf, sameValueReading } from '../contract/normalisations.ts';

/**
 * Near neighbours of data the target holds (issue 28, principle 6): for a field with a stated limit or
 * pattern and a value the target holds, the values one step from it that a lenient server (cutting to the
 * limit, trimming, folding, padding, stripping separators, reading other digits, matching a prefix or a
 * LIKE pattern, parsing an integer leniently) reads as that value. Each is verified against every variant of
 * every normalisation (lib/contract/normalisations.ts), and the fewest that land under all of them are sent:
 * a refusal is then the only conformant answer, and a 2xx shows the fault, since the data it lands on
 * exists.
 */

/** Fields whose stated limit the document demands (the merge's query agency names the submitter only). */
export function neighbourFields(): FieldConstraint[] {
  return fieldConstraints().filter((c) => isLimited(c) && !namesOnlySubmitter(c));
}

/** What each normalisation does, in the words of an expectation. */
const DOES: Record<NormalisationId, string> = {
  truncate: 'cuts it to its limit',
  trim: 'trims it',
  fold: 'folds its letter case',
  'zero-pad': 'reads it as a number padded with zeros',
  'strip-separators': 'strips its separators',
  'non-ascii-digits': 'reads digits of other scripts as ASCII digits',
  extract: 'takes the first match of the pattern in it',
  prefix: 'matches it as the start of a stored value',
  like: 'matches it as a LIKE pattern',
  'trailing-garbage': 'reads it up to its first non-digit',
  fraction: 'truncates or rounds its fraction',
  wraparound: 'reads it modulo 2^32',
  narrow: 'keeps it in 16 bits',
  'sign-dropped': 'drops its sign',
  'check-digit': 'recomputes its check digit',
  delimiter: 'reads it up to a delimiter',
};

/**
 * The reading a neighbour is sent for: the one it was built for when it lands under it (a value followed by a
 * comma is also cut by a reader that truncates, but is sent for the delimiter), else the first it lands under.
 * Its part, so that a budget takes a field's readings one at a time.
 */
export function readingOf(n: Neighbour): NormalisationId {
  if (n.lands.some((l) => l.normalisation === n.builtFor)) return n.builtFor;
  const first = n.lands[0];
  if (!first) throw new Error(`neighbour ${n.label} lands under no reading`);
  return first.normalisation;
}

/** What a server of a reading does to a value, in the words of a part's title: "cuts it to its limit". */
export function readingDoes(id: NormalisationId): string {
  return DOES[id];
}

/** The neighbours of `held` a case sends for the field: the fewest that land under every reading, those the case can judge. */
export function neighboursToSend(c: FieldConstraint, held: string | number, options: { valid: boolean }): Neighbour[] {
  // A value within the constraint names other data (a prefix, a LIKE pattern): judged only where the field names data.
  // A neighbour some reading of the same value lands on (a trailing space where no limit is stated) is never sent:
  // a server comparing as its database does acts on it rightly.
  const usable = (n: Neighbour): boolean => (!n.valid || (options.valid && namesData(c))) && !n.lands.some((l) => sameValueReading(c, l.normalisation));
  return coveringNeighbours(neighboursOf(held, c), usable);
}

/** The rule a field states, in words. */
export function ruleOf(c: FieldConstraint): string {
  if (c.pattern !== undefined) return `it matches ${c.pattern}`;
  if (c.type === 'integer') return 'it is a 32-bit integer';
  if (c.minLength !== undefined && c.minLength === c.maxLength) return `it has exactly ${c.maxLength} characters`;
  return `it has at most ${lengthLimitOf(c)} characters`;
}

/** Why a neighbour must be refused, for an expectation's `because`. */
export function neighbourBecause(c: FieldConstraint, n: Neighbour, held: string | number, what: string): string {
  const readings = [...new Set(n.lands.map((l) => DOES[l.normalisation]))];
  const breaks = n.valid ? `names another ${c.name} than ${JSON.stringify(held)}` : `breaks the rule of ${c.name}: ${ruleOf(c)}`;
  return `${c.name} ${JSON.stringify(n.value)} (${n.label}) ${breaks} (section ${c.sections.join(', ')}); a server that ${readings.join(', or ')} reads it as ${JSON.stringify(held)}, ${what}`;
}

/** Many XML binders trim text: a neighbour resting on edge whitespace has no fair XML twin. */
export function restsOnEdgeWhitespace(value: unknown): boolean {
  return typeof value === 'string' && value !== value.trim();
}
