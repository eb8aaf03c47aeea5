import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect, _baseTest as test } from '@playwright/test';
import { planReplay } from '../../lib/compat/plan.ts';
import { startReplay } from '../../lib/compat/replay.ts';
import { buildCompatReport } from '../../lib/compat/report.ts';
import { DIRECT } from '../../lib/config/proxy.ts';
import { loadProfile } from '../../lib/contract/profile/load.ts';
import { fromRoot } from '../../lib/foundation/paths.ts';
import { loadSessions } from '../../lib/traffic/load.ts';
import { CHOICES, startReferenceServer } from '../../server/index.ts';
import { recordAgencyDay, THREE_AGENCIES } from '../support/agency-sessions.ts';

/**
 * No false alarm from a legitimate server: against a build making any one choice of the catalogue (a
 * point the document leaves open), the three agencies' sessions are compatible or changed, never broken,
 * unless the choice refuses what a client sends (then a success became a refusal, and the agency would
 * indeed be broken): a reason-code list the example data is not on, run ids chosen by the client.
 */

test.describe.configure({ timeout: 600_000 });

/** Choices that refuse a request the example clients send: broken for them, by right. */
const REFUSING: Readonly<Record<string, string>> = {
  'reason-code-list': 'the deletes carry reason code EdiV1, which the list does not hold',
  'run-id-client-chosen': 'the run starts carry no runId, which the build wants chosen by the client',
  'agent-version-typed': 'the run starts carry agentVersion "example-client 1.0", which a build reading it as a System.Version refuses',
  'run-counters-successful-sum': "the example client's counters do not add up as successful = new + updated, which such a build refuses",
  'run-counters-sent-by-kind': "the example client's runs with rejections do not add up as sent = new + updated, which such a build refuses",
};

/** Choices the document allows that give a client another thing to read than it asked for or met: broken for it, by right. */
const UNREADABLE: Readonly<Record<string, RegExp>> = {
  'answer-json-always': /^an answer in a format the client did not ask for: JSON to a request with Accept: application\/xml/,
  'answer-xml-always': /^an answer in a format the client did not ask for: XML to a request with Accept: application\/json/,
  'json-text-plain': /^the Content-Type no longer names the body's format: JSON labelled text\/plain/,
  'xml-answer-datacontract': /^an element is named otherwise: \/CsnNotification(\/runId)? was CsnNotification/,
};

test('a build making any one legitimate choice: never broken, but where the choice refuses what the client sends or answers what it cannot read', async () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'iswc-compat-choices-'));
  try {
    for (const [agency, standIn] of Object.entries(THREE_AGENCIES)) await recordAgencyDay(path.join(dir, agency), standIn, 'choices-sandbox-key');
    const sessions = loadSessions(dir, dir).sessions;
    const profile = loadProfile(fromRoot('fixtures/targets/sandbox-client.json'));
    const key = 'choices-build-key-7';
    const brokenBy = new Map<string, string[]>();
    let changed = 0;
    for (const choice of CHOICES.map((c) => c.id)) {
      const server = await startReferenceServer({ profile, key, choices: [choice] });
      try {
        const plan = planReplay(sessions, { profile, destructive: true });
        const run = await startReplay({ plan, profile, strict: false, target: { baseUrl: server.url, settings: { key, timeoutMs: 10_000, maxBodyBytes: 1 << 20, headers: [], network: DIRECT }, rate: null } });
        await run.done;
        const report = buildCompatReport({ plan, run, profile, embedded: false, startedAt: new Date(), finishedAt: new Date(), settings: { destructive: true, strict: false, rate: null, budget: null, maxDuration: null } });
        const broken = report.exchanges.filter((e) => e.verdict === 'broken' && e.judgedBy === e.id);
        if (broken.length > 0) brokenBy.set(choice, broken.map((e) => `${e.id}: ${e.reasons[0] ?? ''}`));
        if (report.agencies.some((a) => a.verdict === 'changed')) changed += 1;
        // A build whose key acts for its own agency only refuses the others': not comparable, never broken.
        const skipped = report.exchanges.filter((e) => e.verdict === 'skipped');
        if (!(choice in REFUSING)) for (const e of skipped) expect(`${e.agency} ${e.reasons[0] ?? ''}`, choice).toMatch(/^(021|058) (not comparable: the build refused the key for agency (021|058) \(40[13]\)|the start of its run \(e\d+\) got no runId from the build \(40[13]\))/);
      } finally {
        await server.close();
      }
    }
    expect([...brokenBy.keys()].sort()).toEqual([...Object.keys(REFUSING), ...Object.keys(UNREADABLE)].sort());
    for (const [choice, reasons] of brokenBy) for (const r of reasons) expect(r.replace(/^e\d+: /, ''), choice).toMatch(UNREADABLE[choice] ?? /a success became a refusal: 20[04] → 400$/);
    // The choices a client can see (a media type, a namespace, an encoding, a field, a runId's form) say so.
    // (Those that give a client another thing to read, a label, a format it did not ask for, a namespace, are broken above.)
    expect(changed).toBeGreaterThanOrEqual(7);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
