import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { expect, _baseTest as test } from '@playwright/test';
import { Validator } from '@seriousme/openapi-schema-validator';
import { parse } from 'yaml';
import { fieldConstraints } from '../../lib/contract/constraints.ts';
import { OPENAPI_PATH, openApi, renderParsedOpenApi } from '../../lib/contract/openapi.ts';
import { createAjv, validateResource } from '../../lib/contract/validators.ts';
import { carriesText } from '../../lib/contract/answer.ts';
import { operations } from '../../lib/contract/operations.ts';
import { fromRoot } from '../../lib/foundation/paths.ts';
import { loadProfile, parseProfile } from '../../lib/contract/profile/load.ts';

test('every JSON Schema of schemas/ is valid against the 2020-12 meta-schema (the harness compiles them without checking them again)', () => {
  const ajv = new Ajv2020({ strict: false });
  const files = readdirSync(fromRoot('schemas')).filter((f) => f.endsWith('.schema.json'));
  expect(files.length).toBeGreaterThan(10);
  for (const file of files) {
    const valid = ajv.validateSchema(JSON.parse(readFileSync(fromRoot('schemas', file), 'utf8')) as object);
    expect(valid, `schemas/${file}: ${ajv.errorsText(ajv.errors)}`).toBe(true);
  }
  // A schema the meta-schema refuses, as the test would see it.
  expect(ajv.validateSchema({ type: 'string', minLength: 'three' })).toBe(false);
});

test('schemas/openapi.yaml is a valid OpenAPI 3.1 document', async () => {
  const result = await new Validator().validate(parse(readFileSync(OPENAPI_PATH, 'utf8')) as Parameters<Validator['validate']>[0]);
  expect(result.errors ?? [], JSON.stringify(result.errors)).toEqual([]);
  expect(result.valid).toBe(true);
});

test('the contract every process reads is schemas/openapi.yaml as parsed; a parsed copy of another text is never taken for it', () => {
  const text = readFileSync(OPENAPI_PATH, 'utf8');
  expect(openApi()).toEqual(parse(text));
  const copy = JSON.parse(renderParsedOpenApi(text)) as { yamlSha256: string; document: unknown };
  expect(copy.document).toEqual(parse(text));
  expect(copy.yamlSha256).toBe(createHash('sha256').update(text).digest('hex'));
  expect((JSON.parse(renderParsedOpenApi(`${text}\n# edited\n`)) as { yamlSha256: string }).yamlSha256).not.toBe(copy.yamlSha256);
});

test('no required request fields: the document does not show required-ness; the 200 body is the run identifier itself, a runId that is a string and no more (2.2)', () => {
  const required = [...readFileSync(OPENAPI_PATH, 'utf8').matchAll(/^\s*required:\s*\[([^\]]*)\]/gm)].map((m) => m[1]);
  expect(required).toEqual(['runId']);
  expect(validateResource('AgentRun', {})).toEqual([]);
  expect(validateResource('MergeRequest', {})).toEqual([]);
  expect(validateResource('CsnNotification', {}).length).toBeGreaterThan(0);
  // An empty runId echoed to an empty one is a string (issue 28): 2.2 types it and states no more.
  expect(validateResource('CsnNotification', { runId: '' })).toEqual([]);
  expect(validateResource('CsnNotification', { runId: 42 }).length).toBeGreaterThan(0);
  expect(validateResource('CsnNotification', { runId: 'r' })).toEqual([]);
});

test('the contract file says what the harness demands: stated texts in any format, key answers on every operation', () => {
  const doc = parse(readFileSync(OPENAPI_PATH, 'utf8')) as { components: { schemas: Record<string, unknown> } };
  const ajv = createAjv();
  for (const [name, schema] of Object.entries(doc.components.schemas)) ajv.addSchema(schema as object, `#/components/schemas/${name}`);
  const carries = (name: string, value: unknown) => (ajv.getSchema(`#/components/schemas/${name}`) as (v: unknown) => boolean)(value);
  expect(carries('BadRequestText', { type: 'https://tools.ietf.org/html/rfc9110#section-15.5.1', title: 'Bad Request', status: 400 })).toBe(true);
  expect(carries('BadRequestText', { errors: { x: ['y'] }, title: 'One or more validation errors occurred.' })).toBe(false);
  expect(carries('BadRequestText', 'Bad Request')).toBe(true);
  expect(carries('BadRequestText', { error: { detail: ['Bad Request'] } })).toBe(true);
  expect(carries('NotAuthorizedText', { statusCode: 401, message: 'Not Authorized' })).toBe(true);
  expect(carries('NotAuthorizedText', { statusCode: 401, message: 'Access denied due to missing subscription key.' })).toBe(false);
  // The same reading as the harness's (lib/contract/answer.ts carriesText): the text may lead a detail.
  for (const [body, expected] of [['Bad Request: agencyCode', true], [{ message: 'Bad Request - agencyCode' }, true], ['Bad Requests', false], ['Error: Bad Request', false]] as const) {
    expect(carries('BadRequestText', body), JSON.stringify(body)).toBe(expected);
    expect(carriesText(typeof body === 'string' ? body : JSON.stringify(body), 'Bad Request'), JSON.stringify(body)).toBe(expected);
  }
  // The texts the server must state, read from the contract (the checks and the reference server use them).
  expect(operations().find((op) => op.id === 'notifyAgentRun')?.texts).toEqual({ 400: 'Bad Request', 401: 'Not Authorized' });
  // The standalone files (for tools that take one schema) compile and agree.
  const standalone = new Ajv2020({ strict: false }).compile(JSON.parse(readFileSync(fromRoot('schemas/bad-request-text.schema.json'), 'utf8')) as object);
  expect([standalone({ detail: ['Bad Request: x'] }), standalone({ detail: 'Bad Requests' })]).toEqual([true, false]);
  for (const op of operations()) {
    expect([...op.statuses, ...op.notShownStatuses], op.id).toEqual(expect.arrayContaining([401, 403]));
    expect(op.notShownStatuses, op.id).not.toContain(op.successStatus);
  }
  expect(operations().map((op) => [op.id, op.statuses])).toEqual([
    ['notifyAgentRun', [200, 400, 401]],
    ['mergeIswcMetadata', [204, 400, 404]],
    ['deleteSubmission', [204, 400, 404]],
    ['demergeIswcMetadata', [204, 400, 404]],
  ]);
});

const table: Array<[string, unknown, boolean]> = [
  ['AgentRun agencyCode 3 code points', { agencyCode: '128' }, true],
  ['AgentRun agencyCode astral 3 code points / 4 units', { agencyCode: 'A😀B' }, true],
  ['AgentRun agencyCode 2 code points / 3 units', { agencyCode: '0😀' }, false],
  ['AgentRun agencyCode 4', { agencyCode: '1280' }, false],
  ['AgentRun int32 max', { newRecordCount: 2147483647 }, true],
  ['AgentRun int32 min', { newRecordCount: -2147483648 }, true],
  ['AgentRun int32 max+1', { newRecordCount: 2147483648 }, false],
  ['AgentRun int32 min-1', { newRecordCount: -2147483649 }, false],
  ['AgentRun fraction', { newRecordCount: 1.5 }, false],
  ['AgentRun number as string', { newRecordCount: '1' }, false],
  ['AgentRun runId number', { runId: 5 }, false],
  ['MergeRequest iswc', { iswcs: ['T0345246801'] }, true],
  ['MergeRequest iswc lower case', { iswcs: ['t0345246801'] }, false],
  ['MergeRequest iswc 9 digits', { iswcs: ['T034524680'] }, false],
  ['MergeRequest iswc full-width digits', { iswcs: ['T０３４５２４６８０１'] }, false],
  ['MergeRequest work code 20', { agencyWorks: [{ agencyCode: '128', agencyWorkCode: 'X'.repeat(20) }] }, true],
  ['MergeRequest work code 21', { agencyWorks: [{ agencyCode: '128', agencyWorkCode: 'X'.repeat(21) }] }, false],
];
for (const [label, value, valid] of table) {
  test(`validator boundary: ${label} is ${valid ? 'valid' : 'invalid'}`, () => {
    const resource = label.startsWith('AgentRun') ? 'AgentRun' : 'MergeRequest';
    expect(validateResource(resource, value).length === 0).toBe(valid);
  });
}

test('every limit of section 8 is found in the contract', () => {
  const limited = fieldConstraints().filter((c) => c.sections.includes('8')).map((c) => c.id);
  expect(limited).toEqual(
    expect.arrayContaining([
      'notifyAgentRun.body.agencyCode',
      'notifyAgentRun.body.newRecordCount',
      'mergeIswcMetadata.body.iswcs[]',
      'mergeIswcMetadata.body.agencyWorks[].agencyCode',
      'mergeIswcMetadata.body.agencyWorks[].agencyWorkCode',
      'mergeIswcMetadata.query.agency',
      'deleteSubmission.query.workcode',
      'deleteSubmission.query.sourceDb',
      'demergeIswcMetadata.query.workcode',
    ]),
  );
});

test('the embedded profile loads; a broken profile fails with the path inside it', () => {
  expect(loadProfile(fromRoot('fixtures', 'targets', 'embedded.json')).merges.length).toBeGreaterThanOrEqual(20);
  expect(() => parseProfile({ name: 'x', agency: '12', iswcs: ['T1'], unknownIswcs: ['T0000000000'], merges: [], demerges: [], submissions: [] }, 'bad.json')).toThrow(
    /bad\.json[\s\S]*\n {2}agency: "12" has 2 characters[\s\S]*\n {2}iswcs\[0\]: "T1" is not an ISWC/,
  );
  expect(() => parseProfile({ name: 'x', agency: '128', iswcs: ['T0345246801'], unknownIswcs: ['T0345246801'], merges: [], demerges: [], submissions: [] }, 'p.json')).toThrow(/unknownIswcs\[0\]: T0345246801 is also listed in iswcs/);
});

test('the interface document is the one the checks were written against: a new version is taken on purpose, not by accident', () => {
  // docs/spec/iswc-agency-api.md is the contract (CONTRIBUTING.md). When it changes, read the change, update
  // the checks and schemas/ it touches, then this digest.
  const digest = createHash('sha256').update(readFileSync(fromRoot('docs', 'spec', 'iswc-agency-api.md'))).digest('hex');
  expect(digest).toBe('472c2e7960f7890d5bda71238d68c448263d5fa625359a0c3663b3c095b7d840');
});



