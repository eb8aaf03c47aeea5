export type JsonDecodeResult = { ok: true; value: unknown } | { ok: false; error: string };

/** Parses JSON text; deeply nested or malformed input gives an error value, never a throw. */
export function decodeJson(text: string): JsonDecodeResult {
  if (text.trim() === '') return { ok: false, error: 'empty JSON body' };
  try {
    return { ok: true, value: JSON.parse(text) as unknown };
  } catch (e) {
    return { ok: false, error: `malformed JSON: ${(e as Error).message}` };
  }
}

export function encodeJson(value: unknown): string {
  return JSON.stringify(value);
}
