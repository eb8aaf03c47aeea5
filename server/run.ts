import type { IncomingMessage } from 'node:http';
import { randomUUID } from 'node:crypto';
import { encodeJson, encodeXml } from '../lib/contract/codec/index.ts';
import type { Format } from '../lib/contract/codec/index.ts';
import type { Operation } from '../lib/contract/operations.ts';
import { resourceSchema } from '../lib/contract/constraints.ts';
import type { ResourceName } from '../lib/contract/json-schema.ts';
import { deref } from '../lib/contract/openapi.ts';
import type { Context } from './context.ts';
import type { Reply } from './wire.ts';
import { header, negotiate, text } from './wire.ts';
import { decodeRequestBody } from './body.ts';
import { errorReply } from './errors.ts';
import { mediaFailure } from './media.ts';
import { refuseForeignAgency } from './auth.ts';
import { oddValue } from './readings.ts';
import { escapeXml } from '../lib/contract/codec/xml.ts';

/** Choice `counter-plausibility-cap`: the most records one counter of a run may claim. */
const PLAUSIBLE_COUNT = 100_000_000;

const XML_CHARS = /^[\t\n\r\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]*$/u;

/** The fields of an agent run the server acts on (2.1); the others are stored as received. */
interface AgentRunBody {
  runId?: string;
  [field: string]: unknown;
}

/**
 * Fault `run-string-counters-unranged`: the integer fields of a body written as strings of digits, as the
 * validation sees them (0) and as a converter without a range check reads them after it.
 */
function lateIntegers(resource: ResourceName, value: unknown): { validated: Record<string, unknown>; converted: Record<string, number> } | undefined {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return undefined;
  const properties = resourceSchema(resource).properties ?? {};
  const converted: Record<string, number> = {};
  const validated: Record<string, unknown> = { ...(value as Record<string, unknown>) };
  for (const [field, raw] of Object.entries(validated)) {
    const schema = properties[field];
    const type = schema !== undefined ? deref(schema).type : undefined;
    if (type === 'integer' && typeof raw === 'string' && /^[0-9]+$/.test(raw)) {
      converted[field] = Number(raw);
      validated[field] = 0;
    }
  }
  return { validated, converted };
}

/** Does an agent run body end a run (it carries a runId, as text)? */
function endsARun(value: unknown): boolean {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return false;
  const runId = (value as { runId?: unknown }).runId;
  return typeof runId === 'string' && runId !== '';
}

/** Which representation answers: the request's format and Accept by reference, or the server's choice (4.1: not shown). */
function answerFormat(ctx: Context, req: IncomingMessage, requestFormat: Format): Format {
  const c = ctx.choices;
  if (c.has('answer-xml-always')) return 'xml';
  if (c.has('answer-json-always')) return 'json';
  if (c.has('answer-json-unless-accept-xml')) return negotiate(header(req, 'accept'), 'json');
  return negotiate(header(req, 'accept'), requestFormat);
}

/**
 * 4.1 Run notification. A valid AgentRun without `runId` (or with an empty one) starts a run and gets a
 * new GUID; one with a `runId` ends that run and is answered with the same runId, known or not by the
 * reference choices (the document lists no 404 here; choices answer 404 or 400 for a runId never
 * issued). 400 and 401 carry the document's texts.
 */
export async function handleRun(ctx: Context, req: IncomingMessage, op: Operation): Promise<Reply | null> {
  const f = ctx.faults;
  const c = ctx.choices;
  const spec = op.body;
  const documentedBad = op.texts[400];
  const responseResource = op.responseResource[op.successStatus];
  if (!spec || documentedBad === undefined || !responseResource) throw new Error(`${op.id}: the contract lacks its body, 400 text or 200 resource`);

  const badRequest = (message = 'the body is not a valid agent run'): Reply =>
    // Fault `accept-xml-400-text` (with Accept: application/xml): ASP.NET Core's XML validation problem details come instead.
    f.has('accept-xml-400-text') && /application\/xml/i.test(header(req, 'accept') ?? '')
      ? { status: 400, body: { kind: 'xml', text: '<?xml version="1.0" encoding="utf-8"?><problem xmlns="urn:ietf:rfc:7807"><title>One or more validation errors occurred.</title><status>400</status></problem>' } }
      : // Review fault `accept-json-400-text` (with Accept: application/json) and fault `run-400-validation-problem`
    // (always): ASP.NET Core's validation problem+json comes instead.
    f.has('run-400-validation-problem') || (f.has('accept-json-400-text') && /application\/json/i.test(header(req, 'accept') ?? ''))
      ? { status: 400, body: { kind: 'problem', text: JSON.stringify({ type: 'https://tools.ietf.org/html/rfc9110#section-15.5.1', title: 'One or more validation errors occurred.', status: 400, errors: { '': [message] } }) } }
      : errorReply(ctx, 400, { code: 'BAD_BODY', message, where: 'handleRun', stated: documentedBad });

  const body = await decodeRequestBody(ctx, req, spec);
  // Fault `run-unread-400-text`: what the server does not read gets a 400 in words of its own.
  if (!body.ok && f.has('run-unread-400-text') && body.kind === 'unsupported-media') return text(400, 'Unsupported media type');
  if (!body.ok && f.has('run-unread-400-text') && body.kind === 'too-large') return { ...text(400, 'Request body too large'), close: true };
  // Fault `run-empty-body-400-no-text`: an empty body is refused by the framework before the handler, with no content.
  if (!body.ok && f.has('run-empty-body-400-no-text') && body.error === 'empty body') return { status: 400 };
  if (!body.ok) return mediaFailure(ctx, body, () => badRequest(body.error));

  const decoded = f.has('fraction-truncated') ? ctx.limits.truncateFractions(op.id, body.value) : body.value;
  // Fault `run-string-counters-unranged`: integers written as JSON strings of digits are converted after the
  // validation (which sees 0), by a converter with no range check: "2147483648" is taken.
  const late = f.has('run-string-counters-unranged') && body.format === 'json' ? lateIntegers(spec.resource, decoded) : undefined;
  const value = late?.validated ?? decoded;
  if (c.has('foreign-agency-first') && value !== null && typeof value === 'object' && !Array.isArray(value)) {
    const code = (value as { agencyCode?: unknown }).agencyCode;
    if (code !== undefined && code !== ctx.keyAgency) return text(401, op.texts[401] ?? 'Not Authorized');
  }
  if (c.has('extra-fields-refused') && value !== null && typeof value === 'object' && !Array.isArray(value)) {
    const known = new Set(Object.keys(resourceSchema(spec.resource).properties ?? {}));
    if (Object.keys(value).some((k) => !known.has(k))) return badRequest('a field the document does not name');
  }
  // Fault `run-end-unvalidated`: a body that ends a run is taken as it comes.
  const unvalidated = f.has('run-end-unvalidated') && endsARun(value);
  const violations = unvalidated ? [] : ctx.limits.checkBody(op.id, spec.resource, value);
  if (violations.length > 0) return badRequest(`${violations[0]?.field} ${violations[0]?.message}`);
  const odd = c.has('business-odd-values') ? oddValue(value) : undefined;
  if (odd) return badRequest(odd);
  const agentVersion = (value as { agentVersion?: unknown }).agentVersion;
  if (c.has('agent-version-limit') && typeof agentVersion === 'string' && agentVersion.length > 20) return badRequest('agentVersion is longer than its column (20)');
  // Choice `agent-version-typed`: System.Version.Parse takes two to four integers separated by dots.
  if (c.has('agent-version-typed') && typeof agentVersion === 'string' && !/^\s*[0-9]+(\.[0-9]+){1,3}\s*$/.test(agentVersion)) return badRequest('agentVersion is not a version number');
  // Choice `counter-plausibility-cap`: no run counts more than this many records in one counter.
  if (c.has('counter-plausibility-cap') && Object.values(value as Record<string, unknown>).some((v) => typeof v === 'number' && v > PLAUSIBLE_COUNT)) return badRequest(`a counter claims more than ${PLAUSIBLE_COUNT} records`);
  const foreign = refuseForeignAgency(ctx, op, (value as { agencyCode?: unknown }).agencyCode ?? ctx.keyAgency);
  if (foreign) return foreign;

  const run = { ...(value as AgentRunBody), ...late?.converted };
  if (c.has('run-counters-consistent')) {
    const n = (k: string): number | undefined => { const v = run[k]; return typeof v === 'number' ? v : undefined; };
    const [rej, bus, tech, sent, ok] = ['overallRejected', 'businessRejectionCount', 'technicalRejectionCount', 'overallSent', 'successfulCount'].map(n);
    if (rej !== undefined && bus !== undefined && tech !== undefined && rej !== bus + tech) return badRequest('overallRejected is not businessRejectionCount + technicalRejectionCount');
    if (sent !== undefined && ok !== undefined && rej !== undefined && sent !== ok + rej) return badRequest('overallSent is not successfulCount + overallRejected');
  }
  // Choice `run-counters-successful-sum`: the records that succeeded are the new ones and the updated ones.
  if (c.has('run-counters-successful-sum')) {
    const [ok, created, updated] = ['successfulCount', 'newRecordCount', 'updateRecordCount'].map((k) => run[k]);
    if (typeof ok === 'number' && typeof created === 'number' && typeof updated === 'number' && ok !== created + updated) return badRequest('successfulCount is not newRecordCount + updateRecordCount');
  }
  // Choice `run-counters-sent-by-kind`: new and updated are the kinds of the records sent, rejected ones among them.
  if (c.has('run-counters-sent-by-kind')) {
    const [sent, created, updated] = ['overallSent', 'newRecordCount', 'updateRecordCount'].map((k) => run[k]);
    if (typeof sent === 'number' && typeof created === 'number' && typeof updated === 'number' && sent !== created + updated) return badRequest('overallSent is not newRecordCount + updateRecordCount');
  }
  if (c.has('run-start-counters-zero') && (run.runId === undefined || run.runId === '')) {
    const counted = Object.entries(run).some(([k, v]) => typeof v === 'number' && v !== 0 && k !== 'agentVersion');
    if (counted) return badRequest('a run that starts has no counts yet');
  }
  let runId: string;
  const agency = typeof run.agencyCode === 'string' ? run.agencyCode : ctx.keyAgency;
  // Choice `one-open-run`: a start while another run of the agency is open is refused.
  const anotherOpen = (): boolean => c.has('one-open-run') && ctx.state.hasOpenRun(agency);
  if (c.has('run-id-client-chosen') && (typeof run.runId !== 'string' || run.runId === '')) return badRequest('runId is required');
  if (c.has('run-id-client-chosen') && !ctx.state.run(run.runId as string)) {
    // Choice `run-id-client-chosen`: the client names its run; an unknown runId starts it, a known one ends it.
    if (anotherOpen()) return badRequest('another run of this agency is open');
    runId = ctx.state.startRun(run, run.runId, agency);
  } else if (run.runId === undefined || (run.runId === '' && !c.has('run-id-empty-echo'))) {
    if (anotherOpen()) return badRequest('another run of this agency is open');
    // Choice `run-id-braced-upper`: .NET Guid.ToString("B").ToUpperInvariant(). Fault `run-ids-per-format`: each
    // body format numbers its runs in a sequence of its own, so the first JSON start and the first XML start are both RUN-1.
    const numbered = f.has('run-ids-per-format') ? `RUN-${ctx.state.nextInSequence(`runs/${body.format}`)}` : undefined;
    runId = ctx.state.startRun(run, numbered ?? (c.has('run-id-braced-upper') ? `{${randomUUID().toUpperCase()}}` : undefined), agency);
  } else {
    runId = run.runId;
    if (f.has('run-end-refused') && ctx.state.run(runId)?.started) return badRequest('this run cannot be ended');
    // Choice `run-end-agency-checked`: the run is looked up by its runId and the agency it started with.
    const startedBy = ctx.state.run(runId)?.started?.agencyCode;
    const otherAgency = c.has('run-end-agency-checked') && startedBy !== undefined && run.agencyCode !== startedBy;
    if (!ctx.state.run(runId) || otherAgency) {
      // Faults on what a runId never issued gets: a 200 without its body, a 400 without its stated text.
      if (f.has('unknown-run-200-empty')) return { status: op.successStatus };
      if (f.has('unknown-run-400-text')) return text(400, 'Run not found');
      if (c.has('unknown-run-404')) return errorReply(ctx, 404, { code: 'NOT_FOUND', message: 'Agent Run not found', where: 'handleRun' });
      if (c.has('unknown-run-400')) return badRequest('Agent Run not found');
    }
    if (c.has('run-end-once') && ctx.state.run(runId)?.ended) return badRequest('this run has already ended');
    // Faults `run-reend-new-run-id` and `run-end-other-agency-new-id`: a run ended again, or ended naming another
    // agency than its start, is answered as a run of its own (a new runId), naming another run.
    const againOrElsewhere = (f.has('run-reend-new-run-id') && ctx.state.run(runId)?.ended !== undefined) || (f.has('run-end-other-agency-new-id') && startedBy !== undefined && run.agencyCode !== startedBy);
    ctx.state.endRun(runId, run);
    if (againOrElsewhere) runId = randomUUID();
  }

  // Fault `run-end-empty-run-id`: the end of a run is answered an empty runId, which names no run.
  if (f.has('run-end-empty-run-id') && typeof run.runId === 'string' && run.runId !== '') runId = '';
  // Fault `run-end-new-run-id`: the end of a run is answered a runId of its own, naming another run.
  if (f.has('run-end-new-run-id') && typeof run.runId === 'string' && run.runId !== '' && ctx.state.run(run.runId)?.started) runId = randomUUID();
  const status = op.successStatus;
  const format = answerFormat(ctx, req, body.format);
  if (f.has('run-response-no-run-id')) {
    return format === 'json' ? { status, body: { kind: 'json', text: '{}' } } : { status, body: { kind: 'xml', text: encodeXml(responseResource, {}) } };
  }
  const extra = c.has('run-answer-extra-fields') ? { agencyCode: typeof run.agencyCode === 'string' ? run.agencyCode : ctx.keyAgency, status: run.runId ? 'Ended' : 'Started', timestamp: new Date().toISOString() } : {};
  if (format === 'json') {
    const answer = f.has('run-response-schema') ? { runId: ctx.state.runNumber(runId) } : f.has('run-id-pascal-case') ? { RunId: runId } : { runId, ...extra };
    return { status, body: { kind: 'json', text: encodeJson(answer) } };
  }
  // XML 1.0 cannot carry some characters (most C0 controls, lone surrogates) even escaped: a runId that
  // holds one has no XML answer, and the server refuses the request rather than write malformed XML.
  if (!XML_CHARS.test(runId)) return errorReply(ctx, 400, { code: 'BAD_BODY', message: 'runId holds a character XML cannot carry', stated: 'Bad Request', where: 'handleRun' });
  const root = f.has('xml-wrong-root-response') ? spec.resource : responseResource;
  // Fault `run-response-schema`: the broken answer, whatever serializer the server's choices name.
  if (f.has('run-response-schema')) return { status, body: { kind: 'xml', text: encodeXml(root, { runId: [runId, runId] }) } };
  if (c.has('xml-answer-cdata') && !runId.includes(']]>')) {
    return { status, body: { kind: 'xml', text: `<?xml version='1.0' encoding='UTF-8' standalone='yes'?>\n<${root}><runId><![CDATA[${runId}]]></runId></${root}>` } };
  }
  if (c.has('run-answer-extra-fields')) {
    return { status, body: { kind: 'xml', text: encodeXml(root, { runId, ...extra }) } };
  }
  if (c.has('xml-answer-dotnet')) {
    return { status, body: { kind: 'xml', text: `\uFEFF<?xml version="1.0" encoding="utf-8"?>\r\n<${root} xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xmlns:xsd="http://www.w3.org/2001/XMLSchema">\r\n  <runId>${escapeXml(runId)}</runId>\r\n</${root}>` } };
  }
  if (c.has('xml-answer-datacontract')) {
    return { status, body: { kind: 'xml', text: `<${root} xmlns="http://schemas.datacontract.org/2004/07/Iswc.Api.Models" xmlns:i="http://www.w3.org/2001/XMLSchema-instance"><runId>${escapeXml(runId)}</runId></${root}>` } };
  }
  // Choice `xml-answer-doctype`: a document type declaration naming the root, declaring nothing.
  if (c.has('xml-answer-doctype')) return { status, body: { kind: 'xml', text: encodeXml(root, { runId }).replace('?>', `?>\n<!DOCTYPE ${root}>\n`) } };
  return { status, body: { kind: 'xml', text: encodeXml(root, { runId }) } };
}
