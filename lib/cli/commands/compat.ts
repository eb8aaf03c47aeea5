import path from 'node:path';
import { ConfigError, parseDuration, readConfig } from '../../config/config.ts';
import { parseRate } from '../../config/rate.ts';
import { loadProfile } from '../../contract/profile/load.ts';
import { INTERRUPTED_EXIT, onStop, signalWindow } from '../../foundation/interrupt.ts';
import { createRedactor, runSecrets } from '../../foundation/redact.ts';
import { shownPath } from '../../foundation/paths.ts';
import { planReplay, plannedRequests } from '../../compat/plan.ts';
import type { ReplayPlan } from '../../compat/plan.ts';
import { buildCompatReport } from '../../compat/report.ts';
import { certificationOf } from '../../compat/certified.ts';
import { AGENCY_KEY_PREFIX, AgencyKeysError, readAgencyKeys } from '../../compat/keys.ts';
import type { AgencyKeys } from '../../compat/keys.ts';
import { startReplay } from '../../compat/replay.ts';
import { clientWaits, DEFAULT_CLIENT_WAIT_MS, secondsText } from '../../compat/waits.ts';
import type { ClientWait } from '../../compat/waits.ts';
import type { UnitResult } from '../../compat/replay.ts';
import { writeCompatReports } from '../../report/compat/write.ts';
import { columnLabel, SET_VERDICT_WORD, VERDICT_WORD } from '../../report/compat/labels.ts';
import { loadSessions } from '../../traffic/load.ts';
import { TrafficError } from '../../traffic/model.ts';
import type { Command, OptionValues } from '../command.ts';
import { EXIT, exitMeaning, stringOption, UsageError } from '../command.ts';
import { environmentOf } from '../environment.ts';
import { parseRunArgs, RUN_OPTIONS, SELECTION_OPTIONS } from '../run-args.ts';

/**
 * `npx iswc-conformance compat --sessions DIR`: will this build break an agency? Each agency's recorded
 * traffic (sandbox sessions, HAR files, a gateway's log in JSON lines) is replayed against the build, one
 * request per shape, through the run's HTTP client; each answer is judged against the document and against
 * what the agency's client met; the matrix agencies × operations × formats is written as compat.html,
 * compat.json, compat-junit.xml and compat.md.
 */

const opt = (name: string): NonNullable<(typeof RUN_OPTIONS)[string]> => {
  const o = RUN_OPTIONS[name] ?? SELECTION_OPTIONS[name];
  if (!o) throw new Error(`no run option ${name}`);
  return o;
};

export const COMPAT_OPTIONS: Command['options'] = {
  sessions: { type: 'string', value: 'DIR', description: "The agencies' recorded traffic: a folder (sub-folders too) or one file. .jsonl files: sandbox sessions (client-session.jsonl, beside the sandbox's reports) and gateway logs in the format of schemas/traffic-log.schema.json; .har files (or .json holding a HAR) as browsers, proxies and Playwright write them. A file holding a key or a credential in clear is refused (exit 2), before anything is sent." },
  'base-url': { ...opt('base-url'), description: 'The build to replay against (http:// or https://, no credentials, no query; ISWC_BASE_URL). Default: the embedded reference server, started for the replay.' },
  target: { ...opt('target'), description: "The build's target profile (ISWC_TARGET; default fixtures/targets/embedded.json): the agency the key acts for, ISWCs it lists as unknown, and the disposable entries a request that changes data is replayed on." },
  destructive: {
    type: 'boolean',
    description: "Replay the requests that change data (merge, demerge, submission delete), each on a disposable entry of the target profile, never one twice; without it they are not replayed, with the reason. On by default for the embedded server and a base URL on this machine, off for a remote one (ISWC_DESTRUCTIVE=1).",
  },
  strict: { type: 'boolean', description: 'An http-level failure of the build\'s answer (RFC 9110 conventions the document does not state) breaks the exchange too (ISWC_STRICT=1).' },
  budget: { type: 'string', value: 'N', description: 'Send at most N requests to the build, resends after 429, 503 and maintenance included (a cap; ISWC_BUDGET): shapes are sent in order of the agencies that sent them, the most first, and one starts only when it fits in what is left.' },
  rate: { ...opt('rate'), description: 'Requests per second to the build, e.g. 5, 0.5, 10/min; 0 = no limit (ISWC_RATE). Default: no limit on the embedded server or a base URL on this machine, 10/min on a remote one.' },
  'max-duration': { ...opt('max-duration'), description: 'Stop sending once the replay has lasted D (90s, 20m, 1.5h; a bare number is refused) and report what was judged (ISWC_MAX_DURATION).' },
  header: opt('header'),
  'report-dir': { ...opt('report-dir'), description: 'Where compat.json, compat.html, compat-junit.xml and compat.md go (ISWC_REPORT_DIR, default ./reports).' },
  'client-timeout': {
    type: 'string',
    value: 'D',
    description:
      "How long the agencies' clients wait for an answer (e.g. 30s, 2m; ISWC_CLIENT_TIMEOUT), where a session does not show it: a session whose client gave up on an answer (no answer, an error of a timeout or a closed connection, with its durationMs or HAR time) waits what it waited then, and no client waits less than the longest answer it met. The replay waits as long as the longest of these (never less than ISWC_TIMEOUT_MS). An answer later than its client waits is broken for that client (it meets no answer); one slower than recorded but within the wait is compatible, with the slower answer listed as a finding. Default 30s.",
  },
  'agency-keys': {
    type: 'string',
    value: 'FILE',
    description:
      "A subscription key per agency, for a build whose key acts for one agency only (ISWC_AGENCY_KEYS): a JSON object {\"058\": \"<key>\"} or lines 058=<key>, kept outside --sessions; variables ISWC_SUBSCRIPTION_KEY_058 (one per agency) give the same and win over the file. A request that acts for an agency with a key of its own is sent with that key (a shape of its own); the others with ISWC_SUBSCRIPTION_KEY. The keys are written nowhere and never printed. An agency one of whose exchanges was not replayed (no key for it and the build refused the profile's key for it, its own key refused on every request, requests that change data off, the budget) is not judged, never compatible.",
  },
  plan: { type: 'boolean', description: 'Print what the replay would send (agencies, shapes, requests, time at the rate, what is not replayed and why) and exit without sending anything.' },
};

const COMPAT_DESCRIPTION =
  "Replays each agency's recorded traffic against a build and says, agency by agency, whether the build would break it. Requests of the same shape are sent once (the shape: operation, key mode, own agency or another, Content-Type and Accept, body format with an XML root's namespace, fields and JSON types, values the contract refuses, query parameters, and the status and format the client met); the first exchange of a shape that can be replayed is sent, in the order agency, session, number, and the shape's other exchanges take its verdict. Requests that do not change data (run notifications, GET) are replayed as they were, a run's end naming the run the replay started; a request that changes data only with --destructive, on a disposable entry of the target profile, otherwise not, with the reason; trouble a sandbox gave on purpose, and 429, 502, 503 and 504 met when recorded, are never replayed. Requests go as a run sends them: the rate, the budget as a cap, the proxy (HTTPS_PROXY, HTTP_PROXY, NO_PROXY), NODE_EXTRA_CA_CERTS, the extra headers, the timeouts, throttling waited out, a stop once the build refuses the key. Each answer is judged against the document (the every-answer checks, as the gate judges them) and against what the client met when recorded (status, Content-Type, the body's encoding, format and shape, the texts a client may parse): compatible, changed (within the document, but different) or broken (the document violated where the answer the client met kept it, a new HTTP violation, no answer, or a success became a refusal). What differs on every call (a runId, a date) is learned, not listed: each request is also sent twice to a fresh embedded reference server, and what differs between those two answers is left out (its value, never its form). SIGINT, SIGTERM or SIGHUP (to this command, or to the npm or npx that started it) stops sending at once and writes the reports marked interrupted (exit 130). The guide: docs/guides/compatibility.md.";

/** The run's settings for these options, checked as a run checks them (key, profile, rate, budget, headers, proxy, CA). */
function settingsOf(values: OptionValues, cwd: string, env: NodeJS.ProcessEnv, planOnly: boolean) {
  const runValues: OptionValues = { ...values, plan: planOnly };
  delete runValues.sessions;
  delete runValues['client-timeout'];
  delete runValues['agency-keys'];
  const plan = parseRunArgs(runValues, cwd, env);
  try {
    return readConfig({ ...env, ...plan.env }, { requireKey: !planOnly });
  } catch (e) {
    if (e instanceof ConfigError) throw new UsageError(e.message);
    throw e;
  }
}

function planLines(plan: ReplayPlan, requests: number, rate: number | null, target: string): string[] {
  const agencies = new Set(plan.exchanges.map((p) => p.agency));
  const sessions = new Set(plan.exchanges.map((p) => p.session.id));
  const notReplayed = plan.exchanges.filter((p) => p.reason !== undefined && !plan.units.some((u) => u.key === p.shape.key));
  const reasons = new Map<string, number>();
  for (const p of notReplayed) reasons.set(p.reason ?? '', (reasons.get(p.reason ?? '') ?? 0) + 1);
  const minutes = rate === null || rate <= 0 ? undefined : Math.ceil(requests / rate / 60);
  return [
    `compat: ${sessions.size} session(s) of ${agencies.size} agencies (${[...agencies].sort().join(', ')}), ${plan.exchanges.length} exchanges in ${plan.shapes} shapes`,
    `  ${plan.units.length} shapes to replay against ${target}: ${requests} request(s)${minutes !== undefined ? `, about ${minutes} min at ${+(rate ?? 0).toFixed(3)} requests/s` : ''} (each also sent twice to a fresh embedded reference server, to learn the noise)`,
    ...(notReplayed.length > 0 ? [`  ${notReplayed.length} exchange(s) in ${plan.unplayable} shape(s) not replayed:`, ...[...reasons].map(([r, n]) => `    ${n} × ${r}`)] : []),
  ];
}

function unitLine(r: UnitResult, i: number, total: number): string {
  const rep = r.unit.rep;
  const verdict = r.notSent !== undefined ? 'not replayed' : r.comparison ? VERDICT_WORD[r.comparison.verdict] : 'not judged';
  const why = r.notSent ?? r.comparison?.reasons[0];
  const others = r.unit.agencies.length > 1 ? ` (agencies ${r.unit.agencies.join(', ')})` : '';
  return `  [${i + 1}/${total}] agency ${rep.agency} · ${columnLabel(rep.operation, rep.shape.format)} · ${rep.id}${others}: ${verdict}${why !== undefined ? `: ${why}` : ''}`.slice(0, 400);
}

export const compatCommand: Command = {
  name: 'compat',
  summary: "will this build break an agency? replay agencies' recorded traffic against it, in one matrix",
  usage: "npx iswc-conformance compat --sessions DIR [--base-url URL] [--target FILE] [--agency-keys FILE] [--client-timeout D] [--destructive] [--budget N] [--rate R] [--max-duration D] [--header 'NAME: VALUE']... [--strict] [--report-dir DIR] [--plan]",
  description: COMPAT_DESCRIPTION,
  options: COMPAT_OPTIONS,
  environment: environmentOf([
    'ISWC_SUBSCRIPTION_KEY',
    'ISWC_SUBSCRIPTION_KEY_<agency>',
    'ISWC_AGENCY_KEYS',
    'ISWC_CLIENT_TIMEOUT',
    'ISWC_BASE_URL',
    'ISWC_TARGET',
    'ISWC_DESTRUCTIVE',
    'ISWC_STRICT',
    'ISWC_RATE',
    'ISWC_BUDGET',
    'ISWC_MAX_DURATION',
    'ISWC_MAINTENANCE_WAIT',
    'ISWC_REPORT_DIR',
    'ISWC_TIMEOUT_MS',
    'ISWC_MAX_BODY',
    'ISWC_HEADERS',
    'HTTPS_PROXY',
    'NODE_EXTRA_CA_CERTS',
    'NODE_TLS_REJECT_UNAUTHORIZED',
  ]),
  exitCodes: [
    exitMeaning(EXIT.OK, ': every agency judged and none broken (every exchange replayed is compatible or changed; the changed ones and the findings, such as slower answers, are listed); also --plan'),
    exitMeaning(EXIT.NOT_CONFORMANT, ": an agency is broken: an answer of the build violates the document, none came within the client's wait, a success became a refusal, or the client meets another thing to read (an element renamed by a prefix or a namespace, a Content-Type that no longer names the body's format, a format its Accept did not ask for, a byte order mark before JSON); compat.md lists each"),
    exitMeaning(EXIT.USAGE, '; also no session under --sessions, a session file that cannot be read or does not follow its format, and one holding a key or a credential in clear (the file, where, what to do), before anything is sent'),
    exitMeaning(EXIT.TARGET_UNUSABLE, ': the replay stops sending and says why, and the reports judge nothing (what was answered before the stop is shown, not counted); also, with no agency broken, an agency not judged: an exchange of it was not replayed although its client met an answer of the API (no key for it, its key refused, requests that change data off, the budget, --max-duration): compat.md says which and why'),
    exitMeaning(EXIT.INTERNAL),
    exitMeaning(EXIT.INTERRUPTED, ': nothing is sent after the signal; the reports are written, marked interrupted'),
  ],
  async run({ values }, io) {
    const sessionsArg = stringOption(values, 'sessions');
    if (sessionsArg === undefined) throw new UsageError('--sessions DIR is required: the folder of the agencies\' recorded sessions (.jsonl, .har)');
    const planOnly = values.plan === true;
    const cfg = settingsOf(values, io.cwd, io.env, planOnly);
    let loaded;
    try {
      loaded = loadSessions(sessionsArg, io.cwd);
    } catch (e) {
      if (e instanceof TrafficError) throw new UsageError(e.message);
      throw e;
    }
    const profile = loadProfile(cfg.targetFile);
    const embedded = cfg.baseUrl === undefined;
    const timeoutText = stringOption(values, 'client-timeout') ?? (io.env.ISWC_CLIENT_TIMEOUT?.trim() || undefined);
    let fallbackWait: ClientWait = { ms: DEFAULT_CLIENT_WAIT_MS, source: 'what clients wait by default (--client-timeout)' };
    if (timeoutText !== undefined) {
      try {
        fallbackWait = { ms: parseDuration(timeoutText, '--client-timeout'), source: `--client-timeout ${timeoutText}` };
      } catch (e) {
        if (e instanceof ConfigError) throw new UsageError(e.message);
        throw e;
      }
    }
    let agencyKeys: AgencyKeys;
    try {
      agencyKeys = readAgencyKeys(stringOption(values, 'agency-keys') ?? (io.env.ISWC_AGENCY_KEYS?.trim() || undefined), io.env, io.cwd, sessionsArg);
    } catch (e) {
      if (e instanceof AgencyKeysError) throw new UsageError(e.message);
      throw e;
    }
    // The embedded server's key acts for the profile's agency only: keys of agencies have nothing to act on there.
    const keyedAgencies = new Set(embedded ? [] : [...agencyKeys.keys.keys()].filter((a) => a !== profile.agency));
    const waits = clientWaits(loaded.sessions, fallbackWait);
    const longestWait = Math.max(0, ...[...waits.values()].map((w) => w.ms));
    const destructiveOff = cfg.destructive ? undefined : `changes data, and requests that change data are off${cfg.local ? ' (ISWC_DESTRUCTIVE=0)' : ' on a remote build'}: pass --destructive to replay it on the target profile's disposable entries`;
    const plan = planReplay(loaded.sessions, { profile, destructive: cfg.destructive, keyedAgencies, ...(destructiveOff !== undefined ? { destructiveOff } : {}) });
    const rate = parseRate(cfg.rate);
    const requests = plannedRequests(plan);
    const targetText = embedded ? 'the embedded reference server' : (cfg.baseUrl ?? '');
    const redact = createRedactor([...runSecrets(io.env), ...[...agencyKeys.keys].map(([agency, key]) => ({ value: key, placeholder: `$${AGENCY_KEY_PREFIX}${agency}` }))]);
    const out = (line: string): void => io.stdout(`${redact.text(line)}\n`);
    for (const line of planLines(plan, cfg.budget !== undefined ? Math.min(requests, cfg.budget) : requests, rate, targetText)) out(line);
    out(`  target profile ${shownPath(cfg.targetFile, io.cwd)} ("${profile.name}", the key acts for agency ${profile.agency})`);
    if (agencyKeys.keys.size > 0) {
      out(
        embedded
          ? `  keys of their own for agencies ${[...agencyKeys.keys.keys()].sort().join(', ')}: not used on the embedded reference server (its key acts for agency ${profile.agency})`
          : `  keys of their own for agencies ${[...keyedAgencies].sort().join(', ') || 'none but the profile\'s'} (${[...new Set(agencyKeys.from.values())].join(', ')}; never shown): their requests go with them`,
      );
    }
    const waitsSeen = [...new Set([...waits.values()].map((w) => `${secondsText(w.ms)} (${w.source})`))];
    out(`  clients wait ${waitsSeen.join('; ')}: the replay waits up to ${secondsText(Math.max(cfg.timeoutMs, longestWait))} for an answer`);
    if (planOnly) return EXIT.OK;

    const startedAt = new Date();
    const replay = await startReplay({
      plan,
      profile,
      strict: cfg.strict,
      // The replay waits as long as the most patient client: an answer it would still have met is judged, not timed out.
      target: { baseUrl: cfg.baseUrl, settings: { ...cfg, timeoutMs: Math.max(cfg.timeoutMs, longestWait) }, rate, agencyKeys: new Map([...agencyKeys.keys].filter(([a]) => keyedAgencies.has(a))), ...(cfg.budget !== undefined ? { budget: cfg.budget } : {}) },
      onUnit: (r, i, total) => out(unitLine(r, i, total)),
    });
    // A signal stops sending at once: the request in flight ends, nothing starts after it; the reports are written.
    const count = signalWindow();
    let signalled = false;
    const unwatch = onStop(({ signal, reason }) => {
      const which = count();
      if (which === 'first') {
        signalled = true;
        io.stderr(`\niswc-conformance compat: ${reason === `interrupted by ${signal}` ? signal : reason}: stopping; no new request is sent. The reports are written and marked interrupted; exit code 130. A second signal (a second or more after this one) exits at once.\n`);
        replay.stop({ kind: 'interrupted', reason });
        return;
      }
      if (which === 'same' || signal === 'SIGHUP') return;
      io.stderr(`\niswc-conformance compat: second signal (${signal}): exiting at once, exit code 130; the reports may not be written.\n`);
      process.exit(INTERRUPTED_EXIT);
    });
    const deadline =
      cfg.maxDurationMs !== undefined
        ? setTimeout(() => replay.stop({ kind: 'max-duration', reason: `stopped at --max-duration ${stringOption(values, 'max-duration') ?? io.env.ISWC_MAX_DURATION ?? ''} (ISWC_MAX_DURATION)` }), cfg.maxDurationMs)
        : undefined;
    try {
      await replay.done;
    } finally {
      if (deadline) clearTimeout(deadline);
      unwatch();
    }
    const certified = new Map<string, string>();
    for (const s of loaded.sessions) {
      if (s.source !== 'sandbox') continue;
      const note = certificationOf(path.resolve(io.cwd, s.file));
      if (note !== undefined) certified.set(s.id, note);
    }
    const report = buildCompatReport({
      certified,
      waits,
      plan,
      run: replay,
      profile,
      embedded,
      startedAt,
      finishedAt: new Date(),
      settings: { destructive: cfg.destructive, strict: cfg.strict, rate: cfg.rate ?? null, budget: cfg.budget ?? null, maxDuration: stringOption(values, 'max-duration') ?? (io.env.ISWC_MAX_DURATION?.trim() || null), clientTimeout: timeoutText ?? null, agencyKeys: [...keyedAgencies].sort() },
    });
    const files = writeCompatReports(report, cfg.reportDir, redact);
    out(`compat: ${report.outcome.text}`);
    for (const a of report.agencies) out(`  agency ${a.agency}: ${SET_VERDICT_WORD[a.verdict]}${a.verdict === 'skipped' && a.notJudged > 0 ? ` (${a.notJudged} exchange(s) not replayed: see compat.md)` : ''}`);
    out(`  ${[files.html, files.json, files.junit, files.markdown].map((f) => shownPath(f, io.cwd)).join(' · ')}`);
    if (signalled || report.outcome.halt?.kind === 'interrupted') {
      out(`  interrupted: exit code ${INTERRUPTED_EXIT}`);
      return INTERRUPTED_EXIT;
    }
    out(`  exit code ${report.outcome.exitCode}`);
    return report.outcome.exitCode;
  },
};
