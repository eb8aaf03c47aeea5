/**
 * Request-rate settings (ISWC_RATE, --rate): a count per second, minute or hour. A bare number is refused
 * (the unit decides the pace: `10` read as a second is sixty times staging's published 10 a minute), except
 * '0', which means no limit whatever the unit.
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

/** What to write instead of a bare number, with the number given: `10/min`, `10/s`. */
export function rateForms(count: string): string {
  return `${count}/min (${count} requests a minute; staging publishes 10/min) or ${count}/s (${count} a second)`;
}

/**
 * A rate as written: `10/min`, `10 / min`, `600/h`, `2/s`, `10/minute`, and the forms the tool prints
 * (`0.167 requests/s`, `10.000/s`). The count and the unit's length in seconds; undefined when
 * it is not a rate at all; `{ bare }` for a number without a unit.
 */
function readRate(text: string): { count: number; unit: string; seconds: number | undefined } | { bare: string } | undefined {
  const m = /^(\d+(?:\.\d+)?|\.\d+)\s*(?:(?:requests?\s*)?\/\s*([a-z]+))?$/i.exec(text);
  if (!m) return undefined;
  const count = m[1];
  if (m[2] === undefined) return { bare: count };
  const unit = m[2].toLowerCase();
  return { count: Number(count), unit: m[2], seconds: UNIT_SECONDS[unit] ?? UNIT_SECONDS[unit.replace(/s$/, '')] };
}

/**
 * Parses a rate: '' or '0' (or undefined) -> null (no limit); '10/min', '600/h', '2/s' (and the forms
 * readRate takes) -> requests per second. Throws on anything else, a bare number included, saying what to
 * write.
 */
export function parseRate(text: string | undefined): number | null {
  if (text === undefined) return null;
  const trimmed = text.trim();
  if (trimmed === '') return null;
  const read = readRate(trimmed);
  if (read === undefined) {
    throw new Error(`Invalid rate ${JSON.stringify(text)}: write a count per unit, such as 10/min, 600/h or 2/s; 0 for no limit`);
  }
  if ('bare' in read) {
    if (Number(read.bare) === 0) return null;
    throw new Error(`Invalid rate ${JSON.stringify(text)}: a number without a unit; write ${rateForms(read.bare)}; 0 for no limit`);
  }
  if (read.seconds === undefined) {
    throw new Error(`Invalid rate ${JSON.stringify(text)}: unknown unit ${JSON.stringify(read.unit)} (write s, min or h: 10/min, 600/h, 2/s)`);
  }
  if (!Number.isFinite(read.count)) throw new Error(`Invalid rate ${JSON.stringify(text)}: not a finite number`);
  if (read.count === 0) return null;
  return read.count / read.seconds;
}
