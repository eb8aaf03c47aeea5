/**
 * An XML answer is read as it declares itself (XML 1.0 §4.3.3): a declaration naming UTF-16 over bytes that
 * are UTF-8, with no byte order mark and no charset in Content-Type to override it, is no XML to a client's
 * processor, though the harness's lenient decoder reads it (a fresh reading of 2026-12-01).
 */
import { expect, _baseTest as test } from '@playwright/test';
import { xmlDeclarationMismatch } from '../../lib/contract/answer.ts';
import type { Exchange } from '../../lib/contract/exchange.ts';

const BODY = '<CsnNotification><runId>r-1</runId></CsnNotification>';

function answer(body: string, contentType: string, encoding?: string): Exchange {
  return {
    request: { method: 'POST', url: 'http://127.0.0.1/agent/run', headers: {}, body: '', bodyBytes: 0, bodyTruncated: false, auth: 'key' },
    response: { status: 200, headers: { 'content-type': contentType }, body, bodyBytes: body.length, truncated: false, ...(encoding !== undefined ? { encoding } : {}) },
    durationMs: 1,
  } as unknown as Exchange;
}

test('a UTF-16 declaration over UTF-8 bytes, with nothing to override it, is refused; a charset or a byte order mark that agrees is not', () => {
  const utf16 = `<?xml version="1.0" encoding="utf-16"?>${BODY}`;
  expect(xmlDeclarationMismatch(answer(utf16, 'application/xml'))).toContain('encoding="utf-16"');
  expect(xmlDeclarationMismatch(answer(utf16, 'application/xml', 'utf-8 (byte order mark)'))).toContain('XML 1.0 §4.3.3');
  // The transport's charset overrides the declaration (RFC 7303 §3.2); UTF-16 bytes with their mark are UTF-16.
  expect(xmlDeclarationMismatch(answer(utf16, 'application/xml; charset=utf-8'))).toBeUndefined();
  expect(xmlDeclarationMismatch(answer(utf16, 'application/xml', 'utf-16le (byte order mark)'))).toBeUndefined();
  // Declarations that name what the bytes are, or nothing, and single quotes read alike.
  expect(xmlDeclarationMismatch(answer(`<?xml version="1.0" encoding="UTF-8"?>${BODY}`, 'application/xml'))).toBeUndefined();
  expect(xmlDeclarationMismatch(answer(`<?xml version='1.0'?>${BODY}`, 'application/xml'))).toBeUndefined();
  expect(xmlDeclarationMismatch(answer(`<?xml version='1.0' encoding='UTF-32'?>${BODY}`, 'text/xml'))).toContain('UTF-32');
  // JSON has no declaration to misread.
  expect(xmlDeclarationMismatch(answer('{"runId":"r-1"}', 'application/json'))).toBeUndefined();
});
