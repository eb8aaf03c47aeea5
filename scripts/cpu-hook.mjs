// A measurement hook for `npm test` (npm run test:cpu, CONTRIBUTING.md "Where the time goes"): loaded into
// every Node process with NODE_OPTIONS="--import <absolute path of this file>", it appends one line per
// process to $CPU_HOOK_LOG when the process exits (its CPU, user and system, with its command line), and
// says which test file it belongs to:
//   - a process a test started is tagged with that test's file, found on the stack of the call that
//     started it; its own children inherit the tag (CPU_HOOK_TEST);
//   - a Playwright worker also logs the CPU it spent on each test file it ran (one line per group of tests,
//     from the runner's runTestGroup request to its answer).
// The variables are no ISWC_ settings: the docs' runner gives the commands it runs a newcomer's
// environment, without the harness's settings, and they are measured too.
// Without CPU_HOOK_LOG it does nothing. It changes nothing a process does: a failure to log is ignored.
// Plain JavaScript on untyped ground (child_process's overloaded arguments, Playwright's IPC messages):
/* eslint-disable @typescript-eslint/no-unsafe-argument, @typescript-eslint/no-unsafe-assignment, @typescript-eslint/no-unsafe-call, @typescript-eslint/no-unsafe-member-access, @typescript-eslint/no-unsafe-return, @typescript-eslint/prefer-promise-reject-errors */
import { appendFileSync } from 'node:fs';
import childProcess from 'node:child_process';
import { syncBuiltinESMExports } from 'node:module';
import { promisify } from 'node:util';

const log = process.env.CPU_HOOK_LOG;
const inherited = process.env.CPU_HOOK_TEST;
const started = Date.now();

function write(line) {
  try {
    appendFileSync(log, `${JSON.stringify(line)}\n`);
  } catch {
    // a measurement never breaks what it measures
  }
}

const cpuSeconds = (usage) => (usage.user + usage.system) / 1e6;

/** The test file on the stack of this call, else the one this process inherited. */
function testFile() {
  const found = /\/((?:tests|examples)\/[^:()\s]+\.spec\.ts)/.exec(new Error().stack ?? '');
  return found ? found[1] : inherited;
}

if (log) {
  // (file, args?, options?, callback?): the options object gets the tag in its env (or the process's env).
  const tagged = (rest, tag) => {
    const at = rest.findIndex((a) => a !== null && typeof a === 'object' && !Array.isArray(a));
    if (at >= 0) return rest.map((a, i) => (i === at ? { ...a, env: { ...(a.env ?? process.env), CPU_HOOK_TEST: tag } } : a));
    const options = { env: { ...process.env, CPU_HOOK_TEST: tag } };
    const callback = rest.findIndex((a) => typeof a === 'function');
    return callback >= 0 ? [...rest.slice(0, callback), options, ...rest.slice(callback)] : [...rest, options];
  };
  for (const name of ['spawn', 'spawnSync', 'fork', 'execFile', 'execFileSync']) {
    const original = childProcess[name];
    const wrapped = function (file, ...rest) {
      const tag = testFile();
      return original.call(this, file, ...(tag ? tagged(rest, tag) : rest));
    };
    // promisify(execFile) resolves { stdout, stderr } and rejects with them on the error, as Node's own does.
    if (name === 'execFile') {
      wrapped[promisify.custom] = (...args) =>
        new Promise((resolve, reject) => {
          wrapped(...args, (error, stdout, stderr) => {
            if (error) reject(Object.assign(error, { stdout, stderr }));
            else resolve({ stdout, stderr });
          });
        });
    }
    childProcess[name] = wrapped;
  }
  syncBuiltinESMExports();

  // A Playwright worker: the CPU of each group of tests (one file) it runs, from the request to its answer.
  if (typeof process.send === 'function' && process.argv.some((a) => a.includes('workerProcessEntry'))) {
    const groups = new Map();
    process.prependListener('message', (message) => {
      const request = message?.method === '__dispatch__' ? message.params : undefined;
      if (request?.method === 'runTestGroup') groups.set(request.id, { file: request.params?.file ?? '?', cpu: process.cpuUsage() });
    });
    const send = process.send.bind(process);
    process.send = (message, ...rest) => {
      const id = message?.method === '__dispatch__' ? message.params?.id : undefined;
      const group = id === undefined ? undefined : groups.get(id);
      if (group && message.params && !('method' in message.params)) {
        groups.delete(id);
        write({ kind: 'group', pid: process.pid, test: inherited ?? null, file: group.file, cpu: cpuSeconds(process.cpuUsage(group.cpu)) });
      }
      return send(message, ...rest);
    };
  }

  process.on('exit', () => {
    write({ kind: 'process', pid: process.pid, ppid: process.ppid, test: inherited ?? null, cpu: cpuSeconds(process.cpuUsage()), wallMs: Date.now() - started, argv: process.argv.slice(1).join(' ').slice(0, 300) });
  });
}
