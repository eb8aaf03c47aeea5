import type { AuthMode } from '../../contract/exchange.ts';
import type { OperationId } from '../../contract/operations.ts';
import type { DisposableKind } from '../../contract/profile/types.ts';

/**
 * A scenario file as written (fixtures/scenarios/*.yaml, schema schemas/scenario.schema.json), after
 * the schema has accepted it. Values stay unresolved here: references (`${profile.iswcs[0]}`) and
 * directives (`{generate: iswc.valid}`) are resolved when the step runs.
 */

export type ScenarioFormat = 'json' | 'xml';

export interface ExpectationSource {
  check?: string;
  observed?: string;
  because: string;
  sections?: string[];
  /** Extra parameters passed to the check (path, marker, mayNotExist). */
  [param: string]: unknown;
}

export interface StepSource {
  name: string;
  label?: string;
  operation?: OperationId;
  method?: string;
  path?: string;
  query?: Record<string, unknown>;
  body?: unknown;
  rawBody?: string | Partial<Record<ScenarioFormat, string>>;
  auth?: AuthMode;
  contentType?: string | null;
  headers?: Record<string, string>;
  extraStatuses?: number[];
  /**
   * `open-point`: the step probes a point the document leaves open: it asks only http and observed checks,
   * and of the every-answer checks all but status.documented judge it (what the document states of a status
   * holds whatever the status).
   */
  probe?: 'open-point';
  expect: ExpectationSource[];
}

export interface ScenarioSource {
  name: string;
  description: string;
  tags?: string[];
  formats?: ScenarioFormat[];
  uses?: Partial<Record<DisposableKind, number>>;
  steps: StepSource[];
}

/** A scenario that passed the schema and the loader's own checks, with where it came from. */
export interface Scenario extends ScenarioSource {
  /** Case id: scenario.<file stem>.<slug of the name>. */
  id: string;
  /** File it was read from (relative to the repository root when inside it). */
  file: string;
  /** JSON pointer of the scenario inside its file ('' for a one-scenario file, '/2' in a list). */
  pointer: string;
  /** Tags as run: the file's, plus @scenario, plus @destructive when it claims entries. */
  allTags: string[];
}

/** A problem found while loading: the file, the JSON pointer inside it, what is wrong. */
export interface ScenarioProblem {
  file: string;
  path: string;
  message: string;
  /** 1-based line and column of the offending node, when the YAML parser knows it. */
  line?: number;
  col?: number;
}
