import { decodeAnswer, describeAnswer, sentRunIdOf, xmlDeclarationMismatch } from '../../contract/answer.ts';
import { resourceSchema } from '../../contract/constraints.ts';
import { operation } from '../../contract/operations.ts';
import { validateResource } from '../../contract/validators.ts';
import { fail, pass } from '../helpers.ts';
import { defineCheck } from '../types.ts';

/**
 * Sections 2.2 and 4.1: the 200 of the run notification carries an agent run identifier, JSON or XML. The
 * body is read as what it is, whatever its label says (RFC 9110 labels are http.content-type's).
 */
export default defineCheck({
  id: 'response.schema',
  level: 'spec',
  sections: ['2.2', '4.1'],
  reading: 'Statuses and bodies',
  description: 'The 200 of the run notification carries an agent run identifier (CsnNotification) in JSON or XML, valid against its schema and readable as it declares itself (an XML declaration naming UTF-16 over UTF-8 bytes is no XML to a client): a runId, a string (section 2.2 states no more of it), which identifies a run when the notification ends one (not empty).',
  scope: 'every-exchange',
  judge({ operation: opId, exchange }) {
    const response = exchange.response;
    if (!opId || !response || exchange.error) return null;
    const op = operation(opId);
    const resource = op.responseResource[response.status];
    if (!resource) return null;
    const expected = `a ${resource} (section 2.2) as JSON or XML`;
    // The body is judged by what it is (Go's net/http labels unlabelled JSON text/plain); whether its
    // Content-Type says so is http.content-type's to judge.
    const decoded = decodeAnswer(exchange, resource);
    if (!decoded.ok) return fail(expected, decoded.format ? `${decoded.format.toUpperCase()} that does not decode: ${decoded.error}` : `${decoded.error}: ${describeAnswer(exchange)}`);
    const format = decoded.format;
    // Read by a lenient decoder, but not by a client's XML processor: the bytes are not what the declaration says.
    const mismatch = format === 'xml' ? xmlDeclarationMismatch(exchange) : undefined;
    if (mismatch) return fail(expected, mismatch);
    const violations = validateResource(resource, decoded.value);
    if (violations.length > 0) {
      return fail(expected, `${format.toUpperCase()} ${JSON.stringify(decoded.value)}: ${violations.map((v) => `${v.path} ${v.message}`).join('; ')}`);
    }
    // Section 4.1: the 200 body *is* the agent run identifier, so its fields (runId) must be there, of the
    // type 2.2 states (a string; 2.2 demands no more of it, so an empty one echoed to an empty one passes).
    // Required-ness is open only for request bodies (section 4).
    const fields = Object.keys(resourceSchema(resource).properties ?? {});
    const value = decoded.value as Record<string, unknown>;
    const missing = fields.filter((f) => value[f] === undefined || value[f] === null);
    if (missing.length > 0) return fail(expected, `${format.toUpperCase()} ${JSON.stringify(decoded.value)}: no ${missing.join(', ')}`);
    // The answer to a notification that ends run X identifies a run (2.2): an empty runId names none. (An
    // empty one echoed to a notification carrying an empty one is a string 2.2 does not refuse.)
    const ended = opId === 'notifyAgentRun' ? sentRunIdOf(exchange) : undefined;
    if (ended !== undefined && ended !== '' && value.runId === '') {
      return fail(`${expected}, identifying a run: the notification ends the run ${JSON.stringify(ended)}`, `${format.toUpperCase()} ${JSON.stringify(decoded.value)}: an empty runId, which names no run`);
    }
    return pass(expected, `${format.toUpperCase()} ${JSON.stringify(decoded.value)}`);
  },
});
