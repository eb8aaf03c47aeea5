import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fromRoot } from '../../lib/foundation/paths.ts';
import type { FencedBlock } from './markdown.ts';
import { fencedBlocks } from './markdown.ts';
import { requireE2e } from './tier.ts';

/**
 * Runs the shell blocks of a Markdown file (a guide, a section of the README) as a reader would, so that
 * a doc and what the tool does cannot drift apart. The convention the docs follow:
 *
 * - ```` ```sh ```` blocks run in order, in one bash script (`set -euo pipefail`: the first command that
 *   fails stops it), in a fresh directory that looks like a clone: `package.json`, `node_modules`, `bin`,
 *   `fixtures`, `examples`, `schemas` are links to this checkout, and nothing else is there, so
 *   `npx iswc-conformance` resolves as it does in a clone and every file the commands write is theirs.
 * - ```` ```sh background ```` blocks are what a reader starts in a second terminal (a stand-in server, a
 *   sandbox): started where they stand, in a process group of their own, and waited for until they print
 *   `listening http://127.0.0.1:PORT`; stopped (SIGTERM to the group) when the script ends.
 * - Ports 18080 to 18099 are the docs' own: each is replaced by a free port, the same one everywhere in
 *   the file. Nothing else is changed.
 *
 * Other blocks (text, json, yaml) are not run.
 */

/** The blocks of a Markdown text that run: `sh`, and `sh background`. */
export function runnableBlocks(markdown: string): FencedBlock[] {
  return fencedBlocks(markdown).filter((b) => b.info === 'sh' || b.info === 'sh background');
}

/** The part of a Markdown text under a heading (`## Title`), up to the next heading of its level or above (fences are not headings). */
export function sectionOf(markdown: string, heading: string): string {
  const lines = markdown.split('\n');
  let inFence = false;
  let start = -1;
  let level = 0;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] ?? '';
    if (/^\s*```/.test(line)) inFence = !inFence;
    if (inFence) continue;
    const h = /^(#{1,6}) (.*?)\s*$/.exec(line);
    if (!h) continue;
    const depth = (h[1] ?? '').length;
    if (start < 0 && h[2] === heading) {
      start = i;
      level = depth;
    } else if (start >= 0 && depth <= level) {
      return lines.slice(start, i).join('\n');
    }
  }
  if (start < 0) throw new Error(`no heading "${heading}"`);
  return lines.slice(start).join('\n');
}

/**
 * A port no other test takes before the docs' command binds it. A port the kernel hands out for port 0 is
 * in its ephemeral range, where any other test's server started on port 0 may take it between this check
 * and the bind (EADDRINUSE, seen in CI). So the port comes from below that range and below the closed
 * ports of server/hostile/servers.ts (20000 to 32000): from 10000 to 17999, a slice of its own for each
 * Playwright worker, checked free, and never handed out twice by a process.
 */
const handedOut = new Set<number>();
const LOW = 10_000;
const HIGH = 18_000;

function bindable(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

export async function freePort(): Promise<number> {
  const worker = Number(process.env.TEST_PARALLEL_INDEX ?? process.env.TEST_WORKER_INDEX ?? 0) % 8;
  const slice = Math.floor((HIGH - LOW) / 8);
  const start = LOW + worker * slice;
  for (let tries = 0; tries < 200; tries += 1) {
    const port = start + Math.floor(Math.random() * slice);
    if (handedOut.has(port)) continue;
    if (await bindable(port)) {
      handedOut.add(port);
      return port;
    }
  }
  throw new Error(`no free port between ${start} and ${start + slice}`);
}

/** What a clone has that the docs' commands use. */
const CLONE_ENTRIES = ['package.json', 'node_modules', 'bin', 'fixtures', 'examples', 'schemas', 'tsconfig.json'];

/** A new directory that looks like a fresh clone to the docs' commands (`npx iswc-conformance` resolves there); the caller removes it. */
export function cloneLikeDir(prefix = 'iswc-doc-'): string {
  const dir = mkdtempSync(path.join(tmpdir(), prefix));
  for (const entry of CLONE_ENTRIES) symlinkSync(fromRoot(entry), path.join(dir, entry));
  return dir;
}

export interface DocRun {
  /** Exit status of the script: 0 when every command succeeded. */
  status: number | null;
  /** Everything the commands and the background blocks printed. */
  output: string;
  /** The free port each of the docs' ports became. */
  ports: Map<string, number>;
  /** The script as it ran (for a failure's message). */
  script: string;
}

/**
 * `npx iswc-conformance ARGS` as the same command without npx's own start (about 1.5 s of CPU each, a
 * quarter of a short command): the bin the package declares, run by node, in the background blocks too.
 * Anything else given to npx goes to the real one. The README's walkthrough keeps the real npx
 * (`realNpx`), so that the way a clone resolves the command stays proven.
 */
const NPX_SHORTCUT = `
__clone="$PWD"
npx() {
  if [ "\${1:-}" = iswc-conformance ]; then shift; node "$__clone/bin/iswc-conformance.mjs" "$@"; else command npx "$@"; fi
}
export __clone
export -f npx
`;

const BACKGROUND_HELPER = `
__bg_pids=()
__bg_logs=()
__stop_background() {
  for pid in "\${__bg_pids[@]}"; do kill -TERM -- "-$pid" 2>/dev/null || true; done
  for pid in "\${__bg_pids[@]}"; do for _ in $(seq 100); do kill -0 -- "-$pid" 2>/dev/null || break; sleep 0.1; done; done
  for log in "\${__bg_logs[@]}"; do echo "--- $log, when the script ended:"; cat "$log"; done
}
trap __stop_background EXIT
__background() { # $1: log file, $2: the block
  setsid bash -c "$2" >"$1" 2>&1 < /dev/null &
  __bg_pids+=($!)
  __bg_logs+=("$1")
  echo "$!" >> .background-pids
  for _ in $(seq 600); do
    if grep -q 'listening http://127.0.0.1:' "$1" 2>/dev/null; then cat "$1"; return 0; fi
    if ! kill -0 "$!" 2>/dev/null; then cat "$1"; echo "background block exited before it listened" >&2; return 1; fi
    sleep 0.1
  done
  cat "$1"; echo "background block did not say it was listening within 60 s" >&2; return 1
}
`;

/**
 * The environment of a newcomer: this process's, without the settings of the run that tests it. npx keeps
 * its link to the clone in an npm cache of the run's own (`cache`), removed with it.
 */
export function newcomerEnv(cache: string): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!/^(ISWC_|PW_|PLAYWRIGHT_|TEST_|npm_)/i.test(k)) env[k] = v;
  // npx must find the tool in the clone, never ask the registry.
  env.npm_config_offline = 'true';
  env.npm_config_update_notifier = 'false';
  env.npm_config_fund = 'false';
  env.npm_config_cache = cache;
  return env;
}

/** Runs the runnable blocks of `markdown` (see above); resolves when the script has ended and its background blocks are stopped. */
export async function runDocBlocks(markdown: string, options: { timeoutMs: number; label: string; inspect?: (dir: string) => void; realNpx?: boolean }): Promise<DocRun> {
  requireE2e(`the commands of ${options.label}`);
  const blocks = runnableBlocks(markdown);
  if (blocks.length === 0) throw new Error(`${options.label}: no sh block to run`);
  const ports = new Map<string, number>();
  for (const m of markdown.matchAll(/\b180[89][0-9]\b/g)) if (!ports.has(m[0])) ports.set(m[0], await freePort());
  const local = (text: string): string => text.replace(/\b180[89][0-9]\b/g, (p) => String(ports.get(p) ?? p));
  const parts = ['set -euo pipefail', ...(options.realNpx === true ? [] : [NPX_SHORTCUT]), BACKGROUND_HELPER];
  blocks.forEach((block, i) => {
    const body = local(block.body);
    if (block.info === 'sh background') parts.push(`__background .background-${i}.log ${shellQuote(body)}`);
    else parts.push(body);
  });
  const script = parts.join('\n');
  const dir = cloneLikeDir();
  writeFileSync(path.join(dir, '.script.sh'), script);
  try {
    const { status, output } = await new Promise<{ status: number | null; output: string }>((resolve) => {
      const child = spawn('bash', ['.script.sh'], { cwd: dir, env: newcomerEnv(path.join(dir, '.npm-cache')), stdio: ['ignore', 'pipe', 'pipe'], detached: true });
      let out = '';
      child.stdout.on('data', (d: Buffer) => (out += d.toString('utf8')));
      child.stderr.on('data', (d: Buffer) => (out += d.toString('utf8')));
      const timer = setTimeout(() => {
        out += `\n[${options.label}: stopped after ${options.timeoutMs} ms]\n`;
        if (child.pid !== undefined) process.kill(-child.pid, 'SIGTERM');
      }, options.timeoutMs);
      child.on('close', (code) => {
        clearTimeout(timer);
        resolve({ status: code, output: out });
      });
    });
    if (status === 0) options.inspect?.(dir);
    return { status, output, ports, script };
  } finally {
    // A script stopped by the timeout leaves its background groups behind: stop them here.
    let pids: string[] = [];
    try {
      pids = readFileSync(path.join(dir, '.background-pids'), 'utf8').split('\n').filter(Boolean);
    } catch {
      pids = [];
    }
    for (const pid of pids) {
      try {
        process.kill(-Number(pid), 'SIGKILL');
      } catch {
        // already gone
      }
    }
    rmSync(dir, { recursive: true, force: true });
  }
}

function shellQuote(text: string): string {
  return `'${text.replace(/'/g, `'\\''`)}'`;
}
