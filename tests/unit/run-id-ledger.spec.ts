/**
 * The run-wide ledger of runIds (issue 38): a runId identifies the run it was answered for, so no two starts
 * of one conformance run are answered the same, whichever cases sent them. Every case sent through one HTTP
 * client shares the ledger; another client (another run) has its own.
 */
import { expect, _baseTest as test } from '@playwright/test';
import { RunIdLedger, runIdLedgerOf } from '../../lib/run/run-id-ledger.ts';

test('a runId answered to a second start names the first start; a new one names none', () => {
  const ledger = new RunIdLedger();
  expect(ledger.note('RUN-1', 'run.start-and-end (json), "start run"')).toBeUndefined();
  expect(ledger.note('RUN-2', 'run.start-and-end (json), "start another run"')).toBeUndefined();
  expect(ledger.note('RUN-1', 'run.start-and-end (xml), "start run"')).toBe('run.start-and-end (json), "start run"');
  // The first start stays the one named, however often the runId comes back.
  expect(ledger.note('RUN-1', 'scenario.run.start-then-end (xml), "start"')).toBe('run.start-and-end (json), "start run"');
});

test('one ledger per client: the cases of one run share it, another run starts afresh', () => {
  const client = {};
  expect(runIdLedgerOf(client)).toBe(runIdLedgerOf(client));
  runIdLedgerOf(client).note('RUN-1', 'a');
  expect(runIdLedgerOf({}).note('RUN-1', 'b')).toBeUndefined();
});
