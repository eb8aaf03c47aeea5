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
    gated: 'A length past a limit is judged in characters every reading counts alike: code points, UTF-16 units, grapheme clusters and code points after NFC agree on ASCII and on precomposed letters of the Basic Multilingual Plane ("1é" is 2 characters for all of them). UTF-8 bytes are no reading of characters: a server counting them takes "1é" for 3 and fails. One past a limit is 400. An item of a merge body past its limits (an ISWC off the pattern, an agency work code of 21 characters) names nothing that exists, and a server that looks items up before it validates them answers 404 "ISWC not found", then true: there a refusal, 400 or 404, is demanded. A limit is demanded only where the document states it: the merge\'s query agency names the submitter, and section 8 limits the body field agencyCode, so what a query agency of 2 or 4 characters gets on a merge is recorded; the query values of delete and demerge name data, and one past the limits of its field names nothing (a refusal). Past a limit or off a pattern, a value is refused as sent, also where a lenient reading (cut to the limit, trimmed, folded, stripped of separators, read in other digits) would land on data the target holds: the harness sends such near neighbours of its data and demands the refusal (docs/readings.md, "Near neighbours of data that exists").',
    recorded: 'Astral, combining, right-to-left and full-width characters at and past a limit, with the length under each reading (a .NET server counts UTF-16 units, another grapheme clusters); the merge\'s query agency past the limits of agencyCode.',
  },
  {
    point: 'Acceptance',
    sections: ['2.1', '2.4', '8'],
    gated: 'A realistic value at a limit (ASCII: a server may allow only the characters real codes use) is not refused because of it: the same request with a nominal value and with the value at the limit, both naming data that exists or both not, get the same status; for a counter, a large but realistic count (1,000,000 records), since a server may refuse an implausible one. Where a server may look the preferred ISWC up first, the request names one that exists (a delete or demerge of a work code nothing has; a merge into a disposable entry\'s preferred ISWC), so the value is read. A valid request on existing data gets the success status, the data at the limit of its field included (a work code of 20 characters the target holds).',
    recorded: 'Unrealistic values within or near the limits: empty strings, NUL, control and bidi characters, negative counters, the 32-bit maximum of a counter, the largest sourceDb, ISWCs in lower case, with separators, spaces or full-width digits naming nothing, edge whitespace, duplicates and empty merges. What a JSON or XML body without Content-Type gets: read as JSON, sniffed, or taken for application/octet-stream and refused (415, as ASP.NET Core does; RFC 9110 §8.3); a 5xx to it is an http failure.',
  },
  {
    point: 'Types',
    sections: ['2.1', '2.3', '2.4', '7'],
    gated: 'A value no reading can take as the stated type is 400: a word, or text with a fraction ("1.5"), with letters after its digits ("1000abc"), with thousands separators between them ("1,000"), for an int32, an object or array for a scalar (JSON), a body that is not an object, XML text that is not an integer where one is stated. On a notification that ends a run as on a start.',
    recorded: 'Values a lenient deserializer converts ("5" for an integer, a number or boolean for a string, a boolean for an integer, a JSON number with a fraction for an integer, which Jackson truncates by default; text some platform\'s parser reads as the number its digits denote: underscores between digits "1_000", digits of other scripts "１０００" and "١٠٠٠", docs/readings.md "Integers written leniently") and, in XML, an element where text is expected.',
  },
  {
    point: 'Syntax',
    sections: ['2.1', '2.3', '7'],
    gated: 'Bytes no JSON or XML parser accepts (cut short, not JSON at all, an unclosed or mismatched element) are 400.',
    recorded: 'What lenient parsers accept: single quotes, comments, trailing content, unquoted property names; XML under another root element (binders that do not check the root name, such as Jackson\'s XmlMapper).',
  },
  {
    point: 'Spellings',
    sections: ['2.1', '2.3', '4', '5'],
    gated: 'A valid request spelled another way that every reader of its format takes alike gets the answer the plain spelling gets, on every operation and in each format it serves: in XML every text in a CDATA section, every character as a character reference, a comment between every two tags, the declaration in single quotes with its encoding in lower case; in JSON every character of a string as a \\u escape, the members of every object in reverse order, tabs, CR LF and spaces around every token; a query with every character of its values percent-encoded, its parameters in reverse order; the key header named in lower case. The plain request names data so that its answer is a lookup\'s (404 or a refusal where nothing is changed; 200 for a start of run), so a spelling refused or misread shows.',
    recorded: 'Spellings careful readers take differently: a byte order mark before a JSON or an XML body, a JSON member given twice with one value.',
  },
  {
    point: 'Not found',
    sections: ['4.2', '7'],
    gated: 'A merge naming a preferred ISWC that does not exist, everything else naming existing data, is 404: the document ties "ISWC not found" to it. One exact 404 is demanded only where nothing else in the request is wrong: a delete of nothing is a refusal, 400 or 404 (its 400 "invalid agency and work code provided" fits a submission found by its work under another preferred ISWC), and so is a demerge naming an unknown preferred ISWC (its metadata is merged into another preferred ISWC, or nowhere: a server that looks the work up first calls either a bad request). A preferred ISWC whose check digit does not hold (ISO 15707; a profile\'s made-up unknown ISWC often has one, and `profile check` warns of it) may get 400 as well: section 2.3 states only the pattern, and a server that checks check digits refuses it as malformed before it looks anything up.',
    recorded: '',
  },
  {
    point: 'Refusal',
    sections: ['2.5', '3', '4.2', '4.3', '4.4', '7', '8'],
    gated: 'Where the document lists more than one error status that fits, a refusal: one of the operation\'s documented error statuses (400 or 404), never a success. A repeated delete or demerge (what it names is gone: a 204 would claim it removed something, so an idempotent 204 is not taken); a demerge of metadata never merged; a delete or demerge naming another agency, work code, sourceDb or preferred ISWC, or an unknown preferred ISWC (a delete naming a sourceDb the profile does not show may also be refused 401 or 403: a key may act for its source databases only, 5.3); an ISWC of the merge body that does not exist; an item of the merge body past its limits sent next to a disposable entry\'s valid data, merged just before (a server that looks items up before it validates them answers 404, which is then true); a delete or demerge query agency, workcode or sourceDb past the limits of the field it names; a near neighbour of a disposable entry\'s own value (its work code one character longer or trimmed, its agency with a leading zero, its sourceDb in full-width digits, a prefix or a LIKE pattern of it), the other values the entry\'s: the entry, named rightly afterwards, is still there (204).',
    recorded: 'Which of the documented error statuses came.',
  },
  {
    point: 'Authentication',
    sections: ['4.1', '5'],
    gated: 'No key or a wrong key: 401 "Not Authorized" on the run notification (4.1), on a start and on an end of run; an empty key there 401 or 400 (a header without a value is a missing key to one reader, a malformed request to another, ASP.NET Core\'s [FromHeader, Required]: choice `empty-key-400`), and so is a run without the key whose body names no agency (a server may validate a body before the key; one that checks the key against the agency a body names serves it: fault `run-key-agency-only`); on merge, delete and demerge a refusal, 400, 401, 403 or 404 (5.3 does not show the answer, and a server may look the data up first), never a success. A 404 for data that does not exist can hide a key the server ignores, so the key is also proven where the request would succeed: the end of a run just started, and disposable entries: the request that succeeds with the key is refused without it, with an empty one, with a wrong one and with the key in another letter case. Near misses of the key (one character more, its last left out, its last changed, a hyphen inside) are refused on the run notification with 401: only the key itself grants access. Every wrong key sent where the request would succeed is such a near miss, another on each operation that changes data: wrong to any server, and taken by one that compares the key loosely. A refused request may still have acted: the delete and demerge that then succeed show theirs did not, and after a merge refused for its key a demerge of what it names is refused before the merge succeeds. Another agency than the profile\'s may be refused with 401 or 403 (5.3).',
    recorded: 'Which status and body refuse the key on merge, delete and demerge, and an empty key on the run notification.',
  },
  {
    point: 'Stated texts',
    sections: ['4.1', '5', '7'],
    gated: '"Bad Request" (400) and "Not Authorized" (401) of the run notification are carried as a whole string: the body itself, the first line of a plain-text body (a detail may follow), any JSON string value (a problem+json title, a gateway message) or an XML text node (CDATA and character references read). The format is free. It holds of every 400 and 401 of the run notification, those that answer a probe of an open point and those that answer a request the document does not describe (another media type, an oversized body) included: section 4.1 states the text for every 400 of the operation.',
    recorded: 'The content type and shape of every error body.',
  },
  {
    point: 'Statuses and bodies',
    sections: ['2.2', '4', '4.1', '7'],
    gated: 'Every answer to a documented request uses a status the document lists for the operation (but where the request probes an open point); a 204 carries no body; the 200 of the run notification is a CsnNotification with a runId, a string as section 2.2 types it (no more: an empty runId echoed to an empty one is a string too), in JSON or XML, whatever the request (a runId never issued included).',
    recorded: 'Which representation (JSON or XML) answers, for each request format and Accept header.',
  },
  {
    point: 'Outcomes',
    sections: ['2.2', '2.5', '3', '4.1', '4.2', '4.3', '4.4'],
    gated: 'A successful merge makes its works demergeable, every one it names (a merge of three agency works in one request makes each of the three demergeable); a merge of ISWCs only succeeds; a demerge removes one set of metadata from exactly one preferred ISWC (one work, the works of one merge request, or a merged ISWC with all its works: after a demerge, what else was merged into that preferred ISWC is demanded only of a work of another ISWC merged by a request of its own); a delete or demerge naming another value leaves the data in place; two runs started one after the other get two runIds, and the end of a run is answered that run\'s runId (the same GUID however written back: case, braces, hyphens); over generated sequences, each answer is 204 or a refusal as a model of these outcomes predicts.',
    recorded: '',
  },
  {
    point: 'Open points',
    sections: ['2.2', '2.5', '4', '4.1', '4.2', '4.3', '4.4', '5.3'],
    gated: 'A request that probes a point the document leaves open is not judged on that point: which status answers it is recorded (status.documented does not judge it). What the document states of a status still holds whatever the status: a 200 of the run notification carries a runId, its 400 says "Bad Request", its 401 "Not Authorized", a 204 has no body. A request the document does not describe at all (another method, an oversized body) is judged by http and observed checks only, and by the texts the document states for every 400 and 401 of its operation.',
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
    text: 'Expanding an internal entity is what a conforming XML processor does, and it is not external-entity injection. The harness still expects a DOCTYPE that declares an entity to be refused or left unexpanded, as the OWASP XXE guidance recommends (disable DTDs): this is an `http` check, so it gates only with ISWC_STRICT=1, and the request is a probe of an open point: which status answers it is never a spec failure. The harness reads answers the same way: it never expands an entity, and refuses an answer whose DOCTYPE declares one (or whose text references one a DTD would declare). A DOCTYPE that declares nothing (`<!DOCTYPE CsnNotification>`, a reference to an external DTD it never fetches, element declarations) has nothing to expand: such an answer is read like any other (choice `xml-answer-doctype`).',
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
    text: 'Section 2.1 states no rule for runId, and 2.2 answers a run notification with "the agent run identifier". Production starts a run from a body without runId and answers a new one (docs/production.md), and the harness does the same by default. A server where the client names its runs (a start carries a runId of the client\'s choosing, a known runId ends that run) refuses such a start: a client must know it, so the target profile says it (`runIds: "client"`) and the harness then writes a runId of its own into every agent run it would send without one. What a start may carry is open, so the harness starts runs with every counter 0 (a run that starts has counted nothing), the one start every reading takes.',
  },
  {
    title: 'XML namespaces in requests',
    text: 'Sections 2.1 and 2.3 name the root elements (`AgentRun`, `MergeRequest`) and no namespace, and production uses none. DataContractSerializer\'s default (a root in its own namespace) would refuse every XML body a client writes from the document, so a server that requires it fails `status.success`: the fault `xml-request-namespace`. Answers are read by local name, so a namespace on an answer is never a failure.',
  },
  {
    title: 'The key and data that does not exist',
    text: 'Section 5.3 leaves open what a missing key gets on merge, delete and demerge, and which agency a key may act for depends on the data, so a server may look the data up first: a 404 without the key is a refusal like 400, 401 or 403 (`auth.required`). But on data that does not exist, a 404 comes whatever the server does with the key. What proves that the key is checked is the request that would succeed: the end of a run just started, and on disposable entries the merge, the delete and the demerge, each sent without the key, with an empty one, with a wrong one and with the key whose letters changed case (a server comparing without case takes that one; a key without letters has no such twin and the wrong key goes instead), each refused (`auth.key-checked`), then with it (success). A refusal may still have acted (section 1 shows no effect of a refused request), so a request shows it did not: a delete or demerge refused for its key and carried out would make the same one with the key find nothing, and after a merge refused for its key, a demerge of the work it names is refused (nothing was merged) before the merge succeeds. Non-destructive runs cannot show it on entries, and say so (the check is listed as not exercised for them).',
  },
  {
    title: 'Items a merge cannot take',
    text: 'An item of a merge body past its limits (an ISWC off the pattern, an agency work code of 21 characters, an agency code of 2 or 4) names nothing that exists: a server that validates first answers 400, one that looks items up first 404 "ISWC not found", documented for the merge and then true; either refuses it. Sent next to data that does not exist, the same 404 would hide a server that silently drops the item. So the destructive merge also sends its entry\'s valid data with one such item, and with an ISWC that does not exist: each must be refused (`status.item-refused`). What a refused merge leaves behind is not shown (section 1): a server may handle the items one by one and keep what it merged before it meets one it cannot take, or merge everything it found and answer 404 for the rest (set-based). Such a server would then refuse the entry\'s own merge (its ISWCs would already have a parent). So these requests go after the entry is merged, where merging its data again changes nothing, and nothing is demanded of what they may have kept. The property that breaks one limit of a merge body among valid ISWCs (`limit.rejected`, `type.rejected`) names ISWCs of disposable entries it claims, never the profile\'s iswcs: a server that merges item by item keeps those before the broken one, and nothing is demanded of them afterwards.',
  },
  {
    title: 'Query parameters left out',
    text: 'Which query parameters are required is not shown for any operation (section 4). What a merge, delete or demerge gets with one parameter left out, present but empty, or given twice with the same value, is recorded (`observed.requiredness`; readers of a parameter given twice take the first value, the last, both joined with a comma, or refuse the request, and the document says none of it); a 5xx is still an `http` failure. These requests name a preferred ISWC that does not exist and a work code never submitted, so nothing changes whatever the server makes of the missing value.',
  },
  {
    title: 'One set of metadata',
    text: 'Section 4.4 removes "one set of metadata" from exactly one preferred ISWC. Three readings: one agency work; all the works one merge request carried; a merged ISWC with all its works (production: the named work leads to its ISWC, and every link of that ISWC to the preferred one is removed, so a second work of that ISWC cannot be demerged after the first). The harness merges the work whose survival it checks by a request of its own, and demands it only when the profile does not show the two works under one ISWC (its submissions say which ISWC a work belongs to; the agency works of a merges entry should be works of ISWCs of their own); the model test predicts nothing of other works merged into a preferred ISWC once one was demerged from it; and after a demerge it demerges metadata merged into another preferred ISWC, which must still be there.',
  },
  {
    title: 'What a run can undo',
    text: 'The API has no read and no create operation (section 1), so a change is undone only by another operation and shown undone only by an answer. A merge of agency works is undone by a demerge of each work (4.4), provided each was merged by a request of its own: then the set a demerge removes is the same under the three readings above (that work, that request\'s works, the ISWC that work brought in with its works), and the same demerge sent again is refused once nothing of it is left (3, 4.4: `outcome.demerge`), which shows the entry as found. A merge of ISWCs cannot be undone: a demerge names an agency and a work code, never an ISWC (4.4). A submission delete cannot: nothing creates a submission. A demerge of metadata the profile lists as merged (`demerges`) cannot surely: 4.4 speaks of metadata "wrongly merged or matched", and under the second reading what one request carried goes with it, so merging the named work back need not restore what was there. A refused request is never taken to have changed nothing: the undo is registered before the first request that names the work and is sent, with its proof, when the case ends, whatever the answers were (a profile with `"reusable": true`, docs/target-profile.md).',
  },
  {
    title: 'A body without Content-Type',
    text: 'Section 4 makes Content-Type optional for the client; it does not say how a server reads a body without it. RFC 9110 §8.3 lets a recipient assume application/octet-stream or examine the data. Reading it as JSON, sniffing it, and refusing it as a media type the server does not read (415, as ASP.NET Core\'s input formatters do and as a Go server written from the document alone did; 400 from a server that answers every unsupported media type so) are all readings, so what it gets is recorded (`observed.content-type-default`), and a 5xx to it is an http failure.',
  },
  {
    title: 'The notification that ends a run',
    text: 'A notification carrying a runId ends the run (production, docs/production.md), and it is an agent run (2.1) as a start is: the values a start must refuse (past a limit, of a type no reading takes) are refused on an end too (400), and the key is proven on it. Each is sent ending a run started for it, then the run is ended with a valid notification. A runId the server never issued is an open point (200, 400, or production\'s 404 "Agent Run not found"): which status comes is recorded, and a 200 still carries a runId and a 400 still says "Bad Request".',
  },
  {
    title: 'What a refused request may have changed',
    text: 'Section 1 shows no effect of a refused request, so none is assumed: no case demands later that data a refused mutating request named is unchanged unless a request shows it or the refusal itself is the point. Items a merge cannot take are sent after the entry\'s data is merged; a merge property with a broken item names disposable entries only; a request refused for its key is followed by one that shows it had no effect; a delete or demerge naming another value is followed by the one naming it rightly, which must still succeed (2.5, 4.4: the data is identified by all its values).',
  },
  {
    title: 'Production as built',
    text: 'The reference server models production as its public source shows it (`npx iswc-conformance server --model production-as-built`): its legitimate choices (the set production-as-built: production\'s order of refusals with its business codes, Newtonsoft binding, lower-case GUID runIds, 404 "Agent Run not found" for a run unknown or another agency\'s, a demerge of a merged ISWC with all its works, 415 for a body without Content-Type, merge items only looked up) and its deviations, each a fault: no XML (415), a run notification that validates nothing, a delete that ignores sourceDb, a merge into an unknown ISWC answered 400, ASP.NET Core\'s validation problem for the run\'s 400, the gateway\'s JSON 401 (docs/production.md); no input makes it answer 500 (its infrastructure failures and maintenance are trouble to inject, `server --inject`). With a JSON-only profile (`formats: ["json"]`) and `fixtures/waivers/production-as-built.yaml`, each waiver narrowed to what its deviation answers, a run against it is green; without the waivers it fails exactly the checks each deviation breaks.',
  },
  {
    title: 'Near neighbours of data that exists',
    text: 'A lenient server reads a value before it checks it and looks data up: it cuts a work code to its column of 20, trims an agency code, folds an ISWC to upper case, strips its display separators, reads full-width digits as digits, takes the first match of an unanchored pattern, matches a prefix or a LIKE pattern, parses "128abc" as 128. A value built from data that does not exist names nothing however it is read, and its refusal (404 "not found") hides such a server. So every invalid value that such a reading could turn into a valid one is built from a value the target holds, one step from it: for each field with a stated limit or pattern (lib/contract/normalisations.ts derives which readings apply from the constraint in schemas/), the fewest neighbours that land on the held value under every variant of every reading (trimming both ends, the start or the end; hyphens and dots, or spaces), each verified by running the reading on it. Section 2 and 8 state the limit or the pattern, so a value outside it names nothing the document lets a server act on: a refusal is the only conformant answer, and a 2xx shows the fault. Where a 2xx would change data, the data is a disposable entry\'s, and the case ends by naming it rightly (204), which shows the entry was there and that no refused request acted on it. A neighbour within the limits (a prefix of a work code, a LIKE pattern) names other data: on a delete or demerge a refusal is demanded (2.5, 4.4: the data is identified by all its values); on a merge, which may take agency works it does not know (4.2), a demerge of the held work is then refused (nothing merged it). Cutting to a limit, trimming or stripping a separator lands only on a value at its limit: the neighbours of a work code need one of 20 characters that the target holds, which a case states in its needs and `profile check` reports when the profile lacks it. The run notification\'s fields name no data: its neighbours are refused for their limits, a counter\'s sent where counts belong, at the end of a run of its own, the other counters adding up around a realistic count. The key is compared whole: one character more, its last left out or changed, a hyphen inside, each gets 401. The reference server plays each reading as a fault of its catalogue, derived from the same schemas (docs/reference-server.md, "Lenient fault families").',
  },
  {
    title: 'Readings of values within their limits',
    text: 'Within its limits a value may still be compared the way a server\'s storage compares it: production\'s SQL Server database has the collation SQL_Latin1_General_CP1_CI_AS, which compares without case, width or trailing spaces, so a delete naming a work code of valid length in another letter case deletes the submission. The document states a length for the work code, not how it is compared, so this is a choice (`text-collation-ci`), and so is trimming a value within its limits before it is looked up (`trim-strings`; the limit is checked on the value as sent). The harness never demands a refusal of a value within its limits that differs from the held one only by case, width or trailing spaces: its other values differ in a letter however case is compared. Outside its limits a value is refused as sent, whatever the collation: a server whose column or parameter cuts or pads it first acts on a value the document rules out.',
  },
  {
    title: 'Integers written leniently',
    text: 'Section 8 states 32-bit integers, and how an integer is written in a query, or in a JSON string or XML text for an integer, is not shown. The line between a reading and a fault: a reading is a fault when it makes the request name something else (a value cut, a prefix matched, a list read in part, a string read as a number); a reading that names the same number as the digits sent is a reading, recorded and never gated. Leading zeros ("0128") and a sign are lexical forms of the same integer in every reader; whitespace around the digits is taken by .NET\'s int.Parse and Python\'s int() (choice `query-integer-dotnet`); underscores between digits ("1_000") by Python\'s int(); digits of other scripts ("１０００", "١٠٠٠") by Python\'s int() and Java\'s Integer.parseInt (choices `integer-python-int`, `integer-java-parseint`; docs/production.md has the platforms\' table); integral JSON numbers written 5.0 or 5e0, within int32, by pydantic, Jackson and a JavaScript binder. Each names the number its digits denote: what each gets is recorded on the run notification\'s first counter (`observed.coercion`), and no neighbour is built from them (lib/contract/integer-readings.ts). Letters after the digits ("128abc", parseInt: read in part), a fraction in text ("128.5", truncated: a value cut), thousands separators ("1,000": no platform\'s default parser takes them, and many locales write the comma as the decimal mark, where the same text is 1.0) and a value past 32 bits read modulo 2^32 (another number) make the request name another number than the text does: refused, also where the reading lands on the entry\'s own sourceDb or a count the run carries. The int32 range is checked after the parse, whatever the spelling.',
  },
  {
    title: 'Every item of a request',
    text: 'A merge of several agency works merges each of them (4.2: "the list of ISWCs and/or agency work references whose metadata is merged"), so each is proven: all the works of a merge entry go in one request, and each is then demerged in turn (204). A demerge may remove more than the work it names (the works of one merge request, 4.4), so the same request is sent again before each demerge, its answer not judged (a server may refuse to merge a work merged already): one request naming all of them made the work demergeable. ISWCs of a merge body show no outcome a request can read, so their list is proven by an item the merge cannot take in every position (first, last, among three to six): a server that reads only the first items takes it. The stateful model tracks every work of a merge.',
  },
  {
    title: 'An agency work is its agency and its code',
    text: 'An agency work reference is an agency code and an agency work code (2.4), and the delete names a submission by all four of its values (2.5): the agency is part of what a work is. So the destructive merge first sends the entry\'s first agency work named with another agency\'s code (the code the identity cases of delete and demerge use), before anything of the entry is merged, and then demerges the profile\'s work: refused (`status.refused`, a demerge of metadata never merged, 4.4). What the merge itself gets is not judged: a merge may take works it does not know (4.2), or refuse them (production: 400, business code 203), and what it may have merged of the work it named is demerged right after, unjudged. A server that looks a work up by its code alone (a lookup that forgets the agency) merges the profile\'s work instead and demerges it with 204: the fault `merge-works-ignore-agency`. The agency named is never the profile\'s; the work code is the profile\'s own agency\'s, so the request names a work the other agency would hold only by a coincidence of codes (production refuses a work it does not hold, and opens an approval task for the other agency only on a work that agency holds). Part `works-agency` of `merge.success-then-demerge`, so a budget takes it on its own.',
  },
  {
    title: 'A plausibility cap on counts',
    text: 'Sections 2.1 and 8 give each counter a type and a range: int32. They do not say that every value in that range is accepted, and a server may refuse a run claiming more records than any agency sends in one (a cap of 100,000,000, as a server written from the document did; choice `counter-plausibility-cap`), as it may refuse counters that do not add up. So what is demanded is a large but realistic count (1,000,000) answered like a nominal one; the 32-bit maximum itself is recorded, never demanded. A fault that refuses the bounds themselves (`int32-tight`) is then no longer distinguishable from such a cap: it is declared blind (docs/reference-server.md). Past the range (2,147,483,648) every reading refuses, and that is demanded.',
  },
  {
    title: 'agentVersion',
    text: 'Section 2.1 states no constraint for agentVersion. "None stated" is no promise that any text is taken: a .NET model may type it System.Version, which reads two to four integers separated by dots (choice `agent-version-typed`), or store it in a narrow column (`agent-version-limit`). The harness\'s agent runs carry a version number, its own (0.1.0), and name the harness in their User-Agent; other text in agentVersion is sent only where the answer is recorded.',
  },
  {
    title: 'What an answer must carry',
    text: 'A response schema demands of an answer only what the document states of it. Section 2.2 types the runId of the run notification\'s answer a string and states no more: a server that answers an empty runId to an agent run carrying an empty one (`run-id-empty-echo`) answers a string, so the schema of the answer (schemas/openapi.yaml, CsnNotification) requires the runId and its type and nothing else, and two runs started one after the other still get two runIds (outcome.run-ids-distinct). But the answer is the identifier of the run the notification names (2.2, 4.1): the end of run X answered `""` names no run, so a 200 to a notification carrying a non-empty runId must carry a non-empty one (`response.schema`; fault `run-end-empty-run-id`), and the end of a run the server started must carry that run\'s runId: another one, a new one included, names another run (`outcome.run-end-same-id`; fault `run-end-new-run-id`), while the same GUID written back otherwise (its letters\' case, braces, hyphens: a GUID parsed and formatted again) names the same run. The texts of the run notification\'s 400 and 401 are the document\'s own; the 401 and 403 of the other operations are marked not shown.',
  },
  {
    title: 'Lenient families on the line',
    text: 'Each family of lenient readings (lib/contract/normalisations.ts, server/lenient.ts), decided on the line above ("Integers written leniently"): a reading is a fault when it makes the request name something else. The document states the limits of strings in characters (2, 8), so a code is the characters sent: truncation to a limit or to the length a pattern fixes (a value cut), trimming a value past its limit, case folding of an ISWC off its pattern, zero padding of an agency code, stripping a code\'s separators, reading an ISWC\'s full-width or Arabic-Indic digits as ASCII, taking the first match of an unanchored pattern (read in part), prefix and LIKE matching (a prefix matched, other data named) each read characters that were not sent: faults, gated by the near neighbours (`limit.rejected`, `query.refused`, `status.refused`, `type.rejected`). Within its limits a value compared as a collation compares it (case, width, trailing spaces) or trimmed is a choice (`text-collation-ci`, `trim-strings`): the value sent is a valid one. Integers are values, not characters (8 states a type): Python\'s underscores and digits of other scripts name the number sent (readings, recorded); commas, letters after the digits, a fraction in text and a wraparound name another number (faults). A list read in part (first item, last item, first two: `partial.*`) and a key compared in part (cut, prefixed, all but its last character, separators stripped: `lenient.key.*`) are faults. One reading stays as issue 21 decided: a JSON number with a fraction for an integer (1.5) truncated, Jackson\'s default in Spring Boot (choice `json-fractions-truncated`), is recorded (`observed.coercion`) and sent on no held count, though by this line it is a value cut. An ISWC\'s last digit is a check digit (ISO 15707; the document states only the pattern, 2.3): an ISWC whose check digit does not hold names no ISWC, and a server that recomputes the digit, or compares without it, acts on the ISWC of its nine digits: a fault (the family `check-digit` on the merge\'s ISWCs, the fault `preferred-check-digit-ignored` on the query preferredIswc, a fresh reading of 2026-11-30), gated by the near neighbours (`limit.rejected`, `query.refused`, `status.refused`). Whether a server refuses such an ISWC with 400 or looks it up and answers 404 is its own (`observed.iswc-handling`).',
  },
  {
    title: 'A pattern that fixes a length',
    text: '"T followed by 10 digits" (2.3) states a length as surely as a maxLength does: 11 characters. A server whose query parameter keeps 11 characters (CHAR(11)) acts on the ISWC of the first 11 of a longer value. The document states no pattern for the query preferredIswc (4.2-4.4: a malformed one may be looked up and not found), so the delete and the demerge each send one neighbour every reading refuses: the entry\'s preferred ISWC with its last digit once more, 12 characters, which names no ISWC (`query.refused`, 400 or 404), before the entry is named rightly (`outcome.identity`; fault `preferred-iswc-cut`).',
  },
  {
    title: 'Every shape of a merge',
    text: 'A merge body carries ISWCs only, agency works only, or both (2.3: "ISWCs and/or agency work references"), one item or several: five shapes, derived from the lists of the body\'s schema (lib/contract/shapes.ts), and each gating role is proven where a server could treat a shape otherwise. The key: refused on every shape of a disposable entry\'s body before anything is merged (the merge of its ISWCs alone and of its agency works with every way of sending the key wrong; one ISWC alone, one agency work alone and its ISWCs and works together without the key, part `key-shapes`), the demerge that follows showing that none of them merged a work; a server checking the key against each work\'s agency serves a body without one (part `key-iswcs`, fault `merge-key-works-only`). Items it cannot take: refused in bodies of each shape, mixed bodies included, the entry\'s ISWCs and agency works with one broken or unknown item of one list (part `mixed-items`, faults `merge-iswcs-ignored-with-works`, `merge-works-ignored-with-iswcs`); they are sent once the other items of the body are merged, so that what a refused request did to them changes nothing later, and a server that refuses to merge again what is merged refuses such a body whatever becomes of the item (docs/reference-server.md, declared exclusions). Acceptance and the outcome: a valid merge of each shape succeeds (one ISWC alone: `merge.restored`), and the works it names demerge. An agency work the server does not know is not sent there: a merge may take works it does not know (4.2). The reference server plays a server that leaves one role undone on one shape as a fault of its catalogue (`shape.merge.<role>.<shape>`, docs/reference-server.md, "The shape family"); the outcome of a merge of ISWCs alone is not among them, since no request shows it (below). A reusable profile is never sent a merge of ISWCs (it cannot be undone), so on such a profile the key is proven on the shapes of agency works only.',
  },
  {
    title: 'Valid spellings',
    text: 'JSON, XML, query strings and header names each have spellings their own definitions make one (lib/contract/codec/spellings.ts): in XML a CDATA section, character references, comments, a declaration in single quotes with its encoding in lower case; in JSON \\u escapes, members in another order, other whitespace; in a query percent-encoded letters and digits, parameters in another order; the key header named in lower case (RFC 9110 §5.1). Every reader of the format takes them alike, so a server must answer a request spelled so as it answers the plain spelling (`spelling.read-alike`), on every operation and in each format served, each spelling a part a budget takes on its own. Before them, one request spelled every such way at once (in XML the texts alternate between CDATA and character references, which one text cannot be both): every reader takes each spelling alike, so it takes them together, and a budget proves every spelling of an operation with one request before it spends one on each; a full run sends each alone too, which says which spelling a server reads otherwise. The check is `spec`, not `http`: the document names the formats, the query parameters and the header, and what a JSON string, an XML text, a query value or a header name is, the formats, RFC 3986 and RFC 9110 define; a server that misses the key named in lower case refuses a request carrying the header section 5 requires, and one that refuses CDATA refuses an XML body of section 2.1. The plain requests change nothing (a run started and ended; a merge into an unknown preferred ISWC; a delete and a demerge of a work code nothing has on an existing ISWC), so the comparison holds whatever the server answers them and runs in every mode; a spelling read wrongly but answered alike (a value misread, then refused as the plain request is) is not shown by it. Recorded, not gated (`observed.lenient-syntax`): a byte order mark before a body (XML 1.0 lets a UTF-8 entity begin with one; RFC 8259 lets a JSON parser ignore it or refuse it, and a server that decodes a body to text before it parses it keeps the mark) and a JSON member given twice with one value (names SHOULD be unique, RFC 8259 §4: readers take the last, the first, or refuse). Not sent: the key twice (two header lines combine to "key, key", RFC 9110 §5.3, which one gateway refuses and another splits: readers differ and neither is wrong); the key as the `subscription-key` query parameter, which API Management accepts by default but section 5 does not state, since a key in a URL lands in access logs and proxies and the harness never writes the key where it can leak; integers written 128.0 or 1e2 (decided under "Integers written leniently"); an empty element for an empty value (no valid request has an empty value to spell). The self-check plays a server refusing each gated spelling (the fault family `spelling.*`, derived from the same table: a spelling added without a way to refuse it fails the type check).',
  },
  {
    title: 'A merge of ISWCs',
    text: 'Section 3 states that a successful merge designates the preferred ISWC; no request the document describes shows which ISWCs were merged into it. A demerge names an agency and a work code, never an ISWC (4.4); whether the works of a merged ISWC can then be demerged from the preferred ISWC one by one is a reading (production: yes, the named work leads to its ISWC; a server that keeps the links of ISWCs apart from those of agency works: no); merging the same ISWC again, deleting its submission or merging into it are each refused by some servers and taken by others (choices `merge-child-refused`, `delete-merged-child-400`, `merge-preferred-child-refused`). So a server that validates and looks up the ISWCs of a merge, answers 204 and merges nothing of them passes: the fault `merge-iswcs-not-merged` is declared blind (server/choice-space.ts). What the harness demands of ISWCs is what a request shows: each item refused when it cannot be taken, in every position and every shape, and the key.',
  },
  {
    title: 'Read back',
    text: 'An answer shows a change when it is given; what the change is worth is that it holds. A cache answering from a tombstone, a job that undoes what it was not told of, a replica read before it caught up: the repeat right after a 204 is refused, and a while later the change is gone. Section 3 states each outcome without a lifetime, so the run\'s last requests prove again what the cases\' steps changed, once every other case of the run has ended, each case in a part of its own (`read-back`): the repeat of the delete and of the demerge of a profile\'s metadata, refused once more (`outcome.delete`, `outcome.demerge`); and the merge case\'s agency work, merged once more on its own, demerged then (`outcome.merge`: still merged) and that demerge repeated (refused). A server may refuse to merge again a work it demerged (choice `merge-after-demerge-refused`): then only the repeat is judged, after a demerge whose answer is not. The test that holds them waits for the rest of the run, bounded by the run\'s limits (a signal, --max-duration), not by a test\'s. Under a request budget a read-back is sent at once, within its case\'s reservation, as in a case run alone (a replay, the plans\' measurement), and at a paced gate\'s rate the repeat comes seconds after the change already. Not read back: a merge of ISWCs, which no request shows ("A merge of ISWCs" above); a run notification, which changes nothing a request reads. The reference server plays a change kept for one read only (faults `delete-lapses`, `demerge-lapses`: undone once a repeat has been refused), which only a read-back catches; a merge that lapses a while after its 204 is played in `tests/unit/read-back.spec.ts`, where a whole run catches it and a case run alone does not.',
  },
  {
    title: 'Counters that add up',
    text: 'Section 2.1 states no relation between the counters, and a server may check some: that rejections are business and technical ones, that records sent are successful or rejected (choice `run-counters-consistent`), that the successful records are the new and the updated ones (choice `run-counters-successful-sum`). A fourth reads new and updated as the kinds of the records sent, rejected ones among them: records sent = new + updated (choice `run-counters-sent-by-kind`, a fresh reading of 2026-11-30). With a rejection no counters keep all four, so every run the harness demands accepted has none: records sent = successful = new + updated, rejected = business = technical = 0, and a server checking any of the four takes it. A rejection counter is sent non-zero only where its own limit is proven, judged against the same run with a nominal value (`limit.accepted`), or refused (`limit.rejected`, `type.rejected`).',
  },
  {
    title: 'Merging again what was demerged',
    text: 'Section 4.4 removes metadata "wrongly merged or matched". A server may refuse to merge again into a preferred ISWC a work just demerged from it, as it may refuse to merge a work twice (choices `merge-after-demerge-refused`, `merge-again-refused`): a business rule the document does not rule out. Where the harness merges a work again to prove the next item of a request, and that merge is refused, the demerge after it is not judged (the demerge before may have removed the whole set a request carried); under the reference choices the merge succeeds and every item is proven.',
  },
  {
    title: 'A 400 that states its status',
    text: 'A 400 of the run notification whose body is `{"code":400,"message":"HTTP 400 Bad Request"}` carries the stated text: many frameworks write an error message as the status and its reason phrase, and the text "Bad Request" is there, whole, after the status it names ("HTTP 400 ", "400 "), and so it is in the other forms frameworks write: "Status Code: 400; Bad Request" (ASP.NET Core\'s UseStatusCodePages, choice `stated-text-status-code-pages`), "HTTP Status 400 – Bad Request" (Tomcat\'s error page), "400: Bad Request". A JSON string is read as a text: `"Bad Request: agencyCode must be 3 characters"` (ASP.NET Core\'s BadRequest("…") answered to a client taking JSON, choice `stated-text-json-detail`) carries it with a detail, as the same line in text/plain does. Common ground: accepted by `text.bad-request` (choice `stated-text-status-message`); "HTTP 400 Bad Requests" or a bare "400" is not the text.',
  },
  {
    title: 'A 400 without a body',
    text: 'Section 4.1 states a text for the 400 of the run notification as it states a body for its 200. A 400 with no content carries no text: the reason phrase of its status line is no part of the answer\'s content (RFC 9112 §4: a client SHOULD ignore it; HTTP/2 and HTTP/3 have none), and the harness does not read it. So `text.bad-request` fails it, as it fails ASP.NET Core\'s validation problem ("ASP.NET Core validation errors" above); a waiver is the way to live with it. The merge, the delete and the demerge state a meaning for their 400, not a text: an empty 400 there is a choice (`error-no-body`), and what their error bodies carry is recorded (`observed.error-body`).',
  },
  {
    title: 'A 204 framed chunked',
    text: 'A 204 that carries `Transfer-Encoding: chunked` and the last chunk only has no content: every HTTP/1.1 client ends a 204 at its header section (RFC 9112 §6.3), so there is no body to judge, and `response.no-body-204` (spec) passes it. The header breaks a framing rule of HTTP (RFC 9112 §6.1: a server MUST NOT send Transfer-Encoding on a 204), an `http`-level point, which no check gates: with no bytes after it, nothing a client reads changes (choice `chunked-204`). A 204 announcing content with a Content-Length other than 0 (RFC 9110 §8.6) or sending bytes still fails `response.no-body-204`.',
  },
  {
    title: 'An empty agencyCode on the run notification',
    text: 'An empty agencyCode is 0 characters, outside "exactly 3" (2.1, 8), but a binder may take an empty string for an absent field (ASP.NET Core converts empty values to null; an empty XML element is often read as absent), and which fields are required is not shown (4): a server that reads it as absent and acts for the key\'s agency keeps every statement of the document. So what an empty agencyCode gets is recorded (`observed.edge-values`), and the limit is demanded one past each bound, 2 and 4 characters (`limit.rejected`), where no reading takes the value for absent.',
  },
  {
    title: 'Characters beyond ASCII',
    text: 'Sections 2 and 8 state lengths in characters, and readers count characters as code points, UTF-16 units, grapheme clusters or code points after NFC; a server counting UTF-8 bytes reads none of them. The values at and past a limit are built from the classes these readings count differently (lib/generate/values.ts): ASCII, and a precomposed letter of the Basic Multilingual Plane, which every reading counts as one character (é, 2 UTF-8 bytes), are gated: one past a limit in either is refused (`limit.rejected`), and a value one short of a minimum with é reaches the minimum in UTF-8 bytes, which shows a byte counter (fault `length-in-bytes`). An astral letter (2 UTF-16 units) and a letter with a combining mark (2 code points, 1 grapheme) are counted differently by the readings themselves: what they get is recorded, with the length under each reading (`observed`). A second letter of the Basic Multilingual Plane (3 UTF-8 bytes, outside Latin-1) is counted as é is by every reading of characters and differs only in bytes, where é shows a byte counter already: sending it would cost a request per limit and show nothing more, so it is not sent.',
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
