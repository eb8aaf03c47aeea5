import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';

/**
 * Whether the session's reports can be written to `dir`, found out before the session starts (a client
 * run of an hour must not end in a report that cannot be written): the directory is created if missing and
 * a probe file written and removed there. What is wrong, in one line, or undefined when it is writable.
 */
export function reportDirProblem(dir: string): string | undefined {
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
