import { resourceSchema } from '../../../contract/constraints.ts';
import type { SchemaNode } from '../../../contract/openapi.ts';
import { deref } from '../../../contract/openapi.ts';
import type { Operation } from '../../../contract/operations.ts';
import { hasValidCheckDigit } from '../../../contract/iswc.ts';
import { bodyWalk, matchesPattern } from '../fields.ts';
import { defineClientCheck, noted, PASSED } from '../types.ts';

let iswc: SchemaNode | undefined;

/** The ISWC pattern of 2.3, as the contract's Iswc component states it; preferredIswc has no stated pattern. */
function iswcSchema(): SchemaNode {
  iswc ??= deref(deref(resourceSchema('MergeRequest').properties?.iswcs ?? {}).items ?? {});
  return iswc;
}

const paramsByOperation = new Map<Operation, ReadonlySet<string>>();

/** The query parameters of an operation that name an ISWC (preferredIswc): the contract states no pattern for them. */
function iswcParams(op: Operation | null): ReadonlySet<string> {
  if (!op) return new Set();
  let names = paramsByOperation.get(op);
  if (!names) paramsByOperation.set(op, (names = new Set(op.params.filter((p) => /iswc/i.test(p.name) && p.schema.pattern === undefined).map((p) => p.name))));
  return names;
}

/** Sections 2.3, 4.2 to 4.4: the document states no pattern for preferredIswc, nor any check digit. */
export default defineClientCheck({
  id: 'client.iswc',
  level: 'observed',
  sections: ['2.3', '4.2', '4.3', '4.4'],
  reading: 'Open points',
  description: 'A preferredIswc off the ISWC pattern of section 2.3 (the document states none for the parameter, so a server may look it up as it is), and ISWCs with a wrong check digit (ISO 15707; the document states only the pattern, production checks the digit).',
  judge(input) {
    const schema = iswcSchema();
    const iswcs: Array<{ path: string; value: string }> = [];
    const named = iswcParams(input.request.operation);
    for (const pair of input.view.query) if (named.has(pair.name)) iswcs.push({ path: `query ${pair.name}`, value: pair.value });
    for (const leaf of bodyWalk(input)?.leaves ?? []) {
      if (leaf.schema.pattern === schema.pattern && typeof leaf.value === 'string') iswcs.push({ path: leaf.path, value: leaf.value });
    }
    if (iswcs.length === 0) return null;
    const found: string[] = [];
    for (const { path, value } of iswcs) {
      const shaped = matchesPattern(value, schema) === true;
      if (!shaped && path.startsWith('query ')) found.push(`${path} ${JSON.stringify(value)} is not T and 10 digits`);
      else if (shaped && !hasValidCheckDigit(value)) found.push(`${path} ${value} has a wrong check digit`);
    }
    const expected = 'ISWCs in wire form (T and 10 digits) with their check digit (not stated for preferredIswc; check digits not stated)';
    return found.length === 0 ? PASSED : noted(expected, found.join('; '));
  },
});
