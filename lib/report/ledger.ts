import type { Catalogue } from '../run/tried.ts';
import type { ConformanceReport } from './model.ts';

export type { Catalogue };

/**
 * The ledger of gates (issue 37): which faults of the reference server's catalogue the runs of one kind
 * (the same profile, mode, strictness, plan and budget) tried between them, since a date, and which not
 * yet. It reads what each run recorded (meta.plan.tried: lib/run/tried.ts), so gates of different harness
 * versions add up by fault; it never plans anything again.
 */

export interface LedgerRun {
  file: string;
  report: ConformanceReport;
}

export interface LedgerGroup {
  /** What the runs of the group share, in words: profile, mode, strictness, plan and budget. */
  label: string;
  profile: string;
  destructive: boolean;
  strict: boolean;
  plan: string;
  budget: number | null;
  /** The runs that recorded what they tried, oldest first. */
  runs: Array<{ file: string; startedAt: string; slice?: number; tried: number; catalogue: string }>;
  /** Runs of the group that record nothing tried (a merge of shards, an earlier harness version). */
  unrecorded: string[];
  /** Slices of the rotation the runs took, as asked (budgeted runs only). */
  slices: number[];
  /** Faults of the catalogue the mode can show, tried by at least one run. */
  tried: string[];
  /** Faults of the catalogue the mode can show, tried by none. */
  notYet: string[];
  /** Of those, the ones a run without --strict can fail on (spec level). */
  notYetSpec: string[];
  /** Faults the runs tried that the catalogue of this harness no longer holds (a fault renamed or removed since). */
  gone: string[];
  /** The profile file as the last run's caller typed it (meta.replay.target), when not the default one. */
  target?: string;
  /** The measurements the runs' records refer to: more than one when the gates walked different rankings. */
  catalogues: string[];
  /** The faults the mode can show in all, and of them spec level. */
  total: number;
  totalSpec: number;
}

const groupKey = (r: ConformanceReport): string => {
  const m = r.meta;
  return JSON.stringify([m.profile, m.profileDigest ?? '', m.destructive, m.strict, m.plan?.name ?? 'full', m.plan?.budget ?? null]);
};

function groupLabel(r: ConformanceReport): string {
  const m = r.meta;
  const plan = m.plan?.name === 'smoke' ? 'smoke plan' : m.plan?.budget !== undefined && m.plan.budget !== null ? `budget ${m.plan.budget}` : 'full plan';
  return `profile "${m.profile}", ${m.destructive ? 'destructive' : 'non-destructive'}${m.strict ? ', strict' : ''}, ${plan}`;
}

/**
 * The runs grouped by kind, each group's faults tried and not yet tried. `since` (an ISO date or time)
 * keeps the runs that started then or later.
 */
export function buildLedger(runs: readonly LedgerRun[], catalogue: Catalogue, since?: string): LedgerGroup[] {
  const kept = runs.filter((r) => since === undefined || r.report.meta.startedAt >= since).sort((a, b) => a.report.meta.startedAt.localeCompare(b.report.meta.startedAt));
  const groups = new Map<string, LedgerRun[]>();
  for (const r of kept) groups.set(groupKey(r.report), [...(groups.get(groupKey(r.report)) ?? []), r]);
  return [...groups.values()].map((members) => {
    const first = members[0].report;
    const mode = first.meta.destructive ? 'destructive' : 'safe';
    const showable = catalogue.faults[mode];
    const recorded = members.filter((r) => r.report.meta.plan?.tried !== undefined);
    const tried = new Set(recorded.flatMap((r) => r.report.meta.plan?.tried ?? []));
    const notYet = [...showable.keys()].filter((f) => !tried.has(f)).sort();
    return {
      label: groupLabel(first),
      profile: first.meta.profile,
      destructive: first.meta.destructive,
      strict: first.meta.strict,
      plan: first.meta.plan?.name ?? 'full',
      budget: first.meta.plan?.budget ?? null,
      runs: recorded.map((r) => ({
        file: r.file,
        startedAt: r.report.meta.startedAt,
        ...(r.report.meta.plan?.slice !== undefined ? { slice: r.report.meta.plan.slice } : {}),
        tried: r.report.meta.plan?.tried?.length ?? 0,
        catalogue: r.report.meta.plan?.catalogue ?? '',
      })),
      unrecorded: members.filter((r) => r.report.meta.plan?.tried === undefined).map((r) => r.file),
      slices: [...new Set(recorded.flatMap((r) => (r.report.meta.plan?.slice !== undefined ? [r.report.meta.plan.slice] : [])))].sort((a, b) => a - b),
      tried: [...tried].filter((f) => showable.has(f)).sort(),
      notYet,
      notYetSpec: notYet.filter((f) => showable.get(f) === 'spec'),
      gone: [...tried].filter((f) => !showable.has(f)).sort(),
      catalogues: [...new Set(recorded.map((r) => r.report.meta.plan?.catalogue ?? ''))].filter(Boolean),
      ...(members.at(-1)?.report.meta.replay?.target !== undefined ? { target: members.at(-1)?.report.meta.replay?.target } : {}),
      total: showable.size,
      totalSpec: [...showable.values()].filter((l) => l === 'spec').length,
    };
  });
}

/** At most `n` names, then how many more. */
function someOf(names: readonly string[], n: number): string {
  return names.length <= n ? names.join(', ') : `${names.slice(0, n).join(', ')}, … and ${names.length - n} more`;
}

/** Slices as ranges: 0-7, 9, 12-13. */
export function sliceRanges(slices: readonly number[]): string {
  const out: string[] = [];
  for (let i = 0; i < slices.length; ) {
    let j = i;
    while (j + 1 < slices.length && slices[j + 1] === slices[j] + 1) j += 1;
    out.push(i === j ? String(slices[i]) : `${slices[i]}-${slices[j]}`);
    i = j + 1;
  }
  return out.join(', ');
}

/** The ledger in words, a block per group; `catalogue` is this harness's measurement. */
export function renderLedger(groups: readonly LedgerGroup[], catalogue: Catalogue, shown: (file: string) => string): string[] {
  const lines: string[] = [];
  for (const g of groups) {
    if (g.runs.length === 0) {
      // Nothing to add up: no figures, only why.
      lines.push(`${g.label}: no run recorded what it tried`, `  not counted: ${g.unrecorded.length} run${g.unrecorded.length === 1 ? ' that records' : 's that record'} nothing tried (a merge of shards, or a report of a harness before the ledger): ${someOf(g.unrecorded.map(shown), 4)}`, '');
      continue;
    }
    lines.push(`${g.label}: ${g.runs.length} run${g.runs.length === 1 ? '' : 's'} recorded what ${g.runs.length === 1 ? 'it' : 'they'} tried${g.runs.length > 0 ? `, ${g.runs[0]?.startedAt ?? ''} to ${g.runs.at(-1)?.startedAt ?? ''}` : ''}`);
    if (g.slices.length > 0) {
      const next = (g.slices.at(-1) ?? -1) + 1;
      const flags = [...(g.target !== undefined ? ['--target', g.target] : []), ...(g.destructive ? ['--destructive'] : []), ...(g.strict ? ['--strict'] : []), '--budget', String(g.budget ?? ''), '--slice', String(next)];
      lines.push(`  slices run: ${sliceRanges(g.slices)}; the next gate: --slice ${next} (what it sends: npx iswc-conformance plan ${flags.join(' ')})`);
    }
    lines.push(`  tried: ${g.tried.length} of the ${g.total} faults of the catalogue a ${g.destructive ? 'destructive' : 'non-destructive'} run can show (${g.totalSpec - g.notYetSpec.length} of the ${g.totalSpec} that fail a run without --strict)`);
    lines.push(g.notYet.length === 0 ? '  not yet tried: none' : `  not yet tried: ${g.notYet.length}${g.notYetSpec.length < g.notYet.length ? ` (${g.notYetSpec.length} spec level)` : ''}: ${someOf(g.notYet, 12)}`);
    if (g.gone.length > 0) lines.push(`  tried, and no longer in this harness's catalogue (renamed or removed since): ${someOf(g.gone, 6)}`);
    const others = g.catalogues.filter((c) => c !== catalogue.fingerprint);
    if (others.length > 0) lines.push(`  ${others.length === g.catalogues.length ? 'every run' : 'some runs'} walked another ranking than this harness's (measurement ${someOf(others, 3)}, here ${catalogue.fingerprint}): their slices are not this harness's; what they tried still counts by fault`);
    if (g.unrecorded.length > 0) lines.push(`  not counted: ${g.unrecorded.length} run${g.unrecorded.length === 1 ? ' that records' : 's that record'} nothing tried (a merge of shards, or a report of a harness before the ledger): ${someOf(g.unrecorded.map(shown), 4)}`);
    lines.push('');
  }
  return lines;
}
