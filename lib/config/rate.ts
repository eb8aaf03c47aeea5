/**
 * Request-rate settings (ISWC_RATE): a number of requests per second, or a count per second, minute or
 * hour. '0' or an empty value means no limit.
 */

const UNIT_SECONDS: Record<string, number> = {
  s: 1,
  sec: 1,
  second: 1,
  m: 60,
  min: 60,
  minute: 60,
  h: 3600,
  hr: 3600,
  hour: 3600,
};

/**
 * Parses a rate: '' or '0' (or undefined) -> null (no limit); '5', '0.5' -> requests per second;
 * '10/min', '600/h', '2/s' -> converted to requests per second. Throws on anything else.
 */
export function parseRate(text: string | undefined): number | null {
  if (text === undefined) return null;
  const trimmed = text.trim();
  if (trimmed === '') return null;
  const m = /^(\d+(?:\.\d+)?|\.\d+)\s*(?:\/\s*([a-z]+))?$/i.exec(trimmed);
  if (!m) {
    throw new Error(`Invalid rate ${JSON.stringify(text)}: expected requests per second ('5', '0.5') or a count per unit ('10/min', '600/h', '2/s'); '0' or empty for no limit`);
  }
  const count = Number(m[1]);
  const unitName = (m[2] ?? 's').toLowerCase().replace(/s$/, '') || 's';
  const seconds = UNIT_SECONDS[unitName] ?? UNIT_SECONDS[(m[2] ?? 's').toLowerCase()];
  if (seconds === undefined) {
    throw new Error(`Invalid rate ${JSON.stringify(text)}: unknown unit ${JSON.stringify(m[2])} (use s, min or h)`);
  }
  if (!Number.isFinite(count)) throw new Error(`Invalid rate ${JSON.stringify(text)}: not a finite number`);
  if (count === 0) return null;
  return count / seconds;
}
