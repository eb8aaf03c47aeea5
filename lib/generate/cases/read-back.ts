import type { CaseContext, CasePart, Step } from '../case.ts';

/** The part of a case that reads back what its first steps changed (issue 38): one request, the run's last. */
export const READ_BACK = 'read-back';

/** The read-back part of a case whose first steps `what` changed ("the delete"). */
export function readBackPart(what: string): CasePart {
  return { id: READ_BACK, title: `the repeat sent again among the run's last requests, refused again: ${what} still holds` };
}

/**
 * Sends `step` again once every other case of the run has ended (CaseContext.atRunEnd), in the read-back
 * part: an effect that lapses after its 204 (a cache, a job that undoes it, a delete kept for the next
 * read only) is then seen whatever the pace, with a request the case sends anyway, its repeat.
 */
export function readBack(ctx: CaseContext, step: Step): Promise<void> {
  return ctx.part(READ_BACK, () =>
    ctx.atRunEnd(async () => {
      await ctx.send(step);
    }),
  );
}
