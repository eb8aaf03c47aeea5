import type { TargetProfile } from '../contract/profile/types.ts';
import { canonicalJson, sha256Hex } from './canonical.ts';
import type { WaiverSet } from './waivers/types.ts';

/**
 * What a run is bound to: the content digests of the target profile and of the waivers it used, and the
 * origin of its target. Recorded in conformance.json (meta) and carried by certificates, so that a
 * certificate names what was tested by content, never by a file name or a local path.
 */

/**
 * SHA-256 of the target profile as the run used it: its canonical JSON (keys sorted, no whitespace) after
 * the defaults are filled in, so reformatting the file does not change it and any change of content does.
 */
export function profileDigest(profile: TargetProfile): string {
  return sha256Hex(canonicalJson(profile));
}

/**
 * SHA-256 of a waivers file's entries as loaded (check, operation, format, reason, until, in file order),
 * as canonical JSON: comments and layout do not count, every waived deviation and its end date does.
 */
export function waiversDigest(set: WaiverSet): string {
  return sha256Hex(canonicalJson(set.waivers.map((w) => ({ check: w.check, operation: w.operation, format: w.format, reason: w.reason, until: w.until }))));
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
