import type { TargetProfile } from '../contract/profile/types.ts';
import { formatsLabel } from '../contract/profile/types.ts';
import { canonicalJson, sha256Hex } from './canonical.ts';
import type { RunMeta } from './model.ts';
import type { WaiverSet } from './waivers/types.ts';

/**
 * What a run is bound to: the content digests of the target profile and of the waivers it used, and the
 * origin of its target. Recorded in conformance.json (meta) and carried by certificates, so that a
 * certificate names what was tested by content, never by a file name or a local path.
 */

/**
 * SHA-256 of the target profile as the run used it: its canonical JSON (keys sorted, no whitespace) after
 * the defaults are filled in, without `$schema` (where the file points for its schema is no content), so
 * reformatting the file does not change it and any change of content does.
 */
export function profileDigest(profile: TargetProfile): string {
  const { $schema: _schema, formats, ...rest } = profile as TargetProfile & { $schema?: unknown };
  // `formats` at its default (both) is left out: a profile written before the setting existed keeps its digest.
  const content = formatsLabel(profile) === undefined ? rest : { ...rest, formats };
  return sha256Hex(canonicalJson(content));
}

/**
 * SHA-256 of a waivers file's entries as loaded (check, operation, format, reason, until, in file order),
 * as canonical JSON: comments and layout do not count, every waived deviation and its end date does.
 */
export function waiversDigest(set: WaiverSet): string {
  return sha256Hex(canonicalJson(set.waivers.map((w) => ({ check: w.check, operation: w.operation, format: w.format, statuses: w.statuses, case: w.case, step: w.step, code: w.code, text: w.text, reason: w.reason, until: w.until }))));
}

/** The origin (scheme, host, port) of a base URL as a report writes it; null when unknown. */
export function originOf(baseUrl: string | null | undefined): string | null {
  if (!baseUrl) return null;
  try {
    return new URL(baseUrl).origin;
  } catch {
    return null;
  }
}

/** A digest as people read it in messages: `sha256:` and the first 16 hex digits. */
export function shortDigest(digest: string | null | undefined): string {
  return digest ? `sha256:${digest.slice(0, 16)}…` : 'none';
}

/** What a run (and the certificate of it) is bound to: every setting that decides what was tested. */
export interface RunBinding {
  /** The target profile by name and content digest (never a file path). */
  profile: { name: string; digest: string };
  agency: string;
  /** Origin of the target's base URL (scheme, host, port); null when unknown. */
  origin: string | null;
  harnessVersion: string;
  documentDigest: string;
  /** null: the run had no waivers file. */
  waiversDigest: string | null;
  seed: number | null;
  /** ISWC_RUNS. */
  runs: number;
  /** ISWC_PLAN, ISWC_BUDGET and ISWC_SLICE (a budgeted run's slice of its rotation); null where the run did not record them. */
  plan: { name: 'full' | 'smoke'; budget: number | null; slice?: number } | null;
  strict: boolean;
}

/** A report that does not record what a certificate must be bound to (written by an earlier harness version). */
export class UnboundReportError extends Error {
  readonly code = 'ISWC_UNBOUND_REPORT';
}

/** The binding of a run from its report's metadata; throws UnboundReportError when the report lacks one. */
export function runBinding(meta: RunMeta): RunBinding {
  const missing = [meta.profileDigest === undefined ? 'the profile digest' : '', meta.agency === undefined ? 'the agency' : '', meta.waiversDigest === undefined ? 'the waivers digest' : ''].filter(Boolean);
  if (missing.length > 0 || meta.profileDigest === undefined || meta.agency === undefined) {
    throw new UnboundReportError(
      `the report records no ${missing.join(', ')} (harness ${meta.harnessVersion} wrote it before reports recorded what a certificate is bound to): run the suite again with this harness to certify it`,
    );
  }
  return {
    profile: { name: meta.profile, digest: meta.profileDigest },
    agency: meta.agency,
    origin: originOf(meta.baseUrl),
    harnessVersion: meta.harnessVersion,
    documentDigest: meta.documentDigest,
    waiversDigest: meta.waiversDigest ?? null,
    seed: meta.seed,
    runs: meta.runs,
    // What selected the run's cases, not what they tried (meta.plan.tried, for the ledger).
    plan: meta.plan ? { name: meta.plan.name, budget: meta.plan.budget, ...(meta.plan.slice !== undefined ? { slice: meta.plan.slice } : {}) } : null,
    strict: meta.strict,
  };
}

/**
 * What the one asking for a certificate states about the run, each with where it was stated (a flag, a
 * variable, the harness itself): every one must equal the run's binding. Unstated settings are taken
 * from the run and carried by the certificate as they were.
 */
export interface BindingClaims {
  profile?: { name: string; digest: string; agency: string; source: string };
  origin?: { value: string; source: string };
  harnessVersion?: string;
  documentDigest?: string;
  waivers?: { digest: string | null; source: string };
  seed?: { value: number; source: string };
  runs?: { value: number; source: string };
  plan?: { value: { name: 'full' | 'smoke'; budget: number | null }; source: string };
  strict?: { value: boolean; source: string };
}

function planText(plan: RunBinding['plan']): string {
  return plan === null ? 'no recorded plan' : `plan ${plan.name}${plan.budget === null ? '' : ` with a budget of ${plan.budget} requests`}`;
}

/**
 * Every difference between a run's binding and what is claimed about it, one line each, naming the field:
 * `agency: the run was made as agency 128, not 021 (profile other.json)`. Empty when they agree.
 */
export function bindingMismatches(run: RunBinding, claims: BindingClaims): string[] {
  const out: string[] = [];
  const { profile, origin, waivers, seed, runs, plan, strict } = claims;
  if (profile && profile.digest !== run.profile.digest) {
    out.push(`profile: the run was made with profile "${run.profile.name}" ${shortDigest(run.profile.digest)}, not "${profile.name}" ${shortDigest(profile.digest)} (${profile.source}): a profile is identified by its content, not its name`);
  }
  if (profile && profile.agency !== run.agency) out.push(`agency: the run was made as agency ${run.agency}, not ${profile.agency} (${profile.source})`);
  if (origin && origin.value !== run.origin) out.push(`base URL: the run was made against ${run.origin ?? 'an unknown origin'}, not ${origin.value} (${origin.source})`);
  if (claims.harnessVersion !== undefined && claims.harnessVersion !== run.harnessVersion) {
    out.push(`harness version: the run was made with iswc-conformance ${run.harnessVersion}, this is ${claims.harnessVersion}: certify it with the version that ran it, or run again`);
  }
  if (claims.documentDigest !== undefined && claims.documentDigest !== run.documentDigest) {
    out.push(`interface document: the run enforced the document ${shortDigest(run.documentDigest)}, this harness enforces ${shortDigest(claims.documentDigest)}: run again`);
  }
  if (waivers && waivers.digest !== run.waiversDigest) {
    const was = run.waiversDigest === null ? 'without waivers' : `with waivers ${shortDigest(run.waiversDigest)}`;
    const is = waivers.digest === null ? 'without waivers' : `with waivers ${shortDigest(waivers.digest)}`;
    out.push(`waivers: the run was made ${was}, not ${is} (${waivers.source})`);
  }
  if (seed && seed.value !== run.seed) out.push(`seed: the run used seed ${run.seed ?? 'unknown'}, not ${seed.value} (${seed.source})`);
  if (runs && runs.value !== run.runs) out.push(`runs per property: the run used ISWC_RUNS=${run.runs}, not ${runs.value} (${runs.source})`);
  if (plan && (run.plan === null || plan.value.name !== run.plan.name || plan.value.budget !== run.plan.budget)) out.push(`plan: the run used ${planText(run.plan)}, not ${planText(plan.value)} (${plan.source})`);
  if (strict && strict.value !== run.strict) out.push(`strict: the run was ${run.strict ? '' : 'not '}strict (ISWC_STRICT=${run.strict ? 1 : 0}), not ${strict.value ? 'strict' : 'lenient'} (${strict.source})`);
  return out;
}
