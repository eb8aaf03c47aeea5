import type { RequestHook } from './index.ts';
import { infrastructureReply, maintenanceReply, processingExceptionReply } from './production.ts';
import type { Reply } from './wire.ts';

/**
 * Trouble on purpose for the reference server (`server --inject KIND@N,...`): what production's
 * infrastructure answers now and then, whatever the request, to rehearse a gate through it. Trouble, never a
 * fault or a choice: it comes from no input, and no check judges it as a deviation of its own (a 500 is
 * still judged as it came, `http.no-5xx`; maintenance is waited out, docs/staging.md#maintenance-and-gateway-errors).
 *
 * - `500`: an infrastructure failure (the matching engine's timeout, the database): 500, empty body;
 * - `100`: a processing exception (a processing step threw): 400 `{"code": "100", "message": "Internal Server Error."}`;
 * - `maintenance`: the application's maintenance mode: 503 `{"code": "503", …}` without Retry-After.
 *
 * `KIND@N` troubles the N-th request (1-based), `KIND@NxM` M requests in a row from the N-th, `KIND@NforDs`
 * every request arriving within D seconds (`ms`, `s`, `min`) of the N-th's arrival.
 */
export const SERVER_TROUBLE_KINDS = ['500', '100', 'maintenance'] as const;
export type ServerTroubleKind = (typeof SERVER_TROUBLE_KINDS)[number];

export interface ServerTrouble {
  kind: ServerTroubleKind;
  at: number;
  times: number;
  forMs?: number;
  text: string;
}

const UNIT_MS: Record<string, number> = { ms: 1, s: 1000, sec: 1000, m: 60_000, min: 60_000 };

/** Parses `maintenance@4for30s,500@9`; throws an Error saying what is wrong, in one line. */
export function parseServerTrouble(specs: readonly string[]): ServerTrouble[] {
  const out: ServerTrouble[] = [];
  for (const item of specs.flatMap((s) => s.split(',')).map((s) => s.trim()).filter((s) => s !== '')) {
    const m = /^([a-z0-9]+)@([0-9]+)(?:x([0-9]+)|for([0-9]+(?:\.[0-9]+)?)([a-z]+))?$/i.exec(item);
    if (!m) throw new Error(`--inject: "${item}" is not KIND@N, KIND@NxM or KIND@NforDs (for example maintenance@4for30s, 500@9)`);
    const kind = (m[1] ?? '').toLowerCase();
    if (!(SERVER_TROUBLE_KINDS as readonly string[]).includes(kind)) throw new Error(`--inject: unknown kind "${m[1]}" in "${item}"; kinds: ${SERVER_TROUBLE_KINDS.join(', ')}`);
    const at = Number(m[2]);
    if (at < 1) throw new Error(`--inject: "${item}": N counts requests from 1`);
    const times = m[3] !== undefined ? Number(m[3]) : 1;
    if (times < 1) throw new Error(`--inject: "${item}": the run xM needs M of 1 or more`);
    const trouble: ServerTrouble = { kind: kind as ServerTroubleKind, at, times, text: item };
    if (m[4] !== undefined) {
      const scale = UNIT_MS[(m[5] ?? '').toLowerCase()];
      if (scale === undefined) throw new Error(`--inject: "${item}": unknown unit "${m[5]}" (use ms, s or min)`);
      trouble.forMs = Number(m[4]) * scale;
      if (!(trouble.forMs > 0)) throw new Error(`--inject: "${item}": an outage lasts more than 0`);
    }
    out.push(trouble);
  }
  return out.sort((a, b) => a.at - b.at);
}

function replyOf(kind: ServerTroubleKind): Reply {
  switch (kind) {
    case '500':
      return infrastructureReply();
    case '100':
      return processingExceptionReply();
    case 'maintenance':
      return maintenanceReply();
  }
}

/** A request hook that answers the troubled requests in place of the server, counting requests as they arrive whole. */
export function troubleHook(troubles: readonly ServerTrouble[], now: () => number = Date.now): RequestHook {
  let seq = 0;
  const started = new Map<ServerTrouble, number>();
  return {
    before() {
      seq += 1;
      const t = now();
      for (const trouble of troubles) {
        if (trouble.forMs !== undefined) {
          if (seq === trouble.at) started.set(trouble, t);
          const from = started.get(trouble);
          if (from !== undefined && t - from < trouble.forMs) return replyOf(trouble.kind);
        } else if (seq >= trouble.at && seq < trouble.at + trouble.times) return replyOf(trouble.kind);
      }
      return undefined;
    },
  };
}
