/**
 * The readings the harness applies where the interface document is brief: for each point, what every
 * reasonable reading agrees on (gated, by `spec` checks; `http` for conventions the document does not
 * state) and what careful servers may do differently (only recorded, by `observed` checks). The rule: a
 * `spec` check demands only the common ground. Each check file names the point it belongs to, and
 * docs/readings.md is generated from this list and those files (`npm run generate`).
 */
export interface Reading {
  point: string;
  sections: readonly string[];
  /** What is demanded (by the point's spec and http checks). */
  gated: string;
  /** What is only recorded (by the point's observed checks; never a failure). */
  recorded: string;
}

export const READINGS = [
  {
    point: 'Characters',
    sections: ['2.1', '2.4', '8'],
    gated: 'Lengths are judged only in characters on which code points, UTF-16 units, grapheme clusters and UTF-8 bytes agree (ASCII): one past a limit is 400. An item of a merge body past its limits (an ISWC off the pattern, an agency work code of 21 characters) names nothing that exists, and a server that looks items up before it validates them answers 404 "ISWC not found", then true: there a refusal, 400 or 404, is demanded.',
    recorded: 'Astral, combining, right-to-left and full-width characters at and past a limit, with the length under each reading (a .NET server counts UTF-16 units, another grapheme clusters).',
  },
  {
    point: 'Acceptance',
    sections: ['2.1', '2.4', '8'],
    gated: 'A realistic value at a limit is not refused because of it: the same request with a nominal value and with the value at the limit, both naming data that exists or both not, get the same status. A valid request on existing data gets the success status; Content-Type is optional, so a JSON body without it is understood.',
    recorded: 'Unrealistic values within or near the limits: empty strings, NUL, control and bidi characters, negative counters, the largest sourceDb, ISWCs in lower case, with separators, spaces or full-width digits, edge whitespace, duplicates and empty merges; what an XML body without Content-Type gets (sniffed, or read as JSON).',
  },
  {
    point: 'Types',
    sections: ['2.1', '2.3', '2.4', '7'],
    gated: 'A value no reading can take as the stated type is 400: a word or a fraction for an int32, an object or array for a scalar (JSON), a body that is not an object, XML text that is not an integer where one is stated.',
    recorded: 'Values a lenient deserializer converts without loss ("5" for an integer, a number or boolean for a string, a boolean for an integer) and, in XML, an element where text is expected.',
  },
  {
    point: 'Syntax',
    sections: ['2.1', '2.3', '7'],
    gated: 'Bytes no JSON or XML parser accepts (cut short, not JSON at all, an unclosed or mismatched element) are 400.',
    recorded: 'What lenient parsers accept: single quotes, comments, trailing content, unquoted property names; XML under another root element (binders that do not check the root name, such as Jackson\'s XmlMapper).',
  },
  {
    point: 'Not found',
    sections: ['4.2', '7'],
    gated: 'A merge naming a preferred ISWC that does not exist, everything else naming existing data, is 404: the document ties "ISWC not found" to it. One exact 404 is demanded only where nothing else in the request is wrong: a delete of nothing is a refusal, 400 or 404 (its 400 "invalid agency and work code provided" fits a submission found by its work under another preferred ISWC), and so is a demerge naming an unknown preferred ISWC (its metadata is merged into another preferred ISWC, or nowhere: a server that looks the work up first calls either a bad request).',
    recorded: '',
  },
  {
    point: 'Refusal',
    sections: ['2.5', '3', '4.2', '4.3', '4.4', '7', '8'],
    gated: 'Where the document lists more than one error status that fits, a refusal: one of the operation\'s documented error statuses (400 or 404), never a success. A repeated delete or demerge (what it names is gone: a 204 would claim it removed something, so an idempotent 204 is not taken); a demerge of metadata never merged; a delete or demerge naming another agency, work code, sourceDb or preferred ISWC, or an unknown preferred ISWC; an ISWC of the merge body that does not exist; an item of the merge body past its limits sent next to a disposable entry\'s valid data (a server that looks items up before it validates them answers 404, which is then true); a query agency, workcode or sourceDb past the limits of the field it names.',
    recorded: 'Which of the documented error statuses came.',
  },
  {
    point: 'Authentication',
    sections: ['4.1', '5'],
    gated: 'No key or a wrong key: 401 "Not Authorized" on the run notification (4.1); on merge, delete and demerge a refusal, 400, 401, 403 or 404 (5.3 does not show the answer, and a server may look the data up first), never a success. A 404 for data that does not exist can hide a key the server ignores, so the key is also proven on disposable entries: the request that succeeds with the key is refused without it, with an empty one and with a wrong one. Another agency than the profile\'s may be refused with 401 or 403 (5.3).',
    recorded: 'Which status and body refuse the key on merge, delete and demerge.',
  },
  {
    point: 'Stated texts',
    sections: ['4.1', '5', '7'],
    gated: '"Bad Request" (400) and "Not Authorized" (401) of the run notification are carried as a whole string: the body itself, the first line of a plain-text body (a detail may follow), any JSON string value (a problem+json title, a gateway message) or an XML text node (CDATA and character references read). The format is free.',
    recorded: 'The content type and shape of every error body.',
  },
  {
    point: 'Statuses and bodies',
    sections: ['2.2', '4', '4.1', '7'],
    gated: 'Every answer to a documented request uses a status the document lists for the operation; a 204 carries no body; the 200 of the run notification is a CsnNotification with a non-empty runId, in JSON or XML.',
    recorded: 'Which representation (JSON or XML) answers, for each request format and Accept header.',
  },
  {
    point: 'Outcomes',
    sections: ['2.5', '3', '4.2', '4.3', '4.4'],
    gated: 'A successful merge makes its works demergeable; a merge of ISWCs only succeeds; a demerge removes one set of metadata from exactly one preferred ISWC; a delete or demerge naming another value leaves the data in place; two runs started one after the other get two runIds; over generated sequences, each answer is 204 or a refusal as a model of these outcomes predicts.',
    recorded: '',
  },
  {
    point: 'Open points',
    sections: ['2.2', '2.5', '4', '4.1', '4.2', '4.3', '4.4', '5.3'],
    gated: 'A request that probes a point the document leaves open is judged by http and observed checks only; no spec failure comes from it.',
    recorded: 'A runId the server never issued; missing, null and extra fields; a malformed preferredIswc or a wrong check digit; a missing or blank reasonCode.',
  },
  {
    point: 'HTTP conventions',
    sections: ['RFC 9110', 'RFC 9112'],
    gated: 'Not stated by the document, so gating only with ISWC_STRICT=1: a complete answer in time, no 5xx, a Content-Type matching the body, no stack traces, 405 with Allow (or a gateway\'s 404/501), 404 for an unknown path, 415 or 400 for another media type, 413 or 400 (or an answer) for an oversized body, XML entities never expanded.',
    recorded: '',
  },
] as const satisfies readonly Reading[];

/** Decisions on readings a reviewer may question, with the reason; rendered under the table. */
export const DECISIONS: ReadonlyArray<{ title: string; text: string }> = [
  {
    title: 'ASP.NET Core validation errors and "Bad Request"',
    text: 'ASP.NET Core\'s automatic model-validation answer is a problem+json whose title is "One or more validation errors occurred.", not "Bad Request". Section 4.1 states the text of the 400, and the harness reads "text" as what the body carries, in any format (it accepts the title, a message, a text node, each alone or leading a detail after a separator such as "Bad Request: agencyCode"). A server that sends only that title fails `text.bad-request`: under this reading it is a real deviation of the run notification, and the most common one to expect from .NET servers. A waiver (docs/reports.md, README "Waivers") is the way to live with it while it is fixed.',
  },
  {
    title: 'XML entities',
    text: 'Expanding an internal entity is what a conforming XML processor does, and it is not external-entity injection. The harness still expects a DOCTYPE to be refused or left unexpanded, as the OWASP XXE guidance recommends (disable DTDs): this is an `http` check, so it gates only with ISWC_STRICT=1, and the request is a probe of an open point, never judged by a `spec` check.',
  },
  {
    title: 'A repeated demerge',
    text: 'Some REST guidelines make DELETE idempotent (204 for what is already gone). Section 3 states the outcome of a successful demerge: it removes the metadata. A 204 that removed nothing would claim an outcome that did not happen, and accepting it would blind `outcome.demerge`; so a repeat is a refusal (400 or 404). The same holds for a repeated delete, which 4.3\'s "submission not found" states outright.',
  },
  {
    title: 'Runs that are open',
    text: 'Section 3 does not show the states of a run, and 4.1 answers a valid agent run with 200. A server may still let an agency have one run open at a time and refuse a start while another is open: a client must know it to succeed at all, so the target profile says it (`openRuns: "one"`), as it says `reasonCode` and `xmlArrays`. The harness ends every run it starts, at the latest when the case that started it ends (polite on a shared staging too); with `openRuns: "one"` a case ends its run before it starts another, and the cases of one run take turns across its workers, so the run never has two open. Shards are runs of their own and take no turns with each other, so a sharded run is refused with `openRuns: "one"` (exit 2). A start that got no answer in time (`ISWC_TIMEOUT_MS`) may still have opened a run on the target, which the harness cannot end (the answer that names it never came): the timeout is reported (`http.answered`), and on such a target the next start may be refused until that run is closed. Runs other clients of the agency leave open are outside its reach: keep them closed while it runs.',
  },
  {
    title: 'Who names a run',
    text: 'Section 2.1 states no rule for runId, and 2.2 answers a run notification with "the agent run identifier". Production starts a run from a body without runId and answers a new one (DOMAIN.md), and the harness does the same by default. A server where the client names its runs (a start carries a runId of the client\'s choosing, a known runId ends that run) refuses such a start: a client must know it, so the target profile says it (`runIds: "client"`) and the harness then writes a runId of its own into every agent run it would send without one. What a start may carry is open, so the harness starts runs with every counter 0 (a run that starts has counted nothing), the one start every reading takes.',
  },
  {
    title: 'XML namespaces in requests',
    text: 'Sections 2.1 and 2.3 name the root elements (`AgentRun`, `MergeRequest`) and no namespace, and production uses none. DataContractSerializer\'s default (a root in its own namespace) would refuse every XML body a client writes from the document, so a server that requires it fails `status.success`: the fault `xml-request-namespace`. Answers are read by local name, so a namespace on an answer is never a failure.',
  },
  {
    title: 'The key and data that does not exist',
    text: 'Section 5.3 leaves open what a missing key gets on merge, delete and demerge, and which agency a key may act for depends on the data, so a server may look the data up first: a 404 without the key is a refusal like 400, 401 or 403 (`auth.required`). But on data that does not exist, a 404 comes whatever the server does with the key. What proves that the key is checked is the request that would succeed: the destructive cases send it without the key, with an empty one and with a wrong one (each refused, `auth.key-checked`), then with it (success), which also shows the refused requests had no effect. Non-destructive runs cannot show it, and say so (the check is listed as not exercised).',
  },
  {
    title: 'Items a merge cannot take',
    text: 'An item of a merge body past its limits (an ISWC off the pattern, an agency work code of 21 characters, an agency code of 2 or 4) names nothing that exists: a server that validates first answers 400, one that looks items up first 404 "ISWC not found", documented for the merge and then true; either refuses it. Sent next to data that does not exist, the same 404 would hide a server that silently drops the item. So the destructive merge also sends its entry\'s valid data with one such item, and with an ISWC that does not exist, before that data alone is merged: each must be refused (`status.item-refused`), and the merge then succeeds, which shows the entry was left as it was. What a refused merge leaves behind is not shown (section 1), and a server may handle the items one by one and keep what it merged before it meets one it cannot take; such a server would then refuse the entry\'s own merge (its ISWCs would already have a parent). So the item goes first among the items of its kind, with the part of the entry that carries that kind alone (its ISWCs, then its agency works, each merged by a request of its own). One assumption remains, where an entry carries one kind only: its refused ISWCs go with its agency works, first in the document\'s order (2.3: iswcs, then agencyWorks), so a server that keeps what it merged is assumed to take the items in that order or to validate and look them all up before it merges any; an entry of ISWCs only is sent no refused agency work. The property that breaks one limit among existing ISWCs (`limit.rejected`) assumes the same of a broken item: validated before anything is merged, as a server that binds and validates its body first does.',
  },
  {
    title: 'Query parameters left out',
    text: 'Which query parameters are required is not shown for any operation (section 4). What a merge, delete or demerge gets with one parameter left out, or present but empty, is recorded (`observed.requiredness`); a 5xx is still an `http` failure. These requests name a preferred ISWC that does not exist and a work code never submitted, so nothing changes whatever the server makes of the missing value.',
  },
  {
    title: 'One set of metadata',
    text: 'Section 4.4 removes "one set of metadata" from exactly one preferred ISWC: one agency work, or all the works one merge request carried. The harness merges the work whose survival it checks by a request of its own, so that both readings agree that demerging another work leaves it merged; and after a demerge it demerges metadata merged into another preferred ISWC, which must still be there.',
  },
  {
    title: 'Byte order marks and UTF-16',
    text: 'RFC 8259 §8.1 forbids a byte order mark on JSON but lets parsers ignore one; XML 1.0 allows UTF-16 with one. Answers are decoded by the byte order mark, then the charset, and the encoding is recorded with observed answers; neither is a failure.',
  },
];

export type ReadingPoint = (typeof READINGS)[number]['point'];

/** docs/readings.md, with the checks that gate and record each point (read from the check files). */
export function renderReadingsDoc(checks: ReadonlyArray<{ id: string; level: string; reading: string }>): string {
  const cell = (s: string) => s.replace(/\|/g, '\\|');
  const ids = (r: Reading, recorded: boolean) =>
    checks
      .filter((c) => c.reading === r.point && (c.level === 'observed') === recorded)
      .map((c) => `\`${c.id}\``)
      .join(', ');
  const rows = READINGS.map((r: Reading) => {
    const gatedBy = ids(r, false);
    const recordedBy = ids(r, true);
    return `| ${r.point} | ${r.sections.join(', ')} | ${cell(r.gated)}${gatedBy ? ` (${gatedBy})` : ''} | ${cell(r.recorded) || '—'}${recordedBy ? ` (${recordedBy})` : ''} |`;
  });
  return [
    '# Readings',
    '',
    'Generated from `lib/check/readings.ts` and the check files of `lib/check/checks/` by `npm run generate`; do not edit by hand.',
    '',
    'The interface document is the contract, and a `spec` check demands only what every reasonable reading of it agrees on. Where two careful servers could differ (how characters are counted, lossless type coercion, lenient JSON, which of two documented error statuses, the answer to a point the document leaves open), the harness gates on the common ground and records the rest as `observed`, with what came, so that a regression diff shows it. `http` checks hold RFC 9110 conventions the document does not state; they gate only with `ISWC_STRICT=1`.',
    '',
    'The reference server can make every legitimate choice listed in [reference-server.md](reference-server.md); the self-check keeps the suite green, strict, against each set of them.',
    '',
    '| point | sections | gated (spec, or http where marked) | only recorded (observed) |',
    '|---|---|---|---|',
    ...rows,
    '',
    '## Decisions',
    '',
    ...DECISIONS.flatMap((d) => [`**${d.title}.** ${d.text}`, '']),
  ].join('\n');
}
