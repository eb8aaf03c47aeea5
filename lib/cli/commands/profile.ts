import path from 'node:path';
import { productionRefusals } from '../production-refusals.ts';
import { checkById } from '../../check/registry.ts';
import type { ProfileFinding } from '../../contract/profile/findings.ts';
import { profileFindings } from '../../contract/profile/findings.ts';
import { loadProfile } from '../../contract/profile/load.ts';
import type { TargetProfile } from '../../contract/profile/types.ts';
import { formatsLabel } from '../../contract/profile/types.ts';
import { additionText } from '../../generate/needs.ts';
import type { Advice, ModeCoverage } from '../../run/profile-coverage.ts';
import { completion, neighbourCoverage, profileCoverage, SPEC_CHECKS } from '../../run/profile-coverage.ts';
import type { CliIo, Command } from '../command.ts';
import { EXIT, exitMeaning, stringOption, UsageError } from '../command.ts';
import { renderClientProfileCheck } from './profile-client.ts';
import { existsSync } from 'node:fs';
import { consumedReason, earlierConsumption, profileEntryNamer, profileIndex } from '../../report/consumed.ts';
import { shownPath } from '../../foundation/paths.ts';

/**
 * `npx iswc-conformance profile check FILE`: what a target profile lets a run exercise, and what to add to
 * it, before any request is sent; and entries that would interfere with each other on a real target.
 */

export const DEFAULT_CHECK_BUDGET = 60;

function plural(n: number, one: string, many = `${one}s`): string {
  return `${n.toLocaleString('en')} ${n === 1 ? one : many}`;
}

function adviceText(advice: Advice, budget: number): string {
  if ('add' in advice) return `add ${additionText(advice.add)}`;
  if ('destructive' in advice) return 'only a destructive run exercises it (--destructive)';
  if ('beyond' in advice) return advice.beyond === 'smoke' ? 'left out of the smoke plan' : `does not fit in ${budget} requests (a larger --budget)`;
  if ('notUndone' in advice) return 'only a run that consumes entries shows it: the profile is reusable (its entries are never recreated)';
  return 'no case of the harness exercises it in this mode';
}

function modeLabel(m: ModeCoverage, budget: number, reusable: boolean): string {
  switch (m.mode) {
    case 'non-destructive':
      return 'non-destructive (the default on a remote target)';
    case 'destructive':
      return reusable ? 'destructive (--destructive), no entry consumed' : 'destructive (--destructive)';
    case 'smoke':
      return 'smoke plan, destructive (--smoke)';
    case 'budget':
      return `budget of ${budget} requests, destructive (--budget ${budget})`;
  }
}

function describeProfile(file: string, profile: TargetProfile): string[] {
  const counts = [
    plural(profile.iswcs.length, 'existing ISWC'),
    plural(profile.unknownIswcs.length, 'unknown ISWC'),
    plural(profile.merges.length, 'merge'),
    plural(profile.demerges.length, 'demerge'),
    plural(profile.submissions.length, 'submission'),
  ];
  const only = formatsLabel(profile);
  return [
    `Target profile ${file}: "${profile.name}", agency ${profile.agency}${only ? `, ${only} (formats: no request in another format is planned or sent)` : ''}`,
    `  ${counts.join(', ')}`,
    ...(profile.reusable ? ['  reusable: its entries are never recreated; a destructive run makes only the changes it undoes and shows each entry as it found it'] : []),
  ];
}

/** One check with what it states and the advice, two lines. */
function checkLines(checkId: string, advice: string): string[] {
  const check = checkById(checkId);
  return [`  ${checkId.padEnd(22)} ${advice}`, `  ${' '.repeat(22)} (${check.description.replace(/\.$/, '')}; section${check.sections.length > 1 ? 's' : ''} ${check.sections.join(', ')})`];
}

function findingLines(findings: readonly ProfileFinding[]): string[] {
  const errors = findings.filter((f) => f.severity === 'error');
  const warnings = findings.filter((f) => f.severity === 'warning');
  const lines: string[] = [];
  if (errors.length === 0) lines.push('Entries that interfere: none.');
  else {
    lines.push(`Entries that interfere (${errors.length}): consuming one makes another fail on a conforming target, so a run would report failures it did not commit:`);
    for (const f of errors) lines.push(`  ${f.path}: ${f.message}`);
  }
  if (warnings.length === 0) lines.push('Check digits: every ISWC of the profile has a valid one (ISO 15707).');
  else {
    lines.push(`Warnings (${warnings.length}): check digits that do not hold (ISO 15707); they do not change the exit code:`);
    for (const f of warnings) lines.push(`  ${f.path}: ${f.message}`);
  }
  return lines;
}

/** What each mode's planning is, in the progress line of a terminal. */
const PLANNING_TEXT: Record<ModeCoverage['mode'], (budget: number) => string> = {
  'non-destructive': () => 'a non-destructive run',
  destructive: () => 'a destructive run',
  smoke: () => 'the smoke plan',
  budget: (budget) => `a budget of ${budget} requests`,
};

/**
 * Where `profile check` says what it is planning: a line on standard error, rewritten in place, on a
 * terminal only (a new profile takes tens of seconds, every addition confirmed by planning with it);
 * nothing elsewhere, so that a pipe or a CI log holds the report alone. Under 60 characters, so that it
 * never wraps (a wrapped line is not cleared).
 */
export function planningProgress(io: Pick<CliIo, 'stderr' | 'isTty'>): { show?: (text: string) => void; clear: () => void } {
  if (io.isTty !== true) return { clear: () => undefined };
  let shown = false;
  return {
    show: (text) => {
      io.stderr(`\r\x1b[K${text}`);
      shown = true;
    },
    clear: () => {
      if (shown) io.stderr('\r\x1b[K');
    },
  };
}

/** The whole report of `profile check`, and whether it found entries that interfere. */
export async function renderProfileCheck(
  file: string,
  profile: TargetProfile,
  options: { budget: number; runs: number; consumed?: { text: string; entries: number }; progress?: (text: string) => void },
): Promise<{ text: string; interfering: number; warnings: number }> {
  const modes = await profileCoverage(profile, options, (mode, i, count) => options.progress?.(`planning ${PLANNING_TEXT[mode](options.budget)} (${i + 1} of ${count})…`));
  options.progress?.('planning one addition for all, and the near neighbours…');
  const findings = profileFindings(profile);
  const total = SPEC_CHECKS.length;
  const lines = [...describeProfile(file, profile), ''];
  lines.push(`Spec checks of the document a run exercises with this profile (of ${total}; planned, nothing is sent):`);
  const labels = modes.map((m) => modeLabel(m, options.budget, profile.reusable === true));
  const width = Math.max(...labels.map((l) => l.length)) + 2;
  modes.forEach((m, i) => lines.push(`  ${(labels[i] ?? '').padEnd(width)}${String(m.exercised.length).padStart(2)} of ${total}  ${m.requests.toLocaleString('en').padStart(7)} request${m.requests === 1 ? '' : 's'}`));
  const [safe, destructive, smoke, budget] = modes as [ModeCoverage, ModeCoverage, ModeCoverage, ModeCoverage];

  lines.push('');
  if (destructive.notExercised.length === 0) lines.push('A destructive run exercises every spec check: nothing to add.');
  else {
    lines.push(`Not exercised by a destructive run (${destructive.notExercised.length}), with the smallest addition to the profile that exercises each:`);
    for (const n of destructive.notExercised) lines.push(...checkLines(n.checkId, adviceText(n.advice, options.budget)));
    const all = await completion(profile);
    if (all && destructive.notExercised.length > 1) lines.push(`  All of them at once: add ${additionText(all)}.`);
  }

  lines.push('');
  const beyondDestructive = (m: ModeCoverage) => m.notExercised.filter((n) => !destructive.notExercised.some((d) => d.checkId === n.checkId));
  const safeExtra = beyondDestructive(safe);
  const needDestructive = safeExtra.filter((n) => 'destructive' in n.advice).map((n) => n.checkId);
  if (safe.notExercised.length === 0) lines.push('A non-destructive run exercises every spec check.');
  else {
    const above = safe.notExercised.length - safeExtra.length;
    const listed = [...(above > 0 ? [`the ${above} above`] : []), ...needDestructive];
    lines.push(
      `A non-destructive run exercises ${safe.exercised.length} of ${total}: it leaves out ${listed.length > 1 ? `${listed.slice(0, -1).join(', ')} and ${listed[listed.length - 1]}` : (listed[0] ?? '')}${needDestructive.length > 0 ? ', which only a run that consumes disposable entries shows (--destructive, ISWC_DESTRUCTIVE=1, where the target allows it)' : ''}.`,
    );
    for (const n of safeExtra.filter((x) => !('destructive' in x.advice))) lines.push(...checkLines(n.checkId, adviceText(n.advice, options.budget)));
  }
  for (const [m, name] of [
    [smoke, 'The smoke plan'],
    [budget, `A budget of ${options.budget} requests`],
  ] as const) {
    const extra = beyondDestructive(m);
    if (extra.length === 0) lines.push(`${name} exercises every spec check the destructive run does.`);
    else lines.push(`${name} leaves out ${extra.map((n) => `${n.checkId} (${adviceText(n.advice, options.budget)})`).join(', ')}.`);
  }

  const near = neighbourCoverage(profile);
  const fields = near.sent.length + near.left.length;
  lines.push('');
  lines.push(`Near neighbours of the profile's data (a value one step from data the target holds, so that a server that cuts, trims, folds or leniently parses it lands on that data): a destructive run sends them for ${near.sent.length} of ${fields} fields with a stated limit or pattern, a non-destructive run for ${near.safe.length} (on the others a lenient server would change data).`);
  if (near.left.length > 0) {
    lines.push(`Left out for want of data (a lenient reading of these fields would pass unseen):`);
    for (const l of near.left) lines.push(`  ${l.field}: ${l.reason}`);
  }

  lines.push('', ...findingLines(findings));
  const refusals = productionRefusals(profile);
  lines.push(
    '',
    refusals.length === 0
      ? `Against production as built (docs/production.md): every entry names agency ${profile.agency}'s own works, in agencies its registry holds.`
      : `Against production as built, these entries would be refused or held for approval (docs/production.md; they do not change the exit code):`,
    ...refusals.map((r) => `  ${r}`),
  );
  const interfering = findings.filter((f) => f.severity === 'error').length;
  const warnings = findings.length - interfering;
  if (options.consumed) lines.push('', options.consumed.text);
  const consumed = options.consumed?.entries ?? 0;
  const result = `${interfering > 0 ? plural(interfering, 'entry interferes', 'entries interfere') : 'no entries interfere'}${consumed > 0 ? `, ${plural(consumed, 'entry', 'entries')} consumed` : ''}${warnings > 0 ? `, ${plural(warnings, 'warning')}` : ''}`;
  lines.push('', `Result: ${result} (exit ${interfering + consumed > 0 ? 1 : 0}).`);
  return { text: lines.join('\n'), interfering, warnings };
}

function positiveInteger(name: string, raw: string | undefined, fallback: number): number {
  if (raw === undefined) return fallback;
  if (!/^[1-9][0-9]*$/.test(raw)) throw new UsageError(`--${name} must be a positive integer, got "${raw}"`);
  return Number(raw);
}

/** What `--against URL` says: the profile's disposable entries the report left by a run against URL records consumed. */
export function consumedAgainst(profile: TargetProfile, url: string, reportDir: string): { text: string; entries: number } {
  let origin: string;
  try {
    origin = new URL(url).origin;
  } catch {
    throw new UsageError(`--against must be the target's base URL (http:// or https://), got "${url}"`);
  }
  const file = path.join(reportDir, 'conformance.json');
  const shownFile = shownPath(file);
  const earlier = earlierConsumption(file, url);
  if (!earlier) {
    const none = existsSync(file) ? `its report ${shownFile} is of another target or records no entry consumed` : `no report in ${shownPath(reportDir)} (--report-dir)`;
    return { text: `Against ${origin}: no entry of the profile is known consumed (${none}).`, entries: 0 };
  }
  const name = profileEntryNamer(profile);
  const ours = earlier.entries.filter((c) => profileIndex(profile, c.kind, c.entry) >= 0);
  if (ours.length === 0) return { text: `Against ${origin}: no entry of the profile is recorded consumed in ${shownFile}.`, entries: 0 };
  return { text: `Against ${origin}: ${consumedReason(ours, shownFile, name)}. Where the target refuses them, a destructive run reports their cases not judged and ends with exit 3.`, entries: ours.length };
}

export const profileCommand: Command = {
  name: 'profile',
  summary: 'check a target profile: what a run can exercise with it, what to add, entries that interfere',
  usage: 'npx iswc-conformance profile check FILE [--budget N] [--runs N] [--against URL [--report-dir DIR]]\n       npx iswc-conformance profile check --client FILE\n       (FILE may also be given as --target FILE, as run and plan take it)',
  description:
    `Validates the profile (exit 2, with the JSON path of each problem, when it is not valid), then plans without sending anything: how many of the document's spec checks a non-destructive run, a destructive run, the smoke plan and a budget of N requests (default ${DEFAULT_CHECK_BUDGET}) exercise with it, and for each spec check one of them does not, the smallest addition to the profile that would ("outcome.sequence: add 4 more merges"), each confirmed by planning that mode again with it; where no addition brings a check within the smoke plan or the budget, it says so ("does not fit in 60 requests (a larger --budget)"). A new profile takes tens of seconds to plan: on a terminal, a line on standard error says which mode it is planning, and is cleared before the report. It names entries that interfere: an ISWC merged by two merge entries, a merged ISWC that is another entry's preferred ISWC, a demerge or submission under an ISWC a merge entry merges away, an ISWC of iswcs (existing data, never changed) a merge entry merges away, two demerge entries under one preferred ISWC (one merge request may have carried both: a demerge of either then removes both), the same agency work in two entries, an entry naming an unknown ISWC. Production refuses cycles and re-parenting, so the second such merge would be refused. Check digits that do not hold are warnings. With --client it says instead what a client under test can exercise with the profile in the sandbox: for each operation, which entries it may use and how (merges not yet done, works already merged, submissions that exist), a request it can send as it stands, and what to add where an operation cannot succeed. With --against URL it also reads the report a run against that target left in the report directory (--report-dir, default ISWC_REPORT_DIR or reports) and names the profile's disposable entries that run consumed: a destructive run would not judge their cases (docs/target-profile.md).`,
  options: {
    budget: { type: 'string', value: 'N', description: `The request budget to plan for (default ${DEFAULT_CHECK_BUDGET}).` },
    runs: { type: 'string', value: 'N', description: 'Runs per property-based check, for the request counts (default 100, as ISWC_RUNS).' },
    against: { type: 'string', value: 'URL', description: "The target's base URL: name the profile's disposable entries an earlier run against it consumed, as the report it left says (nothing is sent)." },
    'report-dir': { type: 'string', value: 'DIR', description: 'With --against: where that run wrote its reports (default ISWC_REPORT_DIR, else reports).' },
    target: { type: 'string', value: 'FILE', description: 'The profile to check, named as run and plan name it: the same as FILE.' },
    client: { type: 'boolean', description: 'Check the profile for a client under test in the sandbox (npx iswc-conformance sandbox --target FILE): what it can exercise, operation by operation, with a request it can send.' },
  },
  positionals: { min: 1, max: 2 },
  exitCodes: [
    [EXIT.OK, 'the profile is valid and no entries interfere (check-digit warnings and spec checks the profile cannot exercise do not change it); with --client, a client can also succeed at every operation with it'],
    [EXIT.NOT_CONFORMANT, 'entries of the profile interfere (listed): a run would report failures the target did not commit; with --against, also entries an earlier run against that target consumed (listed, with what to do); with --client, also an operation a client cannot succeed at with it (what to add is listed)'],
    exitMeaning(EXIT.USAGE, `: the profile cannot be read or is not valid`),
  ],
  async run({ values, positionals }, io) {
    const [sub, named] = positionals;
    if (sub !== 'check') throw new UsageError(`unknown subcommand "${sub ?? ''}": the profile command has one, check (npx iswc-conformance profile check FILE)`);
    const target = stringOption(values, 'target');
    if (named !== undefined && target !== undefined && named !== target) throw new UsageError(`two profiles given, ${named} and --target ${target}: name one (npx iswc-conformance profile check FILE)`);
    const file = named ?? target;
    if (file === undefined) throw new UsageError('name the profile to check: npx iswc-conformance profile check FILE (or --target FILE)');
    if (values.client === true) {
      const given = ['budget', 'runs', 'against', 'report-dir'].filter((k) => values[k] !== undefined);
      if (given.length > 0) throw new UsageError(`${given.map((k) => `--${k}`).join(', ')} plans a run of the suite; --client says what a client can exercise (nothing is planned)`);
      const shownFile = file ?? '';
      const checked = renderClientProfileCheck(shownFile, loadProfile(path.resolve(io.cwd, shownFile), shownFile));
      io.stdout(`${checked.text}\n`);
      return checked.unreachable + checked.interfering > 0 ? EXIT.NOT_CONFORMANT : EXIT.OK;
    }
    const budget = positiveInteger('budget', stringOption(values, 'budget'), DEFAULT_CHECK_BUDGET);
    const runs = positiveInteger('runs', stringOption(values, 'runs'), 100);
    const shown = file ?? '';
    const profile = loadProfile(path.resolve(io.cwd, shown), shown);
    const against = stringOption(values, 'against');
    const reportDir = stringOption(values, 'report-dir');
    if (reportDir !== undefined && against === undefined) throw new UsageError('--report-dir says where the runs against --against URL wrote their reports: give --against too');
    const consumed = against !== undefined ? consumedAgainst(profile, against, path.resolve(io.cwd, reportDir ?? (io.env.ISWC_REPORT_DIR?.trim() || 'reports'))) : undefined;
    const progress = planningProgress(io);
    let rendered: Awaited<ReturnType<typeof renderProfileCheck>>;
    try {
      rendered = await renderProfileCheck(shown, profile, { budget, runs, ...(consumed ? { consumed } : {}), ...(progress.show ? { progress: progress.show } : {}) });
    } finally {
      progress.clear();
    }
    const { text, interfering } = rendered;
    io.stdout(`${text}\n`);
    return interfering > 0 || (consumed?.entries ?? 0) > 0 ? EXIT.NOT_CONFORMANT : EXIT.OK;
  },
};
