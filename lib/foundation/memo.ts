/**
 * A cache of a pure function's results by a string key, for work a planning repeats on the same text (a
 * dry run sends a generated case's first inputs at each size it is measured at, every one the same). Its
 * keys are held to `maxChars` characters in all: past that it starts again empty, so a run that makes long
 * values does not grow without bound.
 */
export function textMemo<T>(maxChars = 4_000_000): (key: string, compute: () => T) => T {
  let values = new Map<string, T>();
  let chars = 0;
  return (key, compute) => {
    if (values.has(key)) return values.get(key) as T;
    const value = compute();
    if (chars + key.length > maxChars) {
      values = new Map();
      chars = 0;
    }
    values.set(key, value);
    chars += key.length;
    return value;
  };
}

/** Texts past this length (oversized probes, megabyte answers) are worked on each time, not kept. */
export const KEPT_TEXT_LIMIT = 64 * 1024;

/** The value, frozen through: a kept result is shared by every caller that asks for it, and none may change it. */
export function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const item of Object.values(value)) deepFreeze(item);
  }
  return value;
}
