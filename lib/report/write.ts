import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
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
  /** The report a certificate in `dir` was issued from, kept before it was replaced (keepCertifiedReport). */
  kept?: KeptReport;
}

/** A report kept beside the certificate issued from it: where it was, the certificate, where it is now. */
export interface KeptReport {
  report: string;
  certificate: string;
  kept: string;
}

/** The one line a run prints when it kept a certified report; `show` makes a path readable (relative). */
export function keptReportLine(k: KeptReport, show: (file: string) => string = (f) => f): string {
  return `${show(k.report)}, which ${show(k.certificate)} was issued from, is kept as ${show(k.kept)}: this run's report takes its place`;
}

/** Where the report a certificate in the same directory was issued from is kept when a run writes there. */
export const CERTIFIED_REPORT = 'conformance.certified.json';

/**
 * A run about to write conformance.json into `dir`, where certificate.json was issued from the
 * conformance.json there (the same run: its start and seed): that report is kept beside the certificate
 * as conformance.certified.json before it is replaced, and what was kept is returned. Nothing is
 * moved, and undefined returned, when there is no certificate, no report, or the certificate was issued
 * from another run (its report already replaced, or kept before).
 */
export function keepCertifiedReport(dir: string): KeptReport | undefined {
  const report = path.join(dir, 'conformance.json');
  const certificate = path.join(dir, 'certificate.json');
  if (!existsSync(report) || !existsSync(certificate)) return undefined;
  try {
    const cert = JSON.parse(readFileSync(certificate, 'utf8')) as { kind?: unknown; run?: { startedAt?: unknown; seed?: unknown } };
    const meta = (JSON.parse(readFileSync(report, 'utf8')) as { meta?: { startedAt?: unknown; seed?: unknown } }).meta;
    if (cert.kind !== 'iswc-conformance-certificate' || meta === undefined || cert.run?.startedAt !== meta.startedAt || (cert.run?.seed ?? null) !== (meta.seed ?? null)) return undefined;
  } catch {
    // A file that cannot be read as a certificate and its report binds nothing: it is replaced as before.
    return undefined;
  }
  const kept = path.join(dir, CERTIFIED_REPORT);
  renameSync(report, kept);
  return { report, certificate, kept };
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
  const kept = keepCertifiedReport(dir);
  const files = {
    json: path.join(dir, 'conformance.json'),
    junit: path.join(dir, 'conformance-junit.xml'),
    html: path.join(dir, 'conformance.html'),
  };
  writeRedacted(files.json, `${JSON.stringify(safe, null, 2)}\n`, redactor);
  writeRedacted(files.junit, renderJunit(safe), redactor);
  writeRedacted(files.html, renderHtml(safe), redactor);
  return { ...files, violations: reportViolations(safe), ...(kept !== undefined ? { kept } : {}) };
}
