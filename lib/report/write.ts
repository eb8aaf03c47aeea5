import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Redactor } from '../foundation/redact.ts';
import { redactorFromEnv } from '../foundation/redact.ts';
import { renderHtml } from './html.ts';
import { renderJunit } from './junit.ts';
import type { ConformanceReport } from './model.ts';
import { reportViolations } from './validate.ts';

export interface WrittenReports {
  json: string;
  junit: string;
  html: string;
  /** Violations of schemas/report.schema.json; empty when the written report is valid. */
  violations: string[];
}

/**
 * Writes a text artefact through the redactor: the content is redacted once more as a whole, so a
 * secret in any form (raw, URL-encoded, base64, HTML-escaped) cannot reach the disk.
 */
export function writeRedacted(file: string, content: string, redactor: Redactor = redactorFromEnv()): void {
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, redactor.text(content));
}

/** conformance.json, conformance-junit.xml and conformance.html from one (redacted) model. */
export function writeConformanceReports(report: ConformanceReport, dir: string, redactor: Redactor = redactorFromEnv()): WrittenReports {
  const safe = redactor.deep(report);
  const files = {
    json: path.join(dir, 'conformance.json'),
    junit: path.join(dir, 'conformance-junit.xml'),
    html: path.join(dir, 'conformance.html'),
  };
  writeRedacted(files.json, `${JSON.stringify(safe, null, 2)}\n`, redactor);
  writeRedacted(files.junit, renderJunit(safe), redactor);
  writeRedacted(files.html, renderHtml(safe), redactor);
  return { ...files, violations: reportViolations(safe) };
}
