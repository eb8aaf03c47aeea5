import type { AnswerFacts } from './facts.ts';

/**
 * The second judgement of a replayed exchange: the answer the build gave, next to the one the agency's
 * client met when the session was recorded. Values that differ on every call (a runId, a date, a trace
 * id) are learned, not listed: the same request is sent twice to a baseline (the build before, or the
 * reference server), and what differs between those two answers is noise, left out of the comparison
 * (Diffy's rule). Noise may hide a text or an optional field, never a status, a media type or a format.
 */

export type Facet = 'answer' | 'status' | 'media type' | 'charset' | 'format' | 'shape' | 'text';

export interface Difference {
  facet: Facet;
  /** The field or element, for shape and text. */
  path?: string;
  recorded: string;
  replayed: string;
  /** Identifies the difference for the noise learned (facet and path). */
  key: string;
}

/** Facets noise may cover: what differs between two answers of the same build to the same request. */
const NOISY: ReadonlySet<Facet> = new Set(['shape', 'text', 'charset']);

const show = (v: string | null | undefined): string => (v === null || v === undefined ? '—' : v);

/** What differs between two answers' facts. `mapText` rewrites the first's texts as the second's request named its data (identifiers mapped for the replay). */
export function differences(a: AnswerFacts, b: AnswerFacts, mapText: (text: string) => string = (t) => t): Difference[] {
  const out: Difference[] = [];
  if (!a.answered || !b.answered) {
    if (a.answered !== b.answered || a.error !== b.error) out.push({ facet: 'answer', recorded: a.answered ? `status ${a.status ?? ''}` : `no answer (${a.error ?? ''})`, replayed: b.answered ? `status ${b.status ?? ''}` : `no answer (${b.error ?? ''})`, key: 'answer' });
    return out;
  }
  if (a.status !== b.status) out.push({ facet: 'status', recorded: show(String(a.status)), replayed: show(String(b.status)), key: 'status' });
  if (a.format !== 'empty' || b.format !== 'empty') {
    if (a.mediaType !== b.mediaType) out.push({ facet: 'media type', recorded: show(a.mediaType), replayed: show(b.mediaType), key: 'media type' });
    else if (a.charset !== b.charset) out.push({ facet: 'charset', recorded: show(a.charset), replayed: show(b.charset), key: 'charset' });
  }
  if (a.format !== b.format) {
    out.push({ facet: 'format', recorded: a.format, replayed: b.format, key: 'format' });
    return out;
  }
  for (const path of new Set([...a.shape.keys(), ...b.shape.keys()])) {
    const x = a.shape.get(path);
    const y = b.shape.get(path);
    if (x !== y) out.push({ facet: 'shape', path, recorded: show(x), replayed: show(y), key: `shape ${path}` });
  }
  for (const [path, x] of a.texts) {
    const y = b.texts.get(path);
    if (y === undefined) continue;
    const mapped = mapText(x);
    if (mapped !== y) out.push({ facet: 'text', path, recorded: x, replayed: y, key: `text ${path}` });
  }
  return out;
}

/** The noise of a request: what differs between two answers of the same build to it. */
export function learnNoise(first: AnswerFacts, second: AnswerFacts): { noise: Set<string>; unstable: Difference[] } {
  const all = differences(first, second);
  return { noise: new Set(all.filter((d) => NOISY.has(d.facet)).map((d) => d.key)), unstable: all.filter((d) => !NOISY.has(d.facet)) };
}

export type CompatVerdict = 'compatible' | 'changed' | 'broken' | 'skipped';

/** A gating failure of the document's checks on the replayed answer. */
export interface DocumentFailure {
  checkId: string;
  level: string;
  sections: readonly string[];
  expected: string;
  received: string;
}

export interface Comparison {
  verdict: CompatVerdict;
  /** Why, one line each: the document failures, a success turned refusal, the differences. */
  reasons: string[];
  differences: Difference[];
  /** Differences left out as noise. */
  ignored: Difference[];
}

export interface CompareInput {
  recorded: AnswerFacts;
  replayed: AnswerFacts;
  /** Noise learned for this request (learnNoise over the baseline's two answers). */
  noise: ReadonlySet<string>;
  /** Gating failures of the document's every-answer checks on the replayed answer. */
  documentFailures: readonly DocumentFailure[];
  /** The request acts for another agency than the one the key acts for (which agency a key may act for is not shown, 5.3). */
  actsForOther: string | undefined;
  mapText?: (text: string) => string;
  /** Values of the request the contract refuses (`/overallSent type`): said when a success became a refusal, since the client relied on a reading the document does not promise. */
  refusedValues?: readonly string[];
}

const isSuccess = (f: AnswerFacts): boolean => f.answered && f.status !== null && f.status >= 200 && f.status < 300;

function differenceText(d: Difference): string {
  const where = d.path !== undefined ? ` at ${d.path}` : '';
  const clip = (s: string): string => (s.length > 120 ? `${s.slice(0, 120)}…` : s);
  return `${d.facet}${where}: ${clip(d.recorded)} → ${clip(d.replayed)}`;
}

/**
 * compatible: the client meets what it met. changed: within the document, but different (a status, a
 * media type, a field, a text). broken: the answer violates the document (a gating check fails), no answer
 * comes, or a success became a refusal. A refusal of the key for another agency than the key's is no
 * verdict on the build (skipped): which agency a key may act for is not shown.
 */
export function compareAnswers(input: CompareInput): Comparison {
  const { recorded, replayed } = input;
  const all = differences(recorded, replayed, input.mapText);
  const ignored = all.filter((d) => input.noise.has(d.key) && NOISY.has(d.facet));
  const kept = all.filter((d) => !ignored.includes(d));
  if (!replayed.answered) return { verdict: 'broken', reasons: [`no answer (${replayed.error ?? 'none'}) where the client met ${recorded.answered ? `a ${recorded.status ?? ''}` : 'none either'}`], differences: kept, ignored };
  if (isSuccess(recorded) && !isSuccess(replayed) && (replayed.status === 401 || replayed.status === 403) && input.actsForOther !== undefined) {
    return { verdict: 'skipped', reasons: [`not comparable: the build refused the key for agency ${input.actsForOther} (${replayed.status}); which agency a key may act for is not shown (5.3): replay with a key that acts for it`], differences: kept, ignored };
  }
  const reasons: string[] = [];
  for (const f of input.documentFailures) reasons.push(`violates the document: ${f.checkId} [${f.level}, ${f.sections.join(', ')}]: expected ${f.expected}; received ${f.received}`);
  if (isSuccess(recorded) && !isSuccess(replayed)) {
    reasons.push(`a success became a refusal: ${recorded.status ?? ''} → ${replayed.status ?? ''}`);
    const refused = input.refusedValues ?? [];
    if (refused.length > 0) reasons.push(`the request carries values the contract refuses (${refused.join(', ')}), which the build before took: the client relies on a reading the document does not promise, and this build does not read them so`);
  }
  if (reasons.length > 0) return { verdict: 'broken', reasons: [...reasons, ...kept.map(differenceText)], differences: kept, ignored };
  if (kept.length > 0) {
    const lead = !isSuccess(recorded) && isSuccess(replayed) ? [`refused when recorded (${recorded.status ?? ''}), a success now (${replayed.status ?? ''})`] : [];
    return { verdict: 'changed', reasons: [...lead, ...kept.map(differenceText)], differences: kept, ignored };
  }
  return { verdict: 'compatible', reasons: [], differences: [], ignored };
}
