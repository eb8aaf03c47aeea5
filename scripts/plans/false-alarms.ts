/**
 * A false alarm of the plans' measurement: a case that fails against a set of legitimate choices of the
 * reference server. A set is a kind of server (a dozen choices or more); what a contributor fixes is a
 * check's reading of one of them. So each false alarm is run again against fewer choices of its set, down
 * to the fewest that still make it fail (delta debugging, lib/sweep/shrink.ts), and the message names those
 * choices, what each does, and what to fix: the check.
 */
import type { TargetProfile } from '../../lib/contract/profile/types.ts';
import { shrinkList } from '../../lib/sweep/shrink.ts';
import { CHOICE_SETS, CHOICES } from '../../server/index.ts';
import type { ChoiceId, ChoiceSetName } from '../../server/index.ts';
import type { MeasureOptions } from './measure.ts';
import { measure } from './measure.ts';

export interface FalseAlarm {
  set: ChoiceSetName;
  destructive: boolean;
  seed: number;
  /** The planned case's key (case@format). */
  key: string;
  /** Its gating failures: `checkId case@format step: received`. */
  failures: string[];
}

/** Runs of one case the search may make per false alarm (each a few requests against a fresh server). */
const MAX_TRIES = 40;

/**
 * The fewest choices of the false alarm's set against which its case still fails: usually one. The set
 * itself when it no longer fails (a failure that depends on timing), so that nothing is hidden.
 */
export async function choicesBehind(alarm: FalseAlarm, profile: TargetProfile, options: Pick<MeasureOptions, 'judge'> = {}): Promise<ChoiceId[]> {
  const set = [...CHOICE_SETS[alarm.set]] as ChoiceId[];
  const failsWith = async (choices: readonly ChoiceId[]): Promise<boolean> => {
    const result = await measure(profile, { destructive: alarm.destructive, strict: true, choices }, alarm.seed, { only: (key) => key === alarm.key, ...options });
    return result.get(alarm.key)?.caught === true;
  };
  if (!(await failsWith(set))) return set;
  const { minimal } = await shrinkList(set, failsWith, { maxTries: MAX_TRIES });
  return minimal;
}

/** The checks a false alarm's failures name, each once. */
function checksOf(alarm: FalseAlarm): string[] {
  return [...new Set(alarm.failures.map((f) => f.split(' ')[0] ?? f))];
}

/**
 * What `npm run generate` says when a case fails against a legitimate choice: the check, the choice (not
 * its set) and what the choice does, the failure, and what to do about it.
 */
export function falseAlarmMessage(found: ReadonlyArray<{ alarm: FalseAlarm; choices: readonly ChoiceId[] }>): string {
  const describe = (id: ChoiceId): string => CHOICES.find((c) => c.id === id)?.description ?? '';
  const lines = [
    `a false alarm: ${found.length === 1 ? 'a check fails' : 'checks fail'} against a legitimate choice of the reference server (a server making it keeps every statement of the interface document).`,
    'Fix the check: its judge, or the reading it applies (lib/check/readings.ts, docs/readings.md), so that it demands only what every reading of the document agrees on; record the rest with an observed check.',
    '',
  ];
  for (const { alarm, choices } of found) {
    const named = choices.length === 1 ? `the choice ${choices[0] ?? ''}` : `the choices ${choices.join(' + ')} together`;
    lines.push(`${checksOf(alarm).join(', ')} fails against ${named} (of the set ${alarm.set}; ${alarm.destructive ? 'destructive' : 'non-destructive'}, seed ${alarm.seed}):`);
    for (const id of choices) lines.push(`  ${id}: ${describe(id)}`);
    for (const f of alarm.failures.slice(0, 3)) lines.push(`  failed: ${f}`);
    if (alarm.failures.length > 3) lines.push(`  … and ${alarm.failures.length - 3} more failures of ${alarm.key}`);
    lines.push('');
  }
  lines.push('Then npm run generate again. (A step that asks a check wrongly is fixed in its case; a behaviour that is not legitimate is a fault, not a choice: CONTRIBUTING.md.)');
  return lines.join('\n');
}
