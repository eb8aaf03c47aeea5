import { AssertionError } from 'node:assert';

/**
 * The assertion of a fast-check property's run: nothing is wrong, else it throws with what is (fast-check
 * then shrinks and reports the counterexample with this message). Playwright's expect captures and
 * source-maps a stack at every call, which a property checking every item of every generated value
 * called thousands of times: most of such a file's CPU.
 */
export function propertyHolds(wrong: readonly string[], what: string): void {
  if (wrong.length > 0) throw new AssertionError({ message: `${what}:\n  ${wrong.join('\n  ')}`, actual: wrong, expected: [], operator: 'propertyHolds' });
}
