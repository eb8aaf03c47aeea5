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
   * The other set of choices on points the document leaves open (see docs/reference-server.md): the
   * harness must pass against both, which is how it proves it never depends on one server's choices.
   */
  alternative: boolean;
  /** The agency the key acts for (the profile's); only the alternative choices refuse the others. */
  keyAgency: string;
}
