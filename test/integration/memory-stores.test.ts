/**
 * The test-facing view of the in-memory twins (`memoryStores().snapshot()`, read by the helpers of
 * test/support/store.ts): it shows every kind of record each twin keeps, so "a refused request
 * changed nothing" is asserted on everything stored; it moves with every write and with nothing
 * else; it hands out copies; and the whole-store audits read it as they read the tables.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { INLINE_BODY_LIMIT } from '../../shared/auxiliary/store/dynamo-items';
import { importBrands } from '../../shared/brands/import';
import { brandsBundle } from '../fixtures/brands-bundle';
import { createUser, updateUser } from '../../shared/directory/users';
import { addStudyClient } from '../../shared/directory/studies';
import type { MemoryStores, StoreSnapshot } from '../../shared/memory-stores';
import { auditAuxiliary, auditObservations, defectsOf } from '../support/audit';
import { auxiliaryItems, auxiliaryWorld, condition, postAuxiliary } from '../support/auxiliary';
import { makePatient, makeStudy } from '../support/directory';
import { call } from '../support/invoke';
import { idsOf, observation, observationWorld, search, upload } from '../support/observations';
import { invite, redeemAndExchange, serviceClients } from '../support/oauth';
import { directoryRows, twinsInUse } from '../support/store';
import { kickOff, runExportWork } from '../support/export';

let twins: MemoryStores;
let readingId: string;
let bodyKeyOfLarge: string;
beforeAll(async () => {
  twins = twinsInUse()!;
  const { portal } = await serviceClients();
  const aux = await auxiliaryWorld();
  expect((await postAuxiliary('Condition', condition({ id: 'claimed' }), aux.alice.token, aux.aliceSource.id)).status).toBe(201);
  const large = await postAuxiliary('Condition', condition({ note: [{ text: 'b'.repeat(INLINE_BODY_LIMIT + 10) }] }), aux.alice.token, aux.aliceSource.id);
  expect(large.status).toBe(201);
  bodyKeyOfLarge = String((await auxiliaryItems()).find((i) => i.kind === 'resources' && i.id === large.json.id)?.bodyKey);
  await twins.auxiliary.pending.recordWriting(aux.alice.id, `aux/${aux.alice.id}/${aux.aliceSource.id}/unfinished/1.a.json`);
  const study = await makeStudy({ organization: aux.org, codes: ['omh:heart-rate:2.0'], patients: [aux.bob], consent: true });
  await addStudyClient(study.id, portal.id);
  await redeemAndExchange((await invite(aux.doctor.token, aux.bob.id, portal.id)).token);
  await makePatient({ organizations: [aux.org], identifiers: [{ system: 'https://x.example/mrn', value: 'm-1' }] });
  await importBrands('sample', brandsBundle([{ id: 'h', name: 'A hospital', fhirBaseUrl: 'https://fhir.hospital.example/r4' }]));
  await twins.oauth.signIns.addFailure('a-hash', Date.now() + 60_000);
  await twins.oauth.clientAssertions.use('a-client', 'a-jti-hash', Math.floor(Date.now() / 1000) + 300, Math.floor(Date.now() / 1000));
  const readings = await observationWorld();
  const sent = [observation(readings, { identifiers: [{ system: 'https://x.example', value: 'r-1' }], form: 'start_end', spanMinutes: 90 })];
  const uploaded = await upload(readings.patient.token, sent);
  expect(uploaded.status).toBe(200);
  readingId = idsOf(uploaded)[0]!;
  // An export finished (a job, its parts and files) and another waiting in the queue, still running.
  expect((await kickOff(readings.patient.token, '/FHIR/R5/$export?_type=Observation')).status).toBe(202);
  await runExportWork();
  expect((await kickOff(readings.patient.token, '/FHIR/R5/$export?_type=Patient')).status).toBe(202);
});

const kindsOf = (snapshot: StoreSnapshot) =>
  Object.fromEntries(Object.entries(snapshot).map(([store, lines]) => [store, [...new Set(lines.map((line) => (JSON.parse(line) as [string])[0]))].sort()]));

describe('the twins snapshot', () => {
  it('shows every kind of record every twin keeps', () => {
    expect(kindsOf(twins.snapshot())).toEqual({
      directory: [
        'clientNumbers',
        'codes',
        'codings',
        'consents',
        'dataSourceCodes',
        'dataSources',
        'emails',
        'fhirSources',
        'identifiers',
        'oauthClients',
        'organizations',
        'patients',
        'studies',
        'studyClients',
        'studyCodes',
        'studyDataSources',
        'users',
      ],
      oauth: ['clientAssertions', 'codes', 'currentInvitations', 'grants', 'invitationNumbers', 'invitations', 'refreshTokens', 'signIns'],
      observations: ['daySummaries', 'identifierClaims', 'readingIds', 'readings', 'spans'],
      auxiliary: ['indexRows', 'pendingBodies', 'resources', 'upstreamClaims'],
      bodies: ['objects'],
      brands: ['head', 'versions'],
      exports: ['countedParts', 'jobs', 'messages', 'objects', 'parts', 'runningJobs'],
    });
  });

  it('stays the same through reads and refusals, and moves with a write in the store written', async () => {
    const before = twins.snapshot();
    const { patient, practitioner } = await observationWorld();
    const after = twins.snapshot();
    expect(after.directory).not.toEqual(before.directory);

    expect((await search(practitioner.token, '_count=5')).status).toBe(200);
    expect((await call('GET', `/api/v1/patients/${patient.id}`, { token: practitioner.token })).status).toBe(200);
    await expect(createUser({ email: (await twins.directory.users.get(patient.userId!))!.email, kind: 'patient' })).rejects.toMatchObject({ status: 409 });
    expect(twins.snapshot()).toEqual(after);

    await updateUser(practitioner.id, { nameGiven: 'Renamed' });
    const renamed = twins.snapshot();
    expect(renamed.directory).not.toEqual(after.directory);
    expect({ ...renamed, directory: [] }).toEqual({ ...after, directory: [] });
  });

  it('hands out copies: changing what a view returned changes nothing stored', async () => {
    const rows = await directoryRows();
    const items = await auxiliaryItems();
    for (const item of items) Object.assign(item, { version: 99, body: 'changed' });
    rows.push('changed');
    expect(await directoryRows()).toEqual(rows.slice(0, -1));
    expect((await auxiliaryItems()).some((item) => item.version === 99)).toBe(false);
  });

  it('is what the audits read: every set whole, the pending body and an object no row points at named', async () => {
    const observations = await auditObservations();
    expect(observations.readings.map((r) => String(r.id))).toEqual([readingId]);
    expect(defectsOf(observations)).toEqual({ orphanPointers: [], unreachableRows: [], orphanIdentifierClaims: [], unclaimedIdentifiers: [] });
    const unpointed = 'aux/0/0/nobody/1.x.json';
    await twins.auxiliary.bodies.put(unpointed, '{}');
    const aux = await auditAuxiliary();
    expect(aux.resources.map((r) => r.upstreamId ?? r.bodyKey).sort()).toEqual([bodyKeyOfLarge, 'claimed'].sort());
    expect(defectsOf(aux)).toEqual({
      orphanIndexItems: [],
      unindexedResources: [],
      orphanUpstreamClaims: [],
      unclaimedResources: [],
      orphanBodies: [unpointed],
      pendingBodies: [expect.stringMatching(/^writing aux\/.*\/unfinished\/1\.a\.json$/)],
      missingBodies: [],
    });
  });
});
