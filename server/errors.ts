import { randomBytes } from 'node:crypto';
import { escapeXml } from '../lib/contract/codec/xml.ts';
import type { Context } from './context.ts';
import type { Reply } from './wire.ts';
import { json, text, xml } from './wire.ts';
import { PRODUCTION_MESSAGES } from './production.ts';

/**
 * Error answers. The document states a text for two of them (400 "Bad Request" and 401 "Not Authorized"
 * of the run notification) and leaves every other error body open (section 7), so the shape is a choice
 * (server/choices.ts):
 * - reference: the stated text as text/plain; other 400s a JSON `{code, message}` like production's
 *   business errors, 404s a short text;
 * - `error-text-bodies`: 400s the text "Bad Request", 404s a JSON `{message}`;
 * - `problem-json`: application/problem+json whose `title` is the status's reason phrase, as ASP.NET Core
 *   writes it (so a stated text "Bad Request" is the title);
 * - `xml-error-bodies`: `<Error><Title>…</Title><Message>…</Message></Error>`.
 */

/** Stable codes of the reference server's business errors. */
export type ErrorCode = 'BAD_BODY' | 'MISSING_PARAMETER' | 'BAD_PARAMETER' | 'REPEATED_PARAMETER' | 'NOT_FOUND' | 'FORBIDDEN' | 'BAD_REQUEST';

const TITLE: Record<number, string> = { 400: 'Bad Request', 401: 'Unauthorized', 403: 'Forbidden', 404: 'Not Found', 410: 'Gone', 415: 'Unsupported Media Type', 422: 'Unprocessable Entity' };

export interface ErrorSpec {
  code: ErrorCode;
  /** What went wrong, in one line. */
  message: string;
  /** The handler, for the stack trace of the fault `stack-trace-in-error`. */
  where: string;
  /** The text the document states for this status of this operation, when it states one. */
  stated?: string;
  /** The query parameter at fault, when one is (for the business code of choice `business-codes`). */
  param?: string;
  /** The business code production gives this refusal, when the handler knows it better than businessCode() does. */
  business?: string;
}

/** Production's business codes by query parameter (choice `business-codes`; docs/production.md "Order of refusals"). */
const PARAM_CODES: Record<string, string> = { agency: '103', preferredIswc: '113', workcode: '136', sourceDb: '138', reasonCode: '133' };

/**
 * The business code of a refusal, as production numbers its rejections (choice `business-codes`), each
 * from the rule that gives it (docs/reference-server.md, "Production as built, behaviour by behaviour").
 */
export function businessCode(spec: ErrorSpec): string {
  if (spec.business !== undefined) return spec.business;
  if (spec.code === 'NOT_FOUND') return spec.where === 'handleDelete' ? '130' : spec.where === 'handleDemerge' ? '172' : '132';
  // The demerge has no rule on its agency or work code (IV_08 and IV_11 are not run for it): an agency it
  // cannot find holds nothing (PV_10, 150), a work code it cannot find was never merged (PV_12, 172).
  if (spec.where === 'handleDemerge' && spec.param === 'agency') return '150';
  if (spec.where === 'handleDemerge' && spec.param === 'workcode') return '172';
  // No preferred ISWC: the pattern rules skip a blank one (IV_14, IV_15), the lookup finds nothing (PV_09: 132 and 153, PV_22: 117).
  if (spec.param === 'preferredIswc' && / is required$/.test(spec.message)) return spec.where === 'handleMerge' ? '132' : spec.where === 'handleDemerge' ? '153' : '117';
  // A source database that is not one of the registry's submission sources (IV_08).
  if (spec.param === 'sourceDb' && /not a known source/.test(spec.message)) return '115';
  if (spec.param !== undefined) return /check digit/.test(spec.message) ? '141' : (PARAM_CODES[spec.param] ?? '100');
  // The merge's business rules (PV_09 an empty merge, PV_31 a parent or a self-reference).
  if (/neither ISWCs nor agency works/.test(spec.message)) return '132';
  if (/already has a parent/.test(spec.message)) return '157';
  if (/preferred ISWC itself/.test(spec.message)) return '156';
  return spec.where === 'handleMerge' ? '202' : '100';
}

function traceId(): string {
  return `00-${randomBytes(16).toString('hex')}-${randomBytes(8).toString('hex')}-00`;
}

export function errorReply(ctx: Context, status: number, spec: ErrorSpec): Reply {
  if (ctx.faults.has('stack-trace-in-error') && spec.stated === undefined) {
    // Fault `stack-trace-in-error`: internals leak into the answer.
    const stack = [
      `Error: ${spec.message}`,
      `    at ${spec.where} (/srv/iswc/server/${spec.where.replace(/^handle/, '').toLowerCase()}.js:42:13)`,
      '    at Layer.handle [as handle_request] (/srv/iswc/node_modules/express/lib/router/layer.js:95:5)',
      '    at process.processTicksAndRejections (node:internal/process/task_queues:95:5)',
    ].join('\n');
    return json(status, { code: spec.code, message: spec.message, stack });
  }
  if (ctx.choices.has('error-no-body') && spec.stated === undefined && spec.where !== 'handleRun') return { status };
  // Choice `business-codes`: production's rejection {code, message}, the code a string; its 404s are plain text.
  if (ctx.choices.has('business-codes') && spec.stated === undefined) {
    if (status !== 400) return text(status, spec.message);
    const code = businessCode(spec);
    return json(status, { code, message: PRODUCTION_MESSAGES[code] ?? spec.message });
  }
  const title = spec.stated ?? TITLE[status] ?? 'Error';
  const c = ctx.choices;
  if (c.has('problem-json')) {
    const type = status === 400 ? 'https://tools.ietf.org/html/rfc9110#section-15.5.1' : status === 404 ? 'https://tools.ietf.org/html/rfc9110#section-15.5.5' : 'about:blank';
    return { status, body: { kind: 'problem', text: JSON.stringify({ type, title, status, detail: spec.message, code: spec.code, traceId: traceId() }) } };
  }
  if (c.has('xml-error-bodies')) return xml(status, `<?xml version="1.0" encoding="utf-8"?><Error><Title>${escapeXml(title)}</Title><Message>${escapeXml(spec.message)}</Message></Error>`);
  if (spec.stated !== undefined) {
    // Choice `stated-text-status-message`: the status and its reason phrase as a message, {"code":400,"message":"HTTP 400 Bad Request"}.
    if (c.has('stated-text-status-message')) return json(status, { code: status, message: `HTTP ${status} ${spec.stated}` });
    if (c.has('stated-text-colon-detail')) return text(status, `${spec.stated}: ${spec.message}`);
    // Choice `stated-text-status-code-pages`: ASP.NET Core's UseStatusCodePages, "Status Code: 400; Bad Request".
    if (c.has('stated-text-status-code-pages')) return text(status, `Status Code: ${status}; ${spec.stated}`);
    // Choice `stated-text-json-detail`: BadRequest("…") asked for JSON, a JSON string with a detail.
    if (c.has('stated-text-json-detail')) return json(status, `${spec.stated}: ${spec.message}`);
    return text(status, c.has('bad-request-detail') ? `${spec.stated}\n${spec.message}` : spec.stated);
  }
  if (c.has('error-text-bodies')) return status === 404 ? json(status, { message: spec.message }) : text(status, title);
  return status === 404 ? text(status, spec.message) : json(status, { code: spec.code, message: spec.message });
}
