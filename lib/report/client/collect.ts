import type { ClientVerdict } from '../../check/client/judge.ts';
import { allClientChecks } from '../../check/client/registry.ts';
import type { Redactor } from '../../foundation/redact.ts';
import { cut } from '../escape.ts';
import type { ClientCheckTally, ClientFinding, ClientGroupTally, ClientReport, ClientTally, SentRequest } from './model.ts';

/** Findings kept per check × operation × format (the counts hold them all). */
export const FINDINGS_PER_GROUP = 50;
const BODY_LIMIT = 8000;

/** The raw facts of a request a finding shows, before redaction. */
export interface RequestFacts {
  seq: number;
  at: number;
  method: string;
  target: string;
  headers: Readonly<Record<string, string>>;
  body: Buffer;
  tooLarge: boolean;
}

const emptyTally = (): ClientTally => ({ passed: 0, failed: 0, observed: 0 });

function count(t: ClientTally, verdict: ClientVerdict['verdict']): void {
  if (verdict === 'pass') t.passed += 1;
  else if (verdict === 'fail') t.failed += 1;
  else t.observed += 1;
}

/**
 * Collects the verdicts of a session as they come: tallies per check and per check × operation × format,
 * and the failures and observations with the request as sent (redacted once, when the first finding of a
 * request is kept). Memory stays bounded however long the session: findings beyond FINDINGS_PER_GROUP
 * per group are counted, not kept.
 */
export class ClientFindings {
  private readonly byCheck = new Map<string, ClientTally>();
  /** Group tallies by format, then operation, then check: no key is built per verdict. */
  private readonly byGroup = new Map<string, Map<string, Map<string, ClientGroupTally & { kept: number }>>>();
  readonly violations: ClientFinding[] = [];
  readonly observations: ClientFinding[] = [];
  violationsOmitted = 0;
  observationsOmitted = 0;
  gatingFailures = 0;
  private readonly sent = new Map<number, SentRequest>();

  constructor(private readonly redactor: Redactor) {}

  add(verdicts: readonly ClientVerdict[], request: RequestFacts, operation: string, format: 'json' | 'xml' | 'none'): void {
    let byOp = this.byGroup.get(format);
    if (!byOp) this.byGroup.set(format, (byOp = new Map<string, Map<string, ClientGroupTally & { kept: number }>>()));
    let byCheck = byOp.get(operation);
    if (!byCheck) byOp.set(operation, (byCheck = new Map<string, ClientGroupTally & { kept: number }>()));
    for (const v of verdicts) {
      let t = this.byCheck.get(v.check);
      if (!t) this.byCheck.set(v.check, (t = emptyTally()));
      count(t, v.verdict);
      let g = byCheck.get(v.check);
      if (!g) byCheck.set(v.check, (g = { check: v.check, level: v.level, operation, format, ...emptyTally(), kept: 0 }));
      count(g, v.verdict);
      if (v.verdict === 'pass') continue;
      if (v.gating) this.gatingFailures += 1;
      const list = v.verdict === 'fail' ? this.violations : this.observations;
      if (g.kept >= FINDINGS_PER_GROUP) {
        if (v.verdict === 'fail') this.violationsOmitted += 1;
        else this.observationsOmitted += 1;
        continue;
      }
      g.kept += 1;
      list.push({ check: v.check, level: v.level, sections: v.sections, gating: v.gating, operation, format, expected: this.redactor.text(v.expected), received: this.redactor.text(v.received), request: this.sentRequest(request) });
    }
  }

  /** Text made safe to report, by the same redactor as the findings. */
  redact(text: string): string {
    return this.redactor.text(text);
  }

  /** A request target made safe to report (the key, and secret-looking query values). */
  redactUrl(target: string): string {
    return this.redactor.url(target);
  }

  /** What the client got for a request with findings: its status, or `reset`. */
  answered(seq: number, answer: number | 'reset'): void {
    const sent = this.sent.get(seq);
    if (sent) sent.answer = answer;
  }

  private sentRequest(r: RequestFacts): SentRequest {
    const known = this.sent.get(r.seq);
    if (known) return known;
    const text = r.tooLarge ? '' : r.body.toString('utf8');
    const sent: SentRequest = {
      seq: r.seq,
      at: new Date(r.at).toISOString(),
      method: r.method,
      target: this.redactor.url(r.target),
      headers: this.redactor.headers({ ...r.headers }),
      body: this.redactor.text(cut(text, BODY_LIMIT)),
      bodyBytes: r.tooLarge ? -1 : r.body.length,
      answer: 'none',
    };
    this.sent.set(r.seq, sent);
    return sent;
  }

  /** The tallies of the report: every check of the registry that judged anything, in registry order. */
  tallies(): Pick<ClientReport, 'checks' | 'groups'> {
    const exercised: ClientCheckTally[] = [];
    const total = emptyTally();
    for (const c of allClientChecks()) {
      const t = this.byCheck.get(c.id);
      if (!t) continue;
      exercised.push({ id: c.id, level: c.level, sections: [...c.sections], description: c.description, ...t });
      total.passed += t.passed;
      total.failed += t.failed;
      total.observed += t.observed;
    }
    const groups: ClientGroupTally[] = [];
    for (const byOp of this.byGroup.values()) for (const byCheck of byOp.values()) for (const { kept: _kept, ...g } of byCheck.values()) groups.push(g);
    return { checks: { ...total, gatingFailures: this.gatingFailures, exercised }, groups };
  }
}
