import { bodyWalk, describe, judgeLength } from '../fields.ts';
import { queryLeaves } from '../query.ts';
import { defineClientCheck, noted, PASSED } from '../types.ts';

/** Sections 2.1, 2.4, 8 state lengths in "characters"; readings count astral, combining and non-ASCII characters differently. */
export default defineClientCheck({
  id: 'client.characters',
  level: 'observed',
  sections: ['2.1', '2.4', '8'],
  reading: 'Limits',
  description: 'Values whose length the readings of "characters" (code points, UTF-16 units, grapheme clusters, UTF-8 bytes) put on both sides of a limit: a .NET server counting UTF-16 units, or a column counting bytes, refuses what another accepts.',
  judge(input) {
    const leaves = [...(bodyWalk(input)?.leaves ?? []), ...queryLeaves(input)];
    const disputed: string[] = [];
    let judged = 0;
    for (const leaf of leaves) {
      if (typeof leaf.value !== 'string') continue;
      const length = judgeLength(leaf.value, leaf.schema);
      if (!length) continue;
      judged += 1;
      const l = length.lengths;
      if (length.disputed) disputed.push(`${leaf.path} ${describe(leaf.value)}: ${l.codePoints} code points, ${l.utf16Units} UTF-16 units, ${l.graphemes} graphemes, ${l.utf8Bytes} UTF-8 bytes; the limit is ${length.limit}`);
    }
    if (judged === 0) return null;
    const expected = 'lengths every reading of "characters" counts alike against the limit (the document does not say which)';
    return disputed.length === 0 ? PASSED : noted(expected, disputed.join('; '));
  },
});
