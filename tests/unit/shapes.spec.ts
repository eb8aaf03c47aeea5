import { _baseTest as test, expect } from '@playwright/test';
import { fromRoot } from '../../lib/foundation/paths.ts';
import { loadProfile } from '../../lib/contract/profile/load.ts';
import type { AgencyWorkRef } from '../../lib/contract/profile/types.ts';
import { bodiesOfShapes, shapeOfBody, shapeSlug, shapesOf, shapeWords } from '../../lib/contract/shapes.ts';
import { faultClass } from '../../lib/run/fault-classes.ts';
import { SHAPE_FAULTS } from '../../server/shape-faults.ts';
import { FAULTS } from '../../server/faults.ts';
import type { RunningServer } from '../../server/index.ts';
import { startReferenceServer } from '../../server/index.ts';

const KEY = 'shape-test-key';
const profile = loadProfile(fromRoot('fixtures', 'targets', 'embedded.json'));
const entry = profile.merges[0];
if (!entry) throw new Error('the embedded profile has no merges entry');
const iswcs = entry.iswcs ?? [];
const works = entry.agencyWorks ?? [];
const MERGE = 'mergeIswcMetadata';

test.describe('request shapes (lib/contract/shapes.ts)', () => {
  test('the merge has five shapes, derived from the lists of its body; the other operations none', () => {
    expect(shapesOf(MERGE).map(shapeSlug)).toEqual(['iswcs.one', 'iswcs.several', 'agencyWorks.one', 'agencyWorks.several', 'iswcs+agencyWorks']);
    for (const op of ['notifyAgentRun', 'deleteSubmission', 'demergeIswcMetadata'] as const) expect(shapesOf(op), op).toEqual([]);
    expect(shapeWords({ lists: ['iswcs'], count: 'one' })).toBe('one item of iswcs alone');
  });

  test('a body\'s shape counts the items of every list, empty lists left out', () => {
    const slug = (value: unknown): string | undefined => {
      const shape = shapeOfBody(MERGE, value);
      return shape && shapeSlug(shape);
    };
    expect(slug({ iswcs: ['T1'], agencyWorks: [] })).toBe('iswcs.one');
    expect(slug({ iswcs: ['T1', 'x'] })).toBe('iswcs.several');
    expect(slug({ agencyWorks: [{}, {}] })).toBe('agencyWorks.several');
    expect(slug({ iswcs: ['T1'], agencyWorks: [{}] })).toBe('iswcs+agencyWorks');
    expect(slug({ iswcs: [], agencyWorks: [] })).toBeUndefined();
    expect(slug([])).toBeUndefined();
    expect(slug(null)).toBeUndefined();
  });

  test('bodies of each shape are built from the items given, and a shape the items cannot fill is left out', () => {
    const built = bodiesOfShapes(MERGE, { iswcs: ['T1'], agencyWorks: [{ a: 1 }, { a: 2 }] }, { iswcs: [], agencyWorks: [] });
    expect(built.map((b) => shapeSlug(b.shape))).toEqual(['iswcs.one', 'agencyWorks.one', 'agencyWorks.several', 'iswcs+agencyWorks']);
    expect(built.find((b) => shapeSlug(b.shape) === 'agencyWorks.one')?.body).toEqual({ iswcs: [], agencyWorks: [{ a: 1 }] });
    expect(built.find((b) => shapeSlug(b.shape) === 'iswcs+agencyWorks')?.body).toEqual({ iswcs: ['T1'], agencyWorks: [{ a: 1 }, { a: 2 }] });
  });
});

test.describe('the shape family of the reference server (server/shape-faults.ts)', () => {
  test('every role on every shape, but the lookup where no ISWC is named and the outcome where no agency work is; each in the catalogue and classed by its role', () => {
    const ids = SHAPE_FAULTS.map((f) => f.id);
    expect(ids).toHaveLength(21);
    expect(ids.filter((id) => id.includes('.unknown.'))).toEqual(['shape.merge.unknown.iswcs.one', 'shape.merge.unknown.iswcs.several', 'shape.merge.unknown.iswcs+agencyWorks']);
    expect(ids.filter((id) => id.includes('.outcome.'))).toEqual(['shape.merge.outcome.agencyWorks.one', 'shape.merge.outcome.agencyWorks.several', 'shape.merge.outcome.iswcs+agencyWorks']);
    const catalogue = new Set(FAULTS.map((f) => f.id));
    for (const f of SHAPE_FAULTS) {
      expect(catalogue.has(f.id), f.id).toBe(true);
      expect(faultClass(f.id)).toBe(`shape/${f.role}`);
    }
  });

  let server: RunningServer | undefined;
  test.afterEach(async () => {
    await server?.close();
    server = undefined;
  });
  const start = async (fault: string): Promise<RunningServer> => (server = await startReferenceServer({ profile, key: KEY, faults: [fault] }));
  const merge = async (s: RunningServer, body: { iswcs?: string[]; agencyWorks?: AgencyWorkRef[] }, withKey = true): Promise<number> => {
    const url = new URL(`${s.url}/iswc/merge`);
    url.searchParams.set('preferredIswc', entry.preferredIswc);
    url.searchParams.set('agency', profile.agency);
    const res = await fetch(url, { method: 'POST', headers: { 'Content-Type': 'application/json', ...(withKey ? { 'Ocp-Apim-Subscription-Key': KEY } : {}) }, body: JSON.stringify({ iswcs: [], agencyWorks: [], ...body }) });
    await res.arrayBuffer();
    return res.status;
  };
  const demerge = async (s: RunningServer, w: AgencyWorkRef): Promise<number> => {
    const url = new URL(`${s.url}/iswc/merge`);
    for (const [k, v] of Object.entries({ preferredIswc: entry.preferredIswc, agency: w.agencyCode, workcode: w.agencyWorkCode })) url.searchParams.set(k, v);
    const res = await fetch(url, { method: 'DELETE', headers: { 'Ocp-Apim-Subscription-Key': KEY } });
    await res.arrayBuffer();
    return res.status;
  };
  const [i1 = '', i2 = ''] = iswcs;
  const [w1, w2] = works as [AgencyWorkRef, AgencyWorkRef];

  test('the key left unchecked on one shape: a body of another shape still needs it', async () => {
    const s = await start('shape.merge.key.iswcs.one');
    expect(await merge(s, { iswcs: [i1, i2] }, false)).toBe(401);
    expect(await merge(s, { iswcs: [i1], agencyWorks: [w1] }, false)).toBe(401);
    expect(await merge(s, { iswcs: [i1] }, false)).toBe(204);
  });

  test('a valid merge of one shape refused, of the others accepted', async () => {
    const s = await start('shape.merge.accept.agencyWorks.several');
    expect(await merge(s, { agencyWorks: [w1, w2] })).toBe(400);
    expect(await merge(s, { agencyWorks: [w1] })).toBe(204);
    expect(await merge(s, { iswcs: [i1], agencyWorks: [w2] })).toBe(204);
  });

  test('a broken item dropped in mixed bodies only', async () => {
    const s = await start('shape.merge.broken.iswcs+agencyWorks');
    expect(await merge(s, { iswcs: ['T12'] })).toBe(400);
    expect(await merge(s, { iswcs: ['T12'], agencyWorks: [w1] })).toBe(204);
  });

  test('an unknown ISWC dropped in bodies of one item only; a broken one still refused there', async () => {
    const s = await start('shape.merge.unknown.iswcs.one');
    const unknown = profile.unknownIswcs[0] ?? '';
    expect(await merge(s, { iswcs: [unknown, i1] })).toBe(404);
    expect(await merge(s, { iswcs: ['T12'] })).toBe(400);
    expect(await merge(s, { iswcs: [unknown] })).toBe(204);
  });

  test('the outcome left undone on one shape: its work is not merged, a work merged in another shape is', async () => {
    const s = await start('shape.merge.outcome.agencyWorks.one');
    expect(await merge(s, { agencyWorks: [w1] })).toBe(204);
    expect(await demerge(s, w1)).toBe(404);
    expect(await merge(s, { agencyWorks: [w1, w2] })).toBe(204);
    expect(await demerge(s, w2)).toBe(204);
  });
});
