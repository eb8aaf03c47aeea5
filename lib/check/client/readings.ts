/**
 * The readings of the document from the client's side: for each point, what every reasonable reading
 * agrees a client must do (gated, by `spec` client checks; `http` for RFC conventions the document does
 * not state, gating only with --strict) and where a client relies on a point the document leaves open
 * (only recorded, by `observed` client checks). The rule is the server checks' (docs/readings.md): a
 * `spec` client check fails a request only when no reasonable reading of the document takes it.
 */
export interface ClientReading {
  point: string;
  sections: readonly string[];
  gated: string;
  recorded: string;
}

export const CLIENT_READINGS = [
  {
    point: 'Key',
    sections: ['5'],
    gated: 'Every request carries the header Ocp-Apim-Subscription-Key with the key the client was given (5.1: every operation requires it).',
    recorded: '',
  },
  {
    point: 'Operations',
    sections: ['4'],
    gated: 'The method and path of one of the four operations, exactly as section 4 writes them; a body where the operation has one (run notification, merge) and none where it has none (delete, demerge); a Content-Type, when sent, that names JSON or XML and matches the body.',
    recorded: '',
  },
  {
    point: 'Bodies',
    sections: ['2.1', '2.3', '2.4'],
    gated: 'A body that parses (RFC 8259 JSON, well-formed XML), an object under the root element the document names (AgentRun, MergeRequest), fields named exactly as section 2 names them (2.1: "named exactly as below"), and values no reading can take as another type refused: a word or a fraction for an int32, an object or an array for a scalar.',
    recorded: 'Fields the document does not name, missing fields and nulls (required-ness is not shown), values a lenient reader converts without loss ("5" for an integer, a number for a string), XML habits the document leaves open (a namespace on the root, wrapped arrays, a DOCTYPE, an XML body without Content-Type).',
  },
  {
    point: 'Limits',
    sections: ['2.1', '2.3', '2.4', '4.3', '8'],
    gated: 'Every value within its stated limit under every reading of "characters": agencyCode (body and query agency) exactly 3, agencyWorkCode and workcode at most 20, each ISWC of a merge body `T` and 10 digits, counters and sourceDb 32-bit integers.',
    recorded: 'Lengths the readings count differently (astral, combining, non-ASCII characters: code points, UTF-16 units, grapheme clusters, UTF-8 bytes) where one reading puts the value past its limit.',
  },
  {
    point: 'Open points',
    sections: ['2.2', '2.3', '4', '4.1', '4.2', '4.3', '4.4'],
    gated: 'Nothing: a request that relies on a point the document leaves open is only recorded.',
    recorded: 'Query parameters missing, blank, repeated or not documented (required-ness is not shown; production refuses a blank reasonCode); a preferredIswc off the ISWC pattern (the document states none for the parameter) or an ISWC with a wrong check digit; the end of a run the server never issued; runs started and never ended; requests production as built answers otherwise than the sandbox did (a body without Content-Type or in XML is 415 there), whatever choices the sandbox makes.',
  },
  {
    point: 'HTTP conventions',
    sections: ['RFC 9110', 'RFC 6585'],
    gated: 'Not stated by the document, so gating only with --strict: the same request not sent again before the Retry-After it was answered has elapsed (RFC 9110 §10.2.3, after a 429 or 503; another request is never held to it), retries of a request that met trouble bounded, the rate limit of the session respected (RFC 6585 §4).',
    recorded: '',
  },
] as const satisfies readonly ClientReading[];

export type ClientReadingPoint = (typeof CLIENT_READINGS)[number]['point'];
