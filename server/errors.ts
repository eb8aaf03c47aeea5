import type { Context } from './context.ts';
import type { Reply } from './wire.ts';
import { json, text } from './wire.ts';

/** A 404 of merge, delete or demerge: text (reference choice) or JSON `{message}` (alternative choice). */
export function notFoundReply(ctx: Context, status: number, message: string): Reply {
  return ctx.alternative ? json(status, { message }) : text(status, message);
}

/**
 * Error bodies of merge, delete and demerge, which the document does not show (section 7): a JSON
 * `{code, message}` like production's business errors (choice, not contract). Codes are stable strings.
 */
export type ErrorCode = 'BAD_BODY' | 'MISSING_PARAMETER' | 'BAD_PARAMETER' | 'REPEATED_PARAMETER' | 'NOT_FOUND';

export function errorReply(ctx: Context, status: number, code: ErrorCode, message: string, where: string): Reply {
  if (ctx.alternative && !ctx.faults.has('stack-trace-in-error')) return text(status, 'Bad Request');
  const body: Record<string, string> = { code, message };
  if (ctx.faults.has('stack-trace-in-error')) {
    // Fault `stack-trace-in-error`: internals leak into the answer.
    body.stack = [
      `Error: ${message}`,
      `    at ${where} (/srv/iswc/server/${where.replace(/^handle/, '').toLowerCase()}.js:42:13)`,
      '    at Layer.handle [as handle_request] (/srv/iswc/node_modules/express/lib/router/layer.js:95:5)',
      '    at process.processTicksAndRejections (node:internal/process/task_queues:95:5)',
    ].join('\n');
  }
  return json(status, body);
}
