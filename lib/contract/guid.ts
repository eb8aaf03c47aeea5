/**
 * GUIDs as servers write them: .NET's Guid.ToString formats (N, D, B, P), in either letter case. A runId
 * is usually one, given anew on every call; a server that parses it and writes it back may change its
 * spelling, not its value.
 */
const BODY = '[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}';
const WHOLE = new RegExp(`^(?:\\{(${BODY})\\}|\\((${BODY})\\)|(${BODY}))$`, 'i');
const WITHIN = new RegExp(`[{(]?\\b${BODY}\\b[})]?`, 'gi');

/** The 32 hex digits, lower case, of a text that is one GUID in any of those spellings; undefined otherwise. */
export function guidDigits(text: string): string | undefined {
  const m = WHOLE.exec(text.trim());
  const body = m?.[1] ?? m?.[2] ?? m?.[3];
  return body?.replaceAll('-', '').toLowerCase();
}

/** A text with every GUID in it, in any of those spellings, replaced by one placeholder. */
export function withoutGuids(text: string): string {
  return text.replace(WITHIN, '<guid>');
}
