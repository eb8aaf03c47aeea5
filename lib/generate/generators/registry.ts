import fc from 'fast-check';
import { fieldConstraints } from '../../contract/constraints.ts';
import type { TargetProfile } from '../../contract/profile/types.ts';
import type { GenOptions } from './values.ts';
import { DEFAULT_GEN, validAgentRunArb, validFor, validMergeBodyArb } from './values.ts';

/**
 * Named generators, for declarative scenarios and for people: a name gives an arbitrary of values
 * derived from the schemas (and, where data must exist or not, from the target profile).
 */
type Factory = (profile: TargetProfile, options: GenOptions) => fc.Arbitrary<unknown>;

const component = (name: string): Factory => (_p, o) => validFor({ $ref: `#/components/schemas/${name}` }, o);

const NAMED: Record<string, { description: string; make: Factory }> = {
  'agentRun.valid': { description: 'A valid agent run (every field but runId), Unicode included.', make: (_p, o) => validAgentRunArb(o) },
  'mergeRequest.valid': { description: 'A valid merge body: 0..4 ISWCs and agency works, duplicates allowed.', make: (_p, o) => validMergeBodyArb(o) },
  'iswc.valid': { description: 'A string matching the ISWC pattern.', make: component('Iswc') },
  'iswc.unknown': { description: "One of the profile's unknownIswcs.", make: (p) => fc.constantFrom(...p.unknownIswcs) },
  'iswc.existing': { description: "One of the profile's iswcs.", make: (p) => fc.constantFrom(...p.iswcs) },
  'agencyCode.valid': { description: 'Exactly 3 code points.', make: component('AgencyCode') },
  'agencyWorkCode.valid': { description: 'At most 20 code points.', make: component('AgencyWorkCode') },
  'agencyWork.valid': { description: 'A valid agency work reference.', make: component('AgencyWork') },
  'int32.valid': { description: 'A 32-bit integer, biased to its edges.', make: component('Int32') },
};

export function generatorNames(): string[] {
  return Object.keys(NAMED).sort();
}

export function describeGenerators(): Array<{ name: string; description: string }> {
  return generatorNames().map((name) => ({ name, description: NAMED[name]?.description ?? '' }));
}

export function namedArbitrary(name: string, profile: TargetProfile, options: GenOptions = DEFAULT_GEN): fc.Arbitrary<unknown> {
  const entry = NAMED[name];
  if (!entry) throw new Error(`Unknown generator "${name}"; known: ${generatorNames().join(', ')}`);
  return entry.make(profile, options);
}

/** One value of a named generator, reproducible from the seed. */
export function sampleNamed(name: string, profile: TargetProfile, seed: number, options: GenOptions = DEFAULT_GEN): unknown {
  const [value] = fc.sample(namedArbitrary(name, profile, options), { seed, numRuns: 1 });
  return value;
}

// Keep the registry honest: every field constraint's component has a generator above.
for (const c of fieldConstraints()) {
  if (c.component && !NAMED[`${c.component[0]?.toLowerCase()}${c.component.slice(1)}.valid`] && c.component !== 'Int32') {
    throw new Error(`No named generator for component ${c.component}`);
  }
}
