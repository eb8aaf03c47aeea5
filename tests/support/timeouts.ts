import { IN_PROCESS_TIMEOUT_MS } from '../../lib/selfcheck/in-process-report.ts';

/**
 * The one request timeout of the tests: every client, in-process run and command a test starts waits
 * this long for an answer, unless the test is about how quickly a hang is detected (those keep a short
 * timeout of their own, next to what they measure). Generous for a loaded CI machine: on two cores at a
 * load average of 14, the clean reference server on this machine took more than 2 s to answer, and the
 * self-check read those as "no answer (TIMEOUT)". A server that answers at all answers within this.
 */
export const REQUEST_TIMEOUT_MS = IN_PROCESS_TIMEOUT_MS;

/**
 * The time a test that starts whole runs of the suite (several Playwright runs, a merge of shards, a
 * profile planned again per addition) may take: a few minutes on two idle cores, three times that on two
 * cores shared with a second `npm test` (measured: 180 s for the merge of shards at a load average of 15).
 */
export const SLOW_TEST_TIMEOUT_MS = 10 * 60_000;
