/**
 * How the observation paths use the store: never a Scan; every read of the observations table a
 * key-condition Query (or a key read), strongly consistent, so a device reads its own upload back
 * at once; and the patient's rows deleted with the patient.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { config } from '../../../shared/config';
import { deletePatientObservations } from '../../../shared/observations/delete';
import { storedSpans } from '../../../shared/observations/span-stats';
import { call } from '../../support/invoke';
import { recordCommands } from '../../support/faults';
import { makePatient, makePractitioner, makeStudy } from '../../support/directory';
import { idsOf, matchIds, observation, observationWorld, search, storedRows, upload, type ObservationWorld } from '../../support/observations';

let world: ObservationWorld;
beforeAll(async () => {
  world = await observationWorld();
});

describe('store access', () => {
  it('reads by key only, strongly consistently, and never scans', async () => {
    const recorded = recordCommands();
    try {
      const res = await upload(world.patient.token, Array.from({ length: 5 }, (_, i) => observation(world, { at: Date.UTC(2025, 5, 1, i), identifiers: [{ system: 'https://x.example', value: `r-${i}` }] })));
      const id = idsOf(res)[0];
      // A device reads its upload back at once, by search and by id.
      expect(matchIds(await search(world.patient.token, 'date=ge2025-06-01'))).toHaveLength(5);
      expect((await call('GET', `/FHIR/R5/Observation/${id}`, { token: world.patient.token })).status).toBe(200);
      for (const query of ['', '_sort=date', '_sort=-_lastUpdated', 'code=omh:heart-rate:2.0', 'date=ge2025-06-01T02:00:00Z&_total=accurate', `_id=${id}`, '_summary=count', 'identifier=r-1', `patient.organization=${world.organization.id}&_sort=date`]) {
        expect((await search(world.practitioner.token, query)).status, query).toBe(200);
      }
    } finally {
      recorded.stop();
    }
    const names = recorded.commands.map((c) => c.name);
    expect(names).not.toContain('ScanCommand');
    const table = config().observationsTable;
    const reads = recorded.commands.filter((c) => ['QueryCommand', 'GetItemCommand', 'BatchGetItemCommand'].includes(c.name));
    const onObservations = reads.filter((c) => c.input.TableName === table || c.input.RequestItems?.[table]);
    expect(onObservations.length).toBeGreaterThan(10);
    for (const c of onObservations) {
      const consistent = c.input.ConsistentRead ?? c.input.RequestItems?.[table]?.ConsistentRead;
      expect(consistent, JSON.stringify(c.input).slice(0, 200)).toBe(true);
      if (c.name === 'QueryCommand') expect(c.input.KeyConditionExpression).toMatch(/^#pk = :pk/);
    }
  });

  it("deletes a patient's rows, pointers, identifier claims and span statistics", async () => {
    const sent = [observation(world, { identifiers: [{ system: 'https://x.example', value: 'to-delete' }], form: 'start_end', spanMinutes: 600 }), observation(world)];
    const res = await upload(world.patient.token, sent);
    const rows = (await storedRows(world.patient.id)).length;
    expect(await deletePatientObservations(world.patient.id)).toBe(rows);
    expect(await storedRows(world.patient.id)).toHaveLength(0);
    expect((await storedSpans([world.patient.id])).get(world.patient.id)).toBe(1);
    expect((await call('GET', `/FHIR/R5/Observation/${idsOf(res)[0]}`, { token: world.practitioner.token })).status).toBe(404);
    // The identifier is free again, and the deletion is idempotent.
    expect((await upload(world.patient.token, [sent[0]!])).json.entry[0].response.status).toBe('201 Created');
    expect(await deletePatientObservations(world.patient.id)).toBe(1);
    expect(await deletePatientObservations(world.patient.id)).toBe(0);
  });

  it('deleting a patient through /api/v1 deletes their readings', async () => {
    const manager = await makePractitioner({ organizations: [world.organization], role: 'manager' });
    const patient = await makePatient({ organizations: [world.organization] });
    await makeStudy({ organization: world.organization, codes: ['omh:heart-rate:2.0'], patients: [patient], consent: true });
    const res = await upload(manager.token, [observation({ patient: patient as never, device: world.device }), observation({ patient: patient as never, device: world.device })]);
    expect(await storedRows(patient.id)).toHaveLength(2);
    const deleted = await call('DELETE', `/api/v1/patients/${patient.id}?organization_id=${world.organization.id}`, { token: manager.token });
    expect(deleted.status).toBe(204);
    expect(await storedRows(patient.id)).toHaveLength(0);
    expect((await call('GET', `/FHIR/R5/Observation/${idsOf(res)[0]}`, { token: manager.token })).status).toBe(404);
  });
});
