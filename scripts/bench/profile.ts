/**
 * Reads a V8 .cpuprofile (written by `node --cpu-prof`) and summarises where the time went: self time per
 * function, and per area (a file of this repository, an npm package, Node's internals, the garbage
 * collector, idle). `node --import tsx scripts/bench/profile.ts FILE.cpuprofile [--top N]` prints it.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { repoRoot } from '../../lib/foundation/paths.ts';

interface CallFrame {
  functionName: string;
  url: string;
  lineNumber: number;
  columnNumber: number;
}

interface ProfileNode {
  id: number;
  callFrame: CallFrame;
  children?: number[];
}

interface CpuProfile {
  nodes: ProfileNode[];
  startTime: number;
  endTime: number;
  samples: number[];
  timeDeltas: number[];
}

export interface Entry {
  name: string;
  selfMs: number;
  share: number;
}

export interface ProfileSummary {
  totalMs: number;
  /** Time not idle: what the process spent working (including the garbage collector). */
  busyMs: number;
  functions: Entry[];
  areas: Entry[];
}

function shortUrl(url: string): string {
  if (url === '') return '';
  let file = url;
  if (url.startsWith('file://')) {
    try {
      file = fileURLToPath(url);
    } catch {
      file = url;
    }
  }
  const nm = file.lastIndexOf('node_modules/');
  if (nm >= 0) return file.slice(nm + 'node_modules/'.length);
  if (file.startsWith(repoRoot)) return path.relative(repoRoot, file);
  return file;
}

function areaOf(frame: CallFrame): string {
  const name = frame.functionName;
  if (name === '(idle)') return '(idle: waiting for I/O)';
  if (name === '(garbage collector)') return '(garbage collector)';
  if (name === '(program)') return '(program: V8 and native code)';
  const url = frame.url;
  if (url === '') return '(native / builtins)';
  if (url.startsWith('node:')) return 'node internals';
  const short = shortUrl(url);
  const nm = url.lastIndexOf('node_modules/');
  if (nm >= 0) {
    const parts = short.split('/');
    return `npm: ${parts[0]?.startsWith('@') ? `${parts[0]}/${parts[1] ?? ''}` : (parts[0] ?? '?')}`;
  }
  return short;
}

export function summariseProfile(file: string, top = 15): ProfileSummary {
  const profile = JSON.parse(readFileSync(file, 'utf8')) as CpuProfile;
  const byId = new Map<number, ProfileNode>();
  for (const node of profile.nodes) byId.set(node.id, node);
  const selfUs = new Map<number, number>();
  // timeDeltas[i] is the time before sample i; attribute it to that sample's node.
  for (let i = 0; i < profile.samples.length; i += 1) {
    const id = profile.samples[i];
    const delta = profile.timeDeltas[i] ?? 0;
    if (id === undefined) continue;
    selfUs.set(id, (selfUs.get(id) ?? 0) + Math.max(0, delta));
  }
  const fn = new Map<string, number>();
  const area = new Map<string, number>();
  let total = 0;
  let idle = 0;
  for (const [id, us] of selfUs) {
    const node = byId.get(id);
    if (!node) continue;
    total += us;
    const f = node.callFrame;
    if (f.functionName === '(idle)') idle += us;
    const key = f.url === '' ? f.functionName : `${f.functionName || '(anonymous)'} ${shortUrl(f.url)}:${f.lineNumber + 1}`;
    fn.set(key, (fn.get(key) ?? 0) + us);
    const a = areaOf(f);
    area.set(a, (area.get(a) ?? 0) + us);
  }
  const busy = total - idle;
  const entries = (m: Map<string, number>, n: number): Entry[] =>
    [...m.entries()]
      .sort((a, b) => b[1] - a[1])
      .slice(0, n)
      .map(([name, us]) => ({ name, selfMs: us / 1000, share: total > 0 ? us / total : 0 }));
  return { totalMs: total / 1000, busyMs: busy / 1000, functions: entries(fn, top), areas: entries(area, top) };
}

export function formatSummary(s: ProfileSummary, title: string): string {
  const pct = (x: number): string => `${(x * 100).toFixed(1).padStart(5)}%`;
  const ms = (x: number): string => `${x.toFixed(0).padStart(6)} ms`;
  return [
    `${title}: ${s.totalMs.toFixed(0)} ms sampled, ${s.busyMs.toFixed(0)} ms busy (${pct(s.totalMs > 0 ? s.busyMs / s.totalMs : 0).trim()})`,
    '  self time by area:',
    ...s.areas.map((e) => `    ${ms(e.selfMs)} ${pct(e.share)}  ${e.name}`),
    '  self time by function:',
    ...s.functions.map((e) => `    ${ms(e.selfMs)} ${pct(e.share)}  ${e.name}`),
  ].join('\n');
}

const invokedAsScript = process.argv[1] !== undefined && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url);
if (invokedAsScript) {
  const file = process.argv[2];
  const topIndex = process.argv.indexOf('--top');
  const top = topIndex > 0 ? Number(process.argv[topIndex + 1]) : 15;
  if (!file) {
    process.stderr.write('usage: node --import tsx scripts/bench/profile.ts FILE.cpuprofile [--top N]\n');
    process.exit(2);
  }
  process.stdout.write(`${formatSummary(summariseProfile(file, top), path.basename(file))}\n`);
}
