import { allChecks } from '../../check/registry.ts';
import { formatsLabel } from '../../contract/profile/types.ts';
import { describeRoute } from '../../config/proxy.ts';
import type { RunConfig } from '../../config/config.ts';
import { ConfigError, readConfig } from '../../config/config.ts';
import { parseRate } from '../../config/rate.ts';
import { loadProfile, ProfileError } from '../../contract/profile/load.ts';
import type { TargetProfile } from '../../contract/profile/types.ts';
import { estimatedRequests } from '../../run/budget.ts';
import { fewestRequestsOf } from '../../run/dry-run.ts';
import { humanDuration, longRunNotice } from '../../run/estimate.ts';
import { caughtByPlanned } from '../../run/plan-catches.ts';
import { PLAN_SLICES, planSuite, suiteOptionsFrom } from '../../run/plan.ts';
import { harnessCatalogue } from '../../run/tried.ts';
import type { PlannedCase } from '../../run/plan.ts';
import type { Command } from '../command.ts';
import { EXIT, exitMeaning, UsageError } from '../command.ts';
import { parseRunArgs, SELECTION_OPTIONS } from '../run-args.ts';
import { environmentOf } from '../environment.ts';

/** Does the case change data in the target (consumes entries, or may on a faulty server)? */
function changesData(p: PlannedCase): boolean {
  return (p.def.claims ?? []).some((c) => !c.readOnly) || p.def.changesData === true;
}

export { humanDuration };

/**
 * The profile entries a case changes, by the preferred ISWC of each: "merges: T3100000004; submissions:
 * T3300000000". Kinds it takes none of are left out; '' when it takes none at all.
 */
export function entriesText(p: Pick<PlannedCase, 'entries'>): string {
  return Object.entries(p.entries)
    .filter(([, list]) => (list ?? []).length > 0)
    .map(([kind, list]) => `${kind}: ${(list ?? []).map((e) => (e as { preferredIswc: string }).preferredIswc).join(' ')}`)
    .join('; ');
}

/**
 * What a run would send, without sending anything: the cases chosen (and why others are left out),
 * requests per case, the estimated time at the rate, every spec check covered or not, and every
 * request that would change data in the target.
 */
export async function renderPlan(config: Readonly<RunConfig>, profile: TargetProfile, options: { quiet?: boolean } = {}): Promise<string> {
  const planned = await planSuite(profile, suiteOptionsFrom(config));
  const rate = parseRate(config.rate);
  const running = planned.filter((p) => !p.skipReason);
  const requestsOf = (p: PlannedCase): number => estimatedRequests(p, p.runs ?? config.runs);
  const fewestOf = (p: PlannedCase): number => fewestRequestsOf(p.shape, p.runs ?? config.runs);
  const total = running.reduce((n, p) => n + requestsOf(p), 0);
  const fewest = running.reduce((n, p) => n + fewestOf(p), 0);
  const generated = running.filter((p) => p.shape.generated).reduce((n, p) => n + requestsOf(p), 0);
  const lines: string[] = [];
  lines.push(
    `plan ${config.plan}${config.budget !== undefined ? `, budget ${config.budget} requests` : ''} · target ${config.baseUrl ?? 'embedded reference server'} · profile "${profile.name}"${formatsLabel(profile) ? ` (${formatsLabel(profile) ?? ''})` : ''} · ISWC_RUNS=${config.runs} · destructive ${config.destructive ? 'on' : 'off'}`,
  );
  const route = describeRoute(config.network);
  if (route !== undefined) lines.push(route);
  if (!options.quiet) {
    lines.push('', 'cases that run (requests, checks):');
    for (const p of running) {
      const changes = changesData(p) ? '  [changes data]' : '';
      const count = fewestOf(p) < requestsOf(p) ? `${fewestOf(p)}-${requestsOf(p)}` : p.shape.generated ? `~${requestsOf(p)}` : String(requestsOf(p));
      lines.push(`  ${count.padStart(5)}  ${p.key}  (${p.shape.checks.join(', ') || 'every-answer checks'})${p.runs !== undefined && p.runs !== config.runs ? ` · ${p.runs} runs` : ''}${changes}`);
    }
  }
  const specIds = allChecks()
    .filter((c) => c.level === 'spec')
    .map((c) => c.id);
  const targetedCovered = new Set<string>(running.flatMap((p) => p.shape.checks));
  const uncovered = specIds.filter((id) => !targetedCovered.has(id));
  const skipped = planned.filter((p) => p.skipReason);
  const reasons = new Map<string, string[]>();
  for (const p of skipped) reasons.set(p.skipReason ?? '', [...(reasons.get(p.skipReason ?? '') ?? []), p.key]);
  if (skipped.length > 0) {
    lines.push('', `left out: ${skipped.length} cases (a case in one format each)`);
    const lacking = [...reasons].filter(([reason]) => reason.startsWith('needs '));
    for (const [reason, keys] of reasons) {
      // With every spec check exercised, what the profile lacks only adds cases: said once, below.
      if (uncovered.length === 0 && reason.startsWith('needs ')) continue;
      // A lack of data is the profile's to fix: say which cases it holds back.
      lines.push(`  ${keys.length} × ${reason}${reason.startsWith('needs ') && keys.length <= 4 ? `: ${keys.join(', ')}` : ''}`);
    }
    const standby = skipped.filter((p) => p.standby !== undefined);
    if (standby.length > 0) {
      lines.push(`  ${standby.length} of them next in the ranking (about ${standby.reduce((n, p) => n + requestsOf(p), 0)} requests): run in place of cases the first answers show can tell nothing on this target (a format it does not serve, a preferred ISWC looked up first), within the budget`);
    }
    if (uncovered.length === 0 && lacking.length > 0) {
      const count = lacking.reduce((n, [, keys]) => n + keys.length, 0);
      lines.push(`  ${count} × more profile data would add these cases, not checks: every spec check is exercised (optional; profile check says what each entry adds)`);
    }
  }
  const slice = PLAN_SLICES.get(planned);
  if (slice) {
    lines.push(
      '',
      `slice ${slice.index} of ${slice.of} (ISWC_SLICE=${slice.asked}${slice.asked !== slice.index ? `, modulo ${slice.of}` : ''}): every slice sends the same ${slice.fixedRequests} requests (the key on every operation, and the breadth that fits half the budget); ${slice.rotatingRequests} rotate`,
      `  slices 0 to ${slice.of - 1} together send every case of the ranking that fits this budget; the next gate: --slice ${slice.asked + 1} (docs/guides/ci-gate.md, "Rotating gates")`,
      triedLine(planned, config.destructive),
    );
  }
  lines.push('', `spec checks: ${specIds.length - uncovered.length} of ${specIds.length} exercised${uncovered.length > 0 ? `; not exercised: ${uncovered.join(', ')}` : ''}`);
  const changing = running.filter(changesData);
  lines.push('', `requests that change data in the target (${changing.length} cases):`);
  for (const p of changing) {
    const entries = entriesText(p);
    const undone = profile.reusable === true && config.destructive && (p.def.claims ?? []).some((c) => c.restores) ? ' (undone, and shown undone, before the case ends: the profile is reusable)' : '';
    lines.push(`  ${p.key}: ${entries || 'only if the server is faulty (400 checks next to existing ISWCs)'}${undone}`);
  }
  if (changing.length === 0) lines.push('  none');
  // Cases next in the ranking run only in place of cases that tell nothing: what they would change is said too.
  const standbyChanging = planned.filter((p) => p.standby !== undefined && changesData(p));
  if (standbyChanging.length > 0) {
    lines.push(`  and, when run in place of cases that tell nothing on this target (${standbyChanging.length}):`);
    for (const p of standbyChanging) {
      const entries = entriesText(p);
      lines.push(`    ${p.key}: ${entries || 'only if the server is faulty (400 checks next to existing ISWCs)'}`);
    }
  }
  const seconds = rate === null ? null : total / rate;
  const range = fewest < total ? `${fewest} to ${total}` : `${total}`;
  lines.push('', `total: ${range} requests${seconds === null ? ' (no rate limit)' : `, at most about ${humanDuration(seconds)} at ${rate?.toFixed(3)} requests/s`}`);
  lines.push(...planAgreement({ fewest, most: total, generated, budget: config.budget }));
  const notice = longRunNotice(planned, { plan: config.plan, budget: config.budget, runs: config.runs, destructive: config.destructive, rate });
  if (notice.length > 0) lines.push(...notice);
  return lines.join('\n');
}

/**
 * What the plan's count leaves open, and how a run of these options agrees with it (the run's reports
 * give planned, sent, retried and answered: lib/report/figures.ts).
 */
export function planAgreement(counts: { fewest: number; most: number; generated: number; budget: number | undefined }): string[] {
  const lines = ['how a run compares:'];
  if (counts.fewest < counts.most) {
    lines.push(
      `  ${counts.most} when the target accepts every agent run the cases send and the harness ends each (production validates none: docs/production.md); ${counts.fewest} when it refuses those the document has it refuse (it opens no run to end)`,
    );
  }
  if (counts.generated > 0) lines.push(`  ${counts.generated} of them try generated inputs: their number varies with the seed and the target's answers (the model test's sequences most)`);
  lines.push(
    counts.budget !== undefined
      ? `  resends (429, 503, a target in maintenance) come on top, within --budget ${counts.budget}: no more than ${counts.budget} requests are sent, the cases the budget cannot cover left out`
      : '  resends (429, 503, a target in maintenance) come on top; the run\'s reports give planned, sent, retried and answered',
  );
  return lines;
}

export const planCommand: Command = {
  name: 'plan',
  summary: 'print what a run would send (cases, requests, time at the rate, data it changes), sending nothing',
  usage: 'npx iswc-conformance plan [options]',
  description: 'Takes the options a run is selected by, so `plan --budget 60` shows exactly what `run --budget 60` would do. Nothing is sent and no key is needed.',
  options: {
    ...SELECTION_OPTIONS,
    plan: { type: 'boolean', description: 'Print the plan and send nothing: what this command always does (the same flag as run --plan). The smoke plan is --smoke (ISWC_PLAN=smoke).' },
    quiet: { type: 'boolean', description: 'Leave out the list of cases; print the totals only.' },
  },
  environment: environmentOf(['ISWC_TARGET', 'ISWC_BASE_URL', 'ISWC_DESTRUCTIVE', 'ISWC_PLAN', 'ISWC_BUDGET', 'ISWC_RUNS', 'ISWC_RATE']),
  exitCodes: [
    [EXIT.OK, 'the plan was printed'],
    exitMeaning(EXIT.USAGE),
  ],
  async run({ values }, io) {
    // The run's own reading of its options, as `run --plan` does: what is printed is what a run would do.
    const runPlan = parseRunArgs({ ...values, plan: true }, io.cwd, io.env);
    io.stdout(`${await planText({ ...io.env, ...runPlan.env }, { quiet: values.quiet === true })}\n`);
    return EXIT.OK;
  },
};

/** The plan of the run an environment describes (the run's options already read by parseRunArgs). */
export async function planText(env: NodeJS.ProcessEnv, options: { quiet?: boolean } = {}): Promise<string> {
  let config: Readonly<RunConfig>;
  let profile: TargetProfile;
  try {
    config = readConfig(env, { requireKey: false });
    profile = loadProfile(config.targetFile);
  } catch (e) {
    if (e instanceof ConfigError || e instanceof ProfileError) throw new UsageError(e.message);
    throw e;
  }
  return renderPlan(config, profile, options);
}

/** What a slice tries of the catalogue, as its report will record it (meta.plan.tried), and where the gates' sum is read. */
function triedLine(planned: readonly PlannedCase[], destructive: boolean): string {
  const mode = destructive ? 'destructive' : 'safe';
  const showable = harnessCatalogue().faults[mode];
  const tried = [...caughtByPlanned(planned, mode)].filter((f) => showable.has(f));
  const spec = [...showable.values()].filter((l) => l === 'spec').length;
  return `  this slice tries ${tried.length} of the ${showable.size} faults of the catalogue a ${destructive ? 'destructive' : 'non-destructive'} run can show (${tried.filter((f) => showable.get(f) === 'spec').length} of the ${spec} that fail a run without --strict); the ledger of the gates' reports adds up what they tried (npx iswc-conformance ledger --help)`;
}
