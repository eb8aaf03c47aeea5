/**
 * Every check stands under a reading that says, in words, what the check's side of it is: a gating check
 * (spec, http) under a reading whose "gated" text is written, an observed one under a reading whose
 * "recorded" text is; docs/readings.md and docs/client-checks.md would otherwise show the check's id next
 * to a dash. A new check whose point has no text for its side fails here, naming the reading to write.
 */
import { expect, _baseTest as test } from '@playwright/test';
import { allClientChecks } from '../../lib/check/client/registry.ts';
import { CLIENT_READINGS } from '../../lib/check/client/readings.ts';
import { READINGS } from '../../lib/check/readings.ts';
import { allChecks } from '../../lib/check/registry.ts';

function missingTexts(checks: ReadonlyArray<{ id: string; level: string; reading: string }>, readings: ReadonlyArray<{ point: string; gated: string; recorded: string }>, file: string): string[] {
  const out: string[] = [];
  for (const c of checks) {
    const reading = readings.find((r) => r.point === c.reading);
    const side = c.level === 'observed' ? 'recorded' : 'gated';
    const text = reading?.[side].trim() ?? '';
    if (text === '' || text === '—') out.push(`${c.id} (${c.level}) stands under "${c.reading}", whose ${side} text in ${file} is empty: write what the check ${side === 'gated' ? 'demands' : 'records'} there`);
  }
  return out;
}

test('every check, server or client, stands under a reading with a text for its side', () => {
  expect(missingTexts(allChecks(), READINGS, 'lib/check/readings.ts')).toEqual([]);
  expect(missingTexts(allClientChecks(), CLIENT_READINGS, 'lib/check/client/readings.ts')).toEqual([]);
});

test('the test notices a reading left without its text', () => {
  const readings = [{ point: 'Not found', gated: 'A merge into an unknown ISWC is 404.', recorded: '' }];
  expect(missingTexts([{ id: 'observed.not-found-body', level: 'observed', reading: 'Not found' }], readings, 'lib/check/readings.ts')).toEqual([
    'observed.not-found-body (observed) stands under "Not found", whose recorded text in lib/check/readings.ts is empty: write what the check records there',
  ]);
  expect(missingTexts([{ id: 'status.not-found', level: 'spec', reading: 'Not found' }], readings, 'lib/check/readings.ts')).toEqual([]);
});
