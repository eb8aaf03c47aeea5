/**
 * The pieces of a run's end, in-process: the exit-code mapping, the key watch and stop of the HTTP client,
 * the signal watch, the progress line, the long-run notice, the cases a plan leaves out, and the report
 * fields and JUnit testcases that say how a run ended. tests/unit/lifecycle.spec.ts runs them together
 * in real processes.
 */
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect, _baseTest as test } from '@playwright/test';
import { allChecks } from '../../lib/check/registry.ts';
import { XMLParser } from 'fast-xml-parser';
import { EXIT } from '../../lib/cli/command.ts';
import { parseCommandArgs, UsageError } from '../../lib/cli/command.ts';
import { runCommand, suiteExitCode } from '../../lib/cli/commands/run.ts';
import { parseRunArgs } from '../../lib/cli/run-args.ts';
import { ConfigError, parseDuration, readConfig } from '../../lib/config/config.ts';
import { keyRefusedReason, showsKeyAcceptance } from '../../lib/contract/agency.ts';
import type { RequestSpec } from '../../lib/contract/exchange.ts';
import { loadProfile } from '../../lib/contract/profile/load.ts';
import { exitOnUnhandledStops, watchInterruptions, interruptedBy, SAME_SIGNAL_WINDOW_MS, signalWindow } from '../../lib/foundation/interrupt.ts';
import { EventEmitter } from 'node:events';
import { fromRoot } from '../../lib/foundation/paths.ts';
import { runSuiteWithOutcome } from '../../lib/engine/pipeline.ts';
import type { EngineProgress } from '../../lib/engine/progress.ts';
import { clock, LOG_INTERVAL_MS, ProgressPrinter, progressLine } from '../../lib/engine/progress.ts';
import { buildConformanceReport } from '../../lib/report/build.ts';
import { renderHtml } from '../../lib/report/html.ts';
import { renderJunit } from '../../lib/report/junit.ts';
import { OUTCOME_EXIT, outcomeOf, runOutcome } from '../../lib/report/outcome.ts';
import { reportViolations } from '../../lib/report/validate.ts';
import { longRunNotice } from '../../lib/run/estimate.ts';
import { createHttpClient } from '../../lib/run/http/client.ts';
import { planSuite } from '../../lib/run/plan.ts';
import { plannedLeftOutExecutions, plannedTests } from '../../lib/run/plan-file.ts';
import { startReferenceServer } from '../../server/index.ts';
import { cliInProcess } from '../support/cli.ts';
import { Cleanup, httpServer } from '../../server/hostile/servers.ts';
import { REQUEST_TIMEOUT_MS } from '../support/timeouts.ts';

const profile = loadProfile(fromRoot('fixtures', 'targets', 'embedded.json'));
const cleanup = new Cleanup();
test.afterEach(async () => {
  await cleanup.run();
});

test('exit codes: the report stage maps outcomes to the numbers of EXIT', () => {
  expect(OUTCOME_EXIT).toEqual({ conformant: EXIT.OK, notConformant: EXIT.NOT_CONFORMANT, targetUnusable: EXIT.TARGET_UNUSABLE, interrupted: EXIT.INTERRUPTED });
  expect(runOutcome(undefined, false)).toEqual({ status: 'completed', exitCode: 0 });
  expect(runOutcome(undefined, true)).toEqual({ status: 'completed', exitCode: 1 });
  // Whatever was judged before, a run that could not go on says so.
  expect(runOutcome({ kind: 'target-unusable', reason: 'r' }, true)).toEqual({ status: 'target-unusable', reason: 'r', exitCode: 3 });
  expect(runOutcome({ kind: 'interrupted', reason: 'interrupted by SIGINT' }, false)).toMatchObject({ status: 'interrupted', exitCode: 130 });
  // A run stopped at its time limit is a partial run: its exit code is that of what was judged.
  expect(runOutcome({ kind: 'max-duration', reason: 'm' }, false)).toEqual({ status: 'max-duration', reason: 'm', exitCode: 0 });
  expect(runOutcome({ kind: 'max-duration', reason: 'm' }, true).exitCode).toBe(1);
  // A report written before outcomes existed reads as completed.
  expect(outcomeOf({ verdict: 'not conformant' })).toEqual({ status: 'completed', exitCode: 1 });
});

test('the run command ends with the report\'s exit code whatever Playwright returns; without a report it says why', () => {
  const unusable = { status: 'target-unusable' as const, reason: 'r', exitCode: 3 as const };
  expect(suiteExitCode(1, unusable, false)).toEqual({ code: 3 });
  expect(suiteExitCode(130, { status: 'interrupted', reason: 'i', exitCode: 130 }, false)).toEqual({ code: 130 });
  expect(suiteExitCode(1, { status: 'completed', exitCode: 1 }, false)).toEqual({ code: 1 });
  expect(suiteExitCode(0, { status: 'completed', exitCode: 0 }, false)).toEqual({ code: 0 });
  expect(suiteExitCode(1, { status: 'completed', exitCode: 0 }, false).code).toBe(EXIT.INTERNAL);
  expect(suiteExitCode(130, undefined, false)).toEqual({ code: 130 });
  expect(suiteExitCode(0, undefined, true)).toMatchObject({ code: EXIT.USAGE, why: expect.stringContaining('--grep') });
  expect(suiteExitCode(1, undefined, false)).toMatchObject({ code: EXIT.INTERNAL, why: expect.stringContaining('wrote no report') });
});

test('the key: a base URL, even on this machine, never falls back to the embedded server\'s key', () => {
  for (const base of ['http://127.0.0.1:8080', 'https://staging.example']) {
    expect(() => readConfig({ ISWC_BASE_URL: base })).toThrow(ConfigError);
    expect(() => readConfig({ ISWC_BASE_URL: base })).toThrow(/ISWC_SUBSCRIPTION_KEY is not set/);
    // Readers that send nothing need no key, and get none.
    expect(readConfig({ ISWC_BASE_URL: base }, { requireKey: false }).key).toBe('');
  }
  expect(readConfig({}).key).toBe('local-dev-key');
  expect(readConfig({ ISWC_BASE_URL: 'http://127.0.0.1:8080', ISWC_SUBSCRIPTION_KEY: 'target-key-0001' }).key).toBe('target-key-0001');
});

test('--max-duration: s, m and h, and every form the tool prints; a bare number or anything else is refused before a request (exit 2)', () => {
  expect(parseDuration('90s')).toBe(90_000);
  expect(parseDuration('20m')).toBe(1_200_000);
  expect(parseDuration('1.5h')).toBe(5_400_000);
  expect(parseDuration('1h30m')).toBe(5_400_000);
  // What plan and the long-run notice print (humanDuration): "12 min", "3.9 h", "40 s"; and "--max-duration 15m".
  expect(parseDuration('12 min')).toBe(720_000);
  expect(parseDuration('3.9 h')).toBe(14_040_000);
  expect(parseDuration('40 s')).toBe(40_000);
  expect(parseDuration('20 minutes')).toBe(1_200_000);
  expect(() => parseDuration('45', '--max-duration')).toThrow('--max-duration "45" is a number without a unit: write 45m for 45 minutes or 45s for 45 seconds');
  for (const bad of ['0', '-5m', 'soon', '20x', '5m and']) expect(() => parseDuration(bad)).toThrow(/positive duration/);
  expect(() => parseRunArgs(parseCommandArgs(runCommand, ['--max-duration', '20']).values, '/w', {})).toThrow(/"20" is a number without a unit: write 20m/);
  expect(() => readConfig({ ISWC_MAX_DURATION: '20' })).toThrow(/ISWC_MAX_DURATION "20" is a number without a unit/);
  expect(parseRunArgs(parseCommandArgs(runCommand, ['--max-duration', '20m']).values, '/w', {}).env.ISWC_MAX_DURATION).toBe('20m');
  expect(() => parseRunArgs(parseCommandArgs(runCommand, ['--max-duration', 'soon']).values, '/w', {})).toThrow(UsageError);
  expect(readConfig({ ISWC_MAX_DURATION: '2m' }).maxDurationMs).toBe(120_000);
});

const keyed = (spec: Partial<RequestSpec> = {}): RequestSpec => ({ method: 'POST', path: '/agent/run', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ agencyCode: '128' }), ...spec });

test('which answers show whether the key is accepted: the run\'s key, a documented operation, the profile\'s agency', () => {
  expect(showsKeyAcceptance(keyed(), '128')).toBe(true);
  expect(showsKeyAcceptance(keyed({ auth: 'wrong' }), '128')).toBe(false);
  expect(showsKeyAcceptance(keyed({ auth: 'none' }), '128')).toBe(false);
  expect(showsKeyAcceptance(keyed({ body: JSON.stringify({ agencyCode: '999' }) }), '128')).toBe(false);
  expect(showsKeyAcceptance(keyed({ method: 'DELETE', path: '/submission', body: undefined, query: [['agency', '021']] }), '128')).toBe(false);
  expect(showsKeyAcceptance(keyed({ method: 'DELETE', path: '/submission', body: undefined, query: [['agency', '128']] }), '128')).toBe(true);
  // A gateway may refuse unknown paths and methods with 403.
  expect(showsKeyAcceptance(keyed({ path: '/no/such/path' }), '128')).toBe(false);
  expect(showsKeyAcceptance(keyed({ method: 'PUT', path: '/submission' }), '128')).toBe(false);
});

test('the key watch: the first keyed answers for the profile\'s agency all 401/403 stop the client; anything else never counts', async () => {
  const server = cleanup.add(
    await httpServer((req, res) => {
      const quota = req.url.startsWith('/merge');
      res.writeHead(quota ? 403 : 401, { 'content-type': 'text/plain' });
      res.end(quota ? 'Out of call volume quota. Quota will be replenished in 23:59:59.' : 'Not Authorized');
    }),
  );
  const message = keyRefusedReason('128', 3);
  const client = cleanup.add(createHttpClient({ baseUrl: server.url, key: 'k', keyRefusal: { after: 3, shows: (s) => showsKeyAcceptance(s, '128'), message } }));
  // Probes without the key, another agency's request and an unknown path are refused too, and count for nothing.
  await client.send(keyed({ auth: 'wrong' }));
  await client.send(keyed({ auth: 'none' }));
  await client.send(keyed({ body: JSON.stringify({ agencyCode: '999' }) }));
  await client.send(keyed({ path: '/unknown' }));
  expect(client.unusable()).toBeUndefined();
  for (let i = 0; i < 2; i += 1) expect((await client.send(keyed())).response?.status).toBe(401);
  expect(client.unusable()).toBeUndefined();
  expect((await client.send(keyed())).response?.status).toBe(401);
  expect(client.unusable()).toBe(message);
  const seen = server.seen.length;
  const after = await client.send(keyed());
  expect(after.error).toMatchObject({ code: 'UNRESPONSIVE', message: `not sent: ${message}` });
  expect(server.seen.length).toBe(seen);
  expect(message).toContain('check ISWC_SUBSCRIPTION_KEY, and that it may act for agency 128');
});

test('the key watch ends for good once one keyed answer is not a refusal; a quota 403 is throttling, not a refused key', async () => {
  let accept = true;
  const server = cleanup.add(
    await httpServer((_req, res) => {
      res.writeHead(accept ? 200 : 401, { 'content-type': 'application/json' });
      res.end(accept ? '{"runId":"r"}' : 'Not Authorized');
    }),
  );
  const client = cleanup.add(createHttpClient({ baseUrl: server.url, key: 'k', keyRefusal: { after: 2, shows: (s) => showsKeyAcceptance(s, '128'), message: 'refused' } }));
  await client.send(keyed());
  accept = false;
  for (let i = 0; i < 5; i += 1) await client.send(keyed());
  expect(client.unusable()).toBeUndefined();

  const quota = cleanup.add(
    await httpServer((_req, res) => {
      res.writeHead(403, { 'content-type': 'text/plain' });
      res.end('Out of call volume quota. Quota will be replenished in 01:00:00.');
    }),
  );
  const throttled = cleanup.add(createHttpClient({ baseUrl: quota.url, key: 'k', keyRefusal: { after: 1, shows: () => true, message: 'refused' } }));
  expect((await throttled.send(keyed())).error?.code).toBe('THROTTLED');
  expect(throttled.unusable()).toBeUndefined();
});

test('stop: no request starts after it, and a wait on the pace ends at once with NOT_SENT', async () => {
  const server = cleanup.add(
    await httpServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{}');
    }),
  );
  let release: () => void = () => undefined;
  const gate = new Promise<void>((resolve) => {
    release = resolve;
  });
  const client = cleanup.add(createHttpClient({ baseUrl: server.url, key: 'k', beforeSend: () => gate }));
  const waiting = client.send(keyed());
  client.stop('interrupted by SIGINT');
  const exchange = await waiting;
  expect(exchange.error).toEqual({ code: 'NOT_SENT', message: 'not sent: interrupted by SIGINT' });
  release();
  expect((await client.send(keyed())).error?.code).toBe('NOT_SENT');
  expect(server.seen).toHaveLength(0);
  expect(client.stopped()).toBe('interrupted by SIGINT');
  expect(client.progress().sent).toBe(0);
});

test('stop during a Retry-After wait ends the wait at once, with NOT_SENT; close does too', async () => {
  const server = cleanup.add(
    await httpServer((_req, res) => {
      res.writeHead(429, { 'retry-after': '30', 'content-type': 'text/plain' });
      res.end('slow down');
    }),
  );
  for (const end of ['stop', 'close'] as const) {
    const client = cleanup.add(createHttpClient({ baseUrl: server.url, key: 'k' }));
    const waiting = client.send(keyed());
    await expect.poll(() => client.progress().sent).toBe(1);
    const at = Date.now();
    if (end === 'stop') client.stop('interrupted by SIGTERM');
    else await client.close();
    const exchange = await waiting;
    // The 30 s wait ended with the call, and its timer with it (nothing keeps the process alive after).
    expect(Date.now() - at).toBeLessThan(5_000);
    expect(exchange.attempts).toBe(1);
    expect(exchange.error?.code).toBe(end === 'stop' ? 'NOT_SENT' : 'CONNECTION_RESET');
  }
});

test('the in-process pipeline maps a refused key as the commands do: target unusable, exit 3, after a few requests', async () => {
  const server = cleanup.add(await startReferenceServer({ profile, key: 'the-target-s-key' }));
  const run = await runSuiteWithOutcome({ baseUrl: server.url, key: 'another-key', profile, destructive: true, timeoutMs: REQUEST_TIMEOUT_MS, settings: { runs: 2 } });
  expect(run.outcome).toMatchObject({ status: 'target-unusable', exitCode: 3 });
  expect(run.outcome.reason).toContain('ISWC_SUBSCRIPTION_KEY');
  expect(run.executions.filter((e) => e.verdict !== 'skip').length).toBeLessThan(300);
});

test('signals: the first stops the run, those within a second count as the same, a later one exits at once with 130', () => {
  let now = 1_000;
  const stops: string[] = [];
  const exits: number[] = [];
  const notices: string[] = [];
  const dispose = watchInterruptions({ onFirst: (s) => stops.push(s), write: (t) => notices.push(t), exit: (code) => exits.push(code), now: () => now });
  try {
    process.emit('SIGINT', 'SIGINT');
    expect(stops).toEqual(['SIGINT']);
    expect(interruptedBy()).toBe('SIGINT');
    now += 300;
    process.emit('SIGINT', 'SIGINT');
    expect(exits).toEqual([]);
    now += 1_000;
    process.emit('SIGTERM', 'SIGTERM');
    expect(exits).toEqual([130]);
    expect(stops).toEqual(['SIGINT']);
    expect(notices.join('')).toContain('second signal (SIGTERM): exiting at once');
  } finally {
    dispose();
  }
});

test('signals: the SIGINT a SIGTERM is turned into is never the second signal, however late it arrives; handlers go with dispose', () => {
  let now = 1_000;
  const exits: number[] = [];
  const sentSelf: string[] = [];
  const before = process.listenerCount('SIGINT');
  const beforeTerm = process.listenerCount('SIGTERM');
  const dispose = watchInterruptions({ onFirst: () => undefined, write: () => undefined, exit: (code) => exits.push(code), now: () => now, signalSelf: (s) => sentSelf.push(s) });
  try {
    expect(process.listenerCount('SIGINT')).toBe(before + 1);
    process.emit('SIGTERM', 'SIGTERM');
    expect(sentSelf).toEqual(['SIGINT']);
    // Delivered late (a busy event loop): still the harness's own, not the user's second.
    now += 5_000;
    process.emit('SIGINT', 'SIGINT');
    expect(exits).toEqual([]);
    // The user's next signal is the second.
    now += 100;
    process.emit('SIGINT', 'SIGINT');
    expect(exits).toEqual([130]);
  } finally {
    dispose();
  }
  expect(process.listenerCount('SIGINT')).toBe(before);
  expect(process.listenerCount('SIGTERM')).toBe(beforeTerm);
});

test('signalWindow: one rule for the command and the run', () => {
  let now = 0;
  const count = signalWindow(() => now);
  expect(count()).toBe('first');
  now = SAME_SIGNAL_WINDOW_MS - 1;
  expect(count()).toBe('same');
  now = SAME_SIGNAL_WINDOW_MS;
  expect(count()).toBe('second');
});

const progress = (p: Partial<EngineProgress> = {}): EngineProgress => ({ sent: 120, retried: 0, answered: 120, planned: 2770, failures: 3, waitedMs: 20_000, startedAtMs: 0, rate: null, ...p });

test('the progress line: first sends of planned (resends apart), failures, elapsed, time left at the pace (never faster than the rate), throttling', () => {
  expect(clock(45_000)).toBe('45s');
  expect(clock(725_000)).toBe('12m05s');
  expect(clock(13_920_000)).toBe('3h52m');
  expect(progressLine(progress(), 240_000)).toBe(
    '120 of 2770 planned requests sent (4%) · sent 120 (0 resends) · answered 120 · 3 failures · 4m00s elapsed · about 1h28m left at this pace · 20s waiting on throttling or maintenance',
  );
  // At 10/min the first requests go at once: the time left is that of the rate.
  expect(progressLine(progress({ sent: 5, answered: 5, rate: 1 / 6 }), 2_000)).toContain('about 4h36m left at this pace');
  expect(progressLine(progress({ sent: 0, answered: 0 }), 1_000)).toContain('time left not known yet');
  expect(progressLine(progress({ halt: { kind: 'interrupted', reason: 'interrupted by SIGINT' } }), 1_000)).toContain('interrupted: nothing more is sent');
  expect(progressLine(progress({ halt: { kind: 'budget', reason: 'stopped at the request budget' } }), 1_000)).toContain('request budget used up: nothing more is sent');
});

test('the progress line never reads more than 100%: resends are counted apart, and a plan that undercounted grows to what was sent', () => {
  // 111 sent with 51 resends under a budget of 60: 60 first sends of 60 planned, never "111 of 60".
  const throttled = progressLine(progress({ planned: 60, sent: 111, retried: 51, answered: 111, budget: 60 }), 60_000);
  expect(throttled).toContain('60 of 60 planned requests sent (100%) · sent 111 (51 resends, budget 60)');
  expect(throttled).toContain('finishing');
  // Generated inputs sent more than the plan counted: the plan is what was sent, never over 100%.
  expect(progressLine(progress({ planned: 60, sent: 66, retried: 0, answered: 66 }), 60_000)).toContain('66 of 66 planned requests sent (100%)');
});

test('the time left respects --max-duration and the budget', () => {
  // 100 of 1000 in 60 s: 9 more minutes at this pace, but --max-duration stops the run 30 s from now.
  const capped = progressLine(progress({ planned: 1000, sent: 100, answered: 100, deadlineAtMs: 90_000 }), 60_000);
  expect(capped).toContain('about 30s left: --max-duration stops the run then');
  // Far from the deadline: the pace's estimate.
  expect(progressLine(progress({ planned: 1000, sent: 100, answered: 100, deadlineAtMs: 3_600_000 }), 60_000)).toContain('about 9m00s left at this pace');
  // A budget leaves 20 requests: 12 s at 100 per minute, whatever the plan said.
  expect(progressLine(progress({ planned: 1000, sent: 100, answered: 100, budget: 120 }), 60_000)).toContain('about 12s left at this pace');
});

test('without a terminal, a line every LOG_INTERVAL_MS (30 s) while the run moves (sends, or waits on throttling); none once it is done', async () => {
  expect(LOG_INTERVAL_MS).toBe(30_000);
  let sent = 0;
  let current: EngineProgress | undefined = progress({ sent });
  const lines: string[] = [];
  const printer = new ProgressPrinter({ source: () => current, write: (t) => lines.push(t), live: false, intervalMs: 20, now: () => 60_000 });
  printer.start();
  await expect.poll(() => lines.length, { timeout: 5_000, intervals: [10] }).toBeGreaterThanOrEqual(1);
  expect(lines[0]).toBe('progress: 0 of 2770 planned requests sent (0%) · sent 0 (0 resends) · answered 120 · 3 failures · 1m00s elapsed · time left not known yet · 20s waiting on throttling or maintenance\n');
  // A run that moves gets a line at each interval.
  const moving = setInterval(() => {
    sent += 1;
    current = progress({ sent });
  }, 5);
  await expect.poll(() => lines.length, { timeout: 5_000, intervals: [10] }).toBeGreaterThanOrEqual(3);
  clearInterval(moving);
  // Done: nothing more is printed.
  current = progress({ sent: 2770 });
  await new Promise((resolve) => setTimeout(resolve, 60));
  const count = lines.length;
  await new Promise((resolve) => setTimeout(resolve, 100));
  expect(lines.length).toBe(count);
  // No run in this process: nothing at all.
  current = undefined;
  printer.tick();
  expect(lines.length).toBe(count);
  printer.stop();
});

test('on a terminal, one live line redrawn in place; text above it redraws it; stop clears it', () => {
  const out: string[] = [];
  const printer = new ProgressPrinter({ source: () => progress(), write: (t) => out.push(t), live: true, now: () => 240_000 });
  printer.tick();
  expect(out.at(-1)).toMatch(/^\r\x1b\[2K120 of 2770 planned requests sent /);
  expect(out.at(-1)).not.toContain('\n');
  printer.above('  ✗ [json] a test');
  expect(out.slice(-3)).toEqual(['\r\x1b[2K', '  ✗ [json] a test\n', expect.stringMatching(/^\r\x1b\[2K120 of 2770/)]);
  printer.stop();
  expect(out.at(-1)).toBe('\r\x1b[2K');
});

test('a run estimated over 15 minutes prints the estimate and the cheaper choices; a quick one prints nothing', async () => {
  const planned = await planSuite(profile, { destructive: false, runs: 100 });
  const notice = longRunNotice(planned, { plan: 'full', budget: undefined, runs: 100, destructive: false, rate: 10 / 60 });
  expect(notice[0]).toMatch(/^ {2}estimated \d+ requests at 0\.167 requests\/s: about \d+\.\d h\. Cheaper choices:$/);
  expect(notice.join('\n')).toMatch(/--smoke +\d+ requests, about \d+ min/);
  expect(notice.join('\n')).toContain('--budget 150');
  expect(notice.join('\n')).toContain('--max-duration');
  expect(longRunNotice(planned, { plan: 'full', budget: undefined, runs: 100, destructive: false, rate: null })).toEqual([]);
  expect(longRunNotice(planned, { plan: 'full', budget: undefined, runs: 100, destructive: false, rate: 1000 })).toEqual([]);
});

test('cases a plan leaves out are no tests; their spec checks are still listed, each with the reason', async () => {
  const full = await planSuite(profile, { destructive: true, runs: 100 });
  const smoke = await planSuite(profile, { destructive: true, runs: 100, plan: 'smoke' });
  const leftOut = smoke.filter((p) => p.skipReason);
  expect(leftOut.length).toBeGreaterThan(100);
  const tests = plannedTests(smoke);
  expect(tests.length).toBeLessThan(plannedTests(full).length / 2);
  const keys = new Set(tests.flatMap((t) => t.keys));
  for (const p of leftOut) expect(keys.has(p.key), p.key).toBe(false);
  const executions = plannedLeftOutExecutions(smoke);
  expect(executions.every((e) => e.verdict === 'skip' && e.skipReason?.startsWith('not in the smoke plan'))).toBe(true);
  // Each left-out case has its checks listed; a case of every-answer checks only, its answer check
  // (so the run counts the cases left out as the plan does: tests/unit/left-out-count.spec.ts).
  expect(new Set(executions.map((e) => e.caseId)).size).toBe(new Set(leftOut.map((p) => p.def.id)).size);
});

function report(halt?: Parameters<typeof buildConformanceReport>[0]['halt']): ReturnType<typeof buildConformanceReport> {
  const skip = (checkId: string, reason: string) => ({ checkId, level: 'spec' as const, sections: ['4.2'], operation: 'mergeIswcMetadata' as const, format: 'json' as const, caseId: 'c', step: '-', verdict: 'skip' as const, skipReason: reason });
  return buildConformanceReport({
    executions: [
      { checkId: 'status.success', level: 'spec', sections: ['4.1'], operation: 'notifyAgentRun', format: 'json', caseId: 'run', step: 's', verdict: 'pass' },
      ...Array.from({ length: 200 }, () => skip('outcome.merge', 'not in the request budget (ISWC_BUDGET=10)')),
    ],
    stats: { requests: 12, retries: 0, waitedMs: 0 },
    baseUrl: 'http://127.0.0.1:1',
    embedded: false,
    profile: 'embedded',
    seed: 1,
    runs: 5,
    strict: false,
    destructive: true,
    startedAt: new Date('2026-01-01T00:00:00Z'),
    finishedAt: new Date('2026-01-01T00:01:00Z'),
    ...(halt ? { halt } : {}),
  });
}

interface Parsed {
  testsuites: { tests: string; errors: string; skipped: string; testsuite: Array<{ name: string; testcase: Array<{ name: string; skipped?: { message: string }; error?: { type: string; message: string } }> }> };
}
const parse = (xml: string): Parsed => new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '', isArray: (n) => ['testsuite', 'testcase'].includes(n) }).parse(xml) as Parsed;

test('conformance.json records the outcome; JUnit lists one testcase per unexercised spec check, not hundreds of skipped executions', () => {
  const partial = report();
  expect(partial.summary.outcome).toEqual({ status: 'completed', exitCode: 0 });
  expect(reportViolations(JSON.parse(JSON.stringify(partial)))).toEqual([]);
  const junit = parse(renderJunit(partial)).testsuites;
  const cases = junit.testsuite.flatMap((s) => s.testcase);
  expect(cases.filter((c) => c.skipped)).toHaveLength(partial.summary.coverage.notExercised.length);
  const merge = junit.testsuite.find((s) => s.name === 'not exercised')?.testcase.find((c) => c.name.startsWith('outcome.merge '));
  expect(merge?.skipped?.message).toBe('not exercised: not in the request budget (ISWC_BUDGET=10)');
  expect(junit.errors).toBe('0');
});

test('a target found unusable and an interrupted run: verdict, outcome, HTML and an error testcase in JUnit, never a clean "0 failures"', () => {
  const unusable = report({ kind: 'target-unusable', reason: 'the target refused the key on every request: check ISWC_SUBSCRIPTION_KEY' });
  expect(unusable.summary).toMatchObject({ verdict: 'target unusable', outcome: { status: 'target-unusable', exitCode: 3 } });
  expect(unusable.summary.verdictText).toBe('target unusable: the target refused the key on every request: check ISWC_SUBSCRIPTION_KEY');
  expect(reportViolations(JSON.parse(JSON.stringify(unusable)))).toEqual([]);
  const errors = parse(renderJunit(unusable)).testsuites;
  expect(errors.errors).toBe('1');
  expect(errors.testsuite[0]?.testcase[0]?.error).toMatchObject({ type: 'TargetUnusable', message: unusable.summary.verdictText });
  expect(renderHtml(unusable)).toContain('data-status="target-unusable"');

  const interrupted = report({ kind: 'interrupted', reason: 'interrupted by SIGTERM' });
  expect(interrupted.summary.verdictText).toBe(`interrupted by SIGTERM after 12 requests (so far: conformant on 1 of ${interrupted.summary.coverage.specChecks} spec checks)`);
  expect(interrupted.summary.coverage.specChecks).toBe(allChecks().filter((c) => c.level === 'spec').length);
  expect(interrupted.summary.outcome).toEqual({ status: 'interrupted', reason: 'interrupted by SIGTERM', exitCode: 130 });
  expect(parse(renderJunit(interrupted)).testsuites.testsuite[0]?.testcase[0]?.error?.type).toBe('Interrupted');
  // Checks no test reached before the signal say so.
  expect(interrupted.summary.coverage.notExercised.find((n) => n.checkId === 'auth.required')?.reasons).toEqual(['not reached: interrupted by SIGTERM']);
  expect(reportViolations(JSON.parse(JSON.stringify(interrupted)))).toEqual([]);

  const broken = JSON.parse(JSON.stringify(interrupted)) as { summary: { outcome: { exitCode: number } } };
  broken.summary.outcome.exitCode = 0;
  expect(reportViolations(broken).length).toBeGreaterThan(0);
});

test('certify issues no certificate for a run that found the target unusable or was interrupted, and exits with its code', async () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'iswc-outcome-'));
  try {
    for (const [halt, code] of [
      [{ kind: 'target-unusable' as const, reason: 'the target refused the key on every request: check ISWC_SUBSCRIPTION_KEY' }, EXIT.TARGET_UNUSABLE],
      [{ kind: 'interrupted' as const, reason: 'interrupted by SIGINT' }, EXIT.INTERRUPTED],
    ] as const) {
      const file = path.join(dir, `${halt.kind}.json`);
      writeFileSync(file, JSON.stringify(report(halt)));
      const result = await cliInProcess(['certify', '--target', 'fixtures/targets/embedded.json', '--report', file, '--out', dir]);
      expect(result.code, result.out).toBe(code);
      expect(result.stderr).toContain('no certificate issued');
      expect(existsSync(path.join(dir, 'certificate.json'))).toBe(false);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a stop signal nothing else handles ends the command with 130 at once; while a run, the server or the sandbox watches, it does nothing', () => {
  const source = new EventEmitter();
  const exits: number[] = [];
  exitOnUnhandledStops({ on: (s, l) => source.on(s, l), listenerCount: (s) => source.listenerCount(s) }, (code) => exits.push(code));
  const watching = (): void => undefined;
  source.on('SIGINT', watching);
  source.emit('SIGINT');
  expect(exits).toEqual([]);
  // The run has ended and its watch is gone: a second Ctrl-C while the command finishes is an exit code, not a death by signal.
  source.off('SIGINT', watching);
  source.emit('SIGINT');
  source.emit('SIGTERM');
  expect(exits).toEqual([130, 130]);
});
