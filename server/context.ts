import type { ChoiceSet } from './choices.ts';
import type { FaultSet } from './faults.ts';
import type { Limits } from './limits.ts';
import type { ServerState } from './state.ts';

/** Everything a handler needs, per server instance (nothing is shared between instances). */
export interface Context {
  key: string;
  /** The subscription-key header name from the contract, lower-cased as Node stores it. */
  keyHeader: string;
  faults: FaultSet;
  limits: Limits;
  state: ServerState;
  maxBodyBytes: number;
  /** ISWC_SERVER_DEBUG=1: unexpected exceptions are written to stderr. */
  debug: boolean;
  /**
   * The legitimate choices this server makes on points the document leaves open (server/choices.ts): the
   * harness must pass against every set of them, which is how it proves it never depends on one server's.
   */
  choices: ChoiceSet;
  /** The agency the key acts for (the profile's); only some choices refuse the others. */
  keyAgency: string;
  /** Source databases the server knows: its submissions', its agency's and the hubs' (choice `source-db-known`). */
  knownSourceDbs: ReadonlySet<number>;
  /** Source databases the key acts for: its submissions' and its agency's own (choice `key-source-db-scope`). */
  keySourceDbs: ReadonlySet<number>;
  /** Agencies the server's registry holds (choice `agency-registry`): production's known ones and the profile's. */
  knownAgencies: ReadonlySet<string>;
  /** Requests seen (choice `rate-limit-429`). */
  requestCount: number;
}
