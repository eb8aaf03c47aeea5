/**
 * The example agency client from the command line: one agency day (run start, merge, demerge, submission
 * delete, run end) against the API at ISWC_BASE_URL with the key in ISWC_SUBSCRIPTION_KEY, the data from a
 * target profile. Point it at the sandbox (README, "Test your own client"):
 *
 *   ISWC_BASE_URL=http://127.0.0.1:8099 ISWC_SUBSCRIPTION_KEY=... npx tsx examples/agency-client/run.ts [--format json|xml] [--target FILE]
 *
 * Exit status: 0 when every step succeeded, 1 when the API refused one (each step's outcome is printed),
 * 2 on bad usage.
 */
import path from 'node:path';
import { parseArgs } from 'node:util';
import { AgencyClient } from './client.ts';
import { loadAgencyData } from './data.ts';
import { agencyDay } from './flow.ts';

async function main(): Promise<number> {
  let values: { format?: string; target?: string };
  try {
    ({ values } = parseArgs({ options: { format: { type: 'string' }, target: { type: 'string' } }, strict: true }));
  } catch (e) {
    process.stderr.write(`agency-client: ${(e as Error).message}\n`);
    return 2;
  }
  const baseUrl = process.env.ISWC_BASE_URL;
  const key = process.env.ISWC_SUBSCRIPTION_KEY;
  const format = values.format ?? 'json';
  if (!baseUrl || !key || (format !== 'json' && format !== 'xml')) {
    process.stderr.write('usage: ISWC_BASE_URL=URL ISWC_SUBSCRIPTION_KEY=KEY npx tsx examples/agency-client/run.ts [--format json|xml] [--target FILE]\n');
    return 2;
  }
  const data = loadAgencyData(path.resolve(values.target ?? 'fixtures/targets/sandbox-client.json'));
  const client = new AgencyClient({ baseUrl, key, format });
  try {
    const outcome = await agencyDay(client, data, true);
    for (const [step, result] of Object.entries(outcome)) process.stdout.write(`${step.padEnd(8)}${result}\n`);
    process.stdout.write(`${client.sent} requests sent (retries included)\n`);
    return Object.values(outcome).every((r) => r === 'ok') ? 0 : 1;
  } finally {
    await client.close();
  }
}

process.exitCode = await main();
