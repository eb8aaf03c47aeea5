import { readFileSync } from 'node:fs';
import { expect, _baseTest as test } from '@playwright/test';
import { fromRoot } from '../../lib/foundation/paths.ts';
import { cliInProcess } from '../support/cli.ts';

/**
 * The requests and durations the guides and docs/staging.md state are the ones `plan` prints for the same target, plan and
 * pace: a change to the cases that moves them fails here, naming the sentence to update. The guides'
 * other figures come from commands they run as written (guides.spec.ts).
 */

interface Estimate {
  /** The cheaper choice `--smoke` a long full plan offers, in requests, when it offers one. */
  smoke?: number;
  from: number;
  to: number;
  /** As plan prints it: `17 min`, `6.1 h`. */
  duration: string;
}

/** `total: 147 to 161 requests, at most about 17 min at 0.167 requests/s` (or one number when the range is one). */
function planEstimate(out: string): Estimate {
  const m = /^total: (\d+)(?: to (\d+))? requests, at most about ([\d.]+ (?:s|min|h)) at /m.exec(out);
  if (!m) throw new Error(`no total line in plan's output:\n${out}`);
  const smoke = /^ +--smoke +(\d+) requests/m.exec(out);
  return { from: Number(m[1]), to: Number(m[2] ?? m[1]), duration: m[3] ?? '', ...(smoke ? { smoke: Number(smoke[1]) } : {}) };
}

async function plan(target: string, args: readonly string[]): Promise<Estimate & { out: string }> {
  // A remote-looking base URL (unused: plan sends nothing), paced as staging publishes.
  const result = await cliInProcess(['plan', '--target', `fixtures/targets/${target}`, ...args, '--rate', '10/min', '--quiet'], { env: { ISWC_BASE_URL: 'https://staging.example.org/iswc' } });
  expect(result.code, result.out).toBe(0);
  return { ...planEstimate(result.out), out: result.out };
}

/** A doc's text with its line breaks folded, so that a sentence reads as one line. */
const doc = (...parts: string[]): string => readFileSync(fromRoot('docs', ...parts), 'utf8').replace(/\s+/g, ' ');
const guide = (name: string): string => doc('guides', name);
const count = (text: string): number => Number(text.replace(/,/g, ''));
const minutes = (e: Estimate): string => e.duration.replace(/ min$/, ' minutes').replace(/ h$/, ' hours');

/** The estimate a guide states in the sentence `pattern` matches (groups: from, to, duration in minutes or hours). */
function stated(name: string, pattern: RegExp): { from: number; to: number; duration: string } {
  const m = pattern.exec(guide(name));
  if (!m) throw new Error(`docs/guides/${name}: no sentence matches ${String(pattern)}`);
  return { from: count(m[1] ?? ''), to: count(m[2] ?? m[1] ?? ''), duration: m[3] ?? '' };
}

test("the requests and durations the guides and staging.md state are plan's for the same profile, plan and pace", async () => {
  test.setTimeout(120_000);
  const stagingSmoke = await plan('staging-example.json', ['--smoke', '--destructive']);
  const stagingFull = await plan('staging-example.json', ['--destructive']);
  const embeddedSmoke = await plan('embedded.json', ['--smoke', '--destructive']);
  // The full plan's cheaper choice says what the smoke plan itself counts (its estimate, the range's top).
  expect(stagingFull.smoke, 'plan --destructive: the --smoke line').toBe(stagingSmoke.to);
  const claims: Array<[string, RegExp, Estimate]> = [
    ['certify.md', /exercises every spec check once in ([\d,]+)(?: to ([\d,]+))? requests \(at most about ([\d.]+ minutes) at 10\/min/, stagingSmoke],
    ['certify.md', /nothing for the full run: ([\d,]+)(?: to ([\d,]+))? requests, at most about ([\d.]+ hours) at 10\/min/, stagingFull],
    ['ci-gate.md', /A destructive smoke plan of this guide's profile is ([\d,]+)(?: to ([\d,]+))? requests: at most about ([\d.]+ minutes) at 10 a minute/, stagingSmoke],
    ['ci-gate.md', /the embedded server's, ([\d,]+)(?: to ([\d,]+))? requests, at most about ([\d.]+ minutes)/, embeddedSmoke],
  ];
  // docs/staging.md shows the full non-destructive plan of the same profile, and the notice it prints.
  const stagingSafe = await plan('staging-example.json', []);
  const staging = doc('staging.md');
  // What the doc says beside what plan prints, never the whole doc: a stale figure is one line to read.
  const total = `non-destructive: \`total: ${stagingSafe.from} to ${stagingSafe.to} requests\``;
  const written = /non-destructive: `total: [\d,]+(?: to [\d,]+)? requests`/.exec(staging)?.[0] ?? '(no such sentence)';
  expect(written, 'docs/staging.md: the total of the full non-destructive plan of staging-example.json').toBe(total);
  const notice = stagingSafe.out.split('\n').filter((l) => /^ +(estimated|--smoke) /.test(l)).map((l) => l.trim().replace(/\s+/g, ' '));
  expect(notice.length, stagingSafe.out).toBe(2);
  expect(notice.filter((line) => !staging.includes(line)), "docs/staging.md: the notice's lines as plan prints them").toEqual([]);
  // Every sentence out of date at once, each named with what plan prints: one run tells all the edits.
  const range = (e: { from: number; to: number }): string => (e.from === e.to ? `${e.from}` : `${e.from} to ${e.to}`);
  const stale = claims.flatMap(([name, pattern, estimate]) => {
    const says = stated(name, pattern);
    const printed = `${range(estimate)} requests, at most about ${minutes(estimate)}`;
    const written = `${range(says)} requests, at most about ${says.duration}`;
    return written === printed ? [] : [`docs/guides/${name} says "${written}" where plan prints "${printed}" (the sentence ${String(pattern)}): update the guide`];
  });
  expect(stale).toEqual([]);
});

test('planEstimate reads the total line with a range, or with one number', () => {
  expect(planEstimate('x\ntotal: 147 to 161 requests, at most about 17 min at 0.167 requests/s\n')).toEqual({ from: 147, to: 161, duration: '17 min' });
  expect(planEstimate('total: 3418 to 3665 requests, at most about 6.1 h at 0.167 requests/s\n    --smoke          161 requests, about 17 min: every spec check once')).toEqual({ from: 3418, to: 3665, duration: '6.1 h', smoke: 161 });
  expect(planEstimate('total: 3418 to 3665 requests, at most about 6.1 h at 0.167 requests/s')).toEqual({ from: 3418, to: 3665, duration: '6.1 h' });
  expect(planEstimate('total: 60 requests, at most about 6 min at 0.167 requests/s')).toEqual({ from: 60, to: 60, duration: '6 min' });
  expect(() => planEstimate('nothing')).toThrow(/no total line/);
});
