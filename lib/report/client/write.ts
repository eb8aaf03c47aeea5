import path from 'node:path';
import type { Redactor } from '../../foundation/redact.ts';
import { writeRedacted } from '../write.ts';
import { renderClientHtml } from './html.ts';
import { renderClientJunit } from './junit.ts';
import type { ClientReport } from './model.ts';

export interface WrittenClientReports {
  json: string;
  junit: string;
  html: string;
}

/** client-conformance.json, client-junit.xml and client-conformance.html, each through the redactor once more. */
export function writeClientReports(report: ClientReport, dir: string, redactor: Redactor): WrittenClientReports {
  const safe = redactor.deep(report);
  const files = { json: path.join(dir, 'client-conformance.json'), junit: path.join(dir, 'client-junit.xml'), html: path.join(dir, 'client-conformance.html') };
  writeRedacted(files.json, `${JSON.stringify(safe, null, 2)}\n`, redactor);
  writeRedacted(files.junit, renderClientJunit(safe), redactor);
  writeRedacted(files.html, renderClientHtml(safe), redactor);
  return files;
}
