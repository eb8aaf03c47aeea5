import { formatOfContentType } from '../../contract/codec/index.ts';
import type { AnswerFacts } from './facts.ts';

/**
 * The second judgement of a replayed exchange: the answer the build gave, next to the one the agency's
 * client met when the session was recorded. Values that differ on every call (a runId, a date, a trace
 * id) are learned, not listed: the same request is sent twice to a baseline (the build before, or the
 * reference server), and what differs between those two answers is noise, left out of the comparison
 * (Diffy's rule). Noise may hide a text or an optional field, never a status, a media type or a format.
 */

export type Facet = 'answer' | 'status' | 'media type' | 'charset' | 'encoding' | 'format' | 'shape' | 'name' | 'text';

export interface Difference {
  facet: Facet;
  /** The field or element, for shape and text. */
  path?: string;
  recorded: string;
  replayed: string;
  /** Identifies the difference for the noise learned (facet and path). */
  key: string;
}

/** Facets noise may cover: what differs between two answers of the same build to the same request (never a status, a media type, an encoding or a format). */
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
    if (a.encoding !== b.encoding) out.push({ facet: 'encoding', recorded: a.encoding ?? 'utf-8', replayed: b.encoding ?? 'utf-8', key: 'encoding' });
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
  // An element both answers hold, written with another prefix or in another namespace.
  for (const path of new Set([...a.names.keys(), ...b.names.keys()])) {
    if (!a.shape.has(path) || !b.shape.has(path)) continue;
    const x = a.names.get(path);
    const y = b.names.get(path);
    if (x !== y) out.push({ facet: 'name', path, recorded: x ?? `${path.slice(path.lastIndexOf('/') + 1)} (no prefix, no namespace)`, replayed: y ?? `${path.slice(path.lastIndexOf('/') + 1)} (no prefix, no namespace)`, key: `name ${path}` });
  }
  for (const [path, x] of a.texts) {
    const y = b.texts.get(path);
    if (y === undefined) continue;
    const mapped = mapText(x);
    if (mapped !== y) out.push({ facet: 'text', path, recorded: x, replayed: y, key: `text ${path}` });
  }
  return out;
}

/**
 * A text's form: letters by case, digits, everything else as written. Two values of the same form (two
 * lower-case GUIDs, two timestamps of one format) differ only in what a client reads as data; a value of
 * another form (a braced upper-case GUID, a number instead of a name) is another thing to parse.
 */
export function sameForm(a: string, b: string): boolean {
  if (a.length !== b.length) return false;
  const kind = (c: string): string => (c >= '0' && c <= '9' ? '9' : c >= 'a' && c <= 'z' ? 'a' : c >= 'A' && c <= 'Z' ? 'A' : c);
  for (let i = 0; i < a.length; i++) {
    const x = kind(a[i] ?? '');
    const y = kind(b[i] ?? '');
    // A digit stands in for a letter of either case: hex digits of a GUID are letters or digits by chance.
    if (x !== y && !((x === '9' && (y === 'a' || y === 'A')) || (y === '9' && (x === 'a' || x === 'A')))) return false;
  }
  return true;
}

/** What noise hides at a key: the value only (its form stays compared), or anything there. */
export type NoiseKind = 'value' | 'any';

/**
 * The noise of a request: what differs between two answers of the same build to it. A text whose two
 * values have the same form is noise in its value only: a build that answers it in another form is a change.
 */
export function learnNoise(first: AnswerFacts, second: AnswerFacts): { noise: Map<string, NoiseKind>; unstable: Difference[] } {
  const all = differences(first, second);
  const noise = new Map<string, NoiseKind>();
  for (const d of all) if (NOISY.has(d.facet)) noise.set(d.key, d.facet === 'text' && sameForm(d.recorded, d.replayed) ? 'value' : 'any');
  return { noise, unstable: all.filter((d) => !NOISY.has(d.facet)) };
}

export type CompatVerdict = 'compatible' | 'changed' | 'broken' | 'skipped';

/** A failure of the document's checks (or, new since recorded, of an HTTP convention) on the replayed answer. */
export interface DocumentFailure {
  checkId: string;
  level: string;
  sections: readonly string[];
  expected: string;
  received: string;
  /** The answer the client met failed the same check: a deviation it already lived with, not this build's doing. */
  alsoWhenRecorded: boolean;
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
  noise: ReadonlyMap<string, NoiseKind>;
  /** Gating failures of the document's every-answer checks on the replayed answer. */
  documentFailures: readonly DocumentFailure[];
  /** The request acts for another agency than the one the key acts for (which agency a key may act for is not shown, 5.3). */
  actsForOther: string | undefined;
  mapText?: (text: string) => string;
  /** The Accept header the client sent, when it sent one: an answer in a format it does not accept breaks it. */
  accept?: string;
  /** Values of the request the contract refuses (`/overallSent type`): said when a success became a refusal, since the client relied on a reading the document does not promise. */
  refusedValues?: readonly string[];
}

const isSuccess = (f: AnswerFacts): boolean => f.answered && f.status !== null && f.status >= 200 && f.status < 300;

function differenceText(d: Difference): string {
  const where = d.path !== undefined ? ` at ${d.path}` : '';
  const clip = (s: string): string => (s.length > 120 ? `${s.slice(0, 120)}…` : s);
  return `${d.facet}${where}: ${clip(d.recorded)} → ${clip(d.replayed)}`;
}

const FORMAT_NAME: Record<string, string> = { json: 'JSON', xml: 'XML' };

/** Does an Accept header accept a body of this format (json, xml)? Media ranges with q=0 accept nothing. */
export function acceptsFormat(accept: string, format: 'json' | 'xml'): boolean {
  for (const part of accept.split(',')) {
    const [range = '', ...params] = part.split(';').map((p) => p.trim().toLowerCase());
    if (range === '') continue;
    const q = params.find((p) => p.startsWith('q='));
    if (q !== undefined && !(Number(q.slice(2)) > 0)) continue;
    if (range === '*/*' || range === 'application/*' || (range === 'text/*' && format === 'xml')) return true;
    if (range === 'text/*' && format === 'json') return true;
    if (formatOfContentType(range) === format) return true;
  }
  return false;
}

/** Does an Accept header name a format at all (not only wildcards or types of neither)? */
function namesAFormat(accept: string): boolean {
  return accept.trim() !== '' && !acceptsFormat(accept, 'json') !== !acceptsFormat(accept, 'xml');
}

const isBom = (encoding: string | null): boolean => encoding !== null && /byte order mark/i.test(encoding);

/**
 * Differences a client meets as another thing to read, whatever the document allows: an element renamed
 * by a prefix or a namespace where it had none (a client reading `<runId>` finds no runId), a Content-Type
 * that stops naming the body's format (a client that dispatches on it reads a string), an answer in a
 * format the request's Accept does not accept, a byte order mark before JSON (RFC 8259 §8.1: must not be
 * added; strict parsers such as Python's json.loads refuse it).
 */
function breakingDifferences(input: CompareInput, kept: readonly Difference[]): string[] {
  const { recorded, replayed } = input;
  const out: string[] = [];
  for (const d of kept.filter((x) => x.facet === 'name')) {
    const uri = (t: string): string => /\{([^}]*)\}/.exec(t)?.[1] ?? '';
    const unqualified = /\(no prefix, no namespace\)$/.test(d.recorded);
    if (unqualified || uri(d.recorded) !== uri(d.replayed)) out.push(`an element is named otherwise: ${d.path ?? ''} was ${d.recorded}, now ${d.replayed}: a client that reads it by name finds another element`);
  }
  const same = replayed.format === recorded.format && (replayed.format === 'json' || replayed.format === 'xml');
  if (same && recorded.declared === recorded.format && replayed.declared !== replayed.format) {
    out.push(`the Content-Type no longer names the body's format: ${FORMAT_NAME[replayed.format] ?? replayed.format} labelled ${replayed.mediaType ?? '(none)'} where the client met ${recorded.mediaType ?? ''}: a client that dispatches on the Content-Type reads another thing`);
  }
  const accept = input.accept;
  if (accept !== undefined && namesAFormat(accept) && (replayed.format === 'json' || replayed.format === 'xml') && !acceptsFormat(accept, replayed.format)) {
    // Only where the client met a body of a format it asked for: another one is what it cannot read.
    const metAccepted = (recorded.format === 'json' || recorded.format === 'xml') && acceptsFormat(accept, recorded.format);
    if (metAccepted) out.push(`an answer in a format the client did not ask for: ${FORMAT_NAME[replayed.format]} to a request with Accept: ${accept}`);
  }
  if (replayed.format === 'json' && isBom(replayed.encoding) && !isBom(recorded.encoding)) {
    out.push('a byte order mark before the JSON answer: RFC 8259 §8.1 says it must not be added, and strict parsers (Python\'s json.loads) refuse it');
  }
  return out;
}

/**
 * compatible: the client meets what it met. changed: within the document, but different (a status, a
 * media type, an encoding, a field, a text). broken: the answer violates the document (a gating check
 * fails that the answer the client met passed; also an HTTP convention it kept, such as a Content-Type
 * that says what the body is), no answer comes, or a success became a refusal. A violation the client met
 * already is said, and breaks nothing by itself. A refusal of the key for another agency than the key's
 * is no verdict on the build (skipped): which agency a key may act for is not shown.
 */
export function compareAnswers(input: CompareInput): Comparison {
  const { recorded, replayed } = input;
  const all = differences(recorded, replayed, input.mapText);
  const mapText = input.mapText ?? ((t: string) => t);
  const ignored = all.filter((d) => {
    const kind = input.noise.get(d.key);
    if (kind === undefined || !NOISY.has(d.facet)) return false;
    return kind === 'any' || sameForm(mapText(d.recorded), d.replayed);
  });
  const kept = all.filter((d) => !ignored.includes(d));
  if (!replayed.answered) return { verdict: 'broken', reasons: [`no answer (${replayed.error ?? 'none'}) where the client met ${recorded.answered ? `a ${recorded.status ?? ''}` : 'none either'}`], differences: kept, ignored };
  if (isSuccess(recorded) && !isSuccess(replayed) && (replayed.status === 401 || replayed.status === 403) && input.actsForOther !== undefined) {
    return { verdict: 'skipped', reasons: [`not comparable: the build refused the key for agency ${input.actsForOther} (${replayed.status}); which agency a key may act for is not shown (5.3): replay with a key that acts for it`], differences: kept, ignored };
  }
  const reasons: string[] = [];
  for (const f of input.documentFailures.filter((d) => !d.alsoWhenRecorded)) reasons.push(`${f.level === 'http' ? 'breaks an HTTP convention the answer kept when recorded' : 'violates the document'}: ${f.checkId} [${f.level}, ${f.sections.join(', ')}]: expected ${f.expected}; received ${f.received}`);
  const known = input.documentFailures.filter((d) => d.alsoWhenRecorded).map((f) => `violates the document as the answer the client met did (${f.checkId} [${f.level}]): not a change of this build`);
  reasons.push(...breakingDifferences(input, kept));
  if (isSuccess(recorded) && !isSuccess(replayed)) {
    reasons.push(`a success became a refusal: ${recorded.status ?? ''} → ${replayed.status ?? ''}`);
    const refused = input.refusedValues ?? [];
    if (refused.length > 0) reasons.push(`the request carries values the contract refuses (${refused.join(', ')}), which the build before took: the client relies on a reading the document does not promise, and this build does not read them so`);
  }
  if (reasons.length > 0) return { verdict: 'broken', reasons: [...reasons, ...kept.map(differenceText), ...known], differences: kept, ignored };
  if (kept.length > 0) {
    const refusedNow = input.refusedValues ?? [];
    const lead =
      !isSuccess(recorded) && isSuccess(replayed)
        ? [
            `refused when recorded (${recorded.status ?? ''}), a success now (${replayed.status ?? ''})`,
            // Whether a build may take a value the contract refuses depends on readings the document leaves open (coercion, how lengths count): the gate judges it, a replay does not.
            ...(refusedNow.length > 0 ? [`the request carries values the contract refuses (${refusedNow.join(', ')}), which this build took: whether it may is the gate's to judge (npx iswc-conformance run)`] : []),
          ]
        : [];
    return { verdict: 'changed', reasons: [...lead, ...kept.map(differenceText), ...known], differences: kept, ignored };
  }
  return { verdict: 'compatible', reasons: known, differences: [], ignored };
}
