import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { envFlag } from '../config/config.ts';
import { loadProfile } from '../contract/profile/load.ts';
import type { TargetProfile } from '../contract/profile/types.ts';
import { fromRoot } from '../paths.ts';
import { shortKeyProblem } from '../redact.ts';
import type { ChoiceSetName } from '../../server/index.ts';
import { CHOICE_SETS } from '../../server/index.ts';
import type { Injection, RateLimit } from './trouble.ts';
import { INJECT_KINDS, parseInjections, parseRateLimit } from './trouble.ts';

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
  /** End after this many requests (null: no limit). */
  requests: number | null;
  /** End after this many seconds without a request (null: no limit). */
  idleSeconds: number | null;
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

export const DEFAULT_TARGET = 'fixtures/targets/embedded.json';
export const DEFAULT_CHOICES: ChoiceSetName = 'production';
export const RETRY_AFTER_SECONDS = 2;
export const SLOW_MS = 15_000;

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
  requests: { type: 'string', value: 'N', description: 'End the session after N requests.' },
  idle: { type: 'string', value: 'SECONDS', description: 'End the session after SECONDS without a request in progress (from the arrival of its head to the end of its answer: an upload is activity). A request whose client goes away before its body is complete is not judged.' },
  inject: {
    type: 'string',
    multiple: true,
    value: 'KIND@N,...',
    description: `The N-th request (1-based) gets trouble instead of its answer: ${INJECT_KINDS.join(', ')} (429 and 503 with Retry-After: ${RETRY_AFTER_SECONDS}; reset closes the connection unanswered; slow answers after ${SLOW_MS / 1000} s; 401 is the gateway's refusal of the key). Repeatable; N past --requests is refused (exit 2).`,
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
  "The reference server, started for a client under test. Every request the client sends is judged against the interface document from the client's side (client checks: docs/client-checks.md) and answered as the reference server answers it, with production's habits unless --choices says otherwise; a bad request still gets the real answer. The session ends after --requests N, after --idle SECONDS, or on SIGINT/SIGTERM, and then writes client-conformance.json, client-junit.xml and client-conformance.html.";

export const SANDBOX_USAGE = 'npx iswc-conformance sandbox [--port N] [--target FILE] [--choices SET] [--report-dir DIR] [--requests N] [--idle SECONDS] [--inject KIND@N,...] [--rate-limit R] [--strict]';

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

Exit status: 0 when no spec-level client check failed (with --strict, no http-level one either), 1 when one did or when no request of the client was judged (verdict incomplete), 2 on bad usage, 4 when judging a request raised (a defect of the sandbox; the reports hold what was judged before it).`;

function positiveInt(flag: string, raw: string): number {
  if (!/^[1-9][0-9]*$/.test(raw) || !Number.isSafeInteger(Number(raw))) throw new Error(`--${flag} must be a positive integer, got "${raw}"`);
  return Number(raw);
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
  const idleText = str('idle');
  let idleSeconds: number | null = null;
  if (idleText !== undefined) {
    if (!/^[0-9]+(\.[0-9]+)?$/.test(idleText) || Number(idleText) <= 0) throw new Error(`--idle must be a positive number of seconds, got "${idleText}"`);
    idleSeconds = Number(idleText);
  }
  const rateText = str('rate-limit');
  const envKey = env.ISWC_SANDBOX_KEY;
  if (envKey !== undefined && envKey !== '' && envKey.trim() === '') throw new Error('ISWC_SANDBOX_KEY is blank: set a key, or unset it for a random one');
  const keyGenerated = envKey === undefined || envKey === '';
  const keyProblem = keyGenerated ? undefined : shortKeyProblem('ISWC_SANDBOX_KEY', envKey, 'set a longer one, or unset it for a random one');
  if (keyProblem) throw new Error(keyProblem);
  const requests = requestsText === undefined ? null : positiveInt('requests', requestsText);
  const inject = parseInjections(list('inject'));
  const late = requests === null ? undefined : inject.find((i) => i.at > requests);
  if (late && requests !== null) throw new Error(`--inject ${late.kind}@${late.at}: the session ends after --requests ${requests}, so request ${late.at} never comes`);
  return {
    port,
    host: '127.0.0.1',
    targetFile,
    profile,
    choices: choices as ChoiceSetName,
    reportDir: path.resolve(cwd, str('report-dir') ?? (env.ISWC_REPORT_DIR?.trim() || 'reports')),
    requests,
    idleSeconds,
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
