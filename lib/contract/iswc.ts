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

/** The same ISWC with a wrong check digit (for the `observed` check-digit check). */
export function withWrongCheckDigit(iswc: string): string {
  const last = Number(iswc.slice(-1));
  return `${iswc.slice(0, -1)}${(last + 1) % 10}`;
}
