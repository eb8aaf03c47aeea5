import type { OperationId } from '../lib/contract/operations.ts';
import type { Reply } from './wire.ts';
import { json, text } from './wire.ts';
import type { LenientFaultId } from './lenient.ts';
import { activeFamilies, isLenientFaultId, LENIENT_FAULTS } from './lenient.ts';
import type { SpellingFaultId } from './spelling-faults.ts';
import { SPELLING_FAULTS } from './spelling-faults.ts';
import type { ShapeFaultId } from './shape-faults.ts';
import { anyShapeRole, isShapeFaultId, SHAPE_FAULTS } from './shape-faults.ts';
import type { ActiveFamilies } from './lenient.ts';

/**
 * The fault catalogue of the reference server. A fault is one named, deliberate deviation from the
 * interface document (level `spec`: a statement every reasonable reading of the document shares) or from
 * plain HTTP hygiene (level `http`). Ways a conformant server may differ are not faults but choices
 * (server/choices.ts). A fault that only changes answers carries its behaviour in its entry (`alter`);
 * the others are small predicates consulted in the handlers (`faults.has('...')`). Everything a fault
 * does not name stays correct, so the self-check can start one server per fault and expect exactly the
 * checks pinned in tests/expectations/faults.json to fail.
 */

/** Where an answer goes: what an `alter` hook may look at. */
export interface FaultSite {
  /** The operation the request reached; null for an unknown path or method. */
  operation: OperationId | null;
  method: string;
  path: string;
}

export interface Fault {
  id: string;
  level: 'spec' | 'http';
  /** Sections of the interface document the fault breaks ("4.1", "2.3, 8"). */
  section: string;
  description: string;
  /** The fault's behaviour when it only changes answers: applied to every reply before it is written. */
  alter?: (reply: Reply, site: FaultSite) => Reply;
}

const answerOf = (operation: OperationId, status: number) => (reply: Reply, site: FaultSite): boolean => site.operation === operation && reply.status === status;

const CATALOGUE = [
  // Review 3: deviations tried against the suite (see /tmp/notes/review3.md).
  { id: 'run-id-pascal-case', level: 'spec', section: '2.2', description: 'The JSON 200 of the run notification names its field RunId (Newtonsoft without a camelCase resolver) instead of runId.' },
  { id: 'auth-xml-unchecked', level: 'spec', section: '5', description: 'The key is not checked on a request whose body is XML (an XML input path that skips the key filter): a run notification or a merge in XML is served without a key.' },
  { id: 'merge-works-ignore-agency', level: 'spec', section: '2.4, 4.2', description: 'An agency work of a merge body is looked up by its work code alone: a work named with another agency\'s code merges the work of that code it holds.' },
  { id: 'merge-ignores-agency-works', level: 'spec', section: '3, 4.2', description: 'Merge answers 204 but merges only the ISWCs: the agency works of the body are dropped.' },
  { id: 'delete-ignores-preferred', level: 'spec', section: '2.5, 4.3', description: 'Submission delete finds the submission by agency, work code and sourceDb alone: a delete naming another existing preferred ISWC removes it.' },
  { id: 'demerge-ignores-preferred', level: 'spec', section: '4.4', description: 'Demerge finds the merged work by agency and work code alone: a demerge naming another existing preferred ISWC removes it.' },
  { id: 'merge-works-only-unknown-preferred', level: 'spec', section: '4.2', description: 'A merge whose body lists only agency works (no ISWCs) is not looked up: an unknown preferred ISWC gets 204 instead of 404.' },
  { id: 'delete-ignores-workcode', level: 'spec', section: '2.5, 4.3', description: 'Submission delete ignores the work code: a delete naming another work code removes the agency\'s submission on that ISWC and sourceDb.' },
  { id: 'merge-unknown-body-iswc-accepted', level: 'spec', section: '4.2', description: 'An ISWC of the merge body that does not exist is skipped: the merge answers 204.' },
  { id: 'int32-min-loose', level: 'spec', section: '8', description: 'The int32 minimum is not checked: counters and sourceDb below -2147483648 are accepted.' },
  { id: 'delete-unknown-preferred-by-work', level: 'spec', section: '2.5, 4.3', description: 'A delete naming a preferred ISWC that does not exist removes the submission found by agency, work code and sourceDb (204).' },
  { id: 'run-end-refused', level: 'spec', section: '4.1', description: 'A run the server started cannot be ended: a notification carrying the runId the server answered is 400 "Bad Request".' },
  { id: 'merge-xml-works-ignored', level: 'spec', section: '2.3, 4.2', description: 'agencyWorks of an XML merge body are neither validated nor merged (a 21-character agencyWorkCode passes).' },
  // Limits too loose (section 8).
  { id: 'run-agency-code-loose', level: 'spec', section: '2.1', description: 'Agent run agencyCode length is not checked.' },
  { id: 'run-int32-loose', level: 'spec', section: '2.1', description: 'Agent run counters accept any safe integer beyond int32.' },
  { id: 'merge-iswc-pattern-loose', level: 'spec', section: '2.3', description: 'Items of iswcs are neither checked against the pattern nor looked up: a malformed item is merged as given (204).' },
  { id: 'merge-agency-code-loose', level: 'spec', section: '2.4', description: 'agencyWorks[].agencyCode length is not checked.' },
  { id: 'merge-work-code-loose', level: 'spec', section: '2.4', description: 'agencyWorks[].agencyWorkCode length is not checked.' },
  { id: 'int32-off-by-one', level: 'spec', section: '8', description: 'The int32 maximum check lets 2147483648 through (counters and sourceDb).' },
  { id: 'drop-invalid-iswcs', level: 'spec', section: '2.3', description: 'Invalid items of iswcs are silently dropped instead of rejected with 400; the merge proceeds with the rest.' },
  { id: 'array-tail-unchecked', level: 'spec', section: '2.3, 8', description: 'Only the first three items of iswcs are checked, against the pattern and for existence: later ones are merged as given (only generated arrays find it).' },
  { id: 'double-percent-decoding', level: 'spec', section: '4.2-4.4, 8', description: 'Query values are percent-decoded twice, so "%41%42%43" counts as "ABC" (only generated query strings find it).' },
  { id: 'duplicate-items-500', level: 'http', section: '2.3', description: 'A merge request repeating an ISWC in iswcs answers 500 (only generated duplicates find it).' },
  // Limits too tight.
  { id: 'work-code-tight', level: 'spec', section: '8', description: 'agencyWorkCode and query workcode are limited to one character less than the document states.' },
  { id: 'int32-tight', level: 'spec', section: '8', description: 'Counters and sourceDb reject the int32 bounds themselves (2147483647 and -2147483648).' },
  // Statuses swapped.
  { id: 'run-success-201', level: 'spec', section: '4.1', description: 'A successful run notification answers 201 (same body).', alter: (r, s) => (answerOf('notifyAgentRun', 200)(r, s) ? { ...r, status: 201 } : r) },
  { id: 'merge-success-200', level: 'spec', section: '4.2', description: 'A successful merge answers 200 with an empty JSON object.', alter: (r, s) => (answerOf('mergeIswcMetadata', 204)(r, s) ? json(200, {}) : r) },
  { id: 'run-400-as-422', level: 'spec', section: '4.1', description: 'An invalid agent run answers 422 (same text).', alter: (r, s) => (answerOf('notifyAgentRun', 400)(r, s) ? { ...r, status: 422 } : r) },
  { id: 'merge-400-as-422', level: 'spec', section: '4.2', description: 'An invalid merge request (body or query) answers 422.', alter: (r, s) => (answerOf('mergeIswcMetadata', 400)(r, s) ? { ...r, status: 422 } : r) },
  { id: 'merge-404-as-400', level: 'spec', section: '4.2', description: 'An unknown ISWC in a merge answers 400.' },
  { id: 'demerge-404-as-410', level: 'spec', section: '4.4', description: 'Demerge of something not found answers 410.' },
  { id: 'run-401-as-403', level: 'spec', section: '4.1, 5', description: 'Run notification with a missing or wrong key answers 403.' },
  // Texts.
  { id: 'run-bad-request-text', level: 'spec', section: '4.1', description: 'Run notification 400 body is "Invalid request" instead of "Bad Request".', alter: (r, s) => (answerOf('notifyAgentRun', 400)(r, s) ? text(400, 'Invalid request') : r) },
  { id: 'run-not-authorized-text', level: 'spec', section: '4.1', description: 'Run notification 401 body is "Unauthorized" instead of "Not Authorized".' },
  // Authentication.
  { id: 'auth-missing-run', level: 'spec', section: '5', description: 'The run notification does not check the key at all.' },
  { id: 'auth-missing-merge', level: 'spec', section: '5', description: 'The merge does not check the key at all.' },
  { id: 'auth-missing-delete', level: 'spec', section: '5', description: 'The submission delete does not check the key at all.' },
  { id: 'auth-missing-demerge', level: 'spec', section: '5', description: 'The demerge does not check the key at all.' },
  { id: 'auth-wrong-key-accepted', level: 'spec', section: '5', description: 'Any non-empty key is accepted on every operation (a missing key is still 401).' },
  // Bodies, formats, content types.
  { id: 'run-response-schema', level: 'spec', section: '2.2', description: 'The 200 body breaks CsnNotification: JSON runId is a number; XML repeats the runId element.' },
  { id: 'run-ids-per-format', level: 'spec', section: '2.2, 4.1', description: 'Each body format numbers its runs in a sequence of its own (RUN-1, RUN-2, …): the first JSON start and the first XML start are answered the same runId.' },
  {
    id: 'run-ids-repeat',
    level: 'spec',
    section: '2.2, 4.1',
    description: 'Every started run is answered the same runId ("RUN-1").',
    alter: (r, s) => (answerOf('notifyAgentRun', 200)(r, s) && r.body ? { ...r, body: { ...r.body, text: r.body.text.replace(/"runId":"[^"]*"/, '"runId":"RUN-1"').replace(/<runId>(?:<!\[CDATA\[[\s\S]*?\]\]>|[^<]*)<\/runId>/, '<runId>RUN-1</runId>') } } : r),
  },
  { id: 'run-response-no-run-id', level: 'spec', section: '2.2, 4.1', description: 'The 200 of the run notification carries no runId (an empty CsnNotification).' },
  { id: 'xml-wrong-root-response', level: 'spec', section: '2.2', description: 'XML answers of the run notification use root AgentRun instead of CsnNotification.' },
  { id: 'xml-request-unsupported', level: 'spec', section: '2.1, 2.3', description: 'XML request bodies are answered 400 (only JSON is understood).' },
  { id: 'fraction-truncated', level: 'spec', section: '2.1', description: 'Agent run counters written as text with a fraction ("1.5", which no reading takes for an integer) are truncated and accepted, and so are numbers with one.' },
  { id: 'json-content-type-mislabelled', level: 'http', section: '4.1', description: 'JSON response bodies are labelled application/xml.' },
  { id: 'missing-content-type', level: 'http', section: '4.1', description: 'Responses with a body carry no Content-Type.' },
  { id: 'no-body-204-violated', level: 'spec', section: '4.2', description: '204 answers of the merge carry a body "{}".' },
  // Stated outcomes not happening (section 3).
  { id: 'merge-no-effect', level: 'spec', section: '3', description: 'Merge answers 204 but changes nothing (the agency works do not become demergeable).' },
  { id: 'demerge-no-effect', level: 'spec', section: '3', description: 'Demerge answers 204 but changes nothing (a repeat answers 204 again).' },
  { id: 'delete-no-effect', level: 'spec', section: '3', description: 'Submission delete answers 204 but changes nothing (a repeat answers 204 again).' },
  // Effects that lapse after their 204 (issue 38, read back): seen only by a request sent after the repeat.
  { id: 'delete-lapses', level: 'spec', section: '3', description: 'A deleted submission comes back once a repeat of the delete has been refused (a delete kept for one read only): the repeat right after the 204 is refused, and a later one deletes it again (204).' },
  { id: 'demerge-lapses', level: 'spec', section: '3', description: 'Demerged metadata is merged again once a repeat of the demerge has been refused: the repeat right after the 204 is refused, and a later one demerges it again (204).' },
  { id: 'delete-source-db-zero-any', level: 'spec', section: '2.5, 4.3', description: 'Submission delete reads sourceDb 0 as any source database: a delete naming sourceDb 0 removes the submission of whatever source database.' },
  { id: 'delete-ignores-source-db', level: 'spec', section: '2.5, 4.3', description: 'Submission delete matches on preferred ISWC, agency and work code only: a delete naming another sourceDb removes the submission.' },
  { id: 'delete-ignores-agency', level: 'spec', section: '2.5, 4.3', description: 'Submission delete ignores the agency: a delete naming another agency removes the submission.' },
  { id: 'demerge-ignores-agency', level: 'spec', section: '4.4', description: 'Demerge ignores the agency: a demerge naming another agency removes the metadata.' },
  { id: 'demerge-removes-all', level: 'spec', section: '4.4', description: 'A demerge removes every work merged into the preferred ISWC, not the one named.' },
  { id: 'after-merge-demerge-any', level: 'spec', section: '3, 4.4', description: 'Once metadata is merged into a preferred ISWC (by a successful merge, or as the profile\'s demerges say), any well-formed demerge on it answers 204, even for works never merged into it.' },
  // HTTP level.
  { id: 'crash-on-malformed', level: 'spec', section: '7', description: 'Malformed JSON or XML bodies answer 500 with a generic text.' },
  { id: 'crash-on-malformed-json', level: 'spec', section: '7', description: 'Malformed JSON bodies answer 500 with a generic text (the JSON input path lets its parser\'s exception through); malformed XML is refused 400.' },
  { id: 'crash-on-malformed-xml', level: 'spec', section: '7', description: 'Malformed XML bodies answer 500 with a generic text (the XML input path lets its parser\'s exception through); malformed JSON is refused 400.' },
  { id: '405-without-allow', level: 'http', section: '4', description: '405 answers carry no Allow header.' },
  { id: 'stack-trace-in-error', level: 'http', section: '7', description: '400 bodies of merge, delete and demerge include a Node-style stack trace with internal paths.' },
  { id: 'xml-entities-expanded', level: 'http', section: '2.1', description: 'XML with a DOCTYPE is accepted and internal entities are expanded (one level, capped at 64 KiB).' },
  { id: 'unknown-path-200', level: 'http', section: '4', description: 'Unknown paths answer 200 with an empty JSON object.' },
  { id: 'oversized-body-500', level: 'http', section: '8', description: 'A request body over the size cap answers 500 instead of 413.' },
  { id: 'hang-on-unsupported-media', level: 'http', section: '4.1, 4.2', description: 'A request body with an unsupported Content-Type never gets an answer (the connection stays open).' },
  { id: 'unsupported-media-500', level: 'http', section: '4.1, 4.2', description: 'A request body with an unsupported Content-Type answers 500.' },
  { id: 'auth-after-action', level: 'spec', section: '5', description: 'Submission delete and demerge act before the key is checked: the data is removed, then a missing or wrong key is answered 401.' },
  { id: 'query-int32-wraparound', level: 'spec', section: '4.3, 8', description: 'Query sourceDb is read modulo 2^32 (JavaScript `Number(x) | 0`): 4294967424 names sourceDb 128, and values past int32 are never refused.' },
  { id: 'empty-key-accepted', level: 'spec', section: '5', description: 'An empty Ocp-Apim-Subscription-Key header is taken as a valid key on every operation (a truthiness test); a missing or wrong key is still 401.' },
  { id: 'accept-json-400-text', level: 'spec', section: '4.1', description: 'A 400 of the run notification answered to a request with Accept: application/json is ASP.NET Core\'s validation problem+json, title "One or more validation errors occurred.", without "Bad Request".' },
  { id: 'content-type-params-refused', level: 'spec', section: '4.1, 4.2', description: 'A request Content-Type with parameters (application/json; charset=utf-8) is not recognised and answered 415, as an exact string comparison does.' },
  { id: 'xml-whitespace-refused', level: 'spec', section: '2.1, 2.3', description: 'XML bodies with whitespace between elements (indented, as most XML writers produce) are answered 400.' },
  { id: 'xml-request-namespace', level: 'spec', section: '2.1, 2.3', description: 'XML request bodies must carry a namespace on the root (DataContractSerializer\'s default, xmlns="http://schemas.datacontract.org/2004/07/Iswc.Api.Models"); a root in no namespace, as the document names it, is a bad request.' },
  // Issue 16: faults a 404 for data that does not exist used to hide, and a missing query parameter.
  { id: 'merge-wrong-key-accepted', level: 'spec', section: '5', description: 'The merge takes any non-empty key as valid (a missing key is still refused): only a request on data that exists shows it, since a merge of nothing is 404 whatever the key.' },
  { id: 'demerge-wrong-key-accepted', level: 'spec', section: '5', description: 'The demerge takes any non-empty key as valid (a missing key is still refused): only a request on data that exists shows it, since a demerge of nothing is 404 whatever the key.' },
  { id: 'delete-wrong-key-accepted', level: 'spec', section: '5', description: 'The submission delete takes any non-empty key as valid (a missing key is still refused): only a request on data that exists shows it, since a delete of nothing is 404 whatever the key.' },
  { id: 'merge-drops-invalid-works', level: 'spec', section: '2.4, 4.2', description: 'Agency works past their limits (agencyWorkCode over 20 characters, agencyCode not 3) are silently dropped and the rest is merged (204). The server looks works up (an agency work it does not know is 404) and refuses a merge left with nothing to merge (400), so a broken work alone, or among works that do not exist, is still refused.' },
  { id: 'merge-drops-unknown-iswcs', level: 'spec', section: '4.2', description: 'ISWCs of the merge body that do not exist are silently dropped and the rest is merged (204); a merge left with nothing to merge is refused (400), so an unknown ISWC alone is still refused.' },
  // Review 5: an empty key was never sent to merge, delete or demerge.
  { id: 'data-empty-key-accepted', level: 'spec', section: '5', description: 'Merge, delete and demerge take an empty Ocp-Apim-Subscription-Key header as a valid key (a gateway policy that tests only that the header is present); a missing or wrong key is still refused, and the run notification refuses an empty one. Only a request on data that exists shows it, since a request naming nothing is 404 whatever the key.' },
  { id: 'delete-no-workcode-500', level: 'http', section: '4.3', description: 'A submission delete without a workcode parameter answers 500 (the handler reads a value that is not there).' },
  // Issue 21: production as built, its deviations from the document (docs/production.md "Production as
  // built"); server/models.ts plays them with its choices, fixtures/waivers/production-as-built.yaml waives them.
  { id: 'xml-bodies-415', level: 'spec', section: '2.1, 2.3, 4.1, 4.2', description: 'No XML is read (only JSON input formatters, as production registers): an XML body gets 415.' },
  { id: 'run-400-validation-problem', level: 'spec', section: '4.1', description: 'Every 400 of the run notification is ASP.NET Core\'s validation problem (problem+json, title "One or more validation errors occurred."), which never carries "Bad Request".' },
  { id: 'gateway-401-json', level: 'spec', section: '4.1, 5', description: 'Every 401 is the gateway\'s JSON {"statusCode": 401, "message": "Access denied due to missing subscription key…"}: the run notification\'s carries no "Not Authorized".' },
  // Issue 21, the close reading: misses a run through a proxy making one change showed.
  { id: 'merge-iswcs-clears-works', level: 'spec', section: '3, 4.2', description: 'A merge of ISWCs alone rebuilds the preferred ISWC\'s group: the agency works merged into it before are dropped, and their demerge is refused (a fresh reading of 2026-12-01).' },
  { id: 'xml-answer-utf16-declared', level: 'spec', section: '2.2, 4.1', description: 'XML answers declare encoding="utf-16" (written through a StringWriter) but are UTF-8 bytes without a byte order mark, labelled application/xml without a charset: a fatal error to every XML processor (XML 1.0 §4.3.3; a fresh reading of 2026-12-01).' },
  { id: 'run-empty-body-400-no-text', level: 'spec', section: '4.1', description: 'An empty request body to the run notification gets 400 with no content (a framework short-circuit before the handler), so no "Bad Request" (a fresh reading of 2026-12-01).' },
  { id: 'run-string-counters-unranged', level: 'spec', section: '2.1, 8', description: 'Agent run counters written as JSON strings of digits are converted after the validation, with no range check: "2147483648" gets 200 (a fresh reading of 2026-12-01).' },
  { id: 'run-end-unvalidated', level: 'spec', section: '2.1, 4.1', description: 'An agent run that ends a run (it carries a runId) is not validated: agencyCode "1234" or a counter 2147483648 gets 200.' },
  { id: 'auth-missing-run-end', level: 'spec', section: '5', description: 'The run notification checks the key on a start only: an end (carrying a runId) is served without the key, with an empty one or with a wrong one.' },
  { id: 'merge-auth-after-action', level: 'spec', section: '5', description: 'A merge without a valid key is carried out, then answered 401: the answer refuses, the data changed.' },
  { id: 'work-code-long-refused', level: 'spec', section: '2.4, 8', description: 'Agency work codes of 15 characters or more (body and query) are refused with 400, as a column of 14 would: realistic codes up to the limit of 20 never get through.' },
  { id: 'unknown-run-200-empty', level: 'spec', section: '2.2, 4.1', description: 'A notification carrying a runId the server never issued gets 200 without a body.' },
  { id: 'unknown-run-400-text', level: 'spec', section: '4.1', description: 'A notification carrying a runId the server never issued gets 400 "Run not found", without "Bad Request".' },
  { id: 'key-case-insensitive', level: 'spec', section: '5', description: 'The subscription key is compared without regard to case: the key with the case of its letters changed is accepted.' },
  { id: 'length-in-bytes', level: 'spec', section: '2.1, 2.4, 8', description: 'Lengths are counted in UTF-8 bytes: a 2-character agency code with a non-ASCII letter ("1é", 3 bytes) passes for 3 characters.' },
  // Issue 28: a 400 of the run notification the harness did not judge, for a request the document does not describe.
  { id: 'run-unread-400-text', level: 'spec', section: '4.1', description: 'A run notification the server does not read (a media type other than JSON or XML, a body over the size cap) is answered 400 with a text of its own ("Unsupported media type", "Request body too large"), without "Bad Request".' },
  // Issue 38: a fresh reading, every proof on every shape of request.
  { id: 'run-key-agency-only', level: 'spec', section: '5', description: 'The run notification checks the key against the agency its body names: a body without agencyCode is served without a key, with an empty one or with a wrong one.' },
  { id: 'key-skipped-without-content-type', level: 'spec', section: '5', description: 'The key filter is reached only by bodies with a Content-Type (a filter keyed on the media type): a run notification or a merge whose body carries none is served without a key.' },
  { id: 'key-skipped-accept-xml', level: 'spec', section: '5', description: 'The key is not checked on a request that asks for XML answers (Accept: application/xml goes a way that skips the key filter): any operation is served without a key.' },
  { id: 'key-skipped-content-type-params', level: 'spec', section: '5', description: 'The key filter compares the Content-Type whole: a run notification or a merge whose Content-Type carries a parameter (application/json; charset=utf-8) is served without a key.' },
  { id: 'key-skipped-extra-param', level: 'spec', section: '5', description: 'The key filter is keyed on the query parameters it knows: a request with one the document does not name is served without a key.' },
  { id: 'key-skipped-percent-encoded', level: 'spec', section: '5', description: 'The key filter reads the raw query: a request whose query carries a percent-encoded value (agency=%31%32%38) is served without a key.' },
  { id: 'key-skipped-accept-json', level: 'spec', section: '5', description: 'The key is not checked on a request that asks for JSON answers by name (Accept: application/json goes a way that skips the key filter): any operation is served without a key.' },
  { id: 'key-skipped-trailing-slash', level: 'spec', section: '5', description: 'The key filter compares the path as written while the router takes a trailing slash: /agent/run/ (any operation\'s path with a slash after it) is served without a key.' },
  { id: 'key-skipped-path-case', level: 'spec', section: '5', description: 'The key filter compares the path as written while the router matches it without case: /AGENT/RUN (any operation\'s path in capitals) is served without a key.' },
  { id: 'key-skipped-param-twice', level: 'spec', section: '5', description: 'The key is not checked on a request whose query gives a parameter twice (a query read once by the filter, again by the handler): a delete or a demerge with a repeated parameter is served without a key (a repeated parameter read as its first value).' },
  { id: 'merge-key-works-only', level: 'spec', section: '5', description: 'The merge checks the key against the agency of each agency work of its body: a merge that carries ISWCs only is served without a key, with an empty one or with a wrong one.' },
  { id: 'merge-iswcs-ignored-with-works', level: 'spec', section: '2.3, 4.2', description: 'A merge body that carries agency works has its ISWCs ignored: they are neither validated, nor looked up, nor merged (an off-pattern or unknown ISWC next to agency works gets 204).' },
  { id: 'merge-works-ignored-with-iswcs', level: 'spec', section: '2.4, 4.2', description: 'A merge body that carries ISWCs has its agency works ignored: they are neither validated, nor looked up, nor merged (a 21-character agencyWorkCode next to ISWCs gets 204).' },
  { id: 'merge-iswcs-not-merged', level: 'spec', section: '3, 4.2', description: 'The ISWCs of a merge body are validated and looked up, the merge answers 204, and nothing of them is merged (agency works are).' },
  { id: 'run-end-empty-run-id', level: 'spec', section: '2.2, 4.1', description: 'The end of a run (a notification carrying a runId) is answered 200 {"runId": ""}: a string, but the identifier of no run.' },
  { id: 'run-reend-new-run-id', level: 'spec', section: '2.2, 4.1', description: 'A run ended a second time is answered 200 with a new runId, as a run of its own: the answer names another run than the one the notification names (its first end is answered right).' },
  { id: 'run-end-other-agency-new-id', level: 'spec', section: '2.2, 4.1', description: 'The end of a run naming another agencyCode than its start is answered 200 with a new runId: the answer names another run than the one the notification names.' },
  { id: 'run-end-new-run-id', level: 'spec', section: '2.2, 4.1', description: 'The end of a run (a notification carrying a runId the server issued) ends it and is answered 200 with a new runId, as if each notification were a run of its own: the answer names another run than the one ended.' },
  { id: 'preferred-check-digit-ignored', level: 'spec', section: '2.3, 2.5, 4.2-4.4', description: 'The query preferredIswc is read with its check digit recomputed (ISO 15707) before it is looked up: an ISWC whose check digit does not hold, which names no ISWC, acts on the ISWC of its nine digits.' },
  { id: 'preferred-iswc-cut', level: 'spec', section: '2.3, 4.2-4.4', description: 'The query preferredIswc is read into a parameter of 11 characters (CHAR(11), the length "T followed by 10 digits" fixes): a longer value is cut to its first 11 before it is checked and looked up, so a 12-character value whose first 11 are an ISWC acts on that ISWC.' },
  // Issue 38: a sixth fresh reading (2026-12-01).
  { id: 'accept-xml-400-text', level: 'spec', section: '4.1', description: 'A 400 of the run notification answered to a request with Accept: application/xml is an XML problem details document, title "One or more validation errors occurred.", without "Bad Request" (the XML twin of accept-json-400-text).' },
  { id: 'merge-several-unknown-preferred-400', level: 'spec', section: '4.2, 7', description: 'A merge of several items into a preferred ISWC that does not exist is answered 400, not 404 (one ISWC or one agency work alone still gets 404).' },
  { id: 'key-skipped-text-xml', level: 'spec', section: '5', description: 'The key filter is keyed on application/xml: a body labelled text/xml (its registered alias, RFC 7303), which the handler reads as XML, is served without a key.' },
  { id: 'key-skipped-text-json', level: 'spec', section: '5', description: 'The key filter is keyed on application/json: a JSON body labelled text/json, which the handler reads as JSON (ASP.NET Core\'s JSON input formatters take it by default), is served without a key.' },
  { id: 'key-skipped-accept-any', level: 'spec', section: '5', description: 'The key is not checked on a request whose Accept is */* (curl\'s default goes a way that skips the key filter): any operation is served without a key.' },
  { id: 'merge-empty-unknown-preferred-204', level: 'spec', section: '4.2', description: 'A merge naming neither ISWCs nor agency works is answered 204 before the preferred ISWC is looked up: a preferred ISWC that does not exist is "designated as preferred".' },
  { id: 'merge-preferred-check-digit-ignored', level: 'spec', section: '2.3, 2.5, 4.2', description: 'The merge\'s query preferredIswc is read with its check digit recomputed (ISO 15707), on the merge only: a preferred ISWC whose check digit does not hold names the entry\'s, and the works are merged into it.' },
  { id: 'merge-preferred-iswc-cut', level: 'spec', section: '2.3, 4.2', description: 'The merge\'s query preferredIswc is read into a parameter of 11 characters (CHAR(11)), on the merge only: a 12-character value whose first 11 are an ISWC merges into that ISWC.' },
  { id: 'merge-json-list-absent-noop', level: 'spec', section: '3, 4.2', description: 'A JSON merge body without one of its lists (no "iswcs" member) is answered 204 and nothing of it is merged: the handler reads an absent list as "nothing to do" (XML bodies, whose empty lists are always absent, are merged).' },
  { id: 'accept-any-406', level: 'spec', section: '4.1', description: 'A run notification whose Accept is */* alone (curl\'s default) is answered 406, a status the document does not list for it: */* accepts any representation.' },
] as const satisfies readonly Fault[];



/** Faults of the catalogue written one by one; the spelling, shape and lenient families (server/spelling-faults.ts, shape-faults.ts, lenient.ts) are derived from the codecs and the schemas. */
export type FaultId = (typeof CATALOGUE)[number]['id'] | SpellingFaultId | ShapeFaultId | LenientFaultId;

/** The catalogue, in the order of the docs table (the spelling and shape families included), then the lenient families. */
export const FAULTS: readonly Fault[] = [...CATALOGUE, ...SPELLING_FAULTS, ...SHAPE_FAULTS.map(({ id, level, section, description }) => ({ id, level, section, description })), ...LENIENT_FAULTS];

const IDS: ReadonlySet<string> = new Set(FAULTS.map((f) => f.id));
if (IDS.size !== FAULTS.length) throw new Error('server/faults.ts: duplicate fault id in the catalogue');

export function isFaultId(id: string): id is FaultId {
  return IDS.has(id);
}

/** The faults one server instance plays; immutable once built. */
export class FaultSet {
  readonly #ids: ReadonlySet<FaultId>;

  readonly #families: ActiveFamilies;

  /** A member of the shape family's key role is in the set: the key's check reads the body ahead. */
  readonly shapeKey: boolean;

  /** A member of the shape family is in the set: the merge reads its body's shape (none: nothing to read). */
  readonly shaped: boolean;

  constructor(ids: readonly string[] = []) {
    const unknown = ids.filter((id) => !isFaultId(id));
    if (unknown.length > 0) {
      throw new Error(
        `Unknown fault id${unknown.length > 1 ? 's' : ''}: ${unknown.join(', ')}. Valid ids: ${[...CATALOGUE, ...SPELLING_FAULTS, ...SHAPE_FAULTS].map((f) => f.id).join(', ')}, and the lenient families (--list-faults)`,
      );
    }
    this.#ids = new Set(ids.filter(isFaultId));
    this.#families = activeFamilies(this.#ids);
    this.shapeKey = anyShapeRole(this.#ids, 'key');
    this.shaped = [...this.#ids].some(isShapeFaultId);
  }

  /** The lenient family faults of this set (server/lenient.ts), by kind. */
  get families(): ActiveFamilies {
    return this.#families;
  }

  has(id: FaultId): boolean {
    return this.#ids.has(id);
  }

  get size(): number {
    return this.#ids.size;
  }

  list(): FaultId[] {
    return [...this.#ids];
  }

  /** The answer as the faults of this set change it (the `alter` hooks of their entries). */
  alter(reply: Reply, site: FaultSite): Reply {
    let out = reply;
    for (const f of FAULTS) if (f.alter && this.#ids.has(f.id as FaultId)) out = f.alter(out, site);
    return out;
  }
}

/**
 * The catalogue as a Markdown table (pasted into docs/reference-server.md; a unit test keeps them equal):
 * the faults written one by one; with `families`, every lenient family fault too (`--list-faults`).
 */
export function faultTable(options: { families?: boolean } = {}): string {
  const listed: readonly Fault[] = options.families ? FAULTS : FAULTS.filter((f) => !isLenientFaultId(f.id));
  const rows = listed.map((f) => [`\`${f.id}\``, f.level, f.section, f.description.replace(/\|/g, '\\|')]);
  const header = ['id', 'level', 'section', 'description'];
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  // The description column is not padded: it is the last one, and padding would only add trailing spaces.
  const line = (cells: string[]): string =>
    `| ${cells.map((c, i) => (i === cells.length - 1 ? c : c.padEnd(widths[i] ?? 0))).join(' | ')} |`;
  const rule = `|${widths.map((w, i) => '-'.repeat(i === widths.length - 1 ? (header[i] ?? '').length + 2 : w + 2)).join('|')}|`;
  return [line(header), rule, ...rows.map(line)].join('\n');
}
