/**
 * ISWC check digit (ISO 15707 Annex B), from docs/production.md: for `T d1…d9 c`,
 * c = (10 − (1 + Σ i·di) mod 10) mod 10. The interface document states only the pattern, so check-digit
 * handling by a server is `observed`; fixtures use valid check digits so that a server that checks them
 * still accepts the positive cases.
 */
export function iswcCheckDigit(nineDigits: string): number {
  if (!/^[0-9]{9}$/.test(nineDigits)) throw new Error(`expected 9 digits, got ${nineDigits}`);
  let sum = 1;
  for (let i = 1; i <= 9; i++) sum += i * Number(nineDigits[i - 1]);
  return (10 - (sum % 10)) % 10;
}

/** Builds an ISWC in wire form with a valid check digit. */
export function makeIswc(nineDigits: string): string {
  return `T${nineDigits}${iswcCheckDigit(nineDigits)}`;
}

export function hasValidCheckDigit(iswc: string): boolean {
  const m = /^T([0-9]{9})([0-9])$/.exec(iswc);
  return m !== null && iswcCheckDigit(m[1]) === Number(m[2]);
}

/**
 * The same ISWC with a check digit that differs from its own and holds for no ISWC of its nine digits: an
 * ISWC no registry that validates check digits holds, whatever the ISWC's own digit is.
 */
export function withInvalidCheckDigit(iswc: string): string {
  const m = /^T([0-9]{9})([0-9])$/.exec(iswc);
  if (!m?.[1] || m[2] === undefined) return withWrongCheckDigit(iswc);
  const nine = m[1];
  const own = Number(m[2]);
  const valid = iswcCheckDigit(nine);
  const other = [1, 2, 3].map((d) => (own + d) % 10).find((d) => d !== valid) ?? own;
  return `T${nine}${other}`;
}

/** The same ISWC with its check digit recomputed: what a server that corrects check digits reads (fault `preferred-check-digit-ignored`). */
export function withCheckDigitRecomputed(iswc: string): string {
  const m = /^T([0-9]{9})[0-9]$/.exec(iswc);
  return m?.[1] ? makeIswc(m[1]) : iswc;
}

/** The same ISWC with a wrong check digit (for the `observed` check-digit check). */
export function withWrongCheckDigit(iswc: string): string {
  const last = Number(iswc.slice(-1));
  return `${iswc.slice(0, -1)}${(last + 1) % 10}`;
}
