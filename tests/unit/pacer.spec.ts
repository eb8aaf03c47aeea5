import { _baseTest as test, expect } from '@playwright/test';
import { localGate } from '../../lib/run/http/pacer.ts';
import type { Gate } from '../../lib/run/http/pacer.ts';
import { parseRate } from '../../lib/config/rate.ts';
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

test('the first token is immediate, and an idle gate does not bank tokens', async () => {
  const gate = localGate(5);
  let t0 = performance.now();
  await gate();
  expect(performance.now() - t0).toBeLessThan(100);
  await new Promise((resolve) => setTimeout(resolve, 450));
  t0 = performance.now();
  await gate(); // more than 1/rate since the last grant: immediate
  await gate(); // the next one waits a full interval
  expect(performance.now() - t0).toBeGreaterThanOrEqual(200 - SLACK_MS);
});

test('localGate spaces concurrent callers by 1/rate', async () => {
  const rate = 40;
  const n = 12;
  const gate = localGate(rate);
  const started = performance.now();
  const times = await takeTokens([gate, gate, gate], n);
  const total = performance.now() - started;
  expect(total).toBeGreaterThanOrEqual(((n - 1) / rate) * 1000 - SLACK_MS);
  expect(Math.min(...gaps(times))).toBeGreaterThanOrEqual(1000 / rate - SLACK_MS);
});

test('a gate needs a positive rate', () => {
  expect(() => localGate(0)).toThrow(/positive/);
  expect(() => localGate(-1)).toThrow(/positive/);
  expect(() => localGate(Number.NaN)).toThrow(/positive/);
});

const rates: Array<[string | undefined, number | null]> = [
  [undefined, null],
  ['', null],
  ['  ', null],
  ['0', null],
  ['0/min', null],
  ['5/s', 5],
  ['0.5/s', 0.5],
  ['0.167 requests/s', 0.167],
  ['10.000/s', 10],
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

for (const text of ['fast', '-1', '5/day', '1e3', '10/', '/min', 'Infinity', '5 per min', '5', '0.5']) {
  test(`parseRate(${JSON.stringify(text)}) throws a clear error`, () => {
    expect(() => parseRate(text)).toThrow(/Invalid rate/);
  });
}
