/**
 * The space of legitimate servers: which choices of the catalogue (server/choices.ts) one server can make
 * together, what its target profile must then say, and which faults (server/faults.ts) a choice hides by
 * right. The sweep (lib/sweep/) draws random combinations from this space instead of trusting the named
 * sets alone, so the model must be strict in both directions:
 *
 * - two choices are exclusive only when their descriptions contradict each other, so that no single real
 *   server could make both (never to hide a false alarm: a combination the harness fails is a finding);
 * - a fault is excluded behind a choice only when the choice makes the fault's behaviour legitimate
 *   (indistinguishable from a choice) or keeps every request from reaching it (unreachable), each with its
 *   reason: the choice answers first by a rule of its own that a real server applies before (a gateway, a
 *   business rule on the same input, a lookup the fault says nothing of), or nothing of the choice is left
 *   beside the fault. A fault acts wherever its description applies, whatever path the choices take in the
 *   handlers, and is otherwise expected to be caught whatever legitimate choices surround it.
 *
 * A choice named nowhere here is free: compatible with every other, needing nothing of the profile.
 */

import type { ProfileSettings, TargetProfile } from '../lib/contract/profile/types.ts';
import type { ChoiceId } from './choices.ts';
import { CHOICES } from './choices.ts';
import type { FaultId } from './faults.ts';
import { FAULTS } from './faults.ts';

/** Choices that contradict one another: a server makes at most one of them. */
export interface ExclusiveGroup {
  /** What the choices answer differently. */
  point: string;
  choices: readonly ChoiceId[];
  /** Why no server makes two of them. */
  reason: string;
}

export const EXCLUSIVE_GROUPS: readonly ExclusiveGroup[] = [
  {
    point: 'the representation of the run notification answer',
    choices: ['answer-xml-always', 'answer-json-unless-accept-xml', 'answer-json-always'],
    reason: 'each states which representation answers a given request, and they name different ones',
  },
  {
    point: 'a missing or wrong key on merge, delete and demerge',
    choices: ['auth-403-no-body', 'auth-apim-json', 'auth-missing-key-400'],
    reason: 'a missing key gets 403 without a body, the gateway\'s 401 JSON, or 400: one status each',
  },
  {
    point: 'another agency than the key\'s',
    choices: ['foreign-agency-refused', 'foreign-agency-403'],
    reason: 'the refusal of another agency is 401 text and 403 without a body, or 403 problem+json on every operation',
  },
  {
    point: 'the body of an error of merge, delete and demerge',
    choices: ['error-text-bodies', 'problem-json', 'xml-error-bodies', 'error-no-body', 'business-codes'],
    reason: 'each states what every such error carries: a text, problem+json, XML, nothing, or production\'s business code in JSON',
  },
  {
    point: 'the body of the run notification\'s 400',
    choices: ['problem-json', 'xml-error-bodies', 'bad-request-detail', 'stated-text-colon-detail', 'stated-text-status-message', 'stated-text-status-code-pages', 'stated-text-json-detail'],
    reason: 'problem+json, XML, "Bad Request" and a detail on the next line, "Bad Request: detail", the status and its reason phrase, or a JSON string: one body each',
  },
  {
    point: 'a run notification carrying a runId the server never issued',
    choices: ['unknown-run-404', 'unknown-run-400', 'run-id-client-chosen'],
    reason: '404, 400, or (the client names its runs) the start of that run',
  },
  {
    point: 'the JSON reader binding a value that is not an integer to an integer field',
    choices: ['newtonsoft-json', 'coerce-boolean-integer', 'json-fractions-truncated'],
    reason: 'one reader each: Newtonsoft.Json refuses a boolean and a fraction, the coercing reader takes a boolean as 1 or 0, Jackson truncates a fraction',
  },
  {
    point: 'how characters are counted',
    choices: ['utf16-lengths', 'grapheme-lengths', 'nfc-lengths'],
    reason: 'one length per string: UTF-16 code units, grapheme clusters or NFC code points',
  },
  {
    point: 'reasonCode values',
    choices: ['reason-code-free', 'reason-code-list'],
    reason: 'a blank or missing reasonCode is accepted, or only "01" to "05" are',
  },
  {
    point: 'a path the API does not define',
    choices: ['unknown-path-403', 'iis-html-errors', 'apim-404-unknown-operation'],
    reason: 'one answer each: the API gateway\'s 403, IIS\'s HTML 404, or API Management\'s JSON 404',
  },
  {
    point: 'the media type JSON answers are labelled with',
    choices: ['json-text-json', 'json-text-plain'],
    reason: 'text/json or text/plain: one label each',
  },
  {
    point: 'the serializer of XML answers',
    choices: ['xml-answer-dotnet', 'xml-answer-datacontract', 'xml-answer-cdata', 'xml-answer-doctype'],
    reason: 'XmlSerializer, DataContractSerializer, a CDATA-writing serializer and one writing a DOCTYPE each write the answer their own way',
  },
  {
    point: 'the parser of integers written as text',
    choices: ['query-integer-dotnet', 'integer-python-int', 'integer-java-parseint'],
    reason: ".NET's int.Parse, Python's int() and Java's Integer.parseInt each take their own spellings of a number: one parser each",
  },
  {
    point: 'the order in which a merge validates and looks up each item',
    choices: ['merge-items-in-order', 'merge-items-looked-up-first', 'merge-items-lookup-400'],
    reason: 'each item is validated then looked up, looked up then validated (404 when not found), or only looked up (400 when not found): an unknown, broken item is 400 or 404',
  },
  {
    point: 'an item of the merge body the server does not have',
    choices: ['merge-items-lookup-400', 'merge-unknown-works-404', 'merge-partial-404'],
    reason: 'an unknown ISWC or agency work is refused 400 before anything is merged, or 404 (with what was found merged, for merge-partial-404): one status each',
  },
  {
    point: 'a body sent without Content-Type',
    choices: ['no-content-type-json', 'no-content-type-refused'],
    reason: 'the body is read as JSON, or taken for application/octet-stream and refused: one answer each',
  },
  {
    point: 'what a demerge removes besides the named work',
    choices: ['demerge-merge-set', 'demerge-merged-iswc'],
    reason: 'the set of metadata the merge request carried, or every work of the merged ISWC the named work belongs to: two different sets',
  },
];

/**
 * What the target profile of a server making a choice says: the points the document leaves to the target
 * that a client must know to send a request that succeeds (4.3 reasonCode values; 2.3 how XML arrays are
 * read; 3 how many runs may be open; 2.1 who names a run).
 */
export const CHOICE_PROFILE_SETTINGS: Partial<Record<ChoiceId, Partial<ProfileSettings>>> = {
  'reason-code-list': { reasonCode: '01' },
  'xml-wrapped-arrays': { xmlArrays: 'wrapped' },
  'run-id-client-chosen': { runIds: 'client' },
  'one-open-run': { openRuns: 'one' },
};

/**
 * A fault the harness cannot, by right, tell apart behind some choices. `unreachable`: with these choices
 * the server answers every request the fault would change before the fault's code is reached, so a real
 * server making them could not show it. `indistinguishable`: behind these choices the fault's answer is
 * itself a legitimate one (another choice's).
 */
export interface FaultExclusion {
  fault: FaultId;
  /** The choices that hide the fault, all together. */
  behind: readonly ChoiceId[];
  kind: 'unreachable' | 'indistinguishable';
  reason: string;
}

/** The same exclusion behind each of several choices (any one of them hides the fault). */
const behindEach = (fault: FaultId, choices: readonly ChoiceId[], kind: FaultExclusion['kind'], reason: string): FaultExclusion[] => choices.map((c) => ({ fault, behind: [c], kind, reason }));

const KEY_OWN_AGENCY: readonly ChoiceId[] = ['foreign-agency-refused', 'foreign-agency-403'];

export const FAULT_EXCLUSIONS: readonly FaultExclusion[] = [
  {
    fault: 'int32-off-by-one',
    behind: ['counter-plausibility-cap'],
    kind: 'indistinguishable',
    reason: 'the 2,147,483,648 records the fault lets through in a counter are refused by the cap anyway (400), as a conformant server refuses them; on a delete that sourceDb names no submission, and a 404 for it is as right as a 400 (choice query-limits-not-found)',
  },
  { fault: 'run-id-pascal-case', behind: ['answer-xml-always'], kind: 'unreachable', reason: 'the run notification never answers JSON, where the fault names the field RunId' },
  { fault: 'xml-wrong-root-response', behind: ['answer-json-always'], kind: 'unreachable', reason: 'the run notification never answers XML, where the fault names the wrong root' },
  {
    fault: 'merge-iswc-pattern-loose',
    behind: ['check-digit-all'],
    kind: 'unreachable',
    reason: 'the check digit of every ISWC of the body is checked (a business rule of the choice), and no item off the pattern has one: the item the fault leaves unchecked is refused (400) all the same',
  },
  {
    fault: 'int32-min-loose',
    behind: ['business-odd-values'],
    kind: 'unreachable',
    reason: 'negative counters are refused (400) as a business rule, and every value below the int32 minimum is negative; sourceDb below it names no submission (404), which the document lets answer data that does not exist',
  },
  {
    fault: 'array-tail-unchecked',
    behind: ['check-digit-all'],
    kind: 'unreachable',
    reason: 'the check digit of every ISWC of the body is checked, and no item off the pattern has one: the items after the third that the fault leaves unchecked are refused (400) all the same',
  },
  ...behindEach('run-string-counters-unranged', ['newtonsoft-json', 'integer-python-int'], 'unreachable', 'a counter written as a string of digits is bound as a number, its int32 range checked, before the fault\'s late converter could see a string'),
  ...behindEach('run-string-counters-unranged', ['run-start-counters-zero', 'counter-plausibility-cap', 'run-counters-successful-sum', 'run-counters-sent-by-kind'], 'indistinguishable', 'the count the fault converts (2,147,483,648 updated records in a run that starts) is refused by the choice\'s own rule (a start counts nothing, a plausible count, counters that add up) whatever it reads as'),
  ...behindEach('xml-answer-utf16-declared', ['xml-answer-utf16', 'answer-json-always'], 'unreachable', 'no XML answer is written as UTF-8 (the choice answers UTF-16 with its byte order mark and charset, or answers JSON only), so no declaration can misname its bytes'),
  { fault: 'duplicate-items-500', behind: ['merge-duplicates-400'], kind: 'unreachable', reason: 'a merge repeating an ISWC is refused (400) as a business rule before the fault could crash on it' },
  // Items of the merge body that break their limits, behind a server that looks items up: not found.
  ...(['merge-items-in-order', 'merge-items-looked-up-first', 'merge-unknown-works-404', 'merge-items-lookup-400'] as const).flatMap((choice) =>
    (['merge-agency-code-loose', 'merge-work-code-loose'] as const).map(
      (fault): FaultExclusion => ({
        fault,
        behind: [choice],
        kind: 'indistinguishable',
        reason: 'agency works are looked up: one past its limits (that the fault lets through) is then not found (404), the answer of a server that looks items up before it checks them (merge-items-looked-up-first); no existing work is past its limits',
      }),
    ),
  ),
  ...(['run-agency-code-loose', 'merge-agency-code-loose'] as const).map(
    (fault): FaultExclusion => ({
      fault,
      behind: ['agency-code-digits'],
      kind: 'unreachable',
      reason: 'agency codes must be three ASCII digits (a business rule of the choice): a code of any other length breaks it and is refused (400) whether its length is checked or not',
    }),
  ),
  ...behindEach('merge-agency-code-loose', ['merge-own-works-only', 'foreign-agency-first'], 'indistinguishable', 'an agency work whose agencyCode has another length is another agency\'s, which the merge refuses (403) before or instead of its length: as right an answer as 400 (which of two refusals comes first is not shown)'),
  { fault: 'oversized-body-500', behind: ['large-bodies-accepted'], kind: 'unreachable', reason: 'bodies are read up to 30,000,000 bytes: the harness sends none that large (its oversized body is 2 MiB), so the cap the fault mishandles is never reached' },
  {
    fault: 'demerge-404-as-410',
    behind: ['demerge-by-work-400', 'demerge-unmerged-400'],
    kind: 'unreachable',
    reason: 'the work is looked up first and a work merged into another preferred ISWC or into none is 400: no demerge reaches the 404 the fault turns into 410',
  },
  {
    fault: 'after-merge-demerge-any',
    behind: ['demerge-by-work-400', 'demerge-unmerged-400'],
    kind: 'unreachable',
    reason: 'the work is looked up first, and a work merged into another preferred ISWC or into none is refused (400): only metadata merged into the ISWC named reaches the fault, and a demerge rightly removes it',
  },
  {
    fault: 'demerge-ignores-preferred',
    behind: ['demerge-by-work-400'],
    kind: 'unreachable',
    reason: 'a demerge naming another preferred ISWC than the one the work is merged into is refused (400) before the fault looks the work up without it',
  },
  ...behindEach('delete-ignores-agency', KEY_OWN_AGENCY, 'unreachable', 'the key acts for its own agency only: a delete naming another agency is refused before the submission is looked up, and every submission it can delete is its own agency\'s'),
  ...behindEach('demerge-ignores-agency', KEY_OWN_AGENCY, 'unreachable', 'the key acts for its own agency only: a demerge naming another agency is refused before the work is looked up, and every work it can demerge is its own agency\'s'),
  // Found by the sweep (seed 1127): faults only a request naming a preferred ISWC that does not exist can show,
  // behind a server that answers every such request 404 before it reads anything else.
  ...(['delete-unknown-preferred-by-work', 'merge-works-only-unknown-preferred', 'merge-several-unknown-preferred-400', 'merge-empty-unknown-preferred-204'] as const).map(
    (fault): FaultExclusion => ({
      fault,
      behind: ['preferred-looked-up-first'],
      kind: 'unreachable',
      reason: 'the preferred ISWC is looked up before anything else of the request is read, and one that does not exist is 404: the request naming an unknown preferred ISWC that the fault would answer otherwise never reaches it',
    }),
  ),
  {
    fault: 'merge-empty-unknown-preferred-204',
    behind: ['empty-merge-400'],
    kind: 'unreachable',
    reason: 'a merge naming neither ISWCs nor agency works is refused (400) before its preferred ISWC is looked up: the empty merge the fault answers 204 never reaches it',
  },
  {
    fault: 'merge-json-list-absent-noop',
    behind: ['merge-json-lists-required'],
    kind: 'unreachable',
    reason: 'a JSON merge body without one of its lists is refused (400) before anything is merged: the body the fault merges nothing of never reaches it',
  },
  ...(['unknown-run-200-empty', 'unknown-run-400-text'] as const).map(
    (fault): FaultExclusion => ({
      fault,
      behind: ['run-id-client-chosen'],
      kind: 'unreachable',
      reason: 'the client names its runs: a notification carrying a runId the server does not know starts that run, so no request is answered as carrying a runId never issued',
    }),
  ),
  // length-in-bytes lets a short agency code through where it has a letter outside ASCII ("1é"): on the run
  // notification and on a merge's agency work. Behind a server that refuses the run's code of another agency
  // and does not take the merge's unknown or foreign agency work, both answers are a right refusal.
  { fault: 'length-in-bytes', behind: ['agency-code-digits'], kind: 'unreachable', reason: 'agency codes must be three ASCII digits (a business rule of the choice): a code with a letter outside ASCII breaks it and is refused (400) however its length is counted' },
  ...(['foreign-agency-refused', 'foreign-agency-403'] as const).flatMap((run) =>
    (['merge-items-in-order', 'merge-items-looked-up-first', 'merge-unknown-works-404', 'merge-items-lookup-400', 'merge-own-works-only'] as const).map(
      (merge): FaultExclusion => ({
        fault: 'length-in-bytes',
        behind: [run, merge],
        kind: 'indistinguishable',
        reason: 'the run notification\'s short agencyCode names another agency, which the key does not act for (401 or 403), and the merge\'s agency work with it is another agency\'s or one the server does not have (403, 404 or 400): each as right an answer as 400 for its length',
      }),
    ),
  ),
  {
    fault: 'delete-source-db-zero-any',
    behind: ['key-source-db-scope'],
    kind: 'unreachable',
    reason: 'the key acts for the profile\'s source databases only: a delete naming sourceDb 0 is refused (403) before the submission is looked up',
  },
  {
    fault: 'delete-source-db-zero-any',
    behind: ['source-db-known'],
    kind: 'unreachable',
    reason: 'a source database the server does not know is a bad request, and 0 is none it knows: a delete naming sourceDb 0 is refused (400) before the submission is looked up',
  },
  {
    fault: 'delete-ignores-source-db',
    behind: ['key-source-db-scope'],
    kind: 'unreachable',
    reason: 'the key acts for the profile\'s source databases only, and every submission of the embedded profile has the agency\'s own (128): a delete naming another sourceDb is refused (403) before the submission is looked up (with a profile of two source databases, outcome.identity names the other, within the key\'s scope)',
  },
  // Found by the sweeps (a third fresh reading; seed 6262): the end of a run naming another agency is refused for
  // that agency first, whichever way the key acts for its own agency only.
  ...behindEach('run-end-other-agency-new-id', [...KEY_OWN_AGENCY, 'foreign-agency-first'], 'unreachable', 'the key acts for its own agency only, so the end of a run naming another agency is refused (401 or 403) before the run is looked up: no 200 comes to carry the new runId'),
  // Found by the sweep (seed 6262): a run ended once cannot be ended again (400), so the fault's 200 never comes.
  ...(['run-reend-new-run-id', 'run-end-other-agency-new-id'] as const).flatMap((fault) =>
    behindEach(fault, ['run-end-once'], 'unreachable', 'a run can be ended once: the part end-again sends its ends, again and naming another agency, to a run already ended, a bad request (400) answered before any runId, so no 200 comes to carry a new one'),
  ),
  // A query parameter the document does not name is a bad request (400) before the key is looked at.
  { fault: 'key-skipped-extra-param', behind: ['query-unknown-refused'], kind: 'unreachable', reason: 'a query parameter the operation does not document is refused (400) before the key is checked: the request the fault would serve without its key is refused for it, a refusal the key proof takes' },
  // Found by the sweep (seed 6262): a body without Content-Type is refused 400 before the key is looked at.
  {
    fault: 'key-skipped-without-content-type',
    behind: ['unsupported-media-400', 'no-content-type-refused'],
    kind: 'unreachable',
    reason: 'a body without Content-Type is refused (400) before the key is checked: the request the fault would serve without its key is refused for its media type, a refusal the key proof takes (400, 406 or 415)',
  },
  // Found by the sweep: a server that looks a run up by its runId and its agency answers the end naming another
  // agency as a runId never issued (404 or 400) before the fault can answer it a new runId.
  ...(['unknown-run-404', 'unknown-run-400'] as const).map(
    (unknown): FaultExclusion => ({
      fault: 'run-end-other-agency-new-id',
      behind: ['run-end-agency-checked', unknown],
      kind: 'unreachable',
      reason: 'the run is looked up by its runId and the agency it started with: the end naming another agency is answered as a runId never issued (404 or 400), and no 200 comes to carry the new runId',
    }),
  ),
  ...behindEach('length-in-bytes', ['foreign-agency-first'], 'indistinguishable', 'the short agencyCode with a letter outside ASCII that the fault lets through names another agency, which the key does not act for and which is refused (401 or 403) before its length: as right an answer as 400 (which of two refusals comes first is not shown)'),
  // Found by the sweep (issue 38's shape family): a body of one item whose item the fault drops is an empty merge,
  // which the choice refuses, as right an answer as the refusal of the item.
  ...(['shape.merge.broken.iswcs.one', 'shape.merge.unknown.iswcs.one', 'shape.merge.broken.agencyWorks.one'] as const).map(
    (fault): FaultExclusion => ({ fault, behind: ['empty-merge-400'], kind: 'indistinguishable', reason: 'the fault drops the only item of the body, and the merge left with none is refused (400): the refusal the item was owed, for another reason' }),
  ),
  // Found by the sweep: the mixed bodies name agency works the case merged just before (merge.success-then-demerge)
  // or demerged just before (merge.restored): the other items of the body must be the entry's, which a refused
  // request may have changed. Behind both choices each is refused whatever becomes of the item it cannot take.
  ...(['shape.merge.broken.iswcs+agencyWorks', 'shape.merge.unknown.iswcs+agencyWorks', 'merge-iswcs-ignored-with-works'] as const).map(
    (fault): FaultExclusion => ({
      fault,
      behind: ['merge-again-refused', 'merge-after-demerge-refused'],
      kind: 'indistinguishable',
      reason: 'an agency work already merged into the preferred ISWC, or demerged from it, cannot be merged into it again (400): every mixed body the harness sends names such a work, since its other items are the entry\'s, merged or demerged before, so that what a refused request did to them changes nothing later; the body is refused whatever the fault reads of it',
    }),
  ),
  // Found by the sweep: a list of ISWCs with one it cannot take is sent once the entry's ISWCs are merged (what a
  // refused request did to them then changes nothing later); a server refusing ISWCs that already have a parent
  // refuses what the fault leaves of the body as surely as the item.
  ...(['shape.merge.broken.iswcs.several', 'shape.merge.broken.iswcs+agencyWorks', 'shape.merge.unknown.iswcs+agencyWorks'] as const).map(
    (fault): FaultExclusion => ({
      fault,
      behind: ['merge-child-refused'],
      kind: 'indistinguishable',
      reason: 'the other ISWCs of the body are the entry\'s, merged before the item it cannot take is sent (so that what a refused request does to them changes nothing later), and an ISWC that already has a parent is refused (400): the body is refused whatever the fault drops of it',
    }),
  ),
  // Found by the sweep: a merge refused for an unknown ISWC merges what it found; the refusals sent once the works
  // are merged carry the same works, so a server that left the works' merge undone has them merged by those.
  {
    fault: 'shape.merge.outcome.agencyWorks.several',
    behind: ['merge-partial-404'],
    kind: 'indistinguishable',
    reason: 'the merges refused for an unknown ISWC that follow the merge of the entry\'s works carry those works, and the choice merges what a refused merge found: the works are merged before the demerge that shows the outcome, whatever the fault left undone',
  },
  // Found by the sweep (seed 77): past int32 on both sides, each refused for another reason.
  {
    fault: 'run-int32-loose',
    behind: ['business-odd-values', 'counter-plausibility-cap'],
    kind: 'indistinguishable',
    reason: 'a counter past int32 is either above it, which the plausibility cap refuses (400), or below it, a negative count, which the business rules refuse (400): every value the fault lets through is refused for another reason, as right an answer as the refusal of the type',
  },
  ...behindEach('run-agency-code-loose', [...KEY_OWN_AGENCY, 'foreign-agency-first'], 'indistinguishable', 'an agencyCode of another length names another agency, which the key does not act for: 401 or 403 is as right an answer as 400 (which of two refusals comes first is not shown)'),
  // Found by the sweep (seed 9191): behind new + updated = sent, every run with a rejection is refused for its sum.
  ...(['overallRejected', 'businessRejectionCount', 'technicalRejectionCount'] as const).flatMap((field) =>
    (['strip-separators', 'trailing-garbage', 'fraction', 'wraparound'] as const).map(
      (reading): FaultExclusion => ({
        fault: `lenient.run.${field}.${reading}`,
        behind: ['run-counters-sent-by-kind'],
        kind: 'indistinguishable',
        reason: `a neighbour of ${field} is sent in a run with rejections, which the choice refuses (400) whatever the value reads as (overallSent is not newRecordCount + updateRecordCount): the refusal the fault withholds comes for the sum`,
      }),
    ),
  ),
];

/**
 * A fault no request of the harness can show, whatever choices surround it, and why: the self-check runs it
 * and pins it caught by nothing (a check that starts catching it shows in the pinned file's diff), and the
 * sweep deals it to no combination.
 */
export interface BlindFault {
  fault: FaultId;
  reason: string;
}

export const BLIND_FAULTS: readonly BlindFault[] = [
  {
    fault: 'int32-tight',
    reason: 'refusing the 32-bit bounds themselves is what a plausibility cap on counts does (choice counter-plausibility-cap) and a server that knows no source database that large: the document states a type and a range (2.1, 8), not that every value in it is taken, so the bounds are recorded, never demanded (issue 28)',
  },
  {
    fault: 'merge-iswcs-not-merged',
    reason: 'no request the document describes shows that an ISWC was merged: a demerge names an agency and a work code, never an ISWC (4.4), and whether the works of a merged ISWC can then be demerged one by one from the preferred ISWC is a reading (production: yes, the named work leads to its ISWC; a server keeping ISWC links apart from work links: no); merging the ISWC again, deleting its submission, or merging into it are each refused by some servers and taken by others (docs/readings.md, "A merge of ISWCs")',
  },
];

const CHOICE_IDS: ReadonlySet<string> = new Set(CHOICES.map((c) => c.id));
const FAULT_IDS: ReadonlySet<string> = new Set(FAULTS.map((f) => f.id));
for (const g of EXCLUSIVE_GROUPS) for (const id of g.choices) if (!CHOICE_IDS.has(id)) throw new Error(`server/choice-space.ts: unknown choice ${id} in the group "${g.point}"`);
for (const b of BLIND_FAULTS) if (!FAULT_IDS.has(b.fault)) throw new Error(`server/choice-space.ts: unknown blind fault ${b.fault}`);
for (const e of FAULT_EXCLUSIONS) {
  if (!FAULT_IDS.has(e.fault)) throw new Error(`server/choice-space.ts: unknown fault ${e.fault}`);
  for (const id of e.behind) if (!CHOICE_IDS.has(id)) throw new Error(`server/choice-space.ts: unknown choice ${id} behind the fault ${e.fault}`);
}

/** The group two distinct choices both belong to (they contradict each other), if any. */
export function conflictOf(a: ChoiceId, b: ChoiceId): ExclusiveGroup | undefined {
  if (a === b) return undefined;
  return EXCLUSIVE_GROUPS.find((g) => g.choices.includes(a) && g.choices.includes(b));
}

/** Every pair of choices of a combination that contradict each other, with the group that says why. */
export function conflictsIn(ids: readonly ChoiceId[]): Array<{ a: ChoiceId; b: ChoiceId; group: ExclusiveGroup }> {
  const out: Array<{ a: ChoiceId; b: ChoiceId; group: ExclusiveGroup }> = [];
  for (const [i, a] of ids.entries()) {
    for (const b of ids.slice(i + 1)) {
      const group = conflictOf(a, b);
      if (group) out.push({ a, b, group });
    }
  }
  return out;
}

/**
 * The choices kept in the order given, each one dropped when it contradicts one kept before it: how a
 * random pick of choices becomes a server that could exist.
 */
export function compatiblePrefix(ids: readonly ChoiceId[]): ChoiceId[] {
  const kept: ChoiceId[] = [];
  for (const id of ids) if (!kept.includes(id) && kept.every((k) => conflictOf(k, id) === undefined)) kept.push(id);
  return kept;
}

/** The profile settings a combination of choices needs; throws when two choices need different values. */
export function profileSettingsOf(ids: readonly ChoiceId[]): Partial<ProfileSettings> {
  const out: Record<string, unknown> = {};
  const by: Record<string, ChoiceId> = {};
  for (const id of ids) {
    for (const [key, value] of Object.entries(CHOICE_PROFILE_SETTINGS[id] ?? {})) {
      if (key in out && out[key] !== value) throw new Error(`Choices ${by[key]} and ${id} need different profile values of ${key}`);
      out[key] = value;
      by[key] = id;
    }
  }
  return out;
}

/** The profile a harness run against a server making these choices uses. */
export function profileForChoices<P extends TargetProfile>(profile: P, ids: readonly ChoiceId[]): P {
  const settings = profileSettingsOf(ids);
  return Object.keys(settings).length > 0 ? { ...profile, ...settings } : profile;
}

/** The exclusions that apply to a fault behind a combination (all the choices each names are in it). */
export function exclusionsOf(fault: string, ids: readonly ChoiceId[]): FaultExclusion[] {
  return FAULT_EXCLUSIONS.filter((e) => e.fault === fault && e.behind.every((c) => ids.includes(c)));
}

/**
 * The choices of a combination a fault is tried behind: while a declared exclusion applies, the last
 * choice it names is left out (so the fault is still tried behind as many of the combination's choices as
 * can surround it).
 */
export function choicesAroundFault(fault: string, ids: readonly ChoiceId[]): { kept: ChoiceId[]; dropped: Array<{ choice: ChoiceId; exclusion: FaultExclusion }> } {
  let kept = [...ids];
  const dropped: Array<{ choice: ChoiceId; exclusion: FaultExclusion }> = [];
  for (let exclusion = exclusionsOf(fault, kept)[0]; exclusion; exclusion = exclusionsOf(fault, kept)[0]) {
    const choice = exclusion.behind[exclusion.behind.length - 1];
    kept = kept.filter((id) => id !== choice);
    dropped.push({ choice, exclusion });
  }
  return { kept, dropped };
}

/** The space as Markdown (docs/reference-server.md): the exclusive groups, the profile settings, the declared exclusions. */
export function choiceSpaceTables(): string {
  const cell = (text: string): string => text.replace(/\|/g, '\\|');
  const ids = (list: readonly string[]): string => list.map((id) => `\`${id}\``).join(', ');
  return [
    'Choices a server makes at most one of:',
    '',
    '| point | choices | why no server makes two |',
    '|---|---|---|',
    ...EXCLUSIVE_GROUPS.map((g) => `| ${cell(g.point)} | ${ids(g.choices)} | ${cell(g.reason)} |`),
    '',
    'What the target profile says of a server making a choice:',
    '',
    '| choice | profile |',
    '|---|---|',
    ...Object.entries(CHOICE_PROFILE_SETTINGS).map(([id, settings]) => `| \`${id}\` | ${Object.entries(settings ?? {}).map(([k, v]) => `\`${k}: ${JSON.stringify(v)}\``).join(', ')} |`),
    '',
    'Faults a combination of choices hides by right (the sweep tries each such fault without the last choice named):',
    '',
    '| fault | behind | kind | why |',
    '|---|---|---|---|',
    ...FAULT_EXCLUSIONS.map((e) => `| \`${e.fault}\` | ${e.behind.map((id) => `\`${id}\``).join(' + ')} | ${e.kind} | ${cell(e.reason)} |`),
    '',
    'Faults no request can show, whatever the choices (the self-check pins them caught by nothing; the sweep deals them nowhere):',
    '',
    '| fault | why |',
    '|---|---|',
    ...BLIND_FAULTS.map((b) => `| \`${b.fault}\` | ${cell(b.reason)} |`),
  ].join('\n');
}

/** Is this fault declared blind (BLIND_FAULTS)? */
export function isBlind(fault: string): boolean {
  return BLIND_FAULTS.some((b) => b.fault === fault);
}
