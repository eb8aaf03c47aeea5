/**
 * Wall time during which at least one request waited (on Retry-After, or on a target in maintenance):
 * two requests waiting the same ten seconds count ten seconds, not twenty. The figure the console, the
 * reports and the certificate give as "waited on throttling".
 */
export class WaitClock {
  private waiting = 0;
  private startedAt = 0;
  private total = 0;

  constructor(private readonly now: () => number = () => performance.now()) {}

  /** A request starts waiting; call the returned function when it stops (once). */
  begin(): () => void {
    if (this.waiting === 0) this.startedAt = this.now();
    this.waiting += 1;
    let ended = false;
    return () => {
      if (ended) return;
      ended = true;
      this.waiting -= 1;
      if (this.waiting === 0) this.total += this.now() - this.startedAt;
    };
  }

  /** Milliseconds waited so far, the wait in progress included. */
  ms(): number {
    return this.total + (this.waiting > 0 ? this.now() - this.startedAt : 0);
  }
}
