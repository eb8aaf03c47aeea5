/**
 * npm run plan [-- --plan smoke] [--budget N] [--runs N]: prints what a run would send, without sending
 * anything: the cases chosen (and why others are left out), requests per case, estimated time at the
 * rate, every spec check covered or not, and every request that would change data in the target.
 */
import { parseArgs } from 'node:util';
import { allChecks } from '../lib/check/registry.ts';
import { readConfig } from '../lib/config/config.ts';
import { estimatedRequests } from '../lib/run/budget.ts';
import { planSuite, suiteOptionsFrom } from '../lib/run/plan.ts';
import { parseRate } from '../lib/config/rate.ts';
import { loadProfile } from '../lib/contract/profile/load.ts';

const { values } = parseArgs({ options: { plan: { type: 'string' }, budget: { type: 'string' }, runs: { type: 'string' }, quiet: { type: 'boolean', default: false } } });
const config = readConfig({
  ...process.env,
  ...(values.plan ? { ISWC_PLAN: values.plan } : {}),
  ...(values.budget ? { ISWC_BUDGET: values.budget } : {}),
  ...(values.runs ? { ISWC_RUNS: values.runs } : {}),
});
const profile = loadProfile(config.targetFile);
const planned = await planSuite(profile, suiteOptionsFrom(config));
/** Does the case change data in the target (consumes entries, or may on a faulty server)? */
function changesData(p: (typeof planned)[number]): boolean {
  return (p.def.claims ?? []).some((c) => !c.readOnly) || p.def.changesData === true;
}
const rate = parseRate(config.rate);
const running = planned.filter((p) => !p.skipReason);
const requestsOf = (p: (typeof planned)[number]) => estimatedRequests(p, p.runs ?? config.runs);
const total = running.reduce((n, p) => n + requestsOf(p), 0);

const lines: string[] = [];
lines.push(`plan ${config.plan}${config.budget !== undefined ? `, budget ${config.budget} requests` : ''} · target ${config.baseUrl ?? 'embedded reference server'} · profile "${profile.name}" · ISWC_RUNS=${config.runs} · destructive ${config.destructive ? 'on' : 'off'}`);
if (!values.quiet) {
  lines.push('', 'cases that run (requests, checks):');
  for (const p of running) {
    const changes = changesData(p) ? '  [changes data]' : '';
    lines.push(`  ${String(requestsOf(p)).padStart(4)}  ${p.key}  (${p.shape.checks.join(', ') || 'every-answer checks'})${p.runs !== undefined && p.runs !== config.runs ? ` · ${p.runs} runs` : ''}${changes}`);
  }
}
const skipped = planned.filter((p) => p.skipReason);
const reasons = new Map<string, number>();
for (const p of skipped) reasons.set(p.skipReason ?? '', (reasons.get(p.skipReason ?? '') ?? 0) + 1);
if (skipped.length > 0) {
  lines.push('', `left out: ${skipped.length} case runs`);
  for (const [reason, n] of reasons) lines.push(`  ${n} × ${reason}`);
}
const specIds = allChecks().filter((c) => c.level === 'spec').map((c) => c.id);
const targetedCovered = new Set<string>(running.flatMap((p) => p.shape.checks));
const uncovered = specIds.filter((id) => !targetedCovered.has(id));
lines.push('', `spec checks: ${specIds.length - uncovered.length} of ${specIds.length} exercised${uncovered.length > 0 ? `; not exercised: ${uncovered.join(', ')}` : ''}`);
const changing = running.filter(changesData);
lines.push('', `requests that change data in the target (${changing.length} cases):`);
for (const p of changing) {
  const entries = Object.entries(p.entries)
    .map(([kind, list]) => `${kind}: ${(list ?? []).map((e) => (e as { preferredIswc: string }).preferredIswc).join(' ')}`)
    .join('; ');
  lines.push(`  ${p.key}: ${entries || 'only if the server is faulty (400 checks next to existing ISWCs)'}`);
}
if (changing.length === 0) lines.push('  none');
const seconds = rate === null ? null : total / rate;
lines.push(
  '',
  `total: ${total} requests${seconds === null ? ' (no rate limit)' : `, about ${seconds >= 3600 ? `${(seconds / 3600).toFixed(1)} h` : seconds >= 60 ? `${Math.ceil(seconds / 60)} min` : `${Math.ceil(seconds)} s`} at ${rate?.toFixed(3)} requests/s`}`,
);
process.stdout.write(`${lines.join('\n')}\n`);
