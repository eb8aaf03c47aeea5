import type { SchemaNode } from '../../contract/openapi.ts';
import type { ClientJudgeInput } from './types.ts';

/** A documented query parameter as the client sent it, with the schema the contract gives it. */
export interface QueryLeaf {
  path: string;
  name: string;
  schema: SchemaNode;
  value: string;
}

const cache = new WeakMap<object, QueryLeaf[]>();

/** Every value of every query parameter the operation documents, exactly named (repeats included). */
export function queryLeaves(input: ClientJudgeInput): QueryLeaf[] {
  const known = cache.get(input.view);
  if (known) return known;
  const params = input.request.operation?.params ?? [];
  const out: QueryLeaf[] = [];
  for (const pair of input.view.query) {
    const param = params.find((p) => p.name === pair.name);
    if (param) out.push({ path: `query ${pair.name}`, name: pair.name, schema: param.schema, value: pair.value });
  }
  cache.set(input.view, out);
  return out;
}
