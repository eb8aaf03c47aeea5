import { expect, _baseTest as test } from '@playwright/test';
import { loadProfile } from '../../lib/contract/profile/load.ts';
import { fromRoot } from '../../lib/foundation/paths.ts';
import { startReferenceServer } from '../../server/index.ts';
import { parseServerTrouble, troubleHook } from '../../server/trouble.ts';
import { startCli } from '../support/cli.ts';
import { childEnv } from '../support/run-playwright.ts';

const KEY = 'trouble-test-key';

/**
 * Issue 29: production's infrastructure failures and its maintenance mode are trouble to inject into the
 * model (`server --inject`), never a deviation of it: the 500 of a matching engine's timeout
 * (src/Api.Agency/Extensions/ServiceCollectionExtensions.cs, rethrown by src/Api.Agency/Managers/PipelineManager.cs)
 * and the 503 {"code":"503",…} without Retry-After (src/Framework/Maintenance/Middleware/MaintenanceMode.cs).
 */
test('server --inject: maintenance, an infrastructure 500 and a processing exception answer in place of the model, on the requests named', async () => {
  const profile = { ...loadProfile(fromRoot('fixtures', 'targets', 'embedded.json')), formats: ['json' as const] };
  const server = await startReferenceServer({ profile, key: KEY, model: 'production-as-built', hook: troubleHook(parseServerTrouble(['maintenance@2x2', '500@4', '100@6'])) });
  try {
    const answers = [];
    for (let i = 0; i < 7; i++) {
      const r = await fetch(`${server.url}/agent/run`, { method: 'POST', headers: { 'Content-Type': 'application/json', 'Ocp-Apim-Subscription-Key': KEY }, body: JSON.stringify({ agencyCode: profile.agency }) });
      answers.push({ status: r.status, retryAfter: r.headers.get('retry-after'), body: await r.text() });
    }
    expect(answers.map((a) => a.status)).toEqual([200, 503, 503, 500, 200, 400, 200]);
    expect(JSON.parse(answers[1]?.body ?? '')).toEqual({ code: '503', message: 'The system is currently undergoing scheduled maintenance.' });
    expect(answers[1]?.retryAfter).toBeNull();
    expect(answers[3]?.body).toBe('');
    // A processing exception (src/PipelineComponents/ProcessingComponent/ProcessingComponent.cs): a rejection with code 100.
    expect(JSON.parse(answers[5]?.body ?? '')).toEqual({ code: '100', message: 'Internal Server Error.' });
  } finally {
    await server.close();
  }
});

test('server --inject: what it takes, and what it refuses in one line', () => {
  expect(parseServerTrouble(['maintenance@4for30s,500@9'])).toEqual([
    { kind: 'maintenance', at: 4, times: 1, forMs: 30_000, text: 'maintenance@4for30s' },
    { kind: '500', at: 9, times: 1, text: '500@9' },
  ]);
  expect(() => parseServerTrouble(['503@2'])).toThrow('--inject: unknown kind "503" in "503@2"; kinds: 500, 100, maintenance');
  expect(() => parseServerTrouble(['500'])).toThrow(/is not KIND@N/);
  expect(() => parseServerTrouble(['500@0'])).toThrow(/N counts requests from 1/);
});

/**
 * Issue 29, tried as a newcomer: a model holds the data of the profile it was started with, and a run takes
 * a key of 8 characters at least. `server --model` says both where the newcomer looks, on stderr at start
 * (stdout keeps exactly "listening URL"): a model started without --target with the profile it holds by
 * default and how to give one, and a key too short for the run.
 */
test('server --model says which profile it holds, with what to run against it; a key the run would refuse is said at start', async () => {
  const env = childEnv({ ISWC_SERVER_KEY: 'short' });
  for (const [args, holds] of [
    [['--target', 'fixtures/targets/production-example.json'], 'holds the data of profile "production-example" (fixtures/targets/production-example.json); run against it'],
    [[], 'holds the data of profile "embedded" (fixtures/targets/embedded.json, the default: start it with --target YOUR-PROFILE.json)'],
  ] as const) {
    const server = startCli(['server', '--model', 'production-as-built', '--port', '0', ...args], { env, timeoutMs: 60_000 });
    try {
      await expect.poll(() => server.output(), { timeout: 50_000 }).toContain('listening http://');
    } finally {
      server.signal('SIGTERM');
    }
    const done = await server.done;
    expect(done.stdout).toMatch(/^listening http:\/\/127\.0\.0\.1:\d+\n$/);
    expect(done.stderr).toContain(`model production-as-built: ${holds}`);
    expect(done.stderr).toContain('run against it with that profile (saying "formats": ["json"]) and --waivers fixtures/waivers/production-as-built.yaml');
    expect(done.stderr).toContain('note: this key is 5 characters long; run and certify refuse a key shorter than 8');
  }
});
