import { hasValidCheckDigit } from '../../contract/iswc.ts';
import { opSection, statusJudge } from '../helpers.ts';
import { defineCheck } from '../types.ts';
import type { JudgeInput } from '../types.ts';
import type { Because } from '../../generate/expectations.ts';

/**
 * The preferred ISWC a request names, when its check digit does not hold (ISO 15707): a profile's made-up
 * unknown ISWC often has one, and a server that checks check digits (which the document leaves open, section
 * 2.3 states only the pattern) refuses it as malformed, 400, before it looks anything up.
 */
function wrongCheckDigit({ exchange }: JudgeInput<Because>): string | undefined {
  let named: string | null;
  try {
    named = new URL(exchange.request.url).searchParams.get('preferredIswc');
  } catch {
    return undefined;
  }
  return named !== null && /^T[0-9]{10}$/.test(named) && !hasValidCheckDigit(named) ? named : undefined;
}

/**
 * Sections 4.2 and 7: 404 where the document ties it to the case: the preferred ISWC a merge names does not
 * exist and everything else (the ISWCs or agency works of its body, the agency) names existing data ("ISWC
 * not found"). A demerge naming an unknown preferred ISWC never gets this demand: its metadata is either
 * merged into another preferred ISWC or merged nowhere, a second fault a server that looks the work up
 * first refuses with 400, so a demerge demands a refusal (`status.refused`). A preferred ISWC whose check
 * digit does not hold may also get 400: which of the two a server answers is a reading of the request, not a
 * fault (profile check warns of such an ISWC).
 */
export default defineCheck({
  id: 'status.not-found',
  level: 'spec',
  sections: ['4.2', '7'],
  reading: 'Not found',
  description: 'A merge naming a preferred ISWC that does not exist, everything else naming existing data, gets 404 (ISWC not found).',
  scope: 'targeted',
  judge: statusJudge((input) => {
    const section = `section ${opSection(input.operation)}, 7`;
    const malformed = wrongCheckDigit(input);
    return malformed === undefined
      ? { statuses: [404], label: `404 (${section})` }
      : { statuses: [404, 400], label: `404 (${section}), or 400: the check digit of ${malformed} does not hold (ISO 15707), and a server may refuse it as malformed first` };
  }, true),
});
