/**
 * What the documentation tests read of a Markdown file: its fenced blocks (with their info string), its
 * headings as GitHub anchors them, and its links outside code.
 */

export interface FencedBlock {
  /** The info string after the fence: `sh`, `sh background`, `text`, `yaml`. */
  info: string;
  /** The block's lines, without the fence's indentation. */
  body: string;
  /** The nearest heading above the block. */
  heading: string;
  /** 1-based line of the opening fence. */
  line: number;
}

/** Every fenced block (``` only), in order, dedented by its fence's indentation. */
export function fencedBlocks(markdown: string): FencedBlock[] {
  const lines = markdown.split('\n');
  const blocks: FencedBlock[] = [];
  let heading = '';
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] ?? '';
    const h = /^#{1,6} +(.*?) *#*$/.exec(line);
    if (h) {
      heading = h[1] ?? '';
      continue;
    }
    const open = /^( *)```(.*)$/.exec(line);
    if (!open) continue;
    const indent = open[1] ?? '';
    const body: string[] = [];
    let j = i + 1;
    while (j < lines.length && (lines[j] ?? '').trimEnd() !== `${indent}\`\`\``) {
      const l = lines[j] ?? '';
      body.push(l.startsWith(indent) ? l.slice(indent.length) : l);
      j++;
    }
    if (j >= lines.length) throw new Error(`line ${i + 1}: a fenced block that never closes`);
    blocks.push({ info: (open[2] ?? '').trim(), body: body.join('\n'), heading, line: i + 1 });
    i = j;
  }
  return blocks;
}

/** The text with fenced blocks and inline code spans blanked (so that links in them are not links). */
function withoutCode(markdown: string): string {
  return markdown.replace(/^( *)```[\s\S]*?^\1```$/gm, '').replace(/`+[^`\n]*`+/g, '');
}

/** GitHub's anchor for a heading's text (github-slugger: lower case, punctuation dropped, spaces to hyphens). */
export function slug(heading: string): string {
  const text = heading
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/`/g, '')
    .trim()
    .toLowerCase();
  return text.replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '').replace(/ /g, '-');
}

/** The anchors of a file's headings, numbered as GitHub numbers repeats (`-1`, `-2`). */
export function anchors(markdown: string): Set<string> {
  const out = new Set<string>();
  const seen = new Map<string, number>();
  const text = markdown.replace(/^( *)```[\s\S]*?^\1```$/gm, '');
  for (const m of text.matchAll(/^#{1,6} +(.*?) *#*$/gm)) {
    const base = slug(m[1] ?? '');
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    out.add(n === 0 ? base : `${base}-${n}`);
  }
  for (const m of text.matchAll(/<a (?:name|id)="([^"]+)"/g)) out.add(m[1] ?? '');
  return out;
}

/** The targets of the file's inline links and images, outside code. */
export function linkTargets(markdown: string): string[] {
  return [...withoutCode(markdown).matchAll(/!?\[(?:[^\]\\]|\\.)*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)].map((m) => m[1] ?? '');
}
