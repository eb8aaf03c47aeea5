import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { envFlag } from '../config/config.ts';
import { loadProfile } from '../contract/profile/load.ts';
import type { TargetProfile } from '../contract/profile/types.ts';
import type { OperationId } from '../contract/operations.ts';
import { OPERATION_IDS } from '../contract/operations.ts';
import { fromRoot } from '../foundation/paths.ts';
import { shortKeyProblem } from '../foundation/redact.ts';
import type { ChoiceSetName } from '../../server/index.ts';
import { CHOICE_SETS } from '../../server/index.ts';
import type { Injection, RateLimit } from './trouble.ts';
import { INJECT_KINDS, injectionText, lastRequestOf, parseInjections, parseRateLimit } from './trouble.ts';

/** Everything a sandbox session is started with; parseSandboxArgs makes it from the command line. */
export interface SandboxOptions {
  /** 0: a free port. */
  port: number;
  /** Always a loopback address: the sandbox is for a client on this machine. */
  host: string;
  /** The target profile: what exists (the client's test data). */
  targetFile: string;
  profile: TargetProfile;
  /** The reference server's legitimate choices: production's habits by default. */
  choices: ChoiceSetName;
  reportDir: string;
  /** The session takes this many requests; later ones get 503 with Retry-After (null: no limit). */
  requests: number | null;
  /** End after this many seconds without a request, counted from the first request (null: no limit). */
  idleSeconds: number | null;
  /** End when no request has come this many seconds after the start (null: wait for ever). */
  waitFirstSeconds: number | null;
  /** The operations the client declares it does: each must succeed for "conformant" (null: all four). */
  operations: OperationId[] | null;
  /** The body formats each operation with a body must succeed in (null: those the client sent it in). */
  formats: Array<'json' | 'xml'> | null;
  inject: Injection[];
  rateLimit: RateLimit | null;
  /** http-level violations fail the session too (--strict, ISWC_STRICT=1). */
  strict: boolean;
  /** The key the client must send: ISWC_SANDBOX_KEY, or a random one (`keyGenerated`, printed). */
  key: string;
  keyGenerated: boolean;
  /** Retry-After of the injected 429 and 503, in seconds. */
  retryAfterSeconds: number;
  /** How long the `slow` trouble holds an answer back, in ms. */
  slowMs: number;
}

export type ParsedSandboxArgs = { kind: 'help' } | { kind: 'run'; options: SandboxOptions } | { kind: 'usage'; message: string };

export const DEFAULT_TARGET = 'fixtures/targets/sandbox-client.json';
export const DEFAULT_CHOICES: ChoiceSetName = 'production';
export const RETRY_AFTER_SECONDS = 2;
/** After --requests N: the reports are written once no request has come for this long (a client told 503, Retry-After: 2, may come back once)... */
export const LATE_QUIET_SECONDS = 3;
/** ...and at the latest this long after the N-th answer (a client retrying for ever would keep it open). */
export const LATE_MAX_SECONDS = 30;
export const SLOW_MS = 15_000;

/** The names --operations takes for each operation, beside its operationId. */
export const OPERATION_NAMES: Record<string, OperationId> = { run: 'notifyAgentRun', merge: 'mergeIswcMetadata', delete: 'deleteSubmission', demerge: 'demergeIswcMetadata' };

/** An option of the sandbox's command line, in the shape of lib/cli/command.ts's OptionSpec. */
export interface SandboxOptionSpec {
  type: 'string' | 'boolean';
  multiple?: boolean;
  short?: string;
  value?: string;
  description: string;
}

/** The options of `npx iswc-conformance sandbox`, as data: the parser, --help and docs/cli.md read them. */
export const SANDBOX_OPTIONS: Record<string, SandboxOptionSpec> = {
  port: { type: 'string', value: 'N', description: 'Port on 127.0.0.1 (default 0: a free one). Prints "listening http://127.0.0.1:PORT" when ready.' },
  target: { type: 'string', value: 'FILE', description: `Target profile: what exists, the client's test data (default ${DEFAULT_TARGET}).` },
  choices: {
    type: 'string',
    value: 'SET',
    description: `The reference server's legitimate choices: ${Object.keys(CHOICE_SETS).join(', ')} (default ${DEFAULT_CHOICES}: problem+json and {code, message} error bodies, the gateway's 401 JSON, 404 for an unknown runId, UTF-16 lengths, lenient JSON).`,
  },
  'report-dir': { type: 'string', value: 'DIR', description: 'Where client-conformance.json, client-junit.xml and client-conformance.html go (default ./reports, or ISWC_REPORT_DIR). Created at start; one that cannot be written is refused then (exit 2), before any request.' },
  operations: {
    type: 'string',
    value: 'LIST',
    description: 'The operations the client does, each of which must succeed at least once for the verdict "conformant": run, merge, delete, demerge (or their operationIds), comma-separated (default all four).',
  },
  formats: {
    type: 'string',
    value: 'LIST',
    description: 'json, xml or json,xml: the body formats in which each declared operation with a body (run notification, merge) must succeed (default: for each, the formats the client sent it in).',
  },
  requests: { type: 'string', value: 'N', description: `The session takes N requests and then ends: later requests get 503 with Retry-After: ${RETRY_AFTER_SECONDS} and are recorded, not judged (the report says the session ended by count); the reports are written once no request has come for ${LATE_QUIET_SECONDS} s (at most ${LATE_MAX_SECONDS} s after the N-th answer).` },
  idle: { type: 'string', value: 'SECONDS', description: 'End the session after SECONDS without a request in progress, counted from the first request (a client that takes a while to start is waited for; --wait-first bounds that). A request is in progress from the arrival of its head to the end of its answer (an upload is activity). A request whose client goes away before its body is complete is not judged.' },
  'wait-first': { type: 'string', value: 'SECONDS', description: 'End the session when no request has come SECONDS after it started (verdict incomplete; default: wait for the first request for ever).' },
  inject: {
    type: 'string',
    multiple: true,
    value: 'KIND@N,...',
    description: `Trouble instead of the answer: KIND@N for the N-th request (1-based), KIND@NxM for M requests in a row from the N-th, KIND@NforDs for every request arriving within D seconds (also ms, min) of the N-th, an outage (one per session). Kinds: ${INJECT_KINDS.join(', ')} (429 and 503 with Retry-After: ${RETRY_AFTER_SECONDS}; reset closes the connection unanswered; slow answers after ${SLOW_MS / 1000} s; 401 is the gateway's refusal of the key). Repeatable; two kinds on one request, and N past --requests, are refused (exit 2); a numbered request inside an outage gets its own trouble.`,
  },
  'rate-limit': { type: 'string', value: 'R', description: 'Answer 429 with Retry-After past this rate, as the production gateway does (10/min, 5/s, 600/h).' },
  strict: { type: 'boolean', description: 'http-level violations (Retry-After, bounded retries, the rate limit) fail the session too (also ISWC_STRICT=1).' },
};

export const SANDBOX_ENVIRONMENT: ReadonlyArray<readonly [string, string]> = [
  ['ISWC_SANDBOX_KEY', 'The key the client must send in Ocp-Apim-Subscription-Key; read only from here (never a flag). At least 8 characters (it is replaced in the reports wherever it occurs). Unset: a random key is made and printed. Never written to a report.'],
  ['ISWC_STRICT', '1 (or true, yes): as --strict; 0, false, no or unset: not; anything else is refused (exit 2), as the run reads it.'],
  ['ISWC_REPORT_DIR', 'Default of --report-dir.'],
];

export const SANDBOX_DESCRIPTION =
  "The reference server, started for a client under test. Every request the client sends is judged against the interface document from the client's side (client checks: docs/client-checks.md) and answered as the reference server answers it, with production's habits unless --choices says otherwise; a bad request still gets the real answer. The verdict is conformant when every operation the client declares (--operations, default all four) succeeded at least once, in each declared format, and no gating client check failed. The session ends after --requests N, after --idle SECONDS without a request, when no request came within --wait-first SECONDS, or on SIGINT/SIGTERM, and then writes client-conformance.json, client-junit.xml and client-conformance.html. Its exit status is the verdict (0 conformant, 1 not), except after a signal: 130, an interruption (the verdict in the reports); a CI step that needs the verdict ends the session with --idle or --requests. The client guide: docs/guides/client.md.";

export const SANDBOX_USAGE = 'npx iswc-conformance sandbox [--port N] [--target FILE] [--choices SET] [--report-dir DIR] [--operations LIST] [--formats LIST] [--requests N] [--idle SECONDS] [--wait-first SECONDS] [--inject KIND@N,...] [--rate-limit R] [--strict]';

/** The help of the library entry (parseSandboxArgs); the command line renders its own from the same data. */
export const SANDBOX_HELP = `iswc-conformance sandbox: the reference server, started for a client under test

Usage: ${SANDBOX_USAGE}

${SANDBOX_DESCRIPTION}

Options:
${Object.entries(SANDBOX_OPTIONS)
  .map(([name, spec]) => `  --${name}${spec.type === 'string' ? ` ${spec.value ?? 'VALUE'}` : ''}\n      ${spec.description}`)
  .join('\n')}

Environment:
${SANDBOX_ENVIRONMENT.map(([k, v]) => `  ${k}\n      ${v}`).join('\n')}

Exit status: 0 when the client is conformant (every declared operation succeeded, no spec-level client check failed; with --strict, no http-level one either), 1 when it is not or when no request of the client was judged (verdict incomplete), 2 on bad usage, 4 when judging a request raised (a defect of the sandbox; the reports hold what was judged before it), 130 when a signal ended the session (SIGINT, SIGTERM, SIGHUP: an interruption; the verdict is in the reports; --idle or --requests end a session with the verdict as its exit status).`;

function positiveInt(flag: string, raw: string): number {
  if (!/^[1-9][0-9]*$/.test(raw) || !Number.isSafeInteger(Number(raw))) throw new Error(`--${flag} must be a positive integer, got "${raw}"`);
  return Number(raw);
}

function positiveSeconds(flag: string, raw: string | undefined): number | null {
  if (raw === undefined) return null;
  if (!/^[0-9]+(\.[0-9]+)?$/.test(raw) || Number(raw) <= 0) throw new Error(`--${flag} must be a positive number of seconds, got "${raw}"`);
  return Number(raw);
}

/** `run,merge` or operationIds, to operation ids in document order; throws an Error saying what is wrong. */
export function parseOperations(raw: string): OperationId[] {
  const items = raw.split(',').map((s) => s.trim()).filter((s) => s !== '');
  if (items.length === 0) throw new Error('--operations needs at least one of run, merge, delete, demerge');
  const ids = new Set<OperationId>();
  for (const item of items) {
    const id = OPERATION_NAMES[item.toLowerCase()] ?? OPERATION_IDS.find((op) => op.toLowerCase() === item.toLowerCase());
    if (!id) throw new Error(`--operations: unknown operation "${item}"; use run, merge, delete, demerge (or ${OPERATION_IDS.join(', ')})`);
    ids.add(id);
  }
  return OPERATION_IDS.filter((id) => ids.has(id));
}

/** `json`, `xml` or `json,xml`; throws an Error saying what is wrong. */
export function parseFormats(raw: string): Array<'json' | 'xml'> {
  const items = raw.split(',').map((s) => s.trim().toLowerCase()).filter((s) => s !== '');
  if (items.length === 0) throw new Error('--formats needs json, xml or json,xml');
  const bad = items.find((f) => f !== 'json' && f !== 'xml');
  if (bad !== undefined) throw new Error(`--formats: unknown format "${bad}"; use json, xml or json,xml`);
  return (['json', 'xml'] as const).filter((f) => items.includes(f));
}

/** Options of the command line as parsed (by node:util parseArgs or the command line's parser). */
export type SandboxValues = Record<string, string | boolean | string[] | undefined>;

/** The session's options from parsed option values; throws an Error saying what is wrong (a usage error). */
export function sandboxOptionsFrom(values: SandboxValues, env: NodeJS.ProcessEnv, cwd: string): SandboxOptions {
  const str = (name: string): string | undefined => (typeof values[name] === 'string' ? values[name] : undefined);
  const list = (name: string): string[] => {
    const v = values[name];
    return Array.isArray(v) ? v : typeof v === 'string' ? [v] : [];
  };
  const portText = str('port');
  const port = portText === undefined ? 0 : /^[0-9]+$/.test(portText) && Number(portText) <= 65535 ? Number(portText) : NaN;
  if (Number.isNaN(port)) throw new Error(`--port must be an integer from 0 to 65535, got "${portText}"`);
  const choices = str('choices') ?? DEFAULT_CHOICES;
  if (!Object.hasOwn(CHOICE_SETS, choices)) throw new Error(`--choices must be one of ${Object.keys(CHOICE_SETS).join(', ')}, got "${choices}"`);
  const targetFile = path.resolve(cwd, str('target') ?? fromRoot(DEFAULT_TARGET));
  const profile = loadProfile(targetFile);
  const requestsText = str('requests');
  const idleSeconds = positiveSeconds('idle', str('idle'));
  const waitFirstSeconds = positiveSeconds('wait-first', str('wait-first'));
  const operationsText = str('operations');
  const formatsText = str('formats');
  const rateText = str('rate-limit');
  const envKey = env.ISWC_SANDBOX_KEY;
  if (envKey !== undefined && envKey !== '' && envKey.trim() === '') throw new Error('ISWC_SANDBOX_KEY is blank: set a key, or unset it for a random one');
  const keyGenerated = envKey === undefined || envKey === '';
  const keyProblem = keyGenerated ? undefined : shortKeyProblem('ISWC_SANDBOX_KEY', envKey, 'set a longer one, or unset it for a random one');
  if (keyProblem) throw new Error(keyProblem);
  const requests = requestsText === undefined ? null : positiveInt('requests', requestsText);
  const inject = parseInjections(list('inject'));
  const late = requests === null ? undefined : inject.find((i) => lastRequestOf(i) > requests);
  if (late && requests !== null) {
    const after = late.at > requests ? late.at : requests + 1;
    throw new Error(`--inject ${injectionText(late)}: the session ends after --requests ${requests}, so request ${after} never comes`);
  }
  return {
    port,
    host: '127.0.0.1',
    targetFile,
    profile,
    choices: choices as ChoiceSetName,
    reportDir: path.resolve(cwd, str('report-dir') ?? (env.ISWC_REPORT_DIR?.trim() || 'reports')),
    requests,
    idleSeconds,
    waitFirstSeconds,
    operations: operationsText === undefined ? null : parseOperations(operationsText),
    formats: formatsText === undefined ? null : parseFormats(formatsText),
    inject,
    rateLimit: rateText === undefined ? null : parseRateLimit(rateText),
    // As the run reads it (lib/config/config.ts): 1/true/yes, 0/false/no; anything else is a usage error.
    strict: values.strict === true || envFlag(env, 'ISWC_STRICT', false),
    key: keyGenerated ? `sandbox-${randomBytes(16).toString('hex')}` : envKey,
    keyGenerated,
    retryAfterSeconds: RETRY_AFTER_SECONDS,
    slowMs: SLOW_MS,
  };
}

/**
 * The sandbox's command line, parsed: options, --help, or what is wrong (a usage error, exit 2). Reads
 * the profile (a malformed one is a usage error); never reads the key from a flag.
 */
export function parseSandboxArgs(argv: readonly string[], env: NodeJS.ProcessEnv, cwd: string = process.cwd()): ParsedSandboxArgs {
  if (argv.some((a) => /^--(key|subscription-key|api-key|sandbox-key)\b/.test(a))) {
    return { kind: 'usage', message: 'the key is never taken from a flag: set ISWC_SANDBOX_KEY in the environment (a random one is printed when it is unset)' };
  }
  let values: SandboxValues;
  try {
    const specs: Record<string, SandboxOptionSpec> = { ...SANDBOX_OPTIONS, help: { type: 'boolean', short: 'h', description: 'this text' } };
    const options = Object.fromEntries(Object.entries(specs).map(([name, spec]) => [name, { type: spec.type, ...(spec.multiple ? { multiple: true } : {}), ...(spec.short ? { short: spec.short } : {}) }]));
    ({ values } = parseArgs({ args: [...argv], strict: true, allowPositionals: false, options }) as { values: SandboxValues });
  } catch (e) {
    return { kind: 'usage', message: (e as Error).message };
  }
  if (values.help === true) return { kind: 'help' };
  try {
    return { kind: 'run', options: sandboxOptionsFrom(values, env, cwd) };
  } catch (e) {
    return { kind: 'usage', message: (e as Error).message };
  }
}
