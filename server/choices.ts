/**
 * The catalogue of legitimate choices of the reference server. A choice is one way a conformant server may
 * answer where the interface document leaves a point open ("not shown"), lists more than one status that
 * fits, or is brief enough for careful servers to differ (how characters are counted, lenient types and
 * syntax). Unlike a fault, a choice breaks no statement of the document: the suite must stay green, in
 * strict mode, against every set of choices. The sets bundle choices that go together, the way one kind
 * of server would make them; `production` is a typical ASP.NET Core service (Newtonsoft.Json,
 * XmlSerializer) behind Azure API Management, as docs/production.md describes production.
 */

import type { ProfileSettings, TargetProfile } from '../lib/contract/profile/types.ts';

export interface Choice {
  id: string;
  /** Sections of the interface document that leave the point open. */
  section: string;
  description: string;
}

const CATALOGUE = [
  // Which representation answers (4.1: not shown).
  { id: 'answer-xml-always', section: '4.1', description: 'The run notification always answers XML, whatever the request format and Accept say.' },
  { id: 'answer-json-unless-accept-xml', section: '4.1', description: 'The run notification answers JSON unless Accept asks for XML, whatever the request format (ASP.NET Core).' },
  { id: 'answer-json-always', section: '4.1', description: 'The run notification always answers JSON, even to XML requests and Accept: application/xml.' },
  // Authentication and agencies (5.3: not shown).
  { id: 'auth-403-no-body', section: '5.3', description: 'A missing or wrong key on merge, delete and demerge answers 403 without a body.' },
  { id: 'auth-apim-json', section: '4.1, 5', description: 'Every 401 is the gateway\'s JSON {"statusCode": 401, "message": "Not Authorized"} with WWW-Authenticate (Azure API Management style).' },
  { id: 'auth-missing-key-400', section: '5.3', description: 'A missing key on merge, delete and demerge answers 400 "Bad Request"; a wrong key 401.' },
  { id: 'foreign-agency-refused', section: '5.3', description: 'The key acts only for the profile\'s agency: another agency gets 401 "Not Authorized" on the run notification and 403 without a body on the others.' },
  { id: 'foreign-agency-403', section: '5.3', description: 'The key acts only for the profile\'s agency: another agency gets 403 (problem+json) on every operation.' },
  // Error bodies (7: not shown), 404 texts.
  { id: 'error-text-bodies', section: '7', description: 'Errors of merge, delete and demerge are the text "Bad Request"; their 404s a JSON {"message": …}.' },
  { id: 'problem-json', section: '7', description: 'Every error is application/problem+json with the status title ("Bad Request", "Not Found", …), a detail and a traceId, as ASP.NET Core writes it.' },
  { id: 'xml-error-bodies', section: '7', description: 'Every error is application/xml: <Error><Title>Bad Request</Title><Message>…</Message></Error>.' },
  // Where the document lists more than one error status that fits (4.2-4.4, 7).
  { id: 'refuse-as-400', section: '4.2-4.4, 7', description: '400 (a business error) wherever 400 or 404 fits: a repeated delete or demerge, a demerge of metadata never merged, a delete naming another agency, work code, sourceDb or preferred ISWC, an ISWC of the merge body that does not exist.' },
  { id: 'query-limits-not-found', section: '4.3, 4.4', description: 'Delete and demerge do not check the length of agency and workcode nor the range of sourceDb: such a request simply finds nothing (404).' },
  { id: 'unknown-run-404', section: '4.1', description: 'A run notification carrying a runId the server never issued answers 404 "Agent Run not found" (as production does).' },
  { id: 'unknown-run-400', section: '4.1', description: 'A run notification carrying a runId the server never issued answers 400 "Bad Request".' },
  // Required-ness, nulls and extra fields (4: not shown).
  { id: 'nulls-as-missing', section: '4', description: 'A null field of an agent run reads as a missing one.' },
  { id: 'extra-fields-refused', section: '4', description: 'An agent run with a field the document does not name is a bad request.' },
  // Lenient readings of JSON and XML (2, 7).
  { id: 'newtonsoft-json', section: '2.1, 2.3, 7', description: 'JSON read as Newtonsoft.Json does: single quotes, comments, unquoted property names and trailing content accepted; property names matched without case; numeric strings become integers; numbers and booleans become strings ("128", "true"); fractions and booleans for integers are refused.' },
  { id: 'coerce-boolean-integer', section: '2.1', description: 'JSON Schema style coercion: true and false become 1 and 0 for integers, numbers and booleans become strings.' },
  { id: 'xml-inner-text', section: '2.1, 2.3', description: 'An XML element holding child elements where text is expected is read as its inner text.' },
  { id: 'trim-strings', section: '2.1, 2.4', description: 'String values within their limits are trimmed before they are looked up and stored; a limit is checked on the value as sent (edge whitespace counts).' },
  // Counting characters (2, 8: "characters").
  { id: 'utf16-lengths', section: '2.1, 2.4, 8', description: 'Lengths are counted in UTF-16 code units (.NET string.Length): "A😀B" is 4 characters.' },
  { id: 'grapheme-lengths', section: '2.1, 2.4, 8', description: 'Lengths are counted in grapheme clusters: "e" and a combining accent are one character.' },
  { id: 'nfc-lengths', section: '2.1, 2.4, 8', description: 'Lengths are counted in code points after NFC normalization.' },
  // ISWCs (2.3: "the letter T followed by 10 digits"; 4.2-4.4: no pattern stated for preferredIswc).
  { id: 'preferred-iswc-unchecked', section: '4.2-4.4', description: 'A malformed preferredIswc or one with a wrong check digit is not refused: it is simply not found.' },
  // Business rules on values the document does not constrain further.
  { id: 'agency-code-digits', section: '2.1, 2.4', description: 'Agency codes (body and query) must be three ASCII digits, as real ones are; others are a bad request.' },
  { id: 'business-odd-values', section: '2.1, 2.4', description: 'Empty strings, control, NUL and bidi characters, and negative counters are refused with a business 400.' },
  { id: 'empty-merge-400', section: '2.3, 4.2', description: 'A merge with neither ISWCs nor agency works is a bad request.' },
  { id: 'merge-duplicates-400', section: '2.3, 4.2', description: 'A merge listing an ISWC twice, or the preferred ISWC itself, is a bad request (production refuses cycles).' },
  { id: 'check-digit-all', section: '2.3', description: 'ISWCs of the merge body with a wrong check digit are a bad request, like the preferred ISWC.' },
  { id: 'source-db-known', section: '4.3', description: 'A delete naming a source database the server does not know (not one of its submissions\' or a hub) is a bad request.' },
  { id: 'reason-code-free', section: '4.3', description: 'reasonCode is free text: missing or blank alike are accepted.' },
  { id: 'repeated-query-first', section: '4.2-4.4', description: 'A query parameter given twice takes its first value (ASP.NET Core) instead of being refused.' },
  // HTTP conventions the document does not state.
  { id: 'unsupported-media-400', section: '4.1, 4.2', description: 'A body in a media type other than JSON or XML answers 400 instead of 415.' },
  { id: 'apim-404-unknown-operation', section: '4', description: 'A method or path the API does not define answers 404 {"statusCode": 404, "message": "Resource not found"} (the gateway), not 405.' },
  // Review (adversarial false-alarm hunt): legitimate choices not yet covered.
  { id: 'run-counters-consistent', section: '2.1, 3', description: 'An agent run whose counters do not add up (overallRejected = businessRejectionCount + technicalRejectionCount, overallSent = successfulCount + overallRejected) is a business 400 "Bad Request".' },
  { id: 'xml-wrapped-arrays', section: '2.3', description: 'XML arrays are read wrapped, as XmlSerializer does by default: <iswcs><string>T…</string></iswcs>, <agencyWorks><AgencyWork>…</AgencyWork></agencyWorks>; text directly inside <iswcs> is ignored.' },
  { id: 'gzip-unasked', section: 'RFC 9110 §12.5.3', description: 'Every answer body is gzip-encoded unless Accept-Encoding rules gzip out: without Accept-Encoding any coding is acceptable (RFC 9110 §12.5.3).' },
  { id: 'json-text-json', section: '4.1, 7', description: 'JSON answers are labelled text/json (an alias ASP.NET Core output formatters support).' },
  { id: 'xml-answer-dotnet', section: '2.2, 4.1', description: 'XML answers as .NET XmlSerializer writes them: UTF-8 BOM, declaration encoding="utf-8", xmlns:xsi and xmlns:xsd on the root, indented.' },
  { id: 'xml-answer-datacontract', section: '2.2, 4.1', description: 'XML answers as DataContractSerializer writes them: a default namespace and xmlns:i on the root.' },
  { id: 'bad-request-detail', section: '4.1, 7', description: 'A 400 of the run notification is text/plain "Bad Request" followed by a newline and a detail.' },
  { id: 'foreign-agency-first', section: '5.3', description: 'The key acts only for the profile\'s agency, and the agency is authorized before the body is validated: an agencyCode (run) or agency-work agencyCode (merge) of another agency gets 401 "Not Authorized" (run) or 403 (merge), whatever else is wrong.' },
  { id: 'delete-by-work-400', section: '4.3', description: 'The submission delete looks the submission up by agency, work code and sourceDb; when it exists but the preferred ISWC named is not its own (unknown or another), 400 "invalid agency and work code provided".' },
  { id: 'xml-sequence-order', section: '2.1, 2.3', description: 'XML bodies are validated as an xs:sequence in the document\'s field order: an element out of that order is a bad request.' },
  { id: 'no-content-type-json', section: '4.1, 4.2', description: 'A body without Content-Type is read as JSON (the default representation), never sniffed.' },
  { id: 'reason-code-list', section: '4.3', description: 'reasonCode must be one of the server\'s own allowed values (the document says they exist but does not show them): "01" to "05"; any other is a bad request.' },
  { id: 'chunked-answers', section: 'RFC 9112 §7.1', description: 'Answer bodies are sent chunked (no Content-Length); a 204 carries Content-Type and Content-Length: 0.' },
  { id: 'xml-any-root', section: '2.1, 2.3', description: 'The XML root element\'s name is not checked, as Jackson XmlMapper binds by default: the children are read as the operation\'s resource.' },
  { id: 'connection-close', section: 'RFC 9112 §9.6', description: 'Every answer carries Connection: close.' },
  { id: 'large-bodies-accepted', section: '8', description: 'Request bodies up to 30,000,000 bytes are read (Kestrel\'s default) instead of 1 MiB.' },
  // Review 2 (adversarial false-alarm hunt, second round).
  { id: 'merge-items-in-order', section: '4.2, 7', description: 'The merge handles its items one after the other: each ISWC, then each agency work, is validated and then looked up; an agency work the server does not know is 404, so an unknown work listed before a broken one gets 404 rather than 400. With merge-commits-per-item, each item that passes is merged at once (a loop with a commit per item): an item it cannot take leaves the ones before it merged.' },
  { id: 'merge-unknown-works-404', section: '4.2, 7', description: 'A merge naming an agency work the server does not know (none of its submissions, demerges or merges) is 404 "Iswc not found", after the body is validated.' },
  { id: 'demerge-merge-set', section: '3, 4.4', description: 'A demerge removes the set of metadata the named work came with: every agency work the same merge request carried into the preferred ISWC.' },
  { id: 'demerge-by-work-400', section: '4.4, 7', description: 'The demerge finds the merged work by agency and work code first; when it is merged into another preferred ISWC than the one named (unknown or not), 400 "bad request".' },
  { id: 'xml-answer-utf16', section: '2.2, 4.1', description: 'XML answers are encoded in UTF-16 (little endian, with a byte order mark), labelled charset=utf-16 and declared encoding="utf-16".' },
  { id: 'early-hints', section: 'RFC 9110 §15.2', description: 'Every answer is preceded by an informational 103 Early Hints response (as CDNs and some gateways send).' },
  { id: 'chunked-trailers', section: 'RFC 9112 §7.1.2', description: 'Answer bodies are sent chunked with a trailer field (Server-Timing) after the last chunk.' },
  { id: 'xml-entities-dropped', section: '2.1, 7', description: 'A DOCTYPE is skipped without being processed and references to the entities it declares are dropped, not expanded (a parser with entity resolution off); an XML element left without text reads as an absent field.' },
  { id: 'agent-version-limit', section: '2.1', description: 'agentVersion is stored in a column of 20 characters: a longer one is a bad request (the document states no constraint for it).' },
  { id: 'submission-update-put', section: '4', description: 'The service also offers PUT /submission (update a submission, as production\'s Agency API does, outside the document): a PUT without a body is 415, not 405.' },
  { id: 'submission-update-patch', section: '4', description: 'The service also offers PATCH /submission (a partial update, outside the document): a PATCH without a body is 415 problem+json, not 405.' },
  { id: 'auth-after-lookup', section: '5.3', description: 'Submission delete and demerge look the data up before the key is checked (which agency a key may act for depends on it): data that does not exist is refused as such (404 or 400) whatever the key; existing data without a valid key is 401.' },
  { id: 'stated-text-colon-detail', section: '4.1, 7', description: 'A 400 of the run notification is text/plain "Bad Request: " followed by the reason on the same line (as Go\'s http.Error or many loggers format it).' },
  { id: 'merge-child-refused', section: '4.2', description: 'An ISWC of the merge body that is already merged into another preferred ISWC (has a parent) is a bad request, as production refuses it.' },
  { id: 'run-start-counters-zero', section: '2.1, 3', description: 'A run that starts (no runId) has counted nothing yet: a start whose counters are not all 0 is a business 400 "Bad Request".' },
  { id: 'unknown-path-403', section: 'RFC 9110 §15.5.4', description: 'A path the API does not define answers 403 {"message": "Missing Authentication Token"}, as Amazon API Gateway does.' },
  // Review 3 (adversarial false-alarm hunt, third round).
  { id: 'content-type-no-charset', section: 'RFC 8259 §11, RFC 9110 §8.3', description: 'Answers are labelled without a charset parameter (application/json, text/plain, application/xml) and carry Server and Date headers as Kestrel writes them.' },
  { id: 'paths-case-insensitive', section: '4', description: 'Paths are matched without case and with an optional trailing slash, as ASP.NET Core routing does: /Agent/Run/ is the run notification.' },
  { id: 'query-names-case-insensitive', section: '4.2-4.4', description: 'Query parameter names are bound without case, as ASP.NET Core model binding does: PreferredIswc is preferredIswc.' },
  { id: 'options-cors', section: 'RFC 9110 §9.3.7', description: 'OPTIONS on a path of the API answers 204 with Allow and CORS headers (a CORS-enabled gateway) instead of 405.' },
  { id: 'run-id-braced-upper', section: '2.2', description: 'New runIds are GUIDs in upper case within braces ({D3A1…}), .NET Guid.ToString("B").ToUpper().' },
  { id: 'run-answer-extra-fields', section: '2.2', description: 'The 200 of the run notification carries fields besides runId (agencyCode, status, a timestamp), in JSON and XML.' },
  { id: 'xml-answer-cdata', section: '2.2, 4.1', description: 'XML answers have a declaration in single quotes with standalone=\'yes\' and the runId in a CDATA section.' },
  { id: 'merge-extra-fields-refused', section: '2.3, 4.2', description: 'A merge body or agency work with a field the document does not name is a bad request (MissingMemberHandling.Error).' },
  { id: 'rate-limit-429', section: '8', description: 'Every 300th request is throttled with 429 {"statusCode": 429, "message": "Rate limit is exceeded…"} and Retry-After: 1 (the document does not show rate limits; production throttles).' },
  { id: 'keep-alive-short', section: 'RFC 9112 §9.3', description: 'Idle persistent connections are closed after 1 ms (a proxy with a short idle timeout); nothing announces it.' },
  { id: 'run-end-once', section: '3, 4.1', description: 'A run can be ended once: a second notification carrying the runId of a run already ended is a bad request.' },
  { id: 'merge-max-items', section: '8', description: 'A merge may name at most 10 items (ISWCs and agency works together); a longer one is a bad request (size limits: not shown).' },
  { id: 'work-code-charset', section: '2.4, 4.3, 4.4', description: 'Agency work codes (body and query) hold only ASCII letters, digits and . _ / -, as real ones do; others are a bad request.' },
  { id: 'accept-406', section: '4.1, RFC 9110 §15.5.7', description: 'A run notification whose Accept names neither JSON nor XML (nor */*) answers 406 (ASP.NET Core ReturnHttpNotAcceptable).' },
  { id: 'delete-merged-child-400', section: '4.3', description: 'A submission whose ISWC has been merged into another preferred ISWC cannot be deleted through it: 400.' },
  { id: 'content-type-upper', section: 'RFC 9110 §8.3.1', description: 'Content-Type is written in mixed case (Application/Json; Charset=UTF-8): type, subtype and parameter names are case-insensitive.' },
  { id: 'xml-text-xml', section: '4.1, 7', description: 'XML answers are labelled text/xml, and XML error bodies application/problem+xml (RFC 9457).' },
  { id: 'error-no-body', section: '4.2-4.4, 7', description: 'Errors of merge, delete and demerge carry no body (the document states a meaning for them, not a text).' },
  { id: 'merge-preferred-child-refused', section: '4.2', description: 'A merge into a preferred ISWC that is itself merged into another (has a parent) is a bad request (production refuses cycles).' },
  { id: 'merge-work-elsewhere-refused', section: '4.2', description: 'A merge naming an agency work already merged into another preferred ISWC is a bad request.' },
  { id: 'merge-again-refused', section: '4.2', description: 'A merge naming an agency work already merged into this preferred ISWC is a bad request ("already merged"), not an idempotent 204.' },
  { id: 'merge-own-works-only', section: '4.2, 5.3', description: 'An agency may merge only its own works: an agency work of another agency than the query agency gets 403.' },
  { id: 'delete-with-merges-400', section: '4.3', description: 'A submission whose preferred ISWC has agency works merged into it cannot be deleted until they are demerged: 400.' },
  { id: 'iis-html-errors', section: 'RFC 9110 §15.5.5-6', description: 'A path or method the API does not define answers IIS\'s HTML error page (404, or 405 with Allow), text/html.' },
  { id: 'uri-limit-414', section: '8, RFC 9110 §15.5.15', description: 'A query string longer than 2048 bytes answers 414 URI Too Long (IIS\'s default maxQueryString).' },
  { id: 'query-unknown-refused', section: '4', description: 'A query parameter the operation does not document (any on the run notification) is a bad request.' },
  // Review 4 (servers written from the interface document alone, by people who never read this code).
  { id: 'demerge-unmerged-400', section: '4.4, 7', description: 'The demerge looks the agency work up before the preferred ISWC: metadata merged into no preferred ISWC is a business 400 "bad request" (as production answers a demerge of metadata never merged), whatever preferred ISWC the request names.' },
  { id: 'json-text-plain', section: 'RFC 9110 §8.3, 4.1', description: 'JSON answers are labelled text/plain; charset=utf-8, as Go\'s net/http labels a body written without a Content-Type (it sniffs the bytes).' },
  { id: 'merge-items-looked-up-first', section: '4.2, 7', description: 'The merge looks each item of its body up before it validates it: an ISWC off the pattern, or an agency work past its limits, is not found, 404 "ISWC not found" (types are still bound first: a number where an ISWC is expected is 400).' },
  { id: 'one-open-run', section: '3, 4.1', description: 'An agency has at most one agent run open: a start while another run of the same agency is open is a bad request (400 "Bad Request"); once that run is ended, the next one starts. The target profile says so (openRuns: "one").' },
  { id: 'run-id-client-chosen', section: '2.1, 2.2, 4.1', description: 'The client names its runs: a start carries a runId of its choosing, which the server answers (2.2); a notification carrying a runId the server knows ends that run; a body without runId is a bad request. The target profile says so (runIds: "client").' },
  // Review 5: a merge that is not atomic.
  { id: 'merge-commits-per-item', section: '1, 4.2', description: 'The merge binds and validates its body whole, then looks each item up and merges it at once, ISWCs then agency works, without a transaction: an ISWC it does not have is refused (404) with the items before it already merged (the document shows no effect on stored data beyond the stated outcomes, 1). With merge-items-in-order, each item is validated, looked up and merged in turn.' },
  // Issue 21: production as built (docs/production.md "Production as built"), where its behaviour was not a
  // choice yet. Each names what the random sweep must know: the choices it cannot go with, the profile it needs.
  // excludes: no-content-type-json; needs profile: -
  { id: 'no-content-type-refused', section: '4.1, 4.2, RFC 9110 §8.3', description: 'A body without Content-Type is taken for application/octet-stream, a media type the server does not read: 415 (400 with unsupported-media-400), as ASP.NET Core\'s input formatters answer. The document makes the header optional for the client; RFC 9110 §8.3 lets a recipient treat an unlabelled body as octet-stream.' },
  // excludes: demerge-merge-set; needs profile: -
  { id: 'demerge-merged-iswc', section: '3, 4.4', description: 'A demerge removes a merged ISWC with all its works, as production does: the named work leads to the ISWC it belongs to (the preferred ISWC of its submission; a work the server holds no submission of is an ISWC of its own), and every work of that ISWC merged into the preferred ISWC is removed, so a second work of it cannot be demerged after the first.' },
  // excludes: -; needs profile: -
  { id: 'run-end-agency-checked', section: '4.1', description: 'An end of run whose agencyCode is not the one its run started with is answered as a runId never issued is (404 "Agent Run not found" with unknown-run-404), as production looks a run up by its runId and its agency.' },
  // excludes: problem-json, error-text-bodies, xml-error-bodies, error-no-body; needs profile: -
  { id: 'business-codes', section: '7', description: 'Errors of merge, delete and demerge are production\'s business rejections: 400 {"code": "132", "message": "…"}, the code a string (103 agency, 113 ISWC pattern, 141 check digit, 202 and 203 items not found, 132 nothing to merge into, 153 and 172 nothing to demerge, 130 and 117 no such submission, 133 reason code, 136 work code, 115 and 138 source database); 404 text/plain.' },
  // excludes: merge-items-looked-up-first, merge-items-in-order, merge-unknown-works-404, merge-partial-404; needs profile: -
  { id: 'merge-items-lookup-400', section: '2.3, 4.2, 7', description: 'The merge never validates the items of its body, it only looks them up, before the preferred ISWC: an ISWC or agency work it does not have (one off the pattern or past its limits included) is a bad request (400, production\'s 202 for ISWCs and 203 for agency works).' },
  // Issue 21, the close reading: readings a run through a proxy making one change showed the harness failed.
  // excludes: -; needs profile: -
  { id: 'unknown-preferred-400', section: '4.3, 4.4, 7', description: 'A delete or demerge naming a preferred ISWC that does not exist is a business error, 400 (production\'s 117, 130 and 153), where 404 fits too.' },
  // excludes: -; needs profile: -
  { id: 'merge-agency-unchecked', section: '4.2, 8', description: 'The merge does not check its query agency against the limits of agencyCode: the parameter names the submitter, and section 8 states the limit of the body field only. A merge of nothing naming a 4-character agency succeeds.' },
  // excludes: -; needs profile: - (the harness takes 401 or 403 for a sourceDb none of the profile's submissions has)
  { id: 'key-source-db-scope', section: '5.3', description: 'The key acts for the profile\'s source databases only (the portal ties a key to agencies and source databases): a delete naming a sourceDb none of its submissions has, nor its agency\'s own, gets 403.' },
  // excludes: merge-items-lookup-400; needs profile: -
  { id: 'merge-partial-404', section: '1, 4.2', description: 'The merge merges every ISWC and agency work of its body it has, and answers 404 (400 with refuse-as-400) for an ISWC it does not have: set-based, or a loop that goes on past it. What it found stays merged (section 1 shows no other effect of a refused request).' },
  // excludes: newtonsoft-json, coerce-boolean-integer; needs profile: -
  { id: 'json-fractions-truncated', section: '2.1', description: 'A JSON number with a fraction for an integer is truncated (Jackson\'s ACCEPT_FLOAT_AS_INT, on in Spring Boot): 1.5 reads as 1. Text with one ("1.5") is still refused.' },
  // excludes: -; needs profile: -
  { id: 'preferred-looked-up-first', section: '4.2-4.4, 7', description: 'Merge, delete and demerge look the preferred ISWC up before anything else of the request is read: one that does not exist is 404 whatever else is wrong.' },
  // Issue 29: production as built, read again from its source (docs/production.md).
  // excludes: -; needs profile: -
  { id: 'binding-problem-json', section: '4.2, 4.3, 7', description: 'A request that does not bind (a merge body that is not JSON, of the wrong type or null; a sourceDb that is not an Int32) and a body no input formatter reads (415) are answered ASP.NET Core\'s application/problem+json (title "One or more validation errors occurred.", no code), before any rule of the query.' },
  // excludes: -; needs profile: -
  { id: 'agency-registry', section: '4.2, 4.3, 7', description: 'Merge and delete look the query agency up in the server\'s registry of agencies (the known societies, the profile\'s agency and the agencies its entries name): one it does not hold is a business 400 (production\'s 103).' },
  // excludes: -; needs profile: - (the profile's agency holds what the profile names)
  { id: 'merge-eligibility', section: '4.2, 4.4, 7', description: 'Merge and demerge need the query agency to hold a submission on the preferred ISWC or on what is merged or demerged (the profile\'s agency holds what the profile names, each entry\'s agency its own works): otherwise a business 400 (production\'s 150).' },
  // excludes: -; needs profile: -
  { id: 'merge-self-refused', section: '2.3, 4.2', description: 'A merge listing its preferred ISWC among the ISWCs to merge is a bad request (production\'s 156, a self-referential link); an ISWC listed twice is merged once (204).' },
  // Issue 28: readings of values a careful server may make, and the three false alarms of its close reading.
  // excludes: -; needs profile: -
  { id: 'text-collation-ci', section: '2.4, 4.3, 4.4', description: 'Agency codes, work codes and ISWCs within their limits are compared as SQL Server\'s default collation SQL_Latin1_General_CP1_CI_AS compares them (production\'s database): without case, width (full-width forms) or trailing spaces. A value outside its limits is refused as sent.' },
  // excludes: -; needs profile: -
  { id: 'query-integer-dotnet', section: '4.3', description: 'Query integers are read as .NET\'s int.Parse(NumberStyles.Integer) reads them: whitespace around the digits and a sign are taken (" 128" is 128), as leading zeros are by every reading.' },
  // excludes: -; needs profile: -
  { id: 'counter-plausibility-cap', section: '2.1, 8', description: 'An agent run claiming more than 100,000,000 records in one counter is a business 400 "Bad Request" (a plausibility cap: the document states a type and a range, 2.1 and 8, not that every value in it is taken).' },
  // excludes: -; needs profile: -
  { id: 'agent-version-typed', section: '2.1', description: 'agentVersion is read as a .NET System.Version (two to four integers separated by dots, "1.4.2"); any other text is a bad request (2.1 states no constraint for it).' },
  // excludes: -; needs profile: -
  // Issue 38: four legitimate servers a fresh reading found failing.
  // excludes: xml-answer-dotnet, xml-answer-datacontract, xml-answer-cdata; needs profile: -
  { id: 'xml-answer-doctype', section: '2.2, 4.1', description: 'XML answers carry a document type declaration that names the root and declares nothing (<!DOCTYPE CsnNotification>), as a serializer writing a DTD reference by habit does: nothing in it is an entity to expand.' },
  // excludes: -; needs profile: -
  { id: 'run-counters-successful-sum', section: '2.1, 3', description: 'An agent run whose successfulCount is not newRecordCount + updateRecordCount (the records that succeeded are the ones created and the ones updated) is a business 400 "Bad Request".' },
  // excludes: -; needs profile: -
  { id: 'run-counters-sent-by-kind', section: '2.1, 3', description: 'An agent run whose overallSent is not newRecordCount + updateRecordCount (new and updated are the kinds of the records sent, rejected ones among them) is a business 400 "Bad Request".' },
  // excludes: -; needs profile: -
  { id: 'merge-after-demerge-refused', section: '4.2, 4.4', description: 'An agency work demerged from a preferred ISWC cannot be merged into it again: the merge is a business 400 (the demerge said the metadata was wrongly merged there), like a work merged twice.' },
  // excludes: integer-java-parseint, query-integer-dotnet; needs profile: -
  { id: 'integer-python-int', section: '2.1, 4.3, 8', description: 'Integers written as text (the query sourceDb; a counter sent as a JSON string or XML text) are read with Python\'s int(): whitespace around, a sign, underscores between digits and decimal digits of any script ("1_000", "１０００" and "١٠٠٠" are 1000), the int32 range checked after.' },
  // excludes: integer-python-int, query-integer-dotnet; needs profile: -
  { id: 'integer-java-parseint', section: '4.3, 8', description: 'Query integers are read with Java\'s Integer.parseInt: a sign and decimal digits of any script ("١٢٨" is 128), nothing around them; the int32 range checked after.' },
  // excludes: stated-text-colon-detail, bad-request-detail; needs profile: -
  { id: 'stated-text-status-message', section: '4.1, 7', description: 'A 400 of the run notification is JSON {"code": 400, "message": "HTTP 400 Bad Request"}: the status and its reason phrase, as many frameworks write an error message.' },
  // excludes: -; needs profile: -
  { id: 'chunked-204', section: '4.2-4.4, RFC 9112 §6.1', description: 'A 204 is framed with Transfer-Encoding: chunked and the last chunk only: no bytes of content (a framing RFC 9112 §6.1 forbids on a 204, judged at the http level, never as a body).' },
  // excludes: -; needs profile: -
  { id: 'empty-key-400', section: '4.1, 5', description: 'A key header present without a value is a malformed request: 400 "Bad Request" on the run notification (ASP.NET Core\'s [FromHeader, Required] binding), a documented error status on the others; a missing or wrong key is still 401.' },
  // excludes: stated-text-colon-detail, bad-request-detail, stated-text-status-message, stated-text-json-detail; needs profile: -
  { id: 'stated-text-status-code-pages', section: '4.1, 7', description: 'A 400 of the run notification is text/plain "Status Code: 400; Bad Request": ASP.NET Core\'s UseStatusCodePages default, the status and its reason phrase.' },
  // excludes: stated-text-colon-detail, bad-request-detail, stated-text-status-message, stated-text-status-code-pages; needs profile: -
  { id: 'stated-text-json-detail', section: '4.1, 7', description: 'A 400 of the run notification is a JSON string, "Bad Request: " followed by the reason: ASP.NET Core\'s BadRequest("…") answered to a client that takes JSON.' },
  // excludes: -; needs profile: -
  { id: 'merge-json-lists-required', section: '2.3, 4.2', description: 'A JSON merge body must carry both lists, an empty one as []: a body without "iswcs" or "agencyWorks" is a validation problem (400), as a binder with [Required] on both answers (XML bodies, whose empty lists are absent, are taken).' },
  { id: 'run-id-empty-echo', section: '2.1, 2.2', description: 'A runId in the body names the run the notification ends, an empty one included, and the answer carries it as given: "runId": "" is answered {"runId": ""} (2.2 types the answer\'s runId a string and states no more).' },
] as const satisfies readonly Choice[];

export type ChoiceId = (typeof CATALOGUE)[number]['id'];

/** The catalogue, in the order of the docs table. */
export const CHOICES: readonly Choice[] = CATALOGUE;

/**
 * Choice sets: what one kind of server would choose together. `reference` is the reference server's own
 * choices (docs/reference-server.md); every choice of the catalogue belongs to at least one other set.
 */
export const CHOICE_SETS = {
  reference: [],
  alternative: ['xml-answer-datacontract', 'answer-xml-always', 'auth-403-no-body', 'foreign-agency-refused', 'error-text-bodies', 'nulls-as-missing', 'extra-fields-refused', 'nfc-lengths', 'preferred-iswc-unchecked', 'reason-code-free', 'unsupported-media-400'],
  production: [
    'submission-update-put',
    'merge-child-refused',
    'answer-json-unless-accept-xml',
    'auth-apim-json',
    'foreign-agency-403',
    'problem-json',
    'refuse-as-400',
    'unknown-run-404',
    'newtonsoft-json',
    'utf16-lengths',
    'agency-code-digits',
    'business-odd-values',
    'empty-merge-400',
    'merge-duplicates-400',
    'check-digit-all',
    'source-db-known',
    'repeated-query-first',
    'apim-404-unknown-operation',
    'large-bodies-accepted',
    'demerge-unmerged-400',
  ],
  // A server that reads strictly and says more than it must: counters that add up, wrapped XML arrays, a
  // reason-code list of its own, sequence-ordered XML, details after the stated text, gzip unasked. Its
  // target profile states the two points a client must know (CHOICE_SET_PROFILES).
  exacting: [
    'run-counters-consistent',
    'xml-wrapped-arrays',
    'gzip-unasked',
    'json-text-json',
    'bad-request-detail',
    'foreign-agency-first',
    'delete-by-work-400',
    'xml-sequence-order',
    'no-content-type-json',
    'reason-code-list',
    'xml-any-root',
    'run-id-client-chosen',
  ],
  // Wire details: how the bytes travel, never what they say.
  wire: ['xml-answer-dotnet', 'connection-close', 'chunked-answers'],
  lenient: ['answer-json-always', 'auth-missing-key-400', 'xml-error-bodies', 'query-limits-not-found', 'unknown-run-400', 'coerce-boolean-integer', 'xml-inner-text', 'trim-strings', 'grapheme-lengths', 'nulls-as-missing'],
  // Found by the second adversarial review of false alarms: readings the harness used to fail (item order,
  // demerge sets, lookup before the key, UTF-16 XML, early hints, dropped entities, narrow columns,
  // gateway refusals, stated texts with a detail, start counters) and wire details it already took.
  review2: [
    'merge-items-in-order',
    'merge-unknown-works-404',
    'demerge-merge-set',
    'demerge-by-work-400',
    'xml-answer-utf16',
    'early-hints',
    'chunked-trailers',
    'xml-entities-dropped',
    'agent-version-limit',
    'unknown-path-403',
    'submission-update-put',
    'auth-after-lookup',
    'stated-text-colon-detail',
    'merge-child-refused',
    'run-start-counters-zero',
  ],
  // Found by the third adversarial review: ASP.NET Core habits, gateways and stricter business rules.
  review3: [
    'content-type-no-charset',
    'paths-case-insensitive',
    'query-names-case-insensitive',
    'options-cors',
    'run-id-braced-upper',
    'run-answer-extra-fields',
    'xml-answer-cdata',
    'merge-extra-fields-refused',
    'rate-limit-429',
    'keep-alive-short',
    'run-end-once',
    'query-unknown-refused',
    'merge-max-items',
    'work-code-charset',
    'accept-406',
    'delete-merged-child-400',
    'content-type-upper',
    'xml-text-xml',
    'error-no-body',
    'merge-preferred-child-refused',
    'merge-work-elsewhere-refused',
    'merge-again-refused',
    'merge-own-works-only',
    'delete-with-merges-400',
    'iis-html-errors',
    'uri-limit-414',
  ],
  // Found by the fourth review, with servers written from the interface document alone: a Go service (net/http
  // labels unlabelled JSON text/plain), items looked up before they are validated, the work of a demerge
  // looked up first, and one open run per agency (which its target profile states).
  review4: ['json-text-plain', 'merge-items-looked-up-first', 'demerge-unmerged-400', 'one-open-run'],
  // Found by the fifth review: a merge that keeps the items it merged before it meets one it cannot take,
  // with production's refusal of an ISWC that already has a parent, so that a refused merge which merged
  // part of an entry makes the entry's own merge fail.
  review5: ['merge-commits-per-item', 'merge-child-refused', 'merge-again-refused'],
  // Production as its source shows it (docs/production.md "Production as built"): its legitimate choices
  // only. Its deviations are faults (server/models.ts adds them: `--model production-as-built`).
  'production-as-built': [
    'answer-json-always',
    'auth-apim-json',
    'business-codes',
    'refuse-as-400',
    'unknown-preferred-400',
    'unknown-run-404',
    'run-end-agency-checked',
    'newtonsoft-json',
    'utf16-lengths',
    'empty-merge-400',
    'merge-self-refused',
    'merge-child-refused',
    'merge-items-lookup-400',
    'source-db-known',
    'delete-by-work-400',
    'demerge-unmerged-400',
    'demerge-merged-iswc',
    'repeated-query-first',
    'query-names-case-insensitive',
    'paths-case-insensitive',
    'apim-404-unknown-operation',
    'submission-update-put',
    'large-bodies-accepted',
    'no-content-type-refused',
    'binding-problem-json',
    'agency-registry',
    'merge-eligibility',
  ],
  // Issue 21, the close reading: a key scoped to source databases, no limit on the merge's query agency, a
  // merge that keeps what it found, Jackson's truncated fractions, the preferred ISWC looked up first; with
  // production's refusal of an ISWC that has a parent, so that what a refused merge kept shows.
  'close-reading': ['key-source-db-scope', 'merge-agency-unchecked', 'merge-partial-404', 'merge-child-refused', 'json-fractions-truncated', 'preferred-looked-up-first'],
  // Issue 21, the close reading: a merge that validates, looks up and merges each item in turn.
  'item-loop': ['merge-items-in-order', 'merge-commits-per-item', 'merge-child-refused'],
  // Issue 28: a .NET service on SQL Server reading values within their limits as its stack does (a collation
  // without case, int.Parse's whitespace, System.Version), a plausibility cap on counts, an empty runId echoed.
  'lenient-readings': ['text-collation-ci', 'query-integer-dotnet', 'counter-plausibility-cap', 'agent-version-typed', 'run-id-empty-echo', 'trim-strings'],
  // Issue 38, a fresh reading: a DOCTYPE on XML answers, successes that must be the new and the updated
  // records, no merge again of a work just demerged, Python's int() for integers written as text.
  'fresh-reading': ['xml-answer-doctype', 'run-counters-successful-sum', 'merge-after-demerge-refused', 'integer-python-int', 'chunked-204', 'stated-text-status-message'],
  // Issue 38, the next fresh reading (2026-11-30): the stated text as ASP.NET Core's status code pages write it, new
  // and updated as the kinds of the records sent, an empty key a malformed request.
  'fresh-reading-2': ['stated-text-status-code-pages', 'run-counters-sent-by-kind', 'empty-key-400', 'submission-update-patch'],
  // The same reading: the stated text in a JSON string with a detail, as BadRequest("…") answers a client taking JSON.
  'fresh-reading-2-json': ['stated-text-json-detail', 'run-counters-sent-by-kind', 'run-counters-consistent', 'run-counters-successful-sum', 'merge-json-lists-required'],
  // Issue 38: a Java service (Integer.parseInt for query integers) with the same business rules.
  'java-readings': ['integer-java-parseint', 'run-counters-successful-sum', 'merge-after-demerge-refused', 'xml-answer-doctype'],
} as const satisfies Record<string, readonly ChoiceId[]>;

export type ChoiceSetName = keyof typeof CHOICE_SETS;

/**
 * What the target profile of a server making a set's choices says, where the document leaves to the
 * target a point a client must know to send a request that succeeds (4.3 reasonCode values; 2.3 how XML
 * arrays are read; 3 how many runs may be open; 2.1 who names a run). A set not listed here is described by
 * the profile as it is.
 */
export const CHOICE_SET_PROFILES: Partial<Record<ChoiceSetName, Partial<ProfileSettings>>> = {
  exacting: { reasonCode: '01', xmlArrays: 'wrapped', runIds: 'client' },
  review4: { openRuns: 'one' },
};

/** The profile a harness run against a server making this set's choices uses. */
export function profileForChoiceSet<P extends TargetProfile>(profile: P, set: ChoiceSetName | undefined): P {
  const overrides = set === undefined ? undefined : CHOICE_SET_PROFILES[set];
  return overrides ? { ...profile, ...overrides } : profile;
}

const IDS: ReadonlySet<string> = new Set(CHOICES.map((c) => c.id));
if (IDS.size !== CHOICES.length) throw new Error('server/choices.ts: duplicate choice id in the catalogue');

export function isChoiceSetName(name: string): name is ChoiceSetName {
  return Object.hasOwn(CHOICE_SETS, name);
}

/** The choices one server instance makes; immutable once built. */
export class ChoiceSet {
  readonly #ids: ReadonlySet<ChoiceId>;

  /** A set by name, or a list of choice ids; an unknown name or id throws with the valid ones. */
  constructor(choices: ChoiceSetName | readonly string[] = 'reference') {
    const ids: readonly string[] = typeof choices === 'string' ? choiceIdsOf(choices) : choices;
    const unknown = ids.filter((id) => !IDS.has(id));
    if (unknown.length > 0) throw new Error(`Unknown choice id${unknown.length > 1 ? 's' : ''}: ${unknown.join(', ')}. Valid ids: ${CHOICES.map((c) => c.id).join(', ')}`);
    this.#ids = new Set(ids as readonly ChoiceId[]);
  }

  has(id: ChoiceId): boolean {
    return this.#ids.has(id);
  }

  list(): ChoiceId[] {
    return [...this.#ids];
  }
}

function choiceIdsOf(name: string): readonly string[] {
  if (!isChoiceSetName(name)) throw new Error(`Unknown choice set "${name}". Valid sets: ${Object.keys(CHOICE_SETS).join(', ')}`);
  return CHOICE_SETS[name];
}

/** The catalogue as a Markdown table, with the sets each choice belongs to. */
export function choiceTable(): string {
  const setsOf = (id: string) =>
    Object.entries(CHOICE_SETS)
      .filter(([, ids]) => (ids as readonly string[]).includes(id))
      .map(([name]) => name)
      .join(', ');
  const rows = CHOICES.map((c) => `| \`${c.id}\` | ${c.section} | ${setsOf(c.id)} | ${c.description.replace(/\|/g, '\\|')} |`);
  return ['| choice | section | sets | description |', '|---|---|---|---|', ...rows].join('\n');
}
