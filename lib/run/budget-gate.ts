/**
 * A request budget kept case by case, so that the cap (the client refuses every request past it) cuts
 * no case in the middle (a merge without its demerge, an agent run left open): a case starts only when
 * what the run has sent, what the cases in flight may still send, and its own count fit in the budget.
 * A case that does not fit waits for the cases in flight to end, and is left out, with the reason, when
 * it still does not fit with none in flight. Resends (after 429 or 503) come out of the same budget, so
 * a throttled run sends fewer cases, never more requests.
 */
export interface BudgetAdmission {
  /** Whether the case may start; when it may, call `done` once it has ended. */
  admitted: boolean;
  /** Why it may not (with the numbers). */
  reason?: string;
  done(): void;
}

interface InFlight {
  estimate: number;
  /** Requests the case has sent so far, resends included. */
  sent: () => number;
}

export class BudgetGate {
  private readonly inFlight = new Set<InFlight>();
  private waiters: Array<() => void> = [];

  constructor(
    public budget: number,
    /** Requests the run has sent so far, resends included. */
    private readonly sentSoFar: () => number,
  ) {}

  /** What the run has sent plus what the cases in flight may still send. */
  committed(): number {
    let total = this.sentSoFar();
    for (const c of this.inFlight) total += Math.max(0, c.estimate - c.sent());
    return total;
  }

  async admit(estimate: number, sent: () => number): Promise<BudgetAdmission> {
    for (;;) {
      const committed = this.committed();
      if (committed + estimate <= this.budget) {
        const entry: InFlight = { estimate, sent };
        this.inFlight.add(entry);
        let ended = false;
        return {
          admitted: true,
          done: () => {
            if (ended) return;
            ended = true;
            this.inFlight.delete(entry);
            this.wake();
          },
        };
      }
      if (this.inFlight.size === 0) {
        const left = Math.max(0, this.budget - this.sentSoFar());
        return {
          admitted: false,
          reason: `not sent: the request budget (ISWC_BUDGET=${this.budget}) has ${left} request${left === 1 ? '' : 's'} left, and this case sends up to ${estimate}`,
          done: () => undefined,
        };
      }
      await new Promise<void>((resolve) => this.waiters.push(resolve));
    }
  }

  /** Lets waiting cases look again (a case ended, or the run stopped). */
  wake(): void {
    const waiting = this.waiters;
    this.waiters = [];
    for (const w of waiting) w();
  }
}
