import { perClient } from './per-client.ts';

/**
 * The runIds a run's starts were answered, over the whole run (issue 38): a runId identifies the run it was
 * answered for (2.2, 4.1), so no two starts of one run are answered the same. A case proves it of the runs it
 * starts itself (outcome.run-ids-distinct); a target that numbers its runs in a sequence of its own per body
 * format, per worker or per agency answers two starts of different cases the same runId, which no one case
 * sees. Every case sent through one HTTP client shares its ledger, as it shares its gate of open runs
 * (lib/run/open-runs.ts); it costs no request: it reads the answers the cases get anyway.
 */
export class RunIdLedger {
  readonly #startedBy = new Map<string, string>();

  /**
   * A start answered `runId`, sent by `where` (a case, its format and its step): the start that was answered
   * it first, when another one was; undefined when the runId is new.
   */
  note(runId: string, where: string): string | undefined {
    const earlier = this.#startedBy.get(runId);
    if (earlier !== undefined) return earlier;
    this.#startedBy.set(runId, where);
    return undefined;
  }
}

/** The ledger of one target: every case sent through the same HTTP client shares it. */
export const runIdLedgerOf = perClient(() => new RunIdLedger());
