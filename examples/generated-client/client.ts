/**
 * An agency client generated from a production-shaped OpenAPI (openapi.yaml) with openapi-typescript
 * (schema.d.ts, untouched) and openapi-fetch, as an agency would write one, with the only changes a
 * generated client needs against the Agency API (docs/guides/client.md, "A client generated from
 * production's OpenAPI"):
 *
 * 1. the key header instead of OAuth2: the OpenAPI declares an OAuth2 token, the gateway takes the
 *    subscription key in Ocp-Apim-Subscription-Key;
 * 2. the base URL: the OpenAPI names no server;
 * 3. no trailing slash on it (openapi-fetch removes one; other generators write `//agent/run`);
 * 4. Retry-After honoured: a generated client sends each request once, and the gateway answers 429 past
 *    10 requests a minute (503 in maintenance), with the delay to wait: its fetch sends the same request
 *    again after that delay, a bounded number of times.
 */
import createClient from 'openapi-fetch';
import type { components, paths } from './schema.d.ts';

export type AgencyApi = ReturnType<typeof createClient<paths>>;

/** Times the same request is sent again after a 429 or 503 before its answer is taken as it is. */
export const MAX_RETRIES = 3;

/** Retry-After as delay-seconds or an HTTP-date, in ms; 1 s when absent or unreadable; at most a minute. */
function retryAfterMs(value: string | null): number {
  if (value === null) return 1000;
  const ms = /^\s*\d+\s*$/.test(value) ? Number(value) * 1000 : Date.parse(value) - Date.now();
  return Number.isFinite(ms) ? Math.min(Math.max(ms, 0), 60_000) : 1000;
}

/** 4: a fetch that sends a request answered 429 or 503 again, the same request, once its Retry-After has elapsed. */
export function retryingFetch(maxRetries = MAX_RETRIES): (request: Request) => Promise<Response> {
  return async (request) => {
    for (let attempt = 0; ; attempt += 1) {
      const response = await fetch(request.clone());
      if ((response.status !== 429 && response.status !== 503) || attempt >= maxRetries) return response;
      await response.body?.cancel();
      await new Promise((resolve) => setTimeout(resolve, retryAfterMs(response.headers.get('retry-after'))));
    }
  };
}

export function agencyApi(baseUrl: string, key: string): AgencyApi {
  return createClient<paths>({
    baseUrl: baseUrl.replace(/\/+$/, ''), // 2 and 3: the environment's base URL, without a trailing slash
    headers: { 'Ocp-Apim-Subscription-Key': key }, // 1: the key header instead of OAuth2
    fetch: retryingFetch(), // 4: Retry-After honoured
  });
}

/** What the day works on: the agency's own data (here read from the sandbox's client profile). */
export interface DayData {
  agency: string;
  merge: { preferredIswc: string } & components['schemas']['MergeRequest'];
  demerge: { preferredIswc: string; agency: string; workcode: string };
  submission: { preferredIswc: string; agency: string; workcode: string; sourceDb: number };
  reasonCode: string;
}

/** A step the API refused: its status. */
export class Refused extends Error {
  constructor(
    readonly step: string,
    readonly status: number,
  ) {
    super(`${step}: HTTP ${status}`);
  }
}

function ok(step: string, response: Response): void {
  if (!response.ok) throw new Refused(step, response.status);
}

const counters = (sent: number): Omit<components['schemas']['AgentRun'], 'agentVersion' | 'agencyCode' | 'runId'> => ({
  updateRecordCount: 0,
  newRecordCount: 0,
  overallRejected: 0,
  overallSent: sent,
  successfulCount: sent,
  businessRejectionCount: 0,
  technicalRejectionCount: 0,
});

/** The agency's day: start a run, merge, demerge, delete a submission, end the run; throws Refused on the first refusal. */
export async function agencyDay(api: AgencyApi, data: DayData): Promise<void> {
  const agentVersion = 'generated-client 1.0';
  const started = await api.POST('/agent/run', { body: { agentVersion, agencyCode: data.agency, ...counters(0) } });
  ok('run start', started.response);
  const runId = started.data?.runId;
  if (runId === undefined) throw new Refused('run start: no runId', started.response.status);
  const { preferredIswc, iswcs, agencyWorks } = data.merge;
  ok('merge', (await api.POST('/iswc/merge', { params: { query: { preferredIswc, agency: data.agency } }, body: { iswcs, agencyWorks } })).response);
  const d = data.demerge;
  ok('demerge', (await api.DELETE('/iswc/merge', { params: { query: { preferredIswc: d.preferredIswc, agency: d.agency, workcode: d.workcode } } })).response);
  const s = data.submission;
  ok('delete', (await api.DELETE('/submission', { params: { query: { preferredIswc: s.preferredIswc, agency: s.agency, workcode: s.workcode, sourceDb: s.sourceDb, reasonCode: data.reasonCode } } })).response);
  ok('run end', (await api.POST('/agent/run', { body: { agentVersion, agencyCode: data.agency, runId, ...counters(3) } })).response);
}
