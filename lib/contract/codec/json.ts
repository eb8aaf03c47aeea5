import { MAX_NESTING_DEPTH } from '../../config/limits.ts';
import { jsonDepth, tooDeepText } from './depth.ts';
import { deepFreeze, KEPT_TEXT_LIMIT, textMemo } from '../../foundation/memo.ts';

export type JsonDecodeResult = { ok: true; value: unknown } | { ok: false; error: string };

/**
 * Parses JSON text; malformed input, or input nested deeper than MAX_NESTING_DEPTH (measured before
 * parsing, so no deep value is ever built or walked), gives an error value, never a throw.
 */
export function decodeJson(text: string): JsonDecodeResult {
  if (text.length > KEPT_TEXT_LIMIT) return readJson(text);
  // A body is read again by each check that judges it: results are kept by text, frozen (lib/foundation/memo.ts).
  return decodedJson(text, () => deepFreeze(readJson(text)));
}

const decodedJson = textMemo<JsonDecodeResult>();

function readJson(text: string): JsonDecodeResult {
  if (text.trim() === '') return { ok: false, error: 'empty JSON body' };
  const depth = jsonDepth(text);
  if (depth > MAX_NESTING_DEPTH) return { ok: false, error: tooDeepText('JSON', depth) };
  try {
    return { ok: true, value: JSON.parse(text) as unknown };
  } catch (e) {
    return { ok: false, error: `malformed JSON: ${(e as Error).message}` };
  }
}

export function encodeJson(value: unknown): string {
  return JSON.stringify(value);
}
