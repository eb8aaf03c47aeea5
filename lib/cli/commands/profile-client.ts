import type { ProfileFinding } from '../../contract/profile/findings.ts';
import { profileFindings } from '../../contract/profile/findings.ts';
import type { TargetProfile } from '../../contract/profile/types.ts';
import type { OperationId } from '../../contract/operations.ts';
import { OPERATION_LABEL, operations } from '../../contract/operations.ts';
import { DEFAULT_CHOICES } from '../../sandbox/options.ts';
import { CHOICE_SETS } from '../../../server/index.ts';

/**
 * `profile check --client FILE`: what a client under test can exercise in the sandbox with a profile,
 * operation by operation, with the first request of each it can send as it stands, and what to add
 * where an operation cannot succeed. Nothing is sent.
 */

export interface ClientExercise {
  operation: OperationId;
  /** How many times a session can succeed at it with distinct entries (Infinity: any number). */
  times: number;
  /** What the client may do, in one line; or, when times is 0, what to add. */
  text: string;
  /** A request a client can send as it stands, or undefined. */
  example: string | undefined;
}

function query(op: OperationId, values: Record<string, string>): string {
  const params = operations().find((o) => o.id === op)?.params.map((p) => p.name) ?? [];
  return params.map((name) => `${name}=${encodeURIComponent(values[name] ?? '')}`).join('&');
}

function count(n: number, one: string, many = `${one}s`): string {
  return `${n} ${n === 1 ? one : many}`;
}

/** What a foreign agency gets with the sandbox's default choices, in words. */
function foreignAgencyText(agency: string): string {
  const set: readonly string[] = CHOICE_SETS[DEFAULT_CHOICES];
  const refused = set.includes('foreign-agency-403') ? 'refused with 403' : set.includes('foreign-agency-refused') ? 'refused (401 on the run notification, 403 on the others)' : 'accepted (the key acts for any agency)';
  return `requests for another agency than ${agency} are ${refused} by the sandbox's default choices (${DEFAULT_CHOICES})`;
}

/** Per operation, what a client can do with the profile's entries in one sandbox session. */
export function clientExercises(profile: TargetProfile): ClientExercise[] {
  const agency = profile.agency;
  const [merge] = profile.merges;
  const [demerge] = profile.demerges;
  const [submission] = profile.submissions;
  const mergedWorks = profile.merges.reduce((n, m) => n + (m.agencyWorks?.length ?? 0), 0);
  const bodyOf = (m: NonNullable<typeof merge>): string => JSON.stringify({ ...(m.iswcs?.length ? { iswcs: m.iswcs } : {}), ...(m.agencyWorks?.length ? { agencyWorks: m.agencyWorks } : {}) });
  const firstWork = merge?.agencyWorks?.[0];
  return [
    {
      operation: 'notifyAgentRun',
      times: Number.POSITIVE_INFINITY,
      text: profile.runIds === 'client' ? `start runs as agency ${agency} (agencyCode "${agency}") with a runId of the client's own (runIds: client), and end each with it` : `start runs as agency ${agency} (agencyCode "${agency}", no runId: the answer names the run, runIds: server) and end each with that runId`,
      example: `POST /agent/run ${JSON.stringify({ agentVersion: 'my-agent 1.0', agencyCode: agency, updateRecordCount: 0, newRecordCount: 0, overallRejected: 0, overallSent: 0, successfulCount: 0, businessRejectionCount: 0, technicalRejectionCount: 0 })}`,
    },
    {
      operation: 'mergeIswcMetadata',
      times: profile.merges.length,
      text: merge ? `${count(profile.merges.length, 'merge')} not yet done (merges), each once per session` : 'nothing to merge: add a merges entry (a preferredIswc and the iswcs or agencyWorks merged into it)',
      example: merge ? `POST /iswc/merge?${query('mergeIswcMetadata', { preferredIswc: merge.preferredIswc, agency })} ${bodyOf(merge)}` : undefined,
    },
    {
      operation: 'demergeIswcMetadata',
      times: profile.demerges.length + mergedWorks,
      text:
        profile.demerges.length + mergedWorks === 0
          ? 'nothing to demerge: add a demerges entry (a work already merged into a preferred ISWC), or a merges entry with agencyWorks (merge it, then demerge its work)'
          : [profile.demerges.length > 0 ? `${count(profile.demerges.length, 'work')} already merged (demerges), each once per session` : '', mergedWorks > 0 ? `after a merge, its agency work${mergedWorks === 1 ? '' : 's'} (${count(mergedWorks, 'work')} in merges)` : ''].filter((t) => t !== '').join('; '),
      example: demerge
        ? `DELETE /iswc/merge?${query('demergeIswcMetadata', { preferredIswc: demerge.preferredIswc, agency: demerge.agency, workcode: demerge.workcode })}`
        : merge && firstWork
          ? `DELETE /iswc/merge?${query('demergeIswcMetadata', { preferredIswc: merge.preferredIswc, agency: firstWork.agencyCode, workcode: firstWork.agencyWorkCode })} (after that merge)`
          : undefined,
    },
    {
      operation: 'deleteSubmission',
      times: profile.submissions.length,
      text: submission ? `${count(profile.submissions.length, 'submission')} that exist (submissions), each once per session, with reasonCode ${profile.reasonCode}` : 'nothing to delete: add a submissions entry (preferredIswc, agency, workcode, sourceDb of a submission that exists)',
      example: submission ? `DELETE /submission?${query('deleteSubmission', { preferredIswc: submission.preferredIswc, agency: submission.agency, workcode: submission.workcode, sourceDb: String(submission.sourceDb), reasonCode: profile.reasonCode })}` : undefined,
    },
  ];
}

/** The report of `profile check --client`, and how many operations a client cannot succeed at. */
export function renderClientProfileCheck(file: string, profile: TargetProfile): { text: string; unreachable: number; interfering: number } {
  const exercises = clientExercises(profile);
  const findings: ProfileFinding[] = profileFindings(profile);
  const interfering = findings.filter((f) => f.severity === 'error');
  const width = Math.max(...exercises.map((e) => OPERATION_LABEL[e.operation].length)) + 2;
  const lines = [
    `Target profile ${file}: "${profile.name}", agency ${profile.agency}, for a client under test (npx iswc-conformance sandbox --target ${file})`,
    `  ${count(profile.iswcs.length, 'existing ISWC')}, ${count(profile.unknownIswcs.length, 'unknown ISWC')}, ${count(profile.merges.length, 'merge')}, ${count(profile.demerges.length, 'demerge')}, ${count(profile.submissions.length, 'submission')}`,
    '',
    'What a client can exercise in one sandbox session (every session starts again from this data; nothing is sent now):',
  ];
  for (const e of exercises) {
    lines.push(`  ${e.times > 0 ? '✓' : '✗'} ${OPERATION_LABEL[e.operation].padEnd(width)}${e.text}`);
    if (e.example) lines.push(`    ${' '.repeat(width)}e.g. ${e.example}`);
  }
  lines.push(`  Refusals to try: ${profile.unknownIswcs.length > 0 ? `an unknown ISWC (${profile.unknownIswcs[0] ?? ''}) is not found; ` : ''}${foreignAgencyText(profile.agency)}.`);
  lines.push(`  The key: send ISWC_SANDBOX_KEY's value in Ocp-Apim-Subscription-Key on every request.`);
  const reachable = exercises.filter((e) => e.times > 0);
  const unreachable = exercises.length - reachable.length;
  lines.push('', `Operations a client can succeed at: ${reachable.length} of ${exercises.length}${unreachable > 0 ? ` (a session that declares the others, as --operations does by default, cannot be conformant)` : ''}.`);
  if (interfering.length === 0) lines.push('Entries that interfere: none.');
  else {
    lines.push(`Entries that interfere (${interfering.length}): using one makes another fail:`);
    for (const f of interfering) lines.push(`  ${f.path}: ${f.message}`);
  }
  const problems = unreachable + interfering.length;
  lines.push('', problems === 0 ? 'Result: a client can succeed at every operation with this profile (exit 0).' : `Result: ${[unreachable > 0 ? `${count(unreachable, 'operation')} a client cannot succeed at` : '', interfering.length > 0 ? `${count(interfering.length, 'entry interferes', 'entries interfere')}` : ''].filter((t) => t !== '').join(', ')} (exit 1).`);
  return { text: lines.join('\n'), unreachable, interfering: interfering.length };
}
