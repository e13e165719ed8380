/**
 * What one resource costs is bounded by its size, through the whole write path: a patient's
 * CarePlan with 10,000 contained Medications, each referenced from an activity (1.3 MB, well under
 * the body limit), is refused in well under a second with a 413 that says why, stores nothing, and
 * leaves the service free for other callers; one with 1,000 is validated and stored.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { MAX_CONTAINED_RESOURCES } from '../../../shared/fhir/validation/limits';
import { auxiliaryItems, auxiliaryWorld, postAuxiliary, type AuxiliaryWorld } from '../../support/auxiliary';
import { call } from '../../support/invoke';

let w: AuxiliaryWorld;
beforeAll(async () => {
  w = await auxiliaryWorld();
  // The handlers load on the first call of a file; the time measured below is the request's own.
  await call('GET', '/FHIR/R5/metadata');
});

function carePlan(medications: number) {
  return {
    resourceType: 'CarePlan',
    status: 'active',
    intent: 'plan',
    subject: { reference: 'Patient/p1' },
    contained: Array.from({ length: medications }, (_, i) => ({ resourceType: 'Medication', id: `m${i}`, code: { text: `medication ${i}` } })),
    activity: Array.from({ length: medications }, (_, i) => ({ plannedActivityReference: { reference: `#m${i}` } })),
  };
}

describe('a resource that holds a great deal', () => {
  it('10,000 contained resources: 413 in well under a second, nothing stored, and the service answers others meanwhile', async () => {
    const before = (await auxiliaryItems()).length;
    const body = JSON.stringify(carePlan(10_000));
    const started = performance.now();
    const [res, metadata] = await Promise.all([postAuxiliary('CarePlan', body, w.alice.token, w.aliceSource.id, { headers: { 'content-type': 'application/fhir+json' } }), call('GET', '/FHIR/R5/metadata')]);
    expect(performance.now() - started).toBeLessThan(1000);
    expect(res.status).toBe(413);
    expect(res.json.issue[0]).toMatchObject({ severity: 'error', code: 'too-costly', expression: ['CarePlan.contained'] });
    expect(res.json.issue[0].diagnostics).toContain(`at most ${MAX_CONTAINED_RESOURCES} are accepted`);
    expect(metadata.status).toBe(200);
    expect((await auxiliaryItems()).length).toBe(before);
  });

  it('1,000 contained resources, the bound: validated and stored', async () => {
    const res = await postAuxiliary('CarePlan', carePlan(MAX_CONTAINED_RESOURCES), w.alice.token, w.aliceSource.id);
    expect(res.status, res.text.slice(0, 300)).toBe(201);
    expect(res.json.contained).toHaveLength(MAX_CONTAINED_RESOURCES);
  });
});
