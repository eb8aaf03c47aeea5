import { parseArgs } from 'node:util';
import { fromRoot } from '../lib/paths.ts';
import { loadProfile } from '../lib/contract/profile/load.ts';
import { CHOICE_SETS, CHOICES, choiceTable, isChoiceSetName } from './choices.ts';
import { FAULTS, faultTable, isFaultId } from './faults.ts';
import { DEFAULT_MAX_BODY_BYTES, EMBEDDED_KEY, startReferenceServer } from './index.ts';

/**
 * npm run server -- --port 0 --target fixtures/targets/embedded.json --key KEY [--fault ID]... [--host H]
 *
 * Prints exactly `listening http://HOST:PORT` on stdout once the server accepts connections. Bad
 * arguments exit with code 2; a server that cannot start exits with code 1.
 */

const DEFAULT_TARGET = 'fixtures/targets/embedded.json';

const USAGE = `Usage: npm run server -- [options]

Starts the embedded reference server of the ISWC Agency Submission API.

Options:
  --port N             port to listen on (default 0: a free port)
  --host H             address to listen on (default 127.0.0.1)
  --target FILE        target profile that seeds the state (default ${DEFAULT_TARGET})
  --key KEY            subscription key to accept (default ${EMBEDDED_KEY})
  --fault ID           play a fault from the catalogue; repeat for several
  --max-body-bytes N   request body cap, over it 413 (default ${DEFAULT_MAX_BODY_BYTES})
  --choices C          a set of legitimate choices on the points the document leaves open:
                       ${Object.keys(CHOICE_SETS).join(', ')} (default reference); or
  --choice ID          one choice of the catalogue; repeat for several (not with --choices)
  --list-faults        print the fault catalogue and exit
  --list-choices       print the catalogue of legitimate choices and exit
  --help               print this text and exit

Prints "listening http://HOST:PORT" when ready. SIGINT or SIGTERM close it.
See docs/reference-server.md.`;

class UsageError extends Error {}

function integerOption(name: string, raw: string | undefined, min: number, max: number): number | undefined {
  if (raw === undefined) return undefined;
  if (!/^[0-9]+$/.test(raw) || Number(raw) < min || Number(raw) > max) throw new UsageError(`--${name} must be an integer from ${min} to ${max}, got "${raw}"`);
  return Number(raw);
}

async function main(argv: string[]): Promise<number> {
  let values;
  try {
    ({ values } = parseArgs({
      args: argv,
      options: {
        port: { type: 'string' },
        host: { type: 'string' },
        target: { type: 'string' },
        key: { type: 'string' },
        fault: { type: 'string', multiple: true },
        'max-body-bytes': { type: 'string' },
        choices: { type: 'string' },
        choice: { type: 'string', multiple: true },
        'list-faults': { type: 'boolean' },
        'list-choices': { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
      },
      strict: true,
      allowPositionals: false,
    }));
  } catch (e) {
    throw new UsageError((e as Error).message);
  }
  if (values.help) {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }
  if (values['list-faults']) {
    process.stdout.write(`${faultTable()}\n`);
    return 0;
  }
  if (values['list-choices']) {
    process.stdout.write(`${choiceTable()}\n`);
    return 0;
  }
  const port = integerOption('port', values.port, 0, 65535) ?? 0;
  if (values.choices !== undefined && !isChoiceSetName(values.choices)) {
    throw new UsageError(`--choices must be one of ${Object.keys(CHOICE_SETS).join(', ')}, got "${values.choices}"`);
  }
  if (values.choices !== undefined && values.choice !== undefined) throw new UsageError('give --choices or --choice, not both');
  const unknownChoices = (values.choice ?? []).filter((id) => !CHOICES.some((c) => c.id === id));
  if (unknownChoices.length > 0) throw new UsageError(`unknown choice ${unknownChoices.join(', ')}; run with --list-choices to see the ${CHOICES.length} valid ids`);
  const maxBodyBytes = integerOption('max-body-bytes', values['max-body-bytes'], 0, Number.MAX_SAFE_INTEGER);
  const faults = values.fault ?? [];
  const unknown = faults.filter((id) => !isFaultId(id));
  if (unknown.length > 0) {
    throw new UsageError(`unknown fault ${unknown.join(', ')}; run with --list-faults to see the ${FAULTS.length} valid ids`);
  }
  if (values.key === '') throw new UsageError('--key must not be empty');
  if (values.host === '') throw new UsageError('--host must not be empty');
  const target = values.target ?? fromRoot(DEFAULT_TARGET);
  let profile;
  try {
    profile = loadProfile(target);
  } catch (e) {
    throw new UsageError((e as Error).message);
  }

  const server = await startReferenceServer({
    profile,
    key: values.key ?? EMBEDDED_KEY,
    faults,
    port,
    ...(values.host !== undefined ? { host: values.host } : {}),
    ...(maxBodyBytes !== undefined ? { maxBodyBytes } : {}),
    ...(values.choices !== undefined && isChoiceSetName(values.choices) ? { choices: values.choices } : values.choice ? { choices: values.choice } : {}),
  });
  process.stdout.write(`listening ${server.url}\n`);

  await new Promise<void>((resolve) => {
    const stop = (): void => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      server.close().then(resolve, resolve);
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
  });
  return 0;
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (e: unknown) => {
    if (e instanceof UsageError) {
      process.stderr.write(`iswc reference server: ${e.message}\nRun with --help for usage.\n`);
      process.exitCode = 2;
    } else {
      process.stderr.write(`iswc reference server: cannot start: ${(e as Error).message}\n`);
      process.exitCode = 1;
    }
  },
);
