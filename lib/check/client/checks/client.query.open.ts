import { defineClientCheck, noted, PASSED } from '../types.ts';

/** Section 4: "Which query parameters … are required: not shown"; 4.3: allowed reasonCode values not shown. */
export default defineClientCheck({
  id: 'client.query.open',
  level: 'observed',
  sections: ['4.1', '4.2', '4.3', '4.4'],
  reading: 'Open points',
  description: 'Query parameters of the operation left out or blank (required-ness is not shown; production refuses a blank reasonCode), repeated, or not documented for the operation (names are compared exactly).',
  judge({ request, view }) {
    const op = request.operation;
    if (!op) return null;
    const documented = op.params;
    const found: string[] = [];
    const counts = new Map<string, number>();
    for (const pair of view.query) {
      counts.set(pair.name, (counts.get(pair.name) ?? 0) + 1);
      if (!pair.decoded) found.push(`${pair.name}: not valid percent-encoding`);
    }
    for (const { name } of documented) {
      const n = counts.get(name);
      if (n === undefined) found.push(`${name} left out`);
      else if (view.query.some((p) => p.name === name && p.value.trim() === '')) found.push(`${name} blank`);
    }
    for (const [name, n] of counts) {
      if (!documented.some((p) => p.name === name)) found.push(`${JSON.stringify(name)} is not a query parameter of this operation`);
      else if (n > 1) found.push(`${name} given ${n} times`);
    }
    if (found.length === 0) return PASSED;
    const names = documented.map((p) => p.name);
    return noted(names.length > 0 ? `the query parameters ${names.join(', ')}, each once with a value (section ${op.section})` : `no query parameters (section ${op.section}: "none")`, found.join('; '));
  },
});
