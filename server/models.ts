import type { ProfileSettings } from '../lib/contract/profile/types.ts';
import type { ChoiceSetName } from './choices.ts';
import { CHOICE_SETS } from './choices.ts';
import type { FaultId } from './faults.ts';
import { isFaultId } from './faults.ts';

/**
 * Models of servers that exist: a set of legitimate choices and the faults (deviations from the document)
 * the server has besides. A model is what a team runs the harness against before it meets the real
 * server: green with its waivers, failing exactly where the real one deviates without them.
 */
export interface ServerModel {
  /** The set of legitimate choices the server makes (server/choices.ts). */
  choices: ChoiceSetName;
  /** Its deviations from the document, each a fault of the catalogue (server/faults.ts). */
  faults: readonly FaultId[];
  /** What the target profile of a run against it says beyond the entries (a JSON-only target: formats). */
  profile: Partial<ProfileSettings>;
  description: string;
}

export const MODELS = {
  'production-as-built': {
    choices: 'production-as-built',
    // Each deviation is waived, with the source file it comes from, in fixtures/waivers/production-as-built.yaml.
    faults: ['xml-bodies-415', 'run-agency-code-loose', 'delete-ignores-source-db', 'merge-404-as-400', 'run-400-validation-problem', 'gateway-401-json'],
    profile: { formats: ['json'] },
    description:
      'The production ISWC Agency API as its public source shows it (docs/production.md): the choices of the set production-as-built, and its deviations: no XML (415), a run notification that validates nothing, a delete that ignores sourceDb, a merge into an unknown ISWC answered 400, ASP.NET Core\'s validation problem for the run\'s 400, the gateway\'s JSON 401. Its infrastructure failures and maintenance are trouble to inject (server --inject 500@N, maintenance@N), not deviations.',
  },
} as const satisfies Record<string, ServerModel>;

export type ModelName = keyof typeof MODELS;

export function isModelName(name: string): name is ModelName {
  return Object.hasOwn(MODELS, name);
}

for (const [name, model] of Object.entries(MODELS) as Array<[string, ServerModel]>) {
  if (!Object.hasOwn(CHOICE_SETS, model.choices)) throw new Error(`server/models.ts: model ${name} names an unknown choice set ${model.choices}`);
  const unknown = model.faults.filter((f) => !isFaultId(f));
  if (unknown.length > 0) throw new Error(`server/models.ts: model ${name} names unknown faults ${unknown.join(', ')}`);
}

/** The models as a Markdown table (docs/reference-server.md; `server --list-models`). */
export function modelTable(): string {
  const rows = (Object.entries(MODELS) as Array<[string, ServerModel]>).map(([name, m]) => `| \`${name}\` | ${m.choices} | ${m.faults.map((f) => `\`${f}\``).join(', ')} | ${Object.entries(m.profile).map(([k, v]) => `${k}: ${JSON.stringify(v)}`).join(', ')} | ${m.description.replace(/\|/g, '\\|')} |`);
  return ['| model | choices | faults | profile | description |', '|---|---|---|---|---|', ...rows].join('\n');
}
