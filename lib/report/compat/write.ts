import path from 'node:path';
import type { Redactor } from '../../foundation/redact.ts';
import { writeRedacted } from '../write.ts';
import { renderCompatHtml } from './html.ts';
import { renderCompatJunit } from './junit.ts';
import { renderCompatMarkdown } from './markdown.ts';
import type { CompatReport } from './model.ts';

export interface WrittenCompatReports {
  json: string;
  html: string;
  junit: string;
  markdown: string;
}

/** compat.json, compat.html, compat-junit.xml and compat.md from one redacted model, each through the redactor once more. */
export function writeCompatReports(report: CompatReport, dir: string, redactor: Redactor): WrittenCompatReports {
  const safe = redactor.deep(report);
  const files = { json: path.join(dir, 'compat.json'), html: path.join(dir, 'compat.html'), junit: path.join(dir, 'compat-junit.xml'), markdown: path.join(dir, 'compat.md') };
  writeRedacted(files.json, `${JSON.stringify(safe, null, 2)}\n`, redactor);
  writeRedacted(files.html, renderCompatHtml(safe), redactor);
  writeRedacted(files.junit, renderCompatJunit(safe), redactor);
  writeRedacted(files.markdown, renderCompatMarkdown(safe), redactor);
  return files;
}
