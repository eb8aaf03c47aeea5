import type { BodyOutcome } from './body.ts';
import type { Context } from './context.ts';
import type { Reply } from './wire.ts';
import { errorReply } from './errors.ts';
import { text } from './wire.ts';
import { unsupportedMediaProblem } from './production.ts';

/**
 * The answer to a body that could not be decoded, shared by the run notification and the merge:
 * 413 over the size cap (the connection is closed), 415 for a media type that is neither JSON nor XML
 * (an HTTP-level choice), the operation's own 400 otherwise. `null` when the client went away.
 */
export function mediaFailure(ctx: Context, outcome: Extract<BodyOutcome, { ok: false }>, badRequest: () => Reply): Reply | null {
  switch (outcome.kind) {
    case 'aborted':
      return null;
    case 'too-large':
      return ctx.faults.has('oversized-body-500') ? { ...text(500, 'Internal Server Error'), close: true } : { ...text(413, 'Payload Too Large'), close: true };
    case 'unsupported-media':
      if (ctx.faults.has('hang-on-unsupported-media')) return { status: 0, hang: true };
      if (ctx.faults.has('unsupported-media-500')) return text(500, 'Internal Server Error');
      if (ctx.choices.has('unsupported-media-400')) return badRequest();
      // Choice `binding-problem-json`: ASP.NET Core's own 415 (src/Api.Agency/Startup.cs registers JSON input formatters only).
      if (ctx.choices.has('binding-problem-json')) return unsupportedMediaProblem();
      return ctx.choices.has('problem-json') ? errorReply(ctx, 415, { code: 'BAD_BODY', message: outcome.error, where: 'decodeRequestBody' }) : text(415, 'Unsupported Media Type');
    case 'malformed':
      // Faults `crash-on-malformed-json` and `-xml`: one format's input path lets its parser's exception through.
      return ctx.faults.has('crash-on-malformed') || ctx.faults.has(outcome.format === 'xml' ? 'crash-on-malformed-xml' : 'crash-on-malformed-json') ? text(500, 'Internal Server Error') : badRequest();
    case 'invalid':
      return badRequest();
  }
}
