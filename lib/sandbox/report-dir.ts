import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';

/**
 * Whether the session's reports can be written to `dir`, found out before the session starts (a client
 * run of an hour must not end in a report that cannot be written): the directory is created if missing and
 * a probe file written and removed there. What is wrong, in one line, or undefined when it is writable.
 */
export function reportDirProblem(dir: string): string | undefined {
  const bound = boundSessionProblem(dir);
  if (bound !== undefined) return bound;
  const probe = path.join(dir, `.iswc-conformance-probe-${process.pid}`);
  try {
    mkdirSync(dir, { recursive: true });
    writeFileSync(probe, '');
    rmSync(probe, { force: true });
    return undefined;
  } catch (e) {
    const err = e as NodeJS.ErrnoException;
    const why = err.code === 'ENOTDIR' || err.code === 'EEXIST' ? 'a part of the path is a file, not a directory' : err.code === 'EACCES' || err.code === 'EPERM' || err.code === 'EROFS' ? 'permission denied' : (err.code ?? err.message);
    return `--report-dir ${dir} cannot take the reports (${why}): choose a directory you can write to`;
  }
}

/**
 * A new session would replace client-session.jsonl, which the client certificate beside it binds (by its
 * SHA-256): after that, `verify --session` fails for the certificate handed over. Refused, in one line
 * saying what to do; undefined when there is no such pair (no certificate, none that binds this file).
 */
export function boundSessionProblem(dir: string): string | undefined {
  const session = path.join(dir, 'client-session.jsonl');
  const certificate = path.join(dir, 'client-certificate.json');
  if (!existsSync(session) || !existsSync(certificate)) return undefined;
  let bound: unknown;
  try {
    bound = (JSON.parse(readFileSync(certificate, 'utf8')) as { session?: { recording?: { sha256?: unknown } } }).session?.recording?.sha256;
  } catch {
    return undefined;
  }
  if (typeof bound !== 'string' || createHash('sha256').update(readFileSync(session)).digest('hex') !== bound) return undefined;
  return `--report-dir ${dir} holds ${session}, the session ${certificate} is bound to (verify --session needs it as it is): move the two elsewhere to keep them, or choose another --report-dir`;
}
