import type { ResourceName } from '../json-schema.ts';
import { decodeJson, encodeJson } from './json.ts';
import { decodeXml, encodeXml } from './xml.ts';
import { textMemo } from '../../foundation/memo.ts';

export type Format = 'json' | 'xml';
export const FORMATS: readonly Format[] = ['json', 'xml'];

export const MEDIA_TYPE: Record<Format, string> = { json: 'application/json', xml: 'application/xml' };

export function encodeBody(format: Format, resource: ResourceName, value: unknown): string {
  return format === 'json' ? encodeJson(value) : encodeXml(resource, value);
}

export type BodyDecodeResult = { ok: true; value: unknown } | { ok: false; error: string };

export function decodeBody(format: Format, resource: ResourceName, text: string): BodyDecodeResult {
  return format === 'json' ? decodeJson(text) : decodeXml(resource, text);
}

/** The format a Content-Type names: application/json, text/json and any +json; application/xml, text/xml and any +xml. */
export function formatOfContentType(contentType: string | undefined): Format | 'text' | 'other' | undefined {
  if (!contentType) return undefined;
  // Every check of every answer asks this of the same few headers.
  return formatsOfContentTypes(contentType, () => formatOfEssence((contentType.split(';')[0] ?? '').trim().toLowerCase()));
}

function formatOfEssence(essence: string): Format | 'text' | 'other' {
  if (essence === 'application/json' || essence === 'text/json' || essence.endsWith('+json')) return 'json';
  if (essence === 'application/xml' || essence === 'text/xml' || essence.endsWith('+xml')) return 'xml';
  if (essence.startsWith('text/')) return 'text';
  return 'other';
}

/** Content types kept read, bounded: a hostile server may send a new one each time. */
const formatsOfContentTypes = textMemo<Format | 'text' | 'other'>(64 * 1024);

/** Guesses the format of a body that came without Content-Type (the header is optional, section 4). */
export function sniffFormat(text: string): Format | undefined {
  const start = text.trimStart()[0];
  if (start === '<') return 'xml';
  if (start === '{' || start === '[' || start === '"') return 'json';
  return undefined;
}

export { decodeJson, encodeJson, decodeXml, encodeXml };
