import path from 'node:path';
import { expect, _baseTest as test } from '@playwright/test';
import { OPERATION_IDS } from '../../lib/contract/operations.ts';
import { handWrittenSchema } from '../../lib/contract/validators.ts';
import { fromRoot } from '../../lib/foundation/paths.ts';
import { WaiverError, isRealDate, loadWaivers, parseWaivers } from '../../lib/report/waivers/load.ts';

const FILE = fromRoot('fixtures', 'waivers', 'my-waivers.yaml');
const EXAMPLE = fromRoot('fixtures', 'waivers', 'production-deviations.yaml');

/** The problems of a file that must not load, as printed. */
function problemsOf(text: string): WaiverError {
  try {
    parseWaivers(FILE, text);
  } catch (e) {
    if (e instanceof WaiverError) return e;
    throw e;
  }
  throw new Error('the file loaded');
}

const GOOD = `# comment
- check: status.not-found
  operation: mergeIswcMetadata
  reason: production answers 400
  until: 2027-01-31
  statuses: [400]
- check: text.bad-request
  format: xml
  reason: XML errors carry a body
  until: "2026-12-01"
  statuses: [400]
`;

test('a valid file loads: entries in order, with index, line and the optional fields given', () => {
  const set = parseWaivers(FILE, GOOD);
  expect(set.file).toBe(path.join('fixtures', 'waivers', 'my-waivers.yaml'));
  expect(set.waivers).toEqual([
    { index: 0, line: 2, check: 'status.not-found', operation: 'mergeIswcMetadata', statuses: [400], reason: 'production answers 400', until: '2027-01-31' },
    { index: 1, line: 7, check: 'text.bad-request', format: 'xml', statuses: [400], reason: 'XML errors carry a body', until: '2026-12-01' },
  ]);
  expect(parseWaivers(FILE, '# every waiver removed\n').waivers).toEqual([]);
  expect(parseWaivers(FILE, '[]\n').waivers).toEqual([]);
});

test('the shipped example loads and waives only what the merge 404/400 deviation causes', () => {
  const set = loadWaivers(EXAMPLE);
  expect(set.waivers.map((w) => [w.check, w.operation, w.format])).toEqual([
    ['status.not-found', 'mergeIswcMetadata', undefined],
  ]);
  for (const w of set.waivers) expect(w.reason.length).toBeGreaterThan(40);
});

const broken: Array<[string, string, RegExp]> = [
  ['a missing reason', '- check: status.not-found\n  until: 2027-01-01\n  statuses: [400]\n', /my-waivers\.yaml:1:3 entry 0: missing "reason"/],
  ['a blank reason', '- check: status.not-found\n  reason: "  "\n  until: 2027-01-01\n  statuses: [400]\n', /my-waivers\.yaml:2:11 entry 0 \(reason\): must say why/],
  ['a missing check', '- reason: r\n  until: 2027-01-01\n  statuses: [400]\n', /:1:3 entry 0: missing "check"/],
  ['an unknown check id', '- check: status.not-foundd\n  reason: r\n  until: 2027-01-01\n  statuses: [400]\n', /:1:10 entry 0 \(check\): unknown check id "status.not-foundd"; known: .*status\.not-found/],
  ['an observed check', '- check: observed.error-body\n  reason: r\n  until: 2027-01-01\n  statuses: [400]\n', /entry 0 \(check\): "observed.error-body" is an observed check/],
  ['an unknown operation', '- check: status.not-found\n  operation: mergeIswc\n  reason: r\n  until: 2027-01-01\n  statuses: [400]\n', /:2:14 entry 0 \(operation\): must be one of "notifyAgentRun", "mergeIswcMetadata"/],
  ['an unknown format', '- check: status.not-found\n  format: yaml\n  reason: r\n  until: 2027-01-01\n  statuses: [400]\n', /entry 0 \(format\): must be one of "json", "xml"/],
  ['an until not written YYYY-MM-DD', '- check: status.not-found\n  reason: r\n  until: 31/01/2027\n  statuses: [400]\n', /:3:10 entry 0 \(until\): must be a date written YYYY-MM-DD/],
  ['an until that is no day of the calendar', '- check: status.not-found\n  reason: r\n  until: 2027-02-29\n  statuses: [400]\n', /:3:10 entry 0 \(until\): "2027-02-29" is not a date of the calendar/],
  ['an unknown property', '- check: status.not-found\n  reason: r\n  until: 2027-01-01\n  statuses: [400]\n  owner: me\n', /:5:10 entry 0 \(owner\): unknown property "owner"/],
  ['an entry that is not a mapping', '- status.not-found\n', /:1:3 entry 0: must be a mapping/],
  ['a file that is not a list', 'check: status.not-found\nreason: r\nuntil: 2027-01-01\n', /my-waivers\.yaml:1:1: must be a list of waivers/],
  ['a YAML syntax error', '- check: [status.not-found\n  reason: r\n', /my-waivers\.yaml:\d+:\d+: YAML: /],
  ['a repeated key', '- check: status.not-found\n  check: text.bad-request\n  reason: r\n  until: 2027-01-01\n  statuses: [400]\n', /my-waivers\.yaml:2:\d+: YAML: .*[Mm]ap keys must be unique/],
  ['an entry repeating another', `${GOOD}- check: status.not-found\n  operation: mergeIswcMetadata\n  reason: again\n  until: 2028-01-01\n  statuses: [400]\n`, /:12:3 entry 2: waives exactly what entry 0 waives/],
];
for (const [label, text, message] of broken) {
  test(`refuses ${label}, naming the file, the entry and its line`, () => {
    const error = problemsOf(text);
    expect(error.message).toContain('Invalid waivers file fixtures/waivers/my-waivers.yaml');
    expect(error.message).toMatch(message);
  });
}

test('every problem at once, each entry named: schema errors of one entry do not hide another entry\'s', () => {
  const error = problemsOf(`- check: status.not-found\n  reason: ""\n  until: 2027-01-01\n  statuses: [400]\n${GOOD.replace('# comment\n', '')}- check: nope\n  reason: r\n  until: 2027-13-01\n  statuses: [400]\n`);
  expect(error.problems.map((p) => [p.index, p.line, p.path])).toEqual([
    [0, 2, '/0/reason'],
    [3, 15, '/3/check'],
    [3, 17, '/3/until'],
  ]);
});

test('issue 29: a waiver written before waivers said what their deviation looks like is refused, saying what to add', () => {
  const error = problemsOf('- check: status.not-found\n  operation: mergeIswcMetadata\n  reason: production answers 400\n  until: 2027-01-31\n');
  expect(error.message).toMatch(/my-waivers\.yaml:1:3 entry 0: missing "statuses": a waiver now says what the deviation looks like, at least the statuses it answers \(add, for example, `statuses: \[400\]`/);
  expect(problemsOf('- check: status.not-found\n  statuses: [99]\n  reason: r\n  until: 2027-01-31\n').message).toMatch(/entry 0 \(statuses\.0\): must be an HTTP status/);
  expect(problemsOf('- check: status.not-found\n  statuses: []\n  reason: r\n  until: 2027-01-31\n').message).toMatch(/entry 0 \(statuses\): must name at least one status/);
});

test('a file that does not exist is named', () => {
  expect(() => loadWaivers('/nowhere/waivers.yaml')).toThrow(/\/nowhere\/waivers\.yaml: cannot read the waivers file: no such file/);
});

test('real dates only', () => {
  for (const d of ['2028-02-29', '2026-12-31', '2027-01-01']) expect(isRealDate(d), d).toBe(true);
  for (const d of ['2027-02-29', '2026-04-31', '2026-00-10', '2026-1-1', '26-01-01', 'soon']) expect(isRealDate(d), d).toBe(false);
});

test('the schema names exactly the operations of schemas/openapi.yaml', () => {
  const schema = handWrittenSchema('waivers.schema.json') as { $defs: { waiver: { properties: { operation: { enum: string[] } } } } };
  expect(schema.$defs.waiver.properties.operation.enum).toEqual([...OPERATION_IDS]);
});

test('issue 29: a waiver may name the steps its deviation shows at (step: a text of the step label); a blank one is refused', () => {
  const entry = (step: string) => `- check: limit.rejected\n  operation: notifyAgentRun\n  case: property.run.invalid\n  step: ${step}\n  statuses: [200]\n  reason: the run notification validates no agencyCode\n  until: "2027-06-30"\n`;
  expect(parseWaivers(FILE, entry('agencyCode')).waivers[0]).toMatchObject({ case: ['property.run.invalid'], step: 'agencyCode', statuses: [200] });
  expect(() => parseWaivers(FILE, entry('""'))).toThrow(/entry 0 \(step\)/);
});
