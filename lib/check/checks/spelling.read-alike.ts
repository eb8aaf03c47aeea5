import { describeAnswer, statusOf } from '../../contract/answer.ts';
import type { Because } from '../../generate/expectations.ts';
import { defineCheck } from '../types.ts';

interface SpellingParams extends Because {
  /**
   * The status the same request got spelled plainly (null when it got no answer). Both name the same data
   * and differ only in a spelling every reader of the format takes alike, so they must get one answer.
   */
  plainStatus: number | null;
}

/**
 * Sections 2.1, 2.3, 4 and 5 name the formats (JSON, XML), the query parameters and the key header; the
 * formats' own definitions make some spellings one (lib/contract/codec/spellings.ts). Shown differentially,
 * so that it holds whatever the server answers for the data named.
 */
export default defineCheck<SpellingParams>({
  id: 'spelling.read-alike',
  level: 'spec',
  sections: ['2.1', '2.3', '4', '5'],
  reading: 'Spellings',
  description: 'A request spelled another way that every reader takes alike (CDATA, character references, comments or another XML declaration; \\u escapes, members in another order or other whitespace in JSON; percent-encoded or reordered query parameters; the key header named in lower case) gets the same answer as the same request spelled plainly.',
  scope: 'targeted',
  params: { type: 'object', properties: { plainStatus: { type: ['integer', 'null'], minimum: 100, maximum: 599 } }, required: ['plainStatus'] },
  judge({ exchange, params }) {
    const plain = params.plainStatus;
    const expected = `${plain ?? '?'}, the status of the same request spelled plainly, because ${params.because}`;
    if (plain === null || plain >= 500) return { verdict: 'skip', expected, received: `the plain request got ${plain === null ? 'no answer' : `a ${plain}`}: nothing to compare with` };
    return { verdict: statusOf(exchange) === plain ? 'pass' : 'fail', expected, received: describeAnswer(exchange) };
  },
});
