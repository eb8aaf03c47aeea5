/**
 * The catalogue of client faults: the example client misbehaving on purpose, one way each, and the
 * sandbox session that shows it. Every client check of lib/check/client/checks/ must be caught by at
 * least one of them (`proves`), and what each fault is caught by is pinned in
 * tests/expectations/client-faults.json (npm run expectations:update:client). Faults of `http` checks
 * run with --strict, the only way they fail a session. A fault whose misbehaviour keeps an operation from
 * succeeding declares only the others (--operations): an observed fault never fails a session by itself.
 */
import type { AgencyClient, AgencyClientOptions, BodyFormat, ClientFaultSwitch } from './client.ts';
import { ApiError } from './client.ts';
import type { AgencyData } from './flow.ts';
import { agencyDay } from './flow.ts';

export interface ClientFault {
  id: string;
  /** The level of the check it proves: spec and http faults end the session with exit 1, observed ones with 0. */
  level: 'spec' | 'http' | 'observed';
  /** The client check meant to catch it (docs/client-checks.md). */
  proves: string;
  description: string;
  format: BodyFormat;
  /** Sandbox arguments the fault needs (trouble to meet, --strict). */
  sandbox: string[];
  switches: ClientFaultSwitch[];
  /** Client settings the fault needs (a client that never retries). */
  client?: Pick<AgencyClientOptions, 'maxRetries'>;
  /** Cancel the client once it has sent this many requests (a client that would retry for ever). */
  cancelAfterRequests?: number;
  /** What the faulty client does during the session; the default is a tolerant agency day. */
  drive?: (client: AgencyClient, data: AgencyData) => Promise<void>;
}

const ignoreRefusal = (e: unknown): void => {
  if (!(e instanceof ApiError)) throw e;
};

export const CLIENT_FAULTS: readonly ClientFault[] = [
  { id: 'agency-code-4', level: 'spec', proves: 'client.body.limits', description: 'A 4-character agencyCode in the run notification (2.1: exactly 3).', format: 'json', sandbox: [], switches: ['agency-code-4'] },
  { id: 'merge-without-key', level: 'spec', proves: 'client.key', description: 'The merge is sent without Ocp-Apim-Subscription-Key (5.1).', format: 'json', sandbox: [], switches: ['merge-without-key'] },
  { id: 'xml-wrong-root', level: 'spec', proves: 'client.body.root', description: 'The agent run in XML under <AgentRunRequest> instead of <AgentRun> (2.1).', format: 'xml', sandbox: [], switches: ['xml-wrong-root'] },
  { id: 'iswc-item-t123', level: 'spec', proves: 'client.body.limits', description: 'A merge listing the ISWC "T123" (2.3: T and 10 digits).', format: 'json', sandbox: [], switches: ['iswc-item-t123'] },
  { id: 'workcode-21', level: 'spec', proves: 'client.query.limits', description: 'A demerge whose workcode is 21 characters (2.4, 8: at most 20).', format: 'json', sandbox: [], switches: ['workcode-21'] },
  { id: 'retry-too-soon', level: 'http', proves: 'client.retry-after', description: 'After a 429 with Retry-After: 2 the client retries after a fixed backoff of its own, 1.5 s.', format: 'json', sandbox: ['--inject', '429@2', '--strict'], switches: ['retry-too-soon'] },
  {
    id: 'burst-30',
    level: 'http',
    proves: 'client.rate-limit',
    description: '30 requests in 5 seconds against a 10/min rate limit, 429s ignored.',
    format: 'json',
    sandbox: ['--rate-limit', '10/min', '--strict', '--operations', 'run'],
    switches: [],
    client: { maxRetries: 0 },
    drive: async (client, data) => {
      let open: string | undefined;
      for (let i = 0; i < 30; i += 1) {
        const started = Date.now();
        if (open !== undefined) {
          const runId = open;
          await client.endRun(runId, data.agency, data.agentVersion, { updateRecordCount: 0, newRecordCount: 0, overallRejected: 0, overallSent: 0, successfulCount: 0, businessRejectionCount: 0, technicalRejectionCount: 0 }).then(() => (open = undefined), ignoreRefusal);
        } else {
          open = await client.startRun(data.agency, data.agentVersion).catch((e: unknown) => void ignoreRefusal(e));
        }
        await new Promise((r) => setTimeout(r, Math.max(0, 5000 / 30 - (Date.now() - started))));
      }
    },
  },
  {
    id: 'retry-forever',
    level: 'http',
    proves: 'client.retries-bounded',
    description: 'Through an outage of 60 s (every request answered 503 with Retry-After: 2) the client retries without bound, each after the Retry-After; cancelled here after its 8th request (the 6th retry of its merge).',
    format: 'json',
    sandbox: ['--inject', '503@2for60s', '--strict', '--operations', 'run'],
    switches: ['retry-forever'],
    cancelAfterRequests: 8,
  },
  { id: 'wrong-path', level: 'spec', proves: 'client.operation', description: 'Run notifications sent to POST /agent/runs (4.1: /agent/run).', format: 'json', sandbox: [], switches: ['wrong-path'] },
  { id: 'delete-with-body', level: 'spec', proves: 'client.body.presence', description: 'The submission delete carries a JSON body (4.3: "Request body: none").', format: 'json', sandbox: [], switches: ['delete-with-body'] },
  { id: 'content-type-text', level: 'spec', proves: 'client.content-type', description: 'JSON bodies labelled Content-Type: text/plain (4.1, 4.2: the media type of the body).', format: 'json', sandbox: [], switches: ['content-type-text'] },
  { id: 'no-content-type', level: 'observed', proves: 'client.production-as-built', description: 'JSON bodies sent without Content-Type: the sandbox reads them (the document makes the header optional), production as built answers 415.', format: 'json', sandbox: [], switches: ['no-content-type'] },
  { id: 'json-trailing-comma', level: 'spec', proves: 'client.body.syntax', description: 'JSON bodies with a trailing comma, which RFC 8259 does not allow (a lenient server takes them).', format: 'json', sandbox: [], switches: ['json-trailing-comma'] },
  { id: 'pascal-case-fields', level: 'spec', proves: 'client.body.field-names', description: 'Fields written AgencyCode, RunId, … (2.1: "named exactly as below"; a lenient server matches them without case).', format: 'json', sandbox: [], switches: ['pascal-case-fields'] },
  { id: 'counter-word', level: 'spec', proves: 'client.body.types', description: 'updateRecordCount "many" (2.1: an int32).', format: 'json', sandbox: [], switches: ['counter-word'] },
  { id: 'counter-as-string', level: 'observed', proves: 'client.coercion', description: 'Every counter written as a string ("0"), which a lenient reader converts and a strict one refuses.', format: 'json', sandbox: [], switches: ['counter-as-string'] },
  { id: 'workcode-astral', level: 'observed', proves: 'client.characters', description: 'An agencyWorkCode of 20 code points ending in an emoji: 21 UTF-16 units, so a .NET server refuses it.', format: 'json', sandbox: ['--operations', 'run,delete,demerge'], switches: ['workcode-astral'] },
  { id: 'extra-field', level: 'observed', proves: 'client.body.fields', description: 'A merge body with a field the document does not name ("comment").', format: 'json', sandbox: [], switches: ['extra-field'] },
  { id: 'xml-namespace', level: 'observed', proves: 'client.xml', description: 'XML bodies under a DataContract namespace (the document names none; production uses none).', format: 'xml', sandbox: [], switches: ['xml-namespace'] },
  { id: 'preferred-check-digit', level: 'observed', proves: 'client.iswc', description: 'A demerge whose preferredIswc has a wrong check digit.', format: 'json', sandbox: ['--operations', 'run,merge,delete'], switches: ['preferred-check-digit'] },
  { id: 'no-reason-code', level: 'observed', proves: 'client.query.open', description: 'A submission delete without reasonCode (required-ness is not shown; production refuses a blank one).', format: 'json', sandbox: ['--operations', 'run,merge,demerge'], switches: ['no-reason-code'] },
  {
    id: 'end-unknown-run',
    level: 'observed',
    proves: 'client.run-id.issued',
    description: 'A run notification ending a runId the server never issued.',
    format: 'json',
    sandbox: ['--operations', 'run'],
    switches: [],
    drive: async (client, data) => {
      const runId = await client.startRun(data.agency, data.agentVersion);
      const zero = { updateRecordCount: 0, newRecordCount: 0, overallRejected: 0, overallSent: 0, successfulCount: 0, businessRejectionCount: 0, technicalRejectionCount: 0 };
      await client.endRun(runId, data.agency, data.agentVersion, zero);
      await client.endRun('run-the-client-made-up', data.agency, data.agentVersion, zero).catch(ignoreRefusal);
    },
  },
  {
    id: 'run-left-open',
    level: 'observed',
    proves: 'client.runs-ended',
    description: 'A run started and never ended.',
    format: 'json',
    sandbox: ['--operations', 'run'],
    switches: [],
    drive: async (client, data) => {
      await client.startRun(data.agency, data.agentVersion);
    },
  },
];

/** The fault's session: its own drive, or a tolerant agency day with its switches on. */
export async function driveFault(fault: ClientFault, client: AgencyClient, data: AgencyData): Promise<void> {
  if (fault.drive) await fault.drive(client, data);
  else await agencyDay(client, data, true);
}
