/**
 * The whole suite against targets that are broken on every request (server/hostile/targets.ts):
 * the circuit breaker stops the run after a few unusable answers, every later case is skipped with the
 * reason, the answers that tripped it fail, and the key and stack traces appear nowhere. A deep answer
 * is TOO_DEEP on every request (the 1,000,000-level kinds raise the size limit to meet the depth limit).
 * Request counts are asserted, never timings (`npm run bench` times the full Playwright run against each kind).
 */
import { expect, _baseTest as test } from '@playwright/test';
import { loadProfile } from '../../lib/contract/profile/load.ts';
import { fromRoot } from '../../lib/foundation/paths.ts';
import { runSuiteWithOutcome } from '../../lib/engine/pipeline.ts';
import { HOSTILE_KINDS } from '../../server/hostile/targets.ts';

const KEY = 'hostile-target-key-3c9d71b2';
const CONCURRENCY = 4;
const BREAKER = 5;

for (const kind of HOSTILE_KINDS) {
  test(`a target that ${kind.description} is given up after a few requests (${kind.id})`, async () => {
    const target = await kind.start();
    try {
      const { executions, outcome } = await runSuiteWithOutcome({
        baseUrl: target.url,
        key: KEY,
        profile: loadProfile(fromRoot('fixtures', 'targets', 'embedded.json')),
        destructive: true,
        // A deep answer comes at once; on a loaded machine 7 MB may take longer than 400 ms to arrive, which
        // would be a TIMEOUT, not the depth limit this kind is about.
        timeoutMs: kind.symptom === 'TOO_DEEP' ? 10_000 : 400,
        ...(kind.maxBodyBytes !== undefined ? { maxBodyBytes: kind.maxBodyBytes } : {}),
        concurrency: CONCURRENCY,
        settings: { seed: 1, runs: 5, strict: true },
      });
      // The breaker trips on the 5th unusable answer; at most the cases already in flight send one more each.
      expect(target.hits()).toBeLessThanOrEqual(BREAKER + CONCURRENCY);
      const skipped = executions.filter((e) => e.verdict === 'skip');
      // A target that cannot be reached at all stops the run after two unpaced retries, the others after BREAKER answers in a row.
      const reason = kind.id === 'refused' ? 'the target could not be reached (3 attempts)' : `no usable answer to ${BREAKER} requests in a row`;
      const notSent = skipped.filter((e) => e.skipReason?.includes(reason));
      // Nearly the whole suite is skipped, each with the reason; nothing else happened after the trip.
      expect(notSent.length).toBeGreaterThan(executions.length * 0.9);
      expect(executions.filter((e) => e.verdict === 'pass' || e.verdict === 'observed' || e.verdict === 'fail').length).toBeLessThan(200);
      // The answers that tripped it are failures; a target that could not be reached at all gave none, and
      // having no answer is no conformance finding (the run's outcome says the target is unusable).
      if (kind.id === 'refused') expect(executions.filter((e) => e.verdict === 'fail')).toEqual([]);
      else expect(executions.filter((e) => e.verdict === 'fail').length).toBeGreaterThan(0);
      const written = JSON.stringify(executions);
      expect(written).not.toContain(KEY);
      expect(written).not.toMatch(/RangeError|Maximum call stack/);
      if (kind.symptom === 'TOO_DEEP') {
        // Every answer meets the depth limit, not the size limit, and the breaker says so.
        const codes = new Set(executions.flatMap((e) => (e.exchange?.error ? [e.exchange.error.code] : [])));
        expect([...codes]).toEqual(['TOO_DEEP']);
        expect(notSent[0]?.skipReason).toMatch(/\(last: TOO_DEEP: (JSON|XML) nested \d+ levels deep, over the limit of 64 levels/);
      }
      // Mapped as every command maps it: the target is unusable, exit 3.
      expect(outcome).toMatchObject({ status: 'target-unusable', exitCode: 3 });
    } finally {
      await target.close();
    }
  });
}
