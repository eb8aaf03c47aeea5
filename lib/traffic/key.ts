import { subscriptionKeyHeader } from '../contract/openapi.ts';
import { KEY_PLACEHOLDER, SANDBOX_KEY_PLACEHOLDER } from '../foundation/redact.ts';
import type { KeyMode, TrafficExchange, TrafficSession } from './model.ts';

/**
 * How a recorded request was keyed, told from what the recording left of its key header (never the key):
 * the right key's placeholder, another value, empty, or no header. A sandbox session says which
 * placeholder stands for the right key; in a HAR file or a gateway log any placeholder is taken for the
 * right key unless the answer was 401 (then another key), and a missing header for a removed one unless
 * the answer was 401 or 403 (sanitizers remove credential headers).
 */
export function keyModeOf(x: TrafficExchange, session: Pick<TrafficSession, 'source' | 'meta'>): KeyMode {
  const value = x.request.headers[subscriptionKeyHeader().toLowerCase()];
  const refused = x.response?.status === 401 || x.response?.status === 403;
  if (value === undefined) return session.source === 'sandbox' || refused ? 'none' : 'key';
  if (value.trim() === '') return 'empty';
  const right = session.meta.keyPlaceholder;
  if (right !== undefined) return value === right ? 'key' : 'wrong';
  if (value === KEY_PLACEHOLDER || value === SANDBOX_KEY_PLACEHOLDER) return 'key';
  return x.response?.status === 401 ? 'wrong' : 'key';
}
