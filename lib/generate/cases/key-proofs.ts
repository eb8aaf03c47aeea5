import type { OperationId } from '../../contract/operations.ts';
import { percentEncodedAll } from '../../contract/codec/spellings.ts';
import { KEY_NEAR_MISSES } from '../../contract/exchange.ts';
import type { AuthMode, KeyNearMiss, RequestSpec } from '../../contract/exchange.ts';
import type { CaseContext, CasePart } from '../case.ts';
import { expectCheck } from '../expectations.ts';
import { KEY_PROOF_LABEL, KEY_PROOF_STATE, KEY_PROOFS } from '../templates.ts';

/**
 * The request that is about to succeed, sent first without the key, with an empty one, with a wrong one and
 * with the key in another letter case: each is refused (a 404 for data that does not exist cannot hide the
 * key here, since the data exists; section 5). `succeeds` says what the same request does with the key. The
 * wrong key is the operation's near miss of the key (WRONG_KEY_NEAR_MISS): wrong under every reading. The
 * key in another letter case is sent in the request's other valid spellings at once (spelledAtOnce), so that
 * every budget that proves the key on an operation also proves it on the spellings every reader takes alike.
 * `proofs` sends some of them only (a case that gives the others a part of their own).
 */
export async function keyProofs(ctx: CaseContext, opId: OperationId, request: RequestSpec, label: string, succeeds: string, proofs: ReadonlyArray<(typeof KEY_PROOFS)[number]> = KEY_PROOFS): Promise<void> {
  const miss = WRONG_KEY_NEAR_MISS[opId];
  for (const proof of proofs) {
    const auth: AuthMode = proof === 'wrong' ? miss : proof;
    const how = proof === 'wrong' ? `${KEY_PROOF_LABEL.wrong} (the key with ${NEAR_MISS_TEXT[miss]})` : proof === 'key-case' ? `${KEY_PROOF_LABEL[proof]}, ${SPELLED_AT_ONCE_SHORT}` : KEY_PROOF_LABEL[proof];
    const state = proof === 'wrong' ? `${KEY_PROOF_STATE.wrong} (the key with ${NEAR_MISS_TEXT[miss]})` : proof === 'key-case' ? `${KEY_PROOF_STATE[proof]}, in a request ${SPELLED_AT_ONCE_WORDS}${opId === UNDOCUMENTED_ON ? `, with the query parameter ${UNDOCUMENTED_PARAMETER} the document does not name` : ''}` : KEY_PROOF_STATE[proof];
    await ctx.send({
      label: `${label} ${how}`,
      operation: opId,
      // The key in another letter case goes in the request's other valid spellings at once (spelledAtOnce):
      // a server that refuses it for its key refuses it so too, one that skips the key on any of them serves it.
      request: proof === 'key-case' ? spelledAtOnce({ ...request, auth }, opId === UNDOCUMENTED_ON) : { ...request, auth },
      expect: [expectCheck('auth.key-checked', { because: `the subscription key is ${state}; with it ${succeeds}`, ...(proof === 'empty' ? { emptyKey: true } : {}) })],
    });
  }
}

/**
 * The wrong key the key proofs of each operation send (keyProofs): a near miss of the key. It is a wrong key
 * to any server (one that takes any key takes it as well as a random one), so it proves what a random wrong
 * key proved, and also one loose comparison of the key (cut, prefix, all but the last character, separators
 * stripped; issue 37). The run notification's own wrong-key case sends the first near miss
 * (RUN_WRONG_KEY); the operations that change data send three others, one each, and the end of a run the
 * fifth, so that a budget proving the key on every operation shows every loose comparison once at no request
 * more. The demerge's, two hyphens before the key, is taken by a server comparing the key's tail and by one
 * stripping its separators: the merge case, which proves the key on the merge and the demerge, then needs no
 * other near miss beside it. Where no data changes (non-destructive), the wrong-key case's parts send the
 * others.
 */
export const WRONG_KEY_NEAR_MISS: Record<OperationId, KeyNearMiss> = {
  notifyAgentRun: 'key-separator',
  mergeIswcMetadata: 'key-shorter',
  deleteSubmission: 'key-last-char',
  demergeIswcMetadata: 'key-prefixed',
};

/** What each near miss of the key is, in words. */
export const NEAR_MISS_TEXT: Record<KeyNearMiss, string> = {
  'key-longer': 'one character more',
  'key-shorter': 'its last character left out',
  'key-last-char': 'its last character changed',
  'key-separator': 'a hyphen inserted in the middle',
  'key-prefixed': 'two hyphens put before it',
};

/**
 * The wrong key of the run notification's wrong-key case (`run.auth.wrong`): the first near miss of the key.
 * Its parts send the others (nearMissParts), and the key proofs of the other operations send the others too,
 * one each (WRONG_KEY_NEAR_MISS).
 */
export const RUN_WRONG_KEY: KeyNearMiss = KEY_NEAR_MISSES[0];

/** The near misses the wrong-key case sends after its wrong key, each in its part. */
const OTHER_NEAR_MISSES: readonly KeyNearMiss[] = KEY_NEAR_MISSES.filter((miss) => miss !== RUN_WRONG_KEY);

/** The wrong-key case's title: its wrong key, then its other near misses, in words. */
export function wrongKeyCaseText(): string {
  return `a wrong key (the key with ${NEAR_MISS_TEXT[RUN_WRONG_KEY]}), then the key's other near misses (${OTHER_NEAR_MISSES.map((miss) => NEAR_MISS_TEXT[miss]).join(', ')})`;
}

/**
 * The near misses of the key after the wrong-key case's own, as its parts (issue 31): a budget takes one
 * loose comparison at a time, the wrong key in every selection. Each shows the key compared one loose way.
 */
export function nearMissParts(): CasePart[] {
  return OTHER_NEAR_MISSES.map((miss) => ({ id: miss, title: `the key with ${NEAR_MISS_TEXT[miss]}, refused`, shows: `key/${miss}` }));
}

/**
 * Near misses of the key (issue 28), each in its part (nearMissParts): `request`, one only the key refuses
 * (valid, naming data that exists: a 404 could hide the key otherwise), sent with its last character left
 * out, its last changed, a hyphen inside, two hyphens before it (the wrong-key case sent it with one
 * character more); a server that compares the key loosely (as a prefix, all but its last character, without
 * separators, by its tail) takes one of them.
 */
export async function sendNearMisses(ctx: CaseContext, opId: OperationId, request: RequestSpec): Promise<void> {
  for (const miss of OTHER_NEAR_MISSES) {
    await ctx.part(miss, async () => {
      await ctx.send({
        label: `a near miss of the key: ${NEAR_MISS_TEXT[miss]}`,
        operation: opId,
        request: { ...request, auth: miss },
        expect: [expectCheck('auth.required', { because: `the subscription key with ${NEAR_MISS_TEXT[miss]} is a wrong key (section 5.1): only the key itself grants access` })],
      });
    });
  }
}

/**
 * The key on every shape of a request (issue 38): a server may reach its key check only on some of them, and
 * serve the rest without a key (a filter keyed on the Content-Type, on the format an Accept asks for, on a
 * query read once, on the path as written). The part that sends them: without the key, the request that
 * succeeds with it, reshaped; each is refused (400, 406 or 415 as well: a server may refuse the shape first;
 * 403 or 404 for a path it does not route). The spellings every reader takes alike go at once with the key
 * in another letter case (keyProofs, spelledAtOnce), where a budget proving the key sends them.
 */
export const KEY_REQUEST_SHAPES_PART: CasePart = { id: 'key-request-shapes', title: 'without the key, the same request without Content-Type, asking for the other format or for */*, with a query parameter given twice or one more the document does not name, on its path with a trailing slash or in capitals: refused', shows: 'shape/key' };

/** The shape of keyShapes that only an XML body has: its registered alias as its label. */
export const TEXT_XML_SHAPE = 'a body labelled text/xml';

/** The shape of keyShapes that only a JSON body has: text/json as its label, which ASP.NET Core's JSON input reads by default. */
export const TEXT_JSON_SHAPE = 'a body labelled text/json';

/** The shapes of keyShapes that belong to one body format: each a part of its own (KEY_TEXT_XML_PART, KEY_TEXT_JSON_PART). */
export const FORMAT_SHAPES: readonly string[] = [TEXT_XML_SHAPE, TEXT_JSON_SHAPE];

/**
 * The XML body's own shape, apart from the shapes every format shares (KEY_REQUEST_SHAPES_PART, which the
 * JSON run sends as well): one request that a budget takes on its own, where the XML run's whole part would
 * cost it the shared shapes again.
 */
export const KEY_TEXT_XML_PART: CasePart = { id: 'key-text-xml', title: 'without the key, an XML body labelled text/xml (its registered alias): refused' };

/** The JSON body's own shape, a part of its own as the XML body's is. */
export const KEY_TEXT_JSON_PART: CasePart = { id: 'key-text-json', title: 'without the key, a JSON body labelled text/json (which ASP.NET Core reads as JSON): refused' };

/** The query parameter no operation documents that a key shape adds (a filter keyed on the parameters it knows may miss it). */
export const UNDOCUMENTED_PARAMETER = 'conformance-probe';

/**
 * The operation whose key in another letter case also carries UNDOCUMENTED_PARAMETER (spelledAtOnce): a filter
 * keyed on the parameters it knows serves it without a key, and every destructive budget proves the key on the
 * demerge. A server may refuse a parameter it does not know (400) before it looks at the key: the demerge's
 * refusal of a wrong key may be 400 anyway (5.3), so no server is failed for it, and the key in another letter
 * case on the other operations, without it, still shows a key compared without case on a server that refuses it.
 */
const UNDOCUMENTED_ON: OperationId = 'demergeIswcMetadata';

/** What spelledAtOnce changes, in words: after "a request", and as a label. */
export const SPELLED_AT_ONCE_WORDS = 'spelled in every other way every reader takes alike at once (a charset parameter to its Content-Type, an Accept naming the format it is sent in and the other after it, every query value percent-encoded)';
/** The same, short, for a label. */
export const SPELLED_AT_ONCE_SHORT = 'spelled every other valid way at once';

/**
 * The request spelled in every other way every reader takes alike, at once (issue 37): a charset parameter to
 * its Content-Type (RFC 9110 §8.3.1: the same media type), an Accept naming the format it is sent in (a
 * request without a body: JSON) and the other after it at a lower weight (RFC 9110 §12.5.1: a server answers in
 * the first, or the other if it serves that one only), every query value percent-encoded (`128` as `%31%32%38`:
 * the same value).
 * A server answers it as it answers the request; a key filter that compares the Content-Type whole, is keyed
 * on an Accept, or reads the raw query skips the key on it. No shape a server may refuse for itself is among
 * them (no Content-Type, the other format, a parameter twice or unknown): with one of them, a refusal of the
 * shape would hide the key's (those are keyShapes', one at a time). `undocumented`: one query parameter the
 * document does not name as well, where the key's refusal may be a 400 anyway (UNDOCUMENTED_ON).
 */
export function spelledAtOnce(request: RequestSpec, undocumented = false): RequestSpec {
  const headers: Record<string, string> = { ...(request.headers ?? {}) };
  const contentType = Object.keys(headers).find((name) => name.toLowerCase() === 'content-type');
  const media = contentType === undefined ? undefined : headers[contentType];
  if (request.body !== undefined && contentType !== undefined && media !== undefined && !media.includes(';')) headers[contentType] = `${media}; charset=utf-8`;
  if (!Object.keys(headers).some((name) => name.toLowerCase() === 'accept')) headers.Accept = media !== undefined && /xml/i.test(media) ? 'application/xml, application/json;q=0.5' : 'application/json, application/xml;q=0.5';
  const query = [...(request.query ?? []), ...(undocumented ? [[UNDOCUMENTED_PARAMETER, '1'] as const] : [])];
  if (request.rawQuery !== undefined || query.length === 0) return { ...request, headers };
  return { ...request, headers, rawQuery: query.map(([name, value]) => `${encodeURIComponent(name)}=${percentEncodedAll(value)}`).join('&') };
}

/** One shape of keyShapes: the request without the key, what changed, in words, and whether it is another spelling of the path. */
export interface KeyShape {
  label: string;
  shape: string;
  request: RequestSpec;
  otherPath?: true;
}

/**
 * The shapes a request can take that a key check may miss, each without the key: what keyOnShapes sends.
 * `more`: also an undocumented query parameter and the path with a trailing slash and in capitals (a fresh
 * reading of 2026-12-01); the merge's success case
 * leaves it to the other operations, since with it the case no longer fits a gate of 60, whose rotation must
 * take it whole.
 */
export function keyShapes(request: RequestSpec, more = true): KeyShape[] {
  const headers = request.headers ?? {};
  const contentType = Object.entries(headers).find(([name]) => name.toLowerCase() === 'content-type');
  const xml = contentType !== undefined && /xml/i.test(contentType[1]);
  const out: KeyShape[] = [];
  if (request.body !== undefined && contentType !== undefined) {
    out.push({ label: 'without the key and without Content-Type', shape: 'a body without Content-Type', request: { ...request, auth: 'none', headers: Object.fromEntries(Object.entries(headers).filter(([name]) => name.toLowerCase() !== 'content-type')) } });
  }
  const other = xml ? 'application/json' : 'application/xml';
  out.push({ label: `without the key, asking for ${other}`, shape: `an Accept of ${other}`, request: { ...request, auth: 'none', headers: { ...headers, Accept: other } } });
  const [first, ...rest] = request.query ?? [];
  if (first !== undefined && request.rawQuery === undefined) {
    out.push({ label: `without the key, ${first[0]} given twice`, shape: `the query parameter ${first[0]} given twice`, request: { ...request, auth: 'none', query: [first, first, ...rest] } });
  }
  // Aliases a handler reads alike and a filter keyed on one media type may not (a sixth fresh reading,
  // 2026-12-01): an XML body labelled text/xml (RFC 7303 §9.2), a JSON body labelled text/json (not registered,
  // but ASP.NET Core's JSON input reads it by default), and an Accept of */* (curl's default). A server may
  // refuse either label (415) or answer */* in either format: the key's refusal is all that is judged.
  if (more && request.body !== undefined && contentType !== undefined) {
    const alias = xml ? { media: 'text/xml', shape: TEXT_XML_SHAPE } : { media: 'text/json', shape: TEXT_JSON_SHAPE };
    out.push({ label: `without the key, its body labelled ${alias.media}`, shape: alias.shape, request: { ...request, auth: 'none', headers: { ...headers, [contentType[0]]: alias.media } } });
  }
  if (more) out.push({ label: 'without the key, with Accept */*', shape: 'an Accept of */*', request: { ...request, auth: 'none', headers: { ...headers, Accept: '*/*' } } });
  if (more && request.rawQuery === undefined) {
    out.push({ label: `without the key, with the query parameter ${UNDOCUMENTED_PARAMETER} the document does not name`, shape: 'an undocumented query parameter', request: { ...request, auth: 'none', query: [...(request.query ?? []), [UNDOCUMENTED_PARAMETER, '1']] } });
  }
  // The path as a router may take it and a filter comparing it as written may not (ASP.NET Core routing takes a
  // trailing slash and any letter case): served, it must be refused for the key; not routed, 403 or 404.
  if (more && request.path.length > 1 && !request.path.endsWith('/')) {
    out.push({ label: `without the key, on ${request.path}/`, shape: 'the path with a trailing slash', request: { ...request, auth: 'none', path: `${request.path}/` }, otherPath: true });
    out.push({ label: `without the key, on ${request.path.toUpperCase()}`, shape: 'the path in capitals', request: { ...request, auth: 'none', path: request.path.toUpperCase() }, otherPath: true });
  }
  return out;
}

/**
 * Sends the request in each shape of keyShapes without the key; `check` is auth.required (data that may not
 * exist) or auth.key-checked (a request about to succeed); `which`, when given, keeps the shapes it names.
 */
export async function keyOnShapes(ctx: CaseContext, opId: OperationId, request: RequestSpec, label: string, succeeds: string, check: 'auth.required' | 'auth.key-checked' = 'auth.key-checked', more = true, which: (shape: KeyShape) => boolean = () => true): Promise<void> {
  for (const s of keyShapes(request, more).filter(which)) {
    await ctx.send({
      label: `${label} ${s.label}`,
      operation: opId,
      request: s.request,
      // Another path than the document's: which status a server that does not route it answers is not the document's (a 404).
      ...(s.otherPath ? { probe: 'outside-document' as const } : {}),
      expect: [expectCheck(check, { shape: s.shape, ...(s.otherPath ? { otherPath: true } : {}), because: `the subscription key is missing, in ${s.shape} (section 5.1); with it ${succeeds}` })],
    });
  }
}
