/**
 * Delta debugging (Zeller and Hildebrandt's ddmin): the fewest items of a list that still reproduce a
 * failure. `reproduces` is asked about subsets only; the answer is 1-minimal (removing any one item makes
 * the failure go away), found in O(n log n) questions in the usual case rather than 2^n. Answers are
 * cached by subset, since the same subset comes back as a complement. A cap on the questions bounds the
 * time: the smallest list found so far is returned when it is reached.
 */
export async function shrinkList<T>(items: readonly T[], reproduces: (subset: readonly T[]) => Promise<boolean>, options: { maxTries?: number; key?: (item: T) => string } = {}): Promise<{ minimal: T[]; tries: number; capped: boolean }> {
  const key = options.key ?? ((item: T) => String(item));
  const maxTries = options.maxTries ?? 200;
  const cache = new Map<string, boolean>();
  let tries = 0;
  let capped = false;
  const test = async (subset: readonly T[]): Promise<boolean> => {
    const k = subset.map(key).join('\n');
    const known = cache.get(k);
    if (known !== undefined) return known;
    if (tries >= maxTries) {
      capped = true;
      return false;
    }
    tries += 1;
    const answer = await reproduces(subset);
    cache.set(k, answer);
    return answer;
  };

  let current = [...items];
  // The empty list first: a failure of the harness that no choice is needed for.
  if (current.length > 0 && (await test([]))) return { minimal: [], tries, capped };
  let n = 2;
  while (current.length >= 2) {
    const chunks = split(current, n);
    let reduced = false;
    for (const chunk of chunks) {
      if (await test(chunk)) {
        current = chunk;
        n = 2;
        reduced = true;
        break;
      }
    }
    if (!reduced && n > 2) {
      for (const [i] of chunks.entries()) {
        const complement = chunks.filter((_, j) => j !== i).flat();
        if (await test(complement)) {
          current = complement;
          n = Math.max(n - 1, 2);
          reduced = true;
          break;
        }
      }
    }
    if (!reduced) {
      if (n >= current.length) break;
      n = Math.min(n * 2, current.length);
    }
    if (capped) break;
  }
  return { minimal: current, tries, capped };
}

/** `list` in `n` chunks of nearly equal length, in order. */
function split<T>(list: readonly T[], n: number): T[][] {
  const out: T[][] = [];
  let start = 0;
  for (let i = 0; i < n; i += 1) {
    const end = start + Math.ceil((list.length - start) / (n - i));
    if (end > start) out.push(list.slice(start, end));
    start = end;
  }
  return out;
}
