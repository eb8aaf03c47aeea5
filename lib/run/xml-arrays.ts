import { decodeXml, encodeXml } from '../contract/codec/xml.ts';
import type { RequestSpec } from '../contract/exchange.ts';
import { operation } from '../contract/operations.ts';
import type { XmlArrays } from '../contract/profile/types.ts';
import type { Step } from '../generate/case.ts';

/**
 * How arrays of a request body are written in XML is not shown by the document: the cases write them
 * unwrapped (production's form), and a target profile that says `xmlArrays: "wrapped"` gets them
 * rewritten just before sending. A body that does not decode (malformed on purpose) goes as it is.
 */
export function shapedRequest(step: Step, arrays: XmlArrays): RequestSpec {
  const request = step.request;
  if (arrays === 'unwrapped' || !step.operation || typeof request.body !== 'string') return request;
  const spec = operation(step.operation).body;
  if (!spec || !request.body.trimStart().startsWith('<')) return request;
  const decoded = decodeXml(spec.resource, request.body);
  // A body without arrays is sent as the case wrote it: written again, it would lose its layout (an
  // indented body, a case of its own, would reach the target without its whitespace).
  if (!decoded.ok || !holdsArray(decoded.value)) return request;
  return { ...request, body: encodeXml(spec.resource, decoded.value, arrays) };
}

function holdsArray(value: unknown): boolean {
  if (Array.isArray(value)) return true;
  return value !== null && typeof value === 'object' && Object.values(value).some(holdsArray);
}
