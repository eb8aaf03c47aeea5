/**
 * The generated client from the command line: one agency day against the API at ISWC_BASE_URL with the
 * key in ISWC_SUBSCRIPTION_KEY, the data from a target profile (default the sandbox's client profile):
 *
 *   ISWC_BASE_URL=http://127.0.0.1:8099 ISWC_SUBSCRIPTION_KEY=... npx tsx examples/generated-client/run.ts [--target FILE]
 *
 * Exit status: 0 when every step succeeded, 1 when the API refused one, 2 on bad usage.
 */
import path from 'node:path';
import { parseArgs } from 'node:util';
import { loadAgencyData } from '../agency-client/data.ts';
import { agencyApi, agencyDay, Refused } from './client.ts';

async function main(): Promise<number> {
  let target: string | undefined;
  try {
    ({ values: { target } } = parseArgs({ options: { target: { type: 'string' } }, strict: true }));
  } catch (e) {
    process.stderr.write(`generated-client: ${(e as Error).message}\n`);
    return 2;
  }
  const baseUrl = process.env.ISWC_BASE_URL;
  const key = process.env.ISWC_SUBSCRIPTION_KEY;
  if (!baseUrl || !key) {
    process.stderr.write('usage: ISWC_BASE_URL=URL ISWC_SUBSCRIPTION_KEY=KEY npx tsx examples/generated-client/run.ts [--target FILE]\n');
    return 2;
  }
  const data = loadAgencyData(path.resolve(target ?? 'fixtures/targets/sandbox-client.json'));
  try {
    await agencyDay(agencyApi(baseUrl, key), data);
    process.stdout.write('run start, merge, demerge, delete, run end: ok\n');
    return 0;
  } catch (e) {
    if (!(e instanceof Refused)) throw e;
    process.stdout.write(`${e.message}\n`);
    return 1;
  }
}

process.exitCode = await main();
