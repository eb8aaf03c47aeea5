/**
 * npm run bench:compat [-- --agencies 1,10,100,500 --replay 100]
 *
 * What a compatibility matrix of N agencies costs (issue 32): requests to the build and time at staging's
 * published 10 requests a minute, for N agencies whose clients are written in a few styles, as agencies'
 * software is (a handful of vendors and in-house clients, each in JSON or XML, with its habits). Eight
 * styles of the example agency client (examples/agency-client: JSON, XML, counters as strings, an XML
 * namespace, an extra field, no Accept header …) are recorded once through the sandbox; agency number i
 * takes style i mod 8 with an agency code of its own. The plan is computed as `compat --plan` does; one
 * matrix (--replay N agencies) is then replayed, unpaced, against an embedded reference server, for the
 * wall time the harness itself adds. Timings are printed, never asserted.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { AgencyClient } from '../examples/agency-client/client.ts';
import type { BodyFormat, ClientFaultSwitch } from '../examples/agency-client/client.ts';
import { loadAgencyData } from '../examples/agency-client/data.ts';
import { agencyDay } from '../examples/agency-client/flow.ts';
import { planReplay, plannedRequests } from '../lib/compat/plan.ts';
import { startReplay } from '../lib/compat/replay.ts';
import { makeIswc } from '../lib/contract/iswc.ts';
import { loadProfile } from '../lib/contract/profile/load.ts';
import type { TargetProfile } from '../lib/contract/profile/types.ts';
import { DIRECT } from '../lib/config/proxy.ts';
import { fromRoot } from '../lib/foundation/paths.ts';
import { parseSandboxArgs } from '../lib/sandbox/options.ts';
import { startSandbox } from '../lib/sandbox/run.ts';
import { readTrafficLog } from '../lib/traffic/jsonl.ts';
import type { TrafficSession } from '../lib/traffic/model.ts';
import { readFileSync } from 'node:fs';

const { values } = parseArgs({ options: { agencies: { type: 'string', default: '1,10,100,500' }, replay: { type: 'string', default: '100' } } });
const COUNTS = (values.agencies ?? '').split(',').map(Number).filter((n) => Number.isInteger(n) && n > 0);
const REPLAY = Number(values.replay);
const KEY = 'bench-compat-key-0001';

const STYLES: ReadonlyArray<{ name: string; format: BodyFormat; habits: ClientFaultSwitch[] }> = [
  { name: 'JSON', format: 'json', habits: [] },
  { name: 'XML', format: 'xml', habits: [] },
  { name: 'JSON, counters as strings', format: 'json', habits: ['counter-as-string'] },
  { name: 'XML with a namespace', format: 'xml', habits: ['xml-namespace'] },
  { name: 'JSON with an extra field', format: 'json', habits: ['extra-field'] },
  { name: 'JSON, merges without the key', format: 'json', habits: ['merge-without-key'] },
  { name: 'JSON, no reason code', format: 'json', habits: ['no-reason-code'] },
  { name: 'XML, counters as strings', format: 'xml', habits: ['counter-as-string'] },
];

async function record(dir: string, style: (typeof STYLES)[number]): Promise<TrafficSession> {
  const parsed = parseSandboxArgs(['--port', '0', '--report-dir', dir], { ISWC_SANDBOX_KEY: KEY });
  if (parsed.kind !== 'run') throw new Error('bad sandbox arguments');
  const running = await startSandbox(parsed.options);
  const client = new AgencyClient({ baseUrl: running.url, key: KEY, format: style.format, faults: style.habits });
  try {
    await agencyDay(client, loadAgencyData(fromRoot('fixtures/targets/sandbox-client.json')), true);
  } finally {
    await client.close();
    await running.stop();
  }
  const [session] = readTrafficLog(`${style.name}.jsonl`, readFileSync(path.join(dir, 'client-session.jsonl'), 'utf8'));
  if (!session) throw new Error('no session recorded');
  return session;
}

/** The session of another agency: its agency code where the client named its own. */
function asAgency(session: TrafficSession, code: string): TrafficSession {
  const swap = (b: Buffer): Buffer => Buffer.from(b.toString('utf8').split('"128"').join(`"${code}"`).split('>128<').join(`>${code}<`), 'utf8');
  return {
    ...session,
    id: `${code}.jsonl`,
    file: `${code}.jsonl`,
    agency: code,
    exchanges: session.exchanges.map((x) => ({ ...x, request: { ...x.request, target: x.request.target.replace(/agency=128\b/, `agency=${code}`), body: swap(x.request.body) } })),
  };
}

/** A staging profile with disposable entries enough for any plan here. */
function stagingProfile(): TargetProfile {
  const base = loadProfile(fromRoot('fixtures/targets/sandbox-client.json'));
  const n = 200;
  const iswc = (i: number) => makeIswc(String(600000000 + i));
  return {
    ...base,
    name: 'bench-staging',
    merges: Array.from({ length: n }, (_, i) => ({ preferredIswc: iswc(4 * i), iswcs: [iswc(4 * i + 1)], agencyWorks: [{ agencyCode: '128', agencyWorkCode: `BW${String(i).padStart(6, '0')}` }] })),
    demerges: Array.from({ length: n }, (_, i) => ({ preferredIswc: iswc(4 * i + 2), agency: '128', workcode: `BD${String(i).padStart(6, '0')}` })),
    submissions: Array.from({ length: n }, (_, i) => ({ preferredIswc: iswc(4 * i + 3), agency: '128', workcode: `BS${String(i).padStart(6, '0')}`, sourceDb: 128 })),
  };
}

const dir = mkdtempSync(path.join(tmpdir(), 'iswc-bench-compat-'));
try {
  const recorded: TrafficSession[] = [];
  for (const [i, style] of STYLES.entries()) recorded.push(await record(path.join(dir, String(i)), style));
  const profile = stagingProfile();
  // Agency codes 001 to 999 (3 digits); 128 among them is the key's own agency, whose traffic has shapes of its own.
  if (COUNTS.some((n) => n > 999) || REPLAY > 999) throw new Error('at most 999 agencies: agency codes have 3 digits');
  const agenciesOf = (n: number): TrafficSession[] => Array.from({ length: n }, (_, i) => asAgency(recorded[i % STYLES.length], String(i + 1).padStart(3, '0')));
  console.log(`compat bench: ${STYLES.length} client styles (${STYLES.map((s) => s.name).join('; ')}), one agency day each (5 exchanges)`);
  console.log('');
  console.log('| agencies | exchanges | shapes | requests (destructive) | at 10/min | requests (non-destructive) | at 10/min |');
  console.log('|---:|---:|---:|---:|---:|---:|---:|');
  for (const n of COUNTS) {
    const sessions = agenciesOf(n);
    const all = planReplay(sessions, { profile, destructive: true });
    const safe = planReplay(sessions, { profile, destructive: false });
    const [r1, r2] = [plannedRequests(all), plannedRequests(safe)];
    const min = (r: number) => `${(r / 10).toFixed(1)} min`;
    if (process.env.BENCH_COMPAT_DEBUG === '1') for (const p of all.exchanges.filter((x) => x.reason !== undefined && !all.units.some((u) => u.key === x.shape.key))) console.log(`  not replayed: ${p.agency} ${p.shape.text}: ${p.reason ?? ''}`);
    console.log(`| ${n} | ${all.exchanges.length} | ${all.shapes} | ${r1} | ${min(r1)} | ${r2} | ${min(r2)} |`);
  }
  if (REPLAY > 0) {
    const sessions = agenciesOf(REPLAY);
    const plan = planReplay(sessions, { profile, destructive: true });
    const t0 = performance.now();
    const run = await startReplay({ plan, profile, strict: false, target: { baseUrl: undefined, settings: { key: '', timeoutMs: 10_000, maxBodyBytes: 1024 * 1024, headers: [], network: DIRECT }, rate: null } });
    await run.done;
    const ms = performance.now() - t0;
    const verdicts = new Map<string, number>();
    for (const r of run.results) {
      const v = r.comparison?.verdict ?? 'not replayed';
      verdicts.set(v, (verdicts.get(v) ?? 0) + 1);
    }
    console.log('');
    if (process.env.BENCH_COMPAT_DEBUG === '1') for (const r of run.results) console.log(r.unit.rep.agency, r.unit.rep.shape.text, r.notSent ?? r.comparison?.verdict, r.comparison?.reasons.join(' | ') ?? '');
    console.log(`replay of ${REPLAY} agencies against the embedded reference server, unpaced: ${run.figures.sent} requests in ${(ms / 1000).toFixed(1)} s (${(ms / Math.max(1, run.figures.sent)).toFixed(0)} ms a request, the two baseline replays of each included); shapes: ${[...verdicts].map(([v, k]) => `${k} ${v}`).join(', ')}`);
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
