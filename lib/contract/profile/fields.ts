import { handWrittenSchema } from '../validators.ts';
import { nearest } from './messages.ts';
import { PROFILE_SCHEMA } from './load.ts';

/**
 * The fields of a target profile as its schema states them, for whoever names a value of a profile by
 * path (a scenario's `${profile.iswcs[1]}`, `${entry.merges[0].agencyWorks[0].agencyCode}`): a name the
 * schema does not have is a typo, whatever a given profile holds.
 */

type Node = Record<string, unknown>;

function resolve(node: Node | undefined): Node | undefined {
  if (!node) return undefined;
  if (typeof node.$ref === 'string' && !node.$ref.startsWith('#')) {
    const referenced = handWrittenSchema(node.$ref);
    const properties = referenced.properties || node.properties ? { properties: { ...((referenced.properties ?? {}) as Node), ...((node.properties ?? {}) as Node) } } : {};
    return { ...referenced, ...node, ...properties };
  }
  return node;
}

function rootSchema(): Node {
  return handWrittenSchema(PROFILE_SCHEMA);
}

/** The top-level fields of a profile (what `${profile.…}` may name). */
export function profileFields(): string[] {
  return Object.keys((rootSchema().properties ?? {}) as Node).filter((n) => n !== '$schema');
}

/** "a merges entry", "an agency work", "an item of iswcs". */
function itemOf(list: string): string {
  if (list === 'agencyWorks') return 'an agency work';
  return ['merges', 'demerges', 'submissions'].includes(list) ? `a ${list} entry` : `an item of "${list}"`;
}

/**
 * Why a path of names and indexes (`['merges', 0, 'agencyWorks', 1]`) cannot name a value of a target
 * profile, or undefined when the schema has it. Indexes are not checked against any profile: a profile
 * may have fewer items, which a case reports as a need, not as a typo.
 */
export function fieldPathProblem(path: ReadonlyArray<string | number>): string | undefined {
  let node = resolve(rootSchema());
  let where = 'the target profile';
  let last = '';
  for (const segment of path) {
    if (!node) return undefined;
    if (typeof segment === 'number') {
      if (node.type !== 'array') return `${where} is not a list: [${segment}] cannot follow it`;
      node = resolve(node.items as Node | undefined);
      where = itemOf(last);
      continue;
    }
    const properties = (node.properties ?? {}) as Node;
    if (node.type === 'array') return `${where} is a list: name one item, e.g. [0], before .${segment}`;
    if (node.type !== 'object' && !node.properties) return `${where} is a single value: it has no .${segment}`;
    const names = Object.keys(properties).filter((n) => n !== '$schema');
    if (!Object.hasOwn(properties, segment)) {
      const guess = nearest(segment, names);
      return `${where} has no field "${segment}"${guess ? `; did you mean "${guess}"?` : `; its fields: ${names.join(', ')}`}`;
    }
    node = resolve(properties[segment] as Node);
    where = `"${segment}"`;
    last = segment;
  }
  return undefined;
}
