import path from 'node:path';
import { loadProfile, ProfileError } from '../../contract/profile/load.ts';
import { fromRoot } from '../../foundation/paths.ts';
import { CHOICE_SETS, CHOICES, choiceTable, isChoiceSetName } from '../../../server/choices.ts';
import { FAULTS, faultTable, isFaultId } from '../../../server/faults.ts';
import { DEFAULT_MAX_BODY_BYTES, EMBEDDED_KEY, startReferenceServer } from '../../../server/index.ts';
import { isModelName, MODELS, modelTable } from '../../../server/models.ts';
import type { ModelName } from '../../../server/models.ts';
import { parseServerTrouble, SERVER_TROUBLE_KINDS, troubleHook } from '../../../server/trouble.ts';
import type { Command } from '../command.ts';
import { EXIT, listOption, stringOption, UsageError } from '../command.ts';
import { untilStopped } from '../../foundation/interrupt.ts';
import { MIN_CHOSEN_SECRET_LENGTH } from '../../foundation/redact.ts';

/** Where the server reads the key it accepts, so that it shows in no process list. */
export const SERVER_KEY_VARIABLE = 'ISWC_SERVER_KEY';

const DEFAULT_TARGET = 'fixtures/targets/embedded.json';

function integerOption(name: string, raw: string | undefined, min: number, max: number): number | undefined {
  if (raw === undefined) return undefined;
  if (!/^[0-9]+$/.test(raw) || Number(raw) < min || Number(raw) > max) throw new UsageError(`--${name} must be an integer from ${min} to ${max}, got "${raw}"`);
  return Number(raw);
}

/**
 * What a run against a model needs, on stderr when it starts: the model holds the data of the profile it was
 * started with (so the run takes the same one), the formats it serves and the waivers of its deviations.
 */
export function modelStartLine(model: ModelName, profileName: string, target: string | undefined): string {
  const settings = MODELS[model].profile as { formats?: readonly string[] };
  const formats = settings.formats ? ` (saying "formats": ${JSON.stringify(settings.formats)})` : '';
  return `model ${model}: holds the data of profile "${profileName}" (${target ?? `${DEFAULT_TARGET}, the default: start it with --target YOUR-PROFILE.json`}); run against it with that profile${formats} and --waivers fixtures/waivers/${model}.yaml`;
}

/** Why a server cannot listen where it was told: a port taken or not allowed, a host unknown or not this machine's. */
const LISTEN_ERRORS = new Set(['EADDRINUSE', 'EACCES', 'EADDRNOTAVAIL', 'ENOTFOUND', 'EAI_AGAIN', 'EAI_NONAME']);

/**
 * `npx iswc-conformance server`: the embedded reference server alone, for a run started apart, with
 * faults from its catalogue or legitimate choices. Prints exactly `listening http://HOST:PORT` on stdout
 * once it accepts connections.
 */
export const serverCommand: Command = {
  name: 'server',
  summary: 'start the embedded reference server alone (faults and legitimate choices on demand)',
  usage: 'npx iswc-conformance server [--port N] [--target FILE] [--key KEY] [--model NAME] [--fault ID]... [--choices SET | --choice ID...] [--inject KIND@N,...]',
  description:
    'Prints "listening http://HOST:PORT" when ready. SIGINT, SIGTERM or SIGHUP, or the end of the process that started it or of a launcher above it (npm, npx, a shell running `sh -c`), closes it and frees its port (exit 130), so that it never runs on as an orphan. A server started in the background from a wrapper (sh -c \'npx iswc-conformance server &\') therefore ends when the wrapper exits: to keep it running, let the wrapper wait for it (sh -c \'npx iswc-conformance server & wait\'), or start it from a process that stays (a terminal, a CI step, a supervisor such as systemd or a container\'s entrypoint), and stop it with SIGTERM. The key it accepts is read from ISWC_SERVER_KEY (or --key). Every choice it makes where the document says "not shown" is listed in docs/reference-server.md.',
  options: {
    port: { type: 'string', value: 'N', description: 'Port to listen on (default 0: a free port).' },
    host: { type: 'string', value: 'H', description: 'Address to listen on (default 127.0.0.1).' },
    target: { type: 'string', value: 'FILE', description: `Target profile that seeds the state (default ${DEFAULT_TARGET}).` },
    key: { type: 'string', value: 'KEY', description: `Subscription key to accept, instead of ISWC_SERVER_KEY (a flag shows in process lists and shell history: prefer the variable).` },
    fault: { type: 'string', multiple: true, value: 'ID', description: 'Play a fault from the catalogue; repeat for several (--list-faults).' },
    'max-body-bytes': { type: 'string', value: 'N', description: `Request body cap, over it 413 (default ${DEFAULT_MAX_BODY_BYTES}).` },
    choices: { type: 'string', value: 'SET', description: `A set of legitimate choices on the points the document leaves open: ${Object.keys(CHOICE_SETS).join(', ')} (default reference).` },
    choice: { type: 'string', multiple: true, value: 'ID', description: 'One choice of the catalogue; repeat for several (not with --choices; --list-choices).' },
    model: { type: 'string', value: 'NAME', description: `A model of a server that exists: its choices and its deviations (faults). ${Object.keys(MODELS).join(', ')}: start it with your profile (--target: it holds what the profile names) and run against it with that profile, in the formats it serves, and the waivers of fixtures/waivers/<NAME>.yaml (--list-models; it says so on stderr at start).` },
    inject: {
      type: 'string',
      multiple: true,
      value: 'KIND@N',
      description: `Trouble on purpose, not a deviation: production's infrastructure answering in place of the server. KIND@N for the N-th request, KIND@NxM for M in a row, KIND@NforDs for every request within D seconds (ms, s, min) of the N-th. Kinds: ${SERVER_TROUBLE_KINDS.join(', ')} (500: an infrastructure failure, empty body; 100: a processing exception, 400 {"code":"100",…}; maintenance: the application's maintenance mode, 503 {"code":"503",…} without Retry-After, which a run waits out). Said on stderr at start.`,
    },
    'list-faults': { type: 'boolean', description: 'Print the fault catalogue, the lenient families derived from the schemas included, and exit.' },
    'list-choices': { type: 'boolean', description: 'Print the catalogue of legitimate choices and exit.' },
    'list-models': { type: 'boolean', description: 'Print the models of servers that exist and exit.' },
  },
  environment: [
    [SERVER_KEY_VARIABLE, `The subscription key the server accepts (default ${EMBEDDED_KEY}, a test key that guards nothing); --key wins.`],
    ['ISWC_SERVER_DEBUG', '1: print the stack of an unexpected exception (answered 400) to stderr.'],
  ],
  exitCodes: [
    [EXIT.OK, 'a list was printed'],
    [EXIT.USAGE, 'bad options, an unreadable profile, or the server cannot start there (the port is taken, the host is unknown or not this machine\'s)'],
    [EXIT.INTERRUPTED, 'closed by SIGINT, SIGTERM or SIGHUP, or because the process that started it ended; the port is free again'],
  ],
  async run({ values }, io) {
    if (values['list-faults'] === true) {
      io.stdout(`${faultTable({ families: true })}\n`);
      return EXIT.OK;
    }
    if (values['list-choices'] === true) {
      io.stdout(`${choiceTable()}\n`);
      return EXIT.OK;
    }
    if (values['list-models'] === true) {
      io.stdout(`${modelTable()}\n`);
      return EXIT.OK;
    }
    const model = stringOption(values, 'model');
    if (model !== undefined && !isModelName(model)) throw new UsageError(`--model must be one of ${Object.keys(MODELS).join(', ')}, got "${model}"`);
    const port = integerOption('port', stringOption(values, 'port'), 0, 65535) ?? 0;
    const choicesSet = stringOption(values, 'choices');
    const choiceIds = listOption(values, 'choice');
    if (choicesSet !== undefined && !isChoiceSetName(choicesSet)) throw new UsageError(`--choices must be one of ${Object.keys(CHOICE_SETS).join(', ')}, got "${choicesSet}"`);
    if (choicesSet !== undefined && choiceIds.length > 0) throw new UsageError('give --choices or --choice, not both');
    const unknownChoices = choiceIds.filter((id) => !CHOICES.some((c) => c.id === id));
    if (unknownChoices.length > 0) throw new UsageError(`unknown choice ${unknownChoices.join(', ')}; run with --list-choices to see the ${CHOICES.length} valid ids`);
    const maxBodyBytes = integerOption('max-body-bytes', stringOption(values, 'max-body-bytes'), 0, Number.MAX_SAFE_INTEGER);
    const faults = listOption(values, 'fault');
    const unknown = faults.filter((id) => !isFaultId(id));
    if (unknown.length > 0) throw new UsageError(`unknown fault ${unknown.join(', ')}; run with --list-faults to see the ${FAULTS.length} valid ids`);
    const flagKey = stringOption(values, 'key');
    if (flagKey === '') throw new UsageError('--key must not be empty');
    const envKey = io.env[SERVER_KEY_VARIABLE];
    if (flagKey === undefined && envKey !== undefined && envKey.trim() === '') throw new UsageError(`${SERVER_KEY_VARIABLE} is set but empty: give the key the server accepts, or unset it for ${EMBEDDED_KEY}`);
    const key = flagKey ?? envKey?.trim();
    const host = stringOption(values, 'host');
    if (host === '') throw new UsageError('--host must not be empty');
    let troubles;
    try {
      troubles = parseServerTrouble(listOption(values, 'inject'));
    } catch (e) {
      throw new UsageError((e as Error).message);
    }
    let profile;
    const target = stringOption(values, 'target');
    try {
      profile = target !== undefined ? loadProfile(path.resolve(io.cwd, target), target) : loadProfile(fromRoot(DEFAULT_TARGET));
    } catch (e) {
      if (e instanceof ProfileError) throw new UsageError(e.message);
      throw e;
    }
    let server;
    try {
      server = await startReferenceServer({
        profile,
        key: key ?? EMBEDDED_KEY,
        faults,
        port,
        ...(host !== undefined ? { host } : {}),
        ...(maxBodyBytes !== undefined ? { maxBodyBytes } : {}),
        ...(choicesSet !== undefined && isChoiceSetName(choicesSet) ? { choices: choicesSet } : choiceIds.length > 0 ? { choices: choiceIds } : {}),
        ...(model !== undefined && isModelName(model) ? { model } : {}),
        ...(troubles.length > 0 ? { hook: troubleHook(troubles) } : {}),
      });
    } catch (e) {
      // A port or host that cannot be used is the caller's to change, as for the sandbox; anything else is a defect.
      if (!LISTEN_ERRORS.has((e as NodeJS.ErrnoException).code ?? '')) throw e;
      io.stderr(`iswc-conformance server: cannot start on ${host ?? '127.0.0.1'}:${port}: ${(e as Error).message}\n`);
      return EXIT.USAGE;
    }
    // Watched before "listening" is printed: whoever reads it may signal at once.
    const stopped = untilStopped();
    if (troubles.length > 0) io.stderr(`trouble on purpose (not a deviation of the server): ${troubles.map((t) => t.text).join(', ')}\n`);
    // What a run against a model needs, said where the newcomer looks: the data it holds is the profile's.
    if (model !== undefined && isModelName(model)) io.stderr(`${modelStartLine(model, profile.name, target)}\n`);
    if (key !== undefined && key.length < MIN_CHOSEN_SECRET_LENGTH) {
      io.stderr(`note: this key is ${key.length} characters long; run and certify refuse a key shorter than ${MIN_CHOSEN_SECRET_LENGTH} (it would garble their reports): give the server a longer one\n`);
    }
    io.stdout(`listening ${server.url}\n`);
    await stopped;
    await server.close();
    return EXIT.INTERRUPTED;
  },
};
