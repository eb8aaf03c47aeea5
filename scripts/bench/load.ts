/**
 * Raw throughput of a server on a fixed mix of valid requests, measured with autocannon (keep-alive,
 * a few connections, a fixed duration). The mix is built from the contract and the target profile:
 * run notifications in JSON and in XML (each ends one fixed run, so the server's state stays the same
 * size), and merge, demerge and submission delete naming ISWCs the profile lists as unknown (404: the
 * server's state is never changed). Each request is sent once first and its status checked, so that the
 * figure is the throughput of the answers the mix is meant to get.
 */
import autocannon from 'autocannon';
import { MEDIA_TYPE, encodeBody } from '../../lib/contract/codec/index.ts';
import { subscriptionKeyHeader } from '../../lib/contract/openapi.ts';
import type { TargetProfile } from '../../lib/contract/profile/types.ts';

export interface MixRequest {
  label: string;
  method: 'POST' | 'DELETE';
  path: string;
  headers: Record<string, string>;
  body?: string;
  expected: number;
}

export interface LoadOptions {
  connections: number;
  durationSeconds: number;
}

export interface LoadResult {
  requestsPerSecond: number;
  requests: number;
  durationSeconds: number;
  latencyP50Ms: number;
  latencyP99Ms: number;
  errors: number;
  timeouts: number;
  statuses: Record<string, number>;
  /** Responses whose status is none the mix expects (200, 404): must be 0 for the figure to count. */
  unexpected: number;
}

const BENCH_RUN_ID = 'iswc-conformance-bench-run';

export function requestMix(profile: TargetProfile, key: string): MixRequest[] {
  const keyHeader = subscriptionKeyHeader();
  const unknown = profile.unknownIswcs;
  if (unknown.length === 0) throw new Error(`profile "${profile.name}" lists no unknownIswcs: the 404 part of the mix needs one`);
  const u = (i: number): string => unknown[i % unknown.length] ?? '';
  const known = profile.iswcs[0];
  const run = {
    agentVersion: 'iswc-conformance-bench',
    agencyCode: profile.agency,
    runId: BENCH_RUN_ID,
    updateRecordCount: 10,
    newRecordCount: 5,
    overallRejected: 0,
    overallSent: 15,
    successfulCount: 15,
    businessRejectionCount: 0,
    technicalRejectionCount: 0,
  };
  const common = { [keyHeader]: key, Accept: '*/*' };
  const q = (pairs: Record<string, string>): string => new URLSearchParams(pairs).toString();
  return [
    {
      label: 'run notification, JSON',
      method: 'POST',
      path: '/agent/run',
      headers: { ...common, 'Content-Type': MEDIA_TYPE.json, Accept: MEDIA_TYPE.json },
      body: encodeBody('json', 'AgentRun', run),
      expected: 200,
    },
    {
      label: 'run notification, XML',
      method: 'POST',
      path: '/agent/run',
      headers: { ...common, 'Content-Type': MEDIA_TYPE.xml, Accept: MEDIA_TYPE.xml },
      body: encodeBody('xml', 'AgentRun', run),
      expected: 200,
    },
    {
      label: 'merge into an unknown ISWC (404)',
      method: 'POST',
      path: `/iswc/merge?${q({ preferredIswc: u(0), agency: profile.agency })}`,
      headers: { ...common, 'Content-Type': MEDIA_TYPE.json },
      body: encodeBody('json', 'MergeRequest', { iswcs: known ? [known] : [], agencyWorks: [{ agencyCode: profile.agency, agencyWorkCode: 'BENCH0001' }] }),
      expected: 404,
    },
    {
      label: 'demerge from an unknown ISWC (404)',
      method: 'DELETE',
      path: `/iswc/merge?${q({ preferredIswc: u(1), agency: profile.agency, workcode: 'BENCH0001' })}`,
      headers: { ...common },
      expected: 404,
    },
    {
      label: 'delete a submission of an unknown ISWC (404)',
      method: 'DELETE',
      path: `/submission?${q({ preferredIswc: u(2), agency: profile.agency, workcode: 'BENCH0001', sourceDb: '128', reasonCode: 'bench' })}`,
      headers: { ...common },
      expected: 404,
    },
  ];
}

/** Sends each request of the mix once and throws when one is not answered as the mix expects. */
export async function checkMix(baseUrl: string, mix: readonly MixRequest[]): Promise<void> {
  for (const r of mix) {
    const res = await fetch(`${baseUrl}${r.path}`, {
      method: r.method,
      headers: r.headers,
      ...(r.body !== undefined ? { body: r.body } : {}),
      redirect: 'manual',
      signal: AbortSignal.timeout(5000),
    });
    const text = await res.text();
    if (res.status !== r.expected) throw new Error(`request mix: "${r.label}" answered ${res.status} (${text.slice(0, 200)}), expected ${r.expected}`);
  }
}

/** Runs autocannon over the mix (each connection cycles through it in order) for the fixed duration. */
export async function measureThroughput(baseUrl: string, mix: readonly MixRequest[], options: LoadOptions): Promise<LoadResult> {
  const expected = new Set(mix.map((r) => String(r.expected)));
  const result = await autocannon({
    url: baseUrl,
    connections: options.connections,
    pipelining: 1,
    duration: options.durationSeconds,
    timeout: 10,
    requests: mix.map((r) => ({ method: r.method, path: r.path, headers: r.headers, ...(r.body !== undefined ? { body: r.body } : {}) })),
  });
  const statuses: Record<string, number> = {};
  let unexpected = 0;
  for (const [code, stat] of Object.entries(result.statusCodeStats ?? {})) {
    const count = stat.count ?? 0;
    statuses[code] = count;
    if (!expected.has(code)) unexpected += count;
  }
  const answered = Object.values(statuses).reduce((a, b) => a + b, 0);
  // result.duration is in whole seconds; start and finish give the measured span to the millisecond.
  const span = (new Date(result.finish).getTime() - new Date(result.start).getTime()) / 1000;
  const seconds = span > 0 ? span : result.duration;
  return {
    requestsPerSecond: answered / seconds,
    requests: answered,
    durationSeconds: seconds,
    latencyP50Ms: result.latency.p50,
    latencyP99Ms: result.latency.p99,
    errors: result.errors,
    timeouts: result.timeouts,
    statuses,
    unexpected,
  };
}
