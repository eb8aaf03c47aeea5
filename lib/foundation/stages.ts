import { readFileSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { repoRoot } from './paths.ts';

/**
 * The pipeline's stages, in the one direction data flows through them. A file of a stage may import only
 * files of its own stage or of earlier ones; `foundation` (lib/foundation and lib/config) imports only
 * itself; `composition` wires the stages together. tests/unit/architecture.spec.ts holds the code to this.
 */
export const STAGES = ['foundation', 'contract', 'generate', 'run', 'check', 'report', 'composition'] as const;
export type Stage = (typeof STAGES)[number];

/**
 * The rooms of lib/: one folder each, for the part of the tool it serves, and the stage its files belong
 * to. No file sits at the root of lib/.
 */
export const ROOMS: Readonly<Record<string, { stage: Stage; holds: string }>> = {
  foundation: { stage: 'foundation', holds: 'what every stage shares: paths, redaction, signals and the processes that started this one, the stage rule' },
  config: { stage: 'foundation', holds: 'the settings of a run, read from flags, the environment and files' },
  contract: { stage: 'contract', holds: 'the interface document as data: operations, schemas, profiles, exchanges' },
  traffic: { stage: 'contract', holds: "agencies' recorded traffic: the JSON-lines format the sandbox writes, HAR and gateway-log readers, credentials refused" },
  generate: { stage: 'generate', holds: 'cases, scenarios and property generators' },
  run: { stage: 'run', holds: 'sending: the HTTP client, pacing, budgets, plans' },
  check: { stage: 'check', holds: 'the check registry and the judge' },
  report: { stage: 'report', holds: 'reports, certificates, diffs and waivers' },
  engine: { stage: 'composition', holds: "the run's one engine, how Playwright workers reach it, the in-process pipeline, progress" },
  suite: { stage: 'composition', holds: 'the Playwright declaration of the conformance suite' },
  cli: { stage: 'composition', holds: 'the command line: its commands, flags, usage errors and replay' },
  sandbox: { stage: 'composition', holds: 'the sandbox that judges a client under test' },
  selfcheck: { stage: 'composition', holds: 'the fault self-check and in-process reports' },
  sweep: { stage: 'composition', holds: 'random combinations of legitimate choices with faults behind them' },
  compat: { stage: 'composition', holds: "the compatibility replay: agencies' traffic sampled by shape, mapped onto disposable data, sent to a build, judged twice" },
};

/** The stage of a file under lib/ (path relative to the repository root); undefined outside lib/, at its root or in a folder that is no room. */
export function stageOf(file: string): Stage | undefined {
  const rel = file.split(path.sep).join('/');
  if (!rel.startsWith('lib/')) return undefined;
  const parts = rel.split('/');
  if (parts.length < 3) return undefined;
  return ROOMS[parts[1] ?? '']?.stage;
}

/** Every relative import (static, type-only and dynamic) of a TypeScript file, resolved against the repository. */
export function importsOf(file: string): string[] {
  const text = readFileSync(path.join(repoRoot, file), 'utf8');
  const out: string[] = [];
  for (const m of text.matchAll(/(?:^|\n)\s*(?:import|export)\b[^'"`;]*?\bfrom\s*['"](\.{1,2}\/[^'"]+)['"]|import\(\s*['"](\.{1,2}\/[^'"]+)['"]\s*\)/g)) {
    const spec = m[1] ?? m[2];
    if (spec) out.push(path.posix.normalize(path.posix.join(path.posix.dirname(file), spec)));
  }
  return out;
}

export function tsFilesUnder(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(path.join(repoRoot, dir))) {
    const rel = path.posix.join(dir, name);
    if (statSync(path.join(repoRoot, rel)).isDirectory()) out.push(...tsFilesUnder(rel));
    else if (name.endsWith('.ts')) out.push(rel);
  }
  return out.sort();
}

export interface Violation {
  from: string;
  to: string;
  why: string;
}

/**
 * Imports that break the stage order or reach outside lib/ (composition alone may import server/, which
 * itself imports only contract and foundation), and import cycles among the files of lib/.
 */
export function stageViolations(files: readonly string[] = tsFilesUnder('lib'), importsOfFile: (file: string) => string[] = importsOf): { violations: Violation[]; cycles: string[][] } {
  const violations: Violation[] = [];
  const graph = new Map<string, string[]>();
  for (const from of files) {
    const targets = importsOfFile(from);
    graph.set(from, targets.filter((t) => t.startsWith('lib/')));
    const fromStage = stageOf(from);
    if (!fromStage) continue;
    for (const to of targets) {
      if (!to.startsWith('lib/')) {
        // Composition starts the reference server (the embedded run, the command line, the sandbox);
        // no other stage knows it exists.
        if (fromStage === 'composition' && to.startsWith('server/')) continue;
        violations.push({ from, to, why: `lib/ imports ${to.split('/')[0]}/` });
        continue;
      }
      const toStage = stageOf(to);
      if (!toStage) continue;
      const ok = fromStage === 'foundation' ? toStage === 'foundation' : STAGES.indexOf(toStage) <= STAGES.indexOf(fromStage);
      if (!ok) violations.push({ from, to, why: `${fromStage} imports a later stage (${toStage})` });
    }
  }
  return { violations, cycles: cyclesOf(graph) };
}

/** Elementary cycles found by depth-first search (each reported once, from its smallest file). */
function cyclesOf(graph: Map<string, string[]>): string[][] {
  const cycles: string[][] = [];
  const seen = new Set<string>();
  const state = new Map<string, 'open' | 'done'>();
  const stack: string[] = [];
  const visit = (node: string): void => {
    state.set(node, 'open');
    stack.push(node);
    for (const next of graph.get(node) ?? []) {
      if (state.get(next) === 'open') {
        const cycle = stack.slice(stack.indexOf(next));
        const key = [...cycle].sort().join(' ');
        if (!seen.has(key)) {
          seen.add(key);
          cycles.push([...cycle, next]);
        }
      } else if (!state.has(next)) {
        visit(next);
      }
    }
    stack.pop();
    state.set(node, 'done');
  };
  for (const node of graph.keys()) if (!state.has(node)) visit(node);
  return cycles;
}
