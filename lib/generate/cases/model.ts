import fc from 'fast-check';
import type { Format } from '../../contract/codec/index.ts';
import type { DemergeEntry, MergeEntry, SubmissionEntry, TargetProfile } from '../../contract/profile/types.ts';
import type { CaseContext, CaseDef, Probe, Step } from '../case.ts';
import { expectCheck } from '../expectations.ts';
import { bodyRequest, queryRequest } from '../requests.ts';
import { queryFor, sourceDbOf, unknownIswc } from '../templates.ts';
import { mergeBody } from './merge.ts';

const MERGE = 'mergeIswcMetadata';
const DEMERGE = 'demergeIswcMetadata';
const DELETE = 'deleteSubmission';

/** Entries of each disposable kind the model test claims per format, at most (it runs on fewer). */
export const MODEL_CLAIMS = { merges: 10, demerges: 10, submissions: 10 } as const;

interface Work {
  preferredIswc: string;
  agency: string;
  workcode: string;
}

/** The model as data: recorded with a sequence, so that replaying it starts from the same world. */
export interface WorldState {
  merges: MergeEntry[];
  submissions: SubmissionEntry[];
  merged: Work[];
  demerged: Work[];
  deleted: SubmissionEntry[];
  mergedInto: string[];
}

/**
 * The model of the target's observable state. The target cannot be reset between fast-check runs, so
 * the model is the world as it is now and lives across runs: each command predicts from the current
 * world and updates it with what really happened, and a shrunk sequence replays on fresh entries.
 */
class World {
  readonly merges: MergeEntry[];
  readonly submissions: SubmissionEntry[];
  /** Metadata merged into a preferred ISWC now (from the profile's demerges, and merges done here). */
  readonly merged: Work[];
  readonly demerged: Work[] = [];
  readonly deleted: SubmissionEntry[] = [];
  /** Preferred ISWCs that received a merge in this run (where "demerge anything" faults show). */
  readonly mergedInto: string[] = [];

  constructor(merges: MergeEntry[], demerges: DemergeEntry[], submissions: SubmissionEntry[]) {
    this.merges = [...merges];
    this.submissions = [...submissions];
    this.merged = demerges.map((d) => ({ preferredIswc: d.preferredIswc, agency: d.agency, workcode: d.workcode }));
  }

  snapshot(): WorldState {
    return structuredClone({ merges: this.merges, submissions: this.submissions, merged: this.merged, demerged: this.demerged, deleted: this.deleted, mergedInto: this.mergedInto });
  }

  /** The world a recorded state describes (a report's, so checked for its shape). */
  static from(state: unknown): World {
    const s = state as Partial<Record<keyof WorldState, unknown>> | null;
    const lists = ['merges', 'submissions', 'merged', 'demerged', 'deleted', 'mergedInto'] as const;
    if (s === null || typeof s !== 'object' || !lists.every((k) => Array.isArray(s[k]))) throw new Error('the recorded model state is not one the model test wrote');
    const w = structuredClone(s) as WorldState;
    const world = new World(w.merges, [], w.submissions);
    world.merged.push(...w.merged);
    world.demerged.push(...w.demerged);
    world.deleted.push(...w.deleted);
    world.mergedInto.push(...w.mergedInto);
    return world;
  }
}

type Real = { ctx: CaseContext; format: Format; log: Probe[] };

function workLabel(w: Work): string {
  return `${w.agency}/${w.workcode} on ${w.preferredIswc}`;
}

async function expectStatus(real: Real, step: Omit<Step, 'expect'>, status: number | 'refused', because: string): Promise<void> {
  const probe = await real.ctx.probe({ ...step, expect: [expectCheck('outcome.sequence', { status, because })] });
  real.log.push(probe);
  if (probe.failures.length > 0) throw new Error(`${step.label}: ${probe.failures.join('; ')}`);
}

class MergeCommand implements fc.AsyncCommand<World, Real> {
  check(m: Readonly<World>): boolean {
    return m.merges.length > 0;
  }
  async run(m: World, r: Real): Promise<void> {
    const entry = m.merges.shift() as MergeEntry;
    await expectStatus(
      r,
      { label: `merge into ${entry.preferredIswc}`, operation: MERGE, request: bodyRequest(MERGE, r.format, mergeBody(entry), { query: queryFor(MERGE, { preferredIswc: entry.preferredIswc, agency: r.ctx.profile.agency }) }) },
      204,
      'the profile lists this merge as accepted (section 4.2)',
    );
    m.mergedInto.push(entry.preferredIswc);
    // Newest first: a demerge right after a merge then shows whether the merge took effect, for whichever of
    // its agency works it picks (every item of a merge is merged, issue 28). "One set of metadata" (4.4) may
    // be one work or all the works of one merge request, so once one of them is demerged nothing is predicted
    // of the others (DemergeCommand drops them).
    for (const w of [...(entry.agencyWorks ?? [])].reverse()) m.merged.unshift({ preferredIswc: entry.preferredIswc, agency: w.agencyCode, workcode: w.agencyWorkCode });
  }
  toString(): string {
    return 'merge(next entry)';
  }
}

class DemergeCommand implements fc.AsyncCommand<World, Real> {
  constructor(
    private readonly which: 'merged' | 'again' | 'never',
    private readonly pick: number,
  ) {}
  check(m: Readonly<World>): boolean {
    if (this.which === 'merged') return m.merged.length > 0;
    if (this.which === 'again') return m.demerged.length > 0;
    return true;
  }
  async run(m: World, r: Real): Promise<void> {
    let work: Work;
    let status: number | 'refused';
    let because: string;
    if (this.which === 'merged') {
      work = m.merged.splice(this.pick % Math.min(m.merged.length, 3), 1)[0];
      status = 204;
      because = `${workLabel(work)} is merged now (sections 3, 4.4)`;
    } else if (this.which === 'again') {
      work = m.demerged[this.pick % Math.min(m.demerged.length, 3)];
      status = 'refused';
      because = `${workLabel(work)} was demerged already (section 3)`;
    } else {
      const target = m.mergedInto[this.pick % Math.max(1, m.mergedInto.length)] ?? r.ctx.profile.iswcs[0] ?? '';
      work = { preferredIswc: target, agency: r.ctx.profile.agency, workcode: `NEVER${this.pick % 1000}` };
      status = 'refused';
      because = `${workLabel(work)} was never merged (section 4.4)`;
    }
    await expectStatus(r, { label: `demerge ${workLabel(work)}`, operation: DEMERGE, request: queryRequest(DEMERGE, queryFor(DEMERGE, { preferredIswc: work.preferredIswc, agency: work.agency, workcode: work.workcode })) }, status, because);
    if (this.which === 'merged') {
      m.demerged.unshift(work);
      // "One set of metadata" (4.4) may be one work, one merge request or one merged ISWC with all its works:
      // what else was merged into that preferred ISWC may be gone now, and nothing is predicted of it.
      for (let i = m.merged.length - 1; i >= 0; i--) if (m.merged[i]?.preferredIswc === work.preferredIswc) m.merged.splice(i, 1);
    }
  }
  toString(): string {
    return `demerge(${this.which}, ${this.pick})`;
  }
}

class DeleteCommand implements fc.AsyncCommand<World, Real> {
  constructor(
    private readonly which: 'present' | 'again' | 'unknown',
    private readonly pick: number,
  ) {}
  check(m: Readonly<World>): boolean {
    if (this.which === 'present') return m.submissions.length > 0;
    if (this.which === 'again') return m.deleted.length > 0;
    return true;
  }
  async run(m: World, r: Real): Promise<void> {
    let s: SubmissionEntry;
    let status: number | 'refused';
    let because: string;
    if (this.which === 'present') {
      s = m.submissions.shift() as SubmissionEntry;
      status = 204;
      because = 'the profile lists this submission and it was not deleted yet (section 4.3)';
    } else if (this.which === 'again') {
      s = m.deleted[this.pick % Math.min(m.deleted.length, 3)];
      status = 'refused';
      because = 'this submission was deleted already (section 3)';
    } else {
      // The profile's own source database: a key may act for its source databases only (5.3).
      s = { preferredIswc: unknownIswc(r.ctx.profile, this.pick), agency: r.ctx.profile.agency, workcode: `UNKNOWN${this.pick % 1000}`, sourceDb: sourceDbOf(r.ctx.profile) };
      status = 'refused';
      because = `${s.preferredIswc} does not exist (section 4.3)`;
    }
    const query = queryFor(DELETE, { preferredIswc: s.preferredIswc, agency: s.agency, workcode: s.workcode, sourceDb: s.sourceDb, reasonCode: r.ctx.profile.reasonCode });
    await expectStatus(r, { label: `delete ${s.agency}/${s.workcode} on ${s.preferredIswc}`, operation: DELETE, request: queryRequest(DELETE, query) }, status, because);
    if (this.which === 'present') m.deleted.unshift(s);
  }
  toString(): string {
    return `delete(${this.which}, ${this.pick})`;
  }
}

const commands = [
  fc.constant(new MergeCommand()),
  fc.tuple(fc.constantFrom('merged' as const, 'again' as const, 'never' as const), fc.nat()).map(([w, p]) => new DemergeCommand(w, p)),
  fc.tuple(fc.constantFrom('present' as const, 'again' as const, 'unknown' as const), fc.nat()).map(([w, p]) => new DeleteCommand(w, p)),
];

const MAX_COMMANDS = 10;

/**
 * Sends the one command sequence at the replayed path (seed, path and, for a shrunk sequence, fast-check's
 * replayPath), from the model the run had when it ran that sequence (recorded with it: earlier sequences
 * had consumed entries), so that it sends the very requests the run sent; their answers depend on what
 * the run had done to the target before. Nothing for a replay of the case's fixed steps.
 */
async function replaySequence(ctx: CaseContext, fresh: World, format: Format): Promise<void> {
  const replay = ctx.replay;
  if (replay?.kind !== 'generated') return;
  const world = replay.modelState !== undefined ? World.from(replay.modelState) : fresh;
  let sent: { log: Probe[]; sequence: string } | undefined;
  await fc.check(
    fc.asyncProperty(fc.commands(commands, { maxCommands: MAX_COMMANDS, ...(replay.replayPath !== undefined ? { replayPath: replay.replayPath } : {}) }), async (cmds) => {
      if (sent) return;
      const real: Real = { ctx, format, log: [] };
      sent = { log: real.log, sequence: '' };
      try {
        await fc.asyncModelRun(() => ({ model: world, real }), cmds);
      } finally {
        sent.sequence = [...cmds].map(String).join(',');
      }
    }),
    { seed: replay.seed, path: replay.path, numRuns: 1, endOnFailure: true },
  );
  if (!sent) throw new Error(`model test: fast-check offered no sequence at path ${replay.path} (seed ${replay.seed})`);
  const { log, sequence } = sent;
  log.forEach((probe, i) => ctx.record({ ...probe.step, label: `sequence replayed · step ${i + 1}: ${probe.step.label}` }, probe.exchange, { ...replay, generated: `sequence ${sequence} replayed` }));
}

/**
 * Stateful model test (fast-check commands) over merge, demerge and submission delete, on the
 * disposable profile entries it claims. It predicts 204, or a refusal (400 or 404: the document lists
 * both) where nothing is there to act on. A failing sequence shrinks to the shortest one that still fails;
 * its steps are recorded with the seed and path that replay it.
 */
export function modelCases(_profile: TargetProfile): CaseDef[] {
  return [
    {
      id: 'model.merge-demerge-delete',
      title: 'Stateful model: merges, demerges and deletes answer as the stated outcomes predict',
      operation: MERGE,
      formats: ['json', 'xml'],
      tags: ['@property', '@model', '@destructive'],
      // Up to ten of each, from what the fixed cases leave: one merge is enough for a sequence to show
      // what a merge, a demerge and their repeats do; demerges and submissions add their own commands.
      claims: [
        { kind: 'merges', count: MODEL_CLAIMS.merges, atLeast: 1 },
        { kind: 'demerges', count: MODEL_CLAIMS.demerges, atLeast: 0 },
        { kind: 'submissions', count: MODEL_CLAIMS.submissions, atLeast: 0 },
      ],
      async run(ctx) {
        const world = new World(
          (ctx.entries.merges ?? []) as MergeEntry[],
          (ctx.entries.demerges ?? []) as DemergeEntry[],
          (ctx.entries.submissions ?? []) as SubmissionEntry[],
        );
        const format: Format = ctx.format === 'xml' ? 'xml' : 'json';
        if (ctx.replay) {
          await replaySequence(ctx, world, format);
          return;
        }
        let lastRun: Probe[] = [];
        let lastIndex = 0;
        let lastBefore = world.snapshot();
        let index = -1;
        let failingRun: Probe[] | undefined;
        let failingBefore = lastBefore;
        const result = await fc.check(
          fc.asyncProperty(fc.commands(commands, { maxCommands: MAX_COMMANDS }), async (cmds) => {
            index += 1;
            const real: Real = { ctx, format, log: [] };
            const before = world.snapshot();
            try {
              await fc.asyncModelRun(() => ({ model: world, real }), cmds);
              // An empty sequence sends nothing: the last one that sent something is what the report shows.
              if (real.log.length > 0) {
                lastRun = real.log;
                lastIndex = index;
                lastBefore = before;
              }
            } catch (e) {
              failingRun = real.log;
              failingBefore = before;
              throw e;
            }
          }),
          // Sequences, not single requests: a fifth of ISWC_RUNS (at least 10) keeps the request count near the other properties.
          { seed: ctx.seed, numRuns: Math.max(10, Math.ceil(ctx.runs / 5)), endOnFailure: ctx.noShrink ?? false },
        );
        const shown = result.failed && failingRun ? failingRun : lastRun;
        // A shrunk sequence replays only with fast-check's replayPath, which its text carries; a sequence of
        // a passing run is found again by its index alone. Either starts from the model it was run on.
        const sequence = result.failed ? fc.stringify(result.counterexample?.[0]) : '';
        const replayPath = /\/\*replayPath="([^"]*)"\*\//.exec(sequence)?.[1];
        const replay = result.failed
          ? { seed: result.seed, ...(result.counterexamplePath ? { path: result.counterexamplePath } : {}), ...(replayPath !== undefined ? { replayPath } : {}), modelState: failingBefore }
          : { seed: result.seed, path: String(lastIndex), modelState: lastBefore };
        // The label feeds the failure's id: the sequence and the counts, which change with the seed, go to `generated`.
        const prefix = result.failed ? 'minimal failing sequence' : 'sequences passed (last shown)';
        const generated = result.failed ? `minimal failing sequence ${sequence}` : `${result.numRuns} sequences passed (last shown)`;
        shown.forEach((probe, i) => ctx.record({ ...probe.step, label: `${prefix} · step ${i + 1}: ${probe.step.label}` }, probe.exchange, { ...replay, generated }));
        if (result.failed && !failingRun) throw new Error(`model test failed without a failing answer: ${fc.stringify(result.errorInstance)}`);
      },
    },
  ];
}
