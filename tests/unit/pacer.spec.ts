import { test, expect } from '@playwright/test';
import { localGate, pacerGate, startPacer } from '../../lib/run/http/pacer.ts';
import type { Gate } from '../../lib/run/http/pacer.ts';
import { parseRate } from '../../lib/config/rate.ts';
import { Cleanup, closedPort } from '../support/hostile/servers.ts';

const cleanup = new Cleanup();
test.afterEach(async () => {
  await cleanup.run();
});

/** Client-side receipt jitter allowed below the nominal spacing. */
const SLACK_MS = 15;

function gaps(times: number[]): number[] {
  const sorted = [...times].sort((a, b) => a - b);
  return sorted.slice(1).map((t, i) => t - (sorted[i] ?? t));
}

/** Takes `n` tokens in total through `gates` taking in parallel; returns the grant times. */
async function takeTokens(gates: Gate[], n: number): Promise<number[]> {
  const times: number[] = [];
  let remaining = n;
  await Promise.all(
    gates.map(async (gate) => {
      while (remaining > 0) {
        remaining -= 1;
        await gate();
        times.push(performance.now());
      }
    }),
  );
  return times;
}

test('the pacer spaces tokens across concurrent workers', async () => {
  const rate = 20;
  const n = 30;
  const pacer = cleanup.add(await startPacer(rate));
  // Each gate has its own connection pool, as a Playwright worker would.
  const gates = Array.from({ length: 4 }, () => cleanup.add(pacerGate(pacer.url)));
  const started = performance.now();
  const times = await takeTokens(gates, n);
  const total = performance.now() - started;
  expect(times).toHaveLength(n);
  expect(pacer.granted()).toBe(n);
  expect(total).toBeGreaterThanOrEqual(((n - 1) / rate) * 1000 - SLACK_MS);
  expect(total).toBeLessThan(((n - 1) / rate) * 1000 + 1000);
  const g = gaps(times);
  expect(Math.min(...g)).toBeGreaterThanOrEqual(1000 / rate - SLACK_MS);
  test.info().annotations.push({ type: 'pacer', description: `${n} tokens in ${Math.round(total)} ms; smallest gap ${Math.min(...g).toFixed(1)} ms` });
});

test('the first token is immediate, and an idle pacer does not bank tokens', async () => {
  const pacer = cleanup.add(await startPacer(5));
  const gate = cleanup.add(pacerGate(pacer.url));
  let t0 = performance.now();
  await gate();
  expect(performance.now() - t0).toBeLessThan(100);
  await new Promise((resolve) => setTimeout(resolve, 450));
  t0 = performance.now();
  await gate(); // more than 1/rate since the last grant: immediate
  await gate(); // the next one waits a full interval
  expect(performance.now() - t0).toBeGreaterThanOrEqual(200 - SLACK_MS);
});

test('a gate fails loudly when the pacer is unreachable', async () => {
  const port = await closedPort();
  const gate = cleanup.add(pacerGate(`http://127.0.0.1:${port}`));
  await expect(gate()).rejects.toThrow(/Rate pacer at http:\/\/127\.0\.0\.1:\d+ is unreachable.*refusing to send requests unpaced/);
  expect(() => pacerGate('not a url')).toThrow(/Invalid pacer URL/);
});

test('a gate fails loudly when the pacer closes', async () => {
  const pacer = await startPacer(1);
  const gate = cleanup.add(pacerGate(pacer.url));
  await gate();
  const waiting = gate(); // waits about a second for its slot
  await new Promise((resolve) => setTimeout(resolve, 50));
  await pacer.close();
  await expect(waiting).rejects.toThrow(/Rate pacer/);
});

test('localGate spaces calls the same way in one process', async () => {
  const rate = 40;
  const n = 12;
  const gate = localGate(rate);
  const started = performance.now();
  const times = await takeTokens([gate, gate, gate], n);
  const total = performance.now() - started;
  expect(total).toBeGreaterThanOrEqual(((n - 1) / rate) * 1000 - SLACK_MS);
  expect(Math.min(...gaps(times))).toBeGreaterThanOrEqual(1000 / rate - SLACK_MS);
});

test('a pacer needs a positive rate', async () => {
  await expect(startPacer(0)).rejects.toThrow(/positive/);
  expect(() => localGate(-1)).toThrow(/positive/);
  expect(() => localGate(Number.NaN)).toThrow(/positive/);
});

const rates: Array<[string | undefined, number | null]> = [
  [undefined, null],
  ['', null],
  ['  ', null],
  ['0', null],
  ['0/min', null],
  ['5', 5],
  ['0.5', 0.5],
  ['2/s', 2],
  ['10/min', 10 / 60],
  ['10 / min', 10 / 60],
  ['10/m', 10 / 60],
  ['10/minute', 10 / 60],
  ['600/h', 600 / 3600],
  ['600/hour', 600 / 3600],
  ['3/sec', 3],
];

for (const [text, expected] of rates) {
  test(`parseRate(${JSON.stringify(text)}) = ${expected}`, () => {
    expect(parseRate(text)).toBe(expected);
  });
}

for (const text of ['fast', '-1', '5/day', '1e3', '10/', '/min', 'Infinity', '5 per min']) {
  test(`parseRate(${JSON.stringify(text)}) throws a clear error`, () => {
    expect(() => parseRate(text)).toThrow(/Invalid rate/);
  });
}
