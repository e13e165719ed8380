/**
 * The R4 import endpoints against a real DynamoDB: the request-level gates, each row of the
 * outcome table (exact statuses, severities and expressions), routing through the normal create
 * path (auxiliary rows with the source's provenance, the native store for mobile-health
 * Observations), re-import, and every bad input: never a 5xx, nothing stored for a failed entry.
 */
import { Logger } from '@aws-lambda-powertools/logger';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { createAuxiliaryResource } from '../../../shared/auxiliary/create';
import { isKnownResourceType, manifest } from '../../../shared/fhir/definitions';
import { importPrepared, prepareImport } from '../../../shared/r4-import/import';
import { isR4ResourceType } from '../../../shared/r4-import/tables';
import { SOURCE_HEADER, sourceUri } from '../../../shared/fhir/constants';
import { auxiliaryItems, auxiliaryWorld, type AuxiliaryWorld } from '../../support/auxiliary';
import { makeFhirSource } from '../../support/directory';
import { call } from '../../support/invoke';
import { capturedLines } from '../../support/logs';
import { observation, observationWorld, storedRows } from '../../support/observations';
import { NO_DEADLINE } from '../../../shared/http/deadline';
import { directoryStore } from '../../../shared/directory/store/current';

let world: AuxiliaryWorld;
beforeAll(async () => {
  world = await auxiliaryWorld();
});

/** `source` null sends no source header; string bodies go as they are, as FHIR JSON. */
const importTo = (path: string, body: unknown, source: number | string | null, token: string) =>
  call('POST', path, {
    token,
    body,
    headers: { 'content-type': 'application/fhir+json', ...(source === null ? {} : { [SOURCE_HEADER]: String(source) }) },
  });
const importBundle = (body: unknown, source: number | string | null = world.aliceSource.id, token = world.alice.token) => importTo('/fhir-import/R4', body, source, token);
const importOne = (type: string, body: unknown, source: number | string | null = world.aliceSource.id, token = world.alice.token) =>
  importTo(`/fhir-import/R4/${type}`, body, source, token);
const bundleOf = (...resources: unknown[]) => ({ resourceType: 'Bundle', type: 'batch', entry: resources.map((resource) => ({ resource })) });

/** An R4 Condition that converts with no loss and is valid R5. */
const r4Condition = (extra: Record<string, unknown> = {}) => ({
  resourceType: 'Condition',
  clinicalStatus: { coding: [{ system: 'http://terminology.hl7.org/CodeSystem/condition-clinical', code: 'active' }] },
  code: { text: 'Asthma' },
  subject: { reference: 'Patient/p1' },
  recordedDate: '2024-02-01',
  ...extra,
});

/** An R4 Location whose availabilityExceptions the import drops (R5 has no free-text exceptions on Location). */
const locationWithExceptions = (exceptions: string) => ({ resourceType: 'Location', name: 'Clinic', availabilityExceptions: exceptions });

describe('request-level gates', () => {
  it('answers 405 with Allow: POST to GET, PUT, PATCH and DELETE on both paths', async () => {
    for (const path of ['/fhir-import/R4', '/fhir-import/R4/Condition']) {
      for (const method of ['GET', 'PUT', 'PATCH', 'DELETE']) {
        const res = await call(method, path, { token: world.alice.token, ...(method === 'GET' || method === 'DELETE' ? {} : { body: r4Condition() }) });
        expect(res.status, `${method} ${path}`).toBe(405);
        expect(res.headers['allow']).toBe('POST');
        expect(res.json.resourceType).toBe('OperationOutcome');
      }
    }
  });

  it('requires a token (401)', async () => {
    const res = await call('POST', '/fhir-import/R4/Condition', { body: r4Condition(), headers: { [SOURCE_HEADER]: String(world.aliceSource.id) } });
    expect(res.status).toBe(401);
    expect(res.json.resourceType).toBe('OperationOutcome');
  });

  it('answers 400 for a missing or unknown source and 403 for another patient\'s, storing nothing', async () => {
    const before = (await auxiliaryItems()).length;
    const missing = await importOne('Condition', r4Condition(), null);
    expect(missing.status).toBe(400);
    expect(missing.json.issue[0].diagnostics).toMatch(/X-SVC-FHIR-Source-ID/);
    const unknown = await importBundle(bundleOf(r4Condition()), 987654321);
    expect(unknown.status).toBe(400);
    expect(unknown.json.resourceType).toBe('OperationOutcome');
    const forbidden = await importBundle(bundleOf(r4Condition()), world.bobSource.id);
    expect(forbidden.status).toBe(403);
    expect(forbidden.json.resourceType).toBe('OperationOutcome');
    expect((await auxiliaryItems()).length).toBe(before);
  });

  it('answers 400 for a body that is not a JSON object, not JSON, or not a Bundle on the Bundle path', async () => {
    for (const body of ['[1,2]', '"text"', '{"resourceType": "Bund', 'null']) {
      const res = await importBundle(body);
      expect(res.status, body).toBe(400);
      expect(res.json.resourceType).toBe('OperationOutcome');
    }
    expect((await importBundle(r4Condition())).status).toBe(400);
    expect((await importOne('Condition', [r4Condition()])).status).toBe(400);
  });

  it('answers 400 for a Bundle with no entries, 413 for one with more than 1,000', async () => {
    const none = await importBundle({ resourceType: 'Bundle', type: 'batch', entry: [] });
    expect(none.status).toBe(400);
    expect(none.json.issue[0].expression).toEqual(['Bundle.entry']);
    const tooMany = await importBundle(bundleOf(...Array.from({ length: 1001 }, () => r4Condition())));
    expect(tooMany.status).toBe(413);
    expect(tooMany.json.issue[0].diagnostics).toMatch(/at most 1000/);
  });
});

describe('outcome table', () => {
  it('success without loss: 201, the created resource, one information issue', async () => {
    const res = await importOne('Condition', r4Condition({ id: 'cond-1' }));
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({ resourceType: 'Bundle', type: 'batch-response' });
    expect(res.json.entry).toHaveLength(1);
    const [entry] = res.json.entry;
    expect(entry.response.status).toBe('201 Created');
    expect(entry.response.lastModified).toBe(entry.resource.meta.lastUpdated);
    expect(entry.response.location).toMatch(/\/FHIR\/R5\/Condition\/[0-9a-f-]{36}\/_history\/1$/);
    expect(entry.resource.resourceType).toBe('Condition');
    expect(entry.resource.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(entry.resource.meta.source).toBe(sourceUri(world.aliceSource.id));
    expect(entry.response.outcome.issue).toEqual([{ severity: 'information', code: 'informational', diagnostics: 'The conversion from R4 to R5 lost no field.' }]);
    // Stored, readable by id.
    const read = await call('GET', `/FHIR/R5/Condition/${entry.resource.id}`, { token: world.alice.token });
    expect(read.status).toBe(200);
    expect(read.json.code.text).toBe('Asthma');
  });

  it('success with loss: 201 and one warning per dropped path (Location.availabilityExceptions)', async () => {
    const res = await importOne('Location', locationWithExceptions('Closed on public holidays'));
    const [entry] = res.json.entry;
    expect(entry.response.status).toBe('201 Created');
    expect(JSON.stringify(entry.resource)).not.toContain('public holidays');
    expect(entry.response.outcome.issue).toEqual([
      { severity: 'warning', code: 'not-supported', diagnostics: expect.stringContaining('Location.availabilityExceptions'), expression: ['Location.availabilityExceptions'] },
    ]);
  });

  it('what R5 has no valid element for is stored in its cross-version extension, and nothing is lost (Immunization.programEligibility, Specimen.container, Medication.amount)', async () => {
    const xver = 'http://hl7.org/fhir/4.0/StructureDefinition/extension-';
    const eligibility = { coding: [{ system: 'http://terminology.hl7.org/CodeSystem/immunization-program-eligibility', code: 'ineligible' }] };
    const amount = { numerator: { value: 5, unit: 'mL' }, denominator: { value: 1, unit: 'vial' } };
    const res = await importBundle(
      bundleOf(
        { resourceType: 'Immunization', status: 'completed', vaccineCode: { text: 'Flu' }, patient: { reference: 'Patient/p1' }, occurrenceDateTime: '2024-01-01', programEligibility: [eligibility] },
        {
          resourceType: 'Specimen',
          contained: [{ resourceType: 'Substance', id: 'hep', code: { text: 'Lithium/Li Heparin' } }],
          subject: { reference: 'Patient/p1' },
          container: [{ description: 'Green Gel tube', capacity: { value: 10, unit: 'mL' }, additiveReference: { reference: '#hep' } }],
        },
        { resourceType: 'Medication', code: { text: 'Saline' }, amount },
      ),
    );
    expect(res.status).toBe(200);
    const entries = res.json.entry;
    for (const entry of entries) {
      expect(entry.response.status).toBe('201 Created');
      expect(entry.response.outcome.issue).toEqual([{ severity: 'information', code: 'informational', diagnostics: 'The conversion from R4 to R5 lost no field.' }]);
    }
    const read = async (i: number) => (await call('GET', `/FHIR/R5/${entries[i].resource.resourceType}/${entries[i].resource.id}`, { token: world.alice.token })).json;
    const immunization = await read(0);
    expect(immunization.programEligibility).toBeUndefined();
    expect(immunization.extension).toEqual([{ url: `${xver}Immunization.programEligibility`, valueCodeableConcept: eligibility }]);
    const specimen = await read(1);
    expect(specimen.container).toBeUndefined();
    expect(specimen.contained).toEqual([{ resourceType: 'Substance', id: 'hep', instance: true, code: { concept: { text: 'Lithium/Li Heparin' } } }]);
    expect(specimen.extension).toEqual([
      {
        url: `${xver}Specimen.container`,
        extension: [
          { url: 'description', valueString: 'Green Gel tube' },
          { url: 'capacity', valueQuantity: { value: 10, unit: 'mL' } },
          { url: 'additive', valueReference: { reference: '#hep' } },
        ],
      },
    ]);
    const medication = await read(2);
    expect(medication.totalVolume).toEqual(amount.numerator);
    expect(medication.extension).toEqual([{ url: `${xver}Medication.amount`, valueRatio: amount }]);
  });

  it("an element R5 removed is stored in HL7's cross-version extension and nothing is lost (CarePlan.activity.detail)", async () => {
    const carePlan = {
      resourceType: 'CarePlan',
      status: 'active',
      intent: 'plan',
      subject: { reference: 'Patient/p1' },
      activity: [{ detail: { status: 'in-progress', code: { text: 'Walk daily' } } }],
    };
    const res = await importOne('CarePlan', carePlan);
    const [entry] = res.json.entry;
    expect(entry.response.status).toBe('201 Created');
    expect(entry.response.outcome.issue).toEqual([{ severity: 'information', code: 'informational', diagnostics: 'The conversion from R4 to R5 lost no field.' }]);
    const read = await call('GET', `/FHIR/R5/CarePlan/${entry.resource.id}`, { token: world.alice.token });
    expect(read.json.activity).toEqual([
      {
        extension: [
          {
            url: 'http://hl7.org/fhir/4.0/StructureDefinition/extension-CarePlan.activity.detail',
            extension: [
              { url: 'status', valueCode: 'in-progress' },
              { url: 'code', valueCodeableConcept: { text: 'Walk daily' } },
            ],
          },
        ],
      },
    ]);
  });

  it('failure: Coverage is an error entry that still carries the payor drop warning, and stores nothing', async () => {
    const before = (await auxiliaryItems()).length;
    const coverage = {
      resourceType: 'Coverage',
      status: 'active',
      beneficiary: { reference: 'Patient/p1' },
      payor: [{ reference: 'Organization/insurer' }],
    };
    const res = await importOne('Coverage', coverage);
    const [entry] = res.json.entry;
    expect(entry.response.status).toMatch(/^4\d\d /);
    expect(entry.resource).toBeUndefined();
    const issues = entry.response.outcome.issue;
    expect(issues[0].severity).toBe('error');
    const warnings = issues.filter((i: any) => i.severity === 'warning');
    expect(warnings.map((w: any) => w.expression)).toContainEqual(['Coverage.payor']);
    expect(issues.findIndex((i: any) => i.severity === 'warning')).toBeGreaterThan(issues.findLastIndex((i: any) => i.severity === 'error'));
    expect((await auxiliaryItems()).length).toBe(before);
  });

  it('a resource that converts but fails R5 validation is an error naming the element (an invalid code passes through untranslated)', async () => {
    const res = await importOne('Condition', r4Condition({ clinicalStatus: { coding: [{ system: 'http://terminology.hl7.org/CodeSystem/condition-clinical', code: 'bogus' }] } }));
    const [entry] = res.json.entry;
    expect(entry.response.status).toBe('400 Bad Request');
    expect(entry.response.outcome.issue[0]).toMatchObject({ severity: 'error' });
    expect(JSON.stringify(entry.response.outcome.issue[0].expression)).toContain('clinicalStatus');
  });

  it('an id of 65 characters fails R5 validation', async () => {
    const res = await importOne('Condition', r4Condition({ id: 'x'.repeat(65) }));
    const [entry] = res.json.entry;
    expect(entry.response.status).toBe('400 Bad Request');
    expect(entry.response.outcome.issue[0].severity).toBe('error');
    expect(entry.response.outcome.issue[0].expression).toEqual(['Condition.id']);
  });
});

describe('Bundles', () => {
  afterEach(() => vi.restoreAllMocks());

  it('checks the FHIR Source once for the request, not again for each entry (counted reads)', async () => {
    const { fhirSources, patients } = directoryStore();
    const sourceReads = vi.spyOn(fhirSources, 'get');
    const patientReads = vi.spyOn(patients, 'get');
    const readsFor = async (entries: number) => {
      sourceReads.mockClear();
      patientReads.mockClear();
      const res = await importBundle(bundleOf(...Array.from({ length: entries }, (_, i) => r4Condition({ id: `once-${entries}-${i}` }))));
      expect(res.json.entry.map((e: { response: { status: string } }) => e.response.status)).toEqual(Array(entries).fill('201 Created'));
      return { sources: sourceReads.mock.calls.length, patients: patientReads.mock.calls.length };
    };
    // One read of the source and one of its patient for the request's check; then each entry's
    // write has its transaction's guards that both still exist (a read of each on the twins, a
    // ConditionCheck on DynamoDB). A check per entry would add two more reads an entry.
    for (const entries of [1, 5]) expect(await readsFor(entries)).toEqual({ sources: 1 + entries, patients: 1 + entries });
  });

  it('processes entries independently and in order, even for a transaction, with or without request', async () => {
    const body = {
      resourceType: 'Bundle',
      type: 'transaction',
      entry: [
        { resource: r4Condition({ code: { text: 'first' } }), request: { method: 'POST', url: 'Condition' } },
        { resource: r4Condition({ clinicalStatus: { coding: [{ system: 'http://terminology.hl7.org/CodeSystem/condition-clinical', code: 'bogus' }] } }) },
        { resource: { resourceType: 'Procedure', status: 'completed', subject: { reference: 'Patient/p1' }, reasonCode: [{ coding: [{ system: 'http://snomed.info/sct', code: '123' }] }] } },
      ],
    };
    const res = await importBundle(body);
    expect(res.status).toBe(200);
    expect(res.json.type).toBe('batch-response');
    expect(res.json.entry.map((e: any) => e.response.status)).toEqual(['201 Created', '400 Bad Request', '201 Created']);
    expect(res.json.entry[0].resource.code.text).toBe('first');
    // Procedure.reasonCode became reason[].concept, keeping its coding.
    expect(res.json.entry[2].resource.reason).toEqual([{ concept: { coding: [{ system: 'http://snomed.info/sct', code: '123' }] } }]);
  });

  it('bad entries are entries, never a failed request: no resource, no resourceType, unknown type, R5-only type, nested Bundle, projections, unaccepted types', async () => {
    const before = (await auxiliaryItems()).length;
    const body = {
      resourceType: 'Bundle',
      type: 'batch',
      entry: [
        { request: { method: 'POST', url: 'Condition' } },
        { resource: { code: { text: 'no type' } } },
        { resource: { resourceType: 'Nonsense' } },
        { resource: { resourceType: 'ActorDefinition', status: 'active', type: 'person' } },
        { resource: { resourceType: 'Bundle', type: 'collection' } },
        { resource: { resourceType: 'Patient', name: [{ family: 'Doe' }] } },
        { resource: { resourceType: 'Basic', code: { text: 'x' } } },
        'not an object',
        { resource: r4Condition() },
      ],
    };
    const res = await importBundle(body);
    expect(res.status).toBe(200);
    const statuses = res.json.entry.map((e: any) => e.response.status);
    expect(statuses).toEqual([
      '400 Bad Request',
      '400 Bad Request',
      '404 Not Found',
      '400 Bad Request',
      '400 Bad Request',
      '405 Method Not Allowed',
      '404 Not Found',
      '400 Bad Request',
      '201 Created',
    ]);
    for (const entry of res.json.entry.slice(0, -1)) {
      expect(entry.resource).toBeUndefined();
      expect(entry.response.outcome.issue[0].severity).toBe('error');
    }
    expect(res.json.entry[2].response.outcome.issue[0].diagnostics).toBe('Unsupported FHIR resource type: Nonsense.');
    expect(res.json.entry[3].response.outcome.issue[0].diagnostics).toMatch(/not an R4 resource type/);
    expect(res.json.entry[5].response.outcome.issue[0].diagnostics).toMatch(/read-only/);
    expect((await auxiliaryItems()).length).toBeGreaterThan(before);
  });

  it('a URL type that is unknown or differs from resourceType is an error entry', async () => {
    const unknown = await importOne('Nonsense', { resourceType: 'Nonsense' });
    expect(unknown.status).toBe(200);
    expect(unknown.json.entry[0].response.status).toBe('404 Not Found');
    const differs = await importOne('Procedure', r4Condition());
    expect(differs.json.entry[0].response.status).toBe('400 Bad Request');
    expect(differs.json.entry[0].response.outcome.issue[0].expression).toEqual(['Procedure.resourceType']);
  });

  it('a deeply nested resource is an error entry, not a crash; a body nested past the edge limit is a 400', async () => {
    const nested = (levels: number) => {
      let deep: Record<string, unknown> = { linkId: 'leaf' };
      for (let i = 0; i < levels; i += 1) deep = { linkId: `l${i}`, item: [deep] };
      return { resourceType: 'QuestionnaireResponse', status: 'completed', item: [deep] };
    };
    const res = await importOne('QuestionnaireResponse', nested(40));
    expect(res.status).toBe(200);
    expect(res.json.entry[0].response.status).toBe('400 Bad Request');
    expect(res.json.entry[0].response.outcome.issue[0].diagnostics).toMatch(/nests deeper than 64/);
    const items = '{"linkId":"l","item":['.repeat(5000) + '{"linkId":"leaf"}' + ']}'.repeat(5000);
    const edge = await importOne('QuestionnaireResponse', `{"resourceType":"QuestionnaireResponse","status":"completed","item":[${items}]}`);
    expect(edge.status).toBe(400);
    expect(edge.json.issue[0].diagnostics).toBe('The JSON body nests deeper than 100 levels.');
  });

  it('a body over the size limit is a 413 for the request', async () => {
    const huge = r4Condition({ note: [{ text: 'x'.repeat(6 * 1024 * 1024) }] });
    const res = await importOne('Condition', huge);
    expect(res.status).toBe(413);
    expect(res.json.resourceType).toBe('OperationOutcome');
  });
});

describe('routing through the normal create path', () => {
  it('keeps the R4 id as the upstream id: a re-import through the same source replaces that row (201, same id)', async () => {
    const first = await importOne('Condition', r4Condition({ id: 'upstream-77', code: { text: 'v1' } }));
    const again = await importOne('Condition', r4Condition({ id: 'upstream-77', code: { text: 'v2' } }));
    const a = first.json.entry[0];
    const b = again.json.entry[0];
    expect(b.response.status).toBe('201 Created');
    expect(b.resource.id).toBe(a.resource.id);
    expect(b.resource.meta.versionId).toBe('2');
    expect(b.response.outcome.issue.map((i: any) => i.diagnostics)).toContainEqual(expect.stringMatching(/replaced/));
    const read = await call('GET', `/FHIR/R5/Condition/${a.resource.id}`, { token: world.alice.token });
    expect(read.json.code.text).toBe('v2');
  });

  it('stores a resource without an id again on every import: nothing says two imports are the same resource', async () => {
    const first = await importOne('Condition', r4Condition({ code: { text: 'no id' } }));
    const again = await importOne('Condition', r4Condition({ code: { text: 'no id' } }));
    expect([first.json.entry[0].response.status, again.json.entry[0].response.status]).toEqual(['201 Created', '201 Created']);
    expect(again.json.entry[0].resource.id).not.toBe(first.json.entry[0].resource.id);
    expect(again.json.entry[0].response.outcome.issue.map((i: any) => i.diagnostics)).not.toContainEqual(expect.stringMatching(/replaced/));
    for (const entry of [first.json.entry[0], again.json.entry[0]]) {
      const read = await call('GET', `/FHIR/R5/Condition/${entry.resource.id}`, { token: world.alice.token });
      expect([read.status, read.json.meta.versionId]).toEqual([200, '1']);
    }
  });

  it('stores a non-mobile-health Observation in the auxiliary store, searchable by _source', async () => {
    const lab = {
      resourceType: 'Observation',
      status: 'final',
      category: [{ coding: [{ system: 'http://terminology.hl7.org/CodeSystem/observation-category', code: 'laboratory' }] }],
      code: { coding: [{ system: 'http://loinc.org', code: '2339-0' }] },
      subject: { reference: 'Patient/p1' },
      valueQuantity: { value: 95, unit: 'mg/dL' },
    };
    const res = await importOne('Observation', lab);
    expect(res.json.entry[0].response.status).toBe('201 Created');
    const found = await call('GET', `/FHIR/R5/Observation?_source=${encodeURIComponent(sourceUri(world.aliceSource.id))}&code=2339-0`, { token: world.alice.token });
    expect(found.json.entry.map((e: any) => e.resource.id)).toContain(res.json.entry[0].resource.id);
  });

  it('routes a mobile-health-coded Observation to the native store, which needs the payload R4 cannot carry', async () => {
    // R4's Observation.value[x] has no Attachment: the payload is dropped (and said), and the native
    // store refuses the reading; neither store keeps anything.
    const ow = await observationWorld();
    const source = await makeFhirSource({ patient: ow.patient, dataSource: ow.device });
    const auxBefore = (await auxiliaryItems()).length;
    const res = await importOne('Observation', observation(ow), source.id, ow.patient.token);
    const [entry] = res.json.entry;
    expect(entry.response.status).toBe('400 Bad Request');
    expect(entry.response.outcome.issue[0]).toMatchObject({ severity: 'error', expression: ['Observation.valueAttachment'] });
    expect(entry.response.outcome.issue.filter((i: any) => i.severity === 'warning')).toMatchObject([{ expression: ['Observation.valueAttachment'] }]);
    // The service's own readings are R5 (valueAttachment is R5's alone): the entry says so, and where R5 goes.
    expect(entry.response.outcome.issue.at(-1)).toMatchObject({ severity: 'information', diagnostics: expect.stringMatching(/looks like FHIR R5.*\/FHIR\/R5\/Observation/) });
    expect(await storedRows(ow.patient.id)).toEqual([]);
    expect((await auxiliaryItems()).length).toBe(auxBefore);
  });
});

describe('an R5 resource sent to the R4 import, and advice that names only endpoints that exist', () => {
  const r5Encounter = {
    resourceType: 'Encounter',
    status: 'completed',
    class: [{ coding: [{ system: 'http://terminology.hl7.org/CodeSystem/v3-ActCode', code: 'AMB' }] }],
    subject: { reference: 'Patient/p1' },
    actualPeriod: { start: '2024-03-01T09:00:00Z', end: '2024-03-01T09:30:00Z' },
  };

  it('an R5 Encounter: stored as R4 with the true causes, said to look like R5; the R5 endpoint it names takes it whole', async () => {
    const res = await importOne('Encounter', r5Encounter);
    const [entry] = res.json.entry;
    expect(entry.response.status).toBe('201 Created');
    const issues = entry.response.outcome.issue;
    expect(issues.find((i: any) => i.expression?.[0] === 'Encounter.class')).toMatchObject({ severity: 'warning', code: 'structure', diagnostics: expect.stringContaining("does not fit its R4 type (R4's Encounter.class holds one Coding") });
    expect(JSON.stringify(issues)).not.toMatch(/no R5 counterpart/);
    const advice = issues.at(-1);
    expect(advice).toMatchObject({ severity: 'information', diagnostics: expect.stringContaining('looks like FHIR R5') });
    const endpoint = /post it to (\S+)\.$/.exec(advice.diagnostics)![1]!;
    expect(endpoint).toBe('/FHIR/R5/Encounter');
    const direct = await call('POST', endpoint, { token: world.alice.token, body: r5Encounter, headers: { 'content-type': 'application/fhir+json', [SOURCE_HEADER]: String(world.aliceSource.id) } });
    expect(direct.status).toBe(201);
    expect(direct.json.class).toEqual(r5Encounter.class);
  });

  it('Transport (R5 only, not stored): the entry names no endpoint, and /FHIR/R5/Transport indeed answers 404', async () => {
    const res = await importOne('Transport', { resourceType: 'Transport', status: 'completed', intent: 'order' });
    const [entry] = res.json.entry;
    expect(entry.response.status).toBe('400 Bad Request');
    expect(entry.response.outcome.issue[0].diagnostics).toBe('Transport is not an R4 resource type (it exists only in R5): this service does not store Transport resources in either release.');
    const direct = await call('POST', '/FHIR/R5/Transport', { token: world.alice.token, body: { resourceType: 'Transport', status: 'completed', intent: 'order' }, headers: { [SOURCE_HEADER]: String(world.aliceSource.id) } });
    expect(direct.status).toBe(404);
  });

  it('for every R5-only type, the entry names /FHIR/R5/<Type> exactly when that endpoint takes a POST', async () => {
    const r5Only = manifest.resourceTypes.filter((t) => isKnownResourceType(t) && !isR4ResourceType(t));
    expect(r5Only).toContain('Transport');
    const mismatched: string[] = [];
    for (const type of r5Only) {
      const [entry] = (await importOne(type, { resourceType: type })).json.entry;
      const named = new RegExp(`/FHIR/R5/${type}\\b`).test(entry.response.outcome.issue[0].diagnostics);
      const direct = await call('POST', `/FHIR/R5/${type}`, { token: world.alice.token, body: { resourceType: type }, headers: { [SOURCE_HEADER]: String(world.aliceSource.id) } });
      if (named !== (direct.status !== 404)) mismatched.push(`${type}: named ${named}, POST ${direct.status}`);
    }
    expect(mismatched).toEqual([]);
  });
});

describe('logs', () => {
  it('writes one structured warn line per dropped path, with the request id, the type, the path and the kind of cause, never the value', async () => {
    const log = new Logger({ serviceName: 'fhir-import', logLevel: 'INFO' });
    log.setCorrelationId('req-import-1');
    const location = locationWithExceptions('SECRET-VALUE');
    const coverage = { resourceType: 'Coverage', status: 'active', beneficiary: { reference: 'Patient/p1' }, payor: [{ reference: 'Organization/SECRET-PAYOR' }] };
    const prepared = [prepareImport(location, 'Location'), prepareImport(coverage, 'Coverage')];
    const caller = { kind: 'patient' as const, userId: world.alice.userId!, patientId: world.alice.id, scopes: [] };
    const { result: results, lines } = await capturedLines(() =>
      importPrepared(
        prepared,
        { caller, origin: 'http://localhost:8000', base: '/FHIR/R5', sourceHeader: String(world.aliceSource.id), auxiliary: { create: createAuxiliaryResource, observation: {} }, deadline: NO_DEADLINE, noun: 'resource' },
        log,
      ),
    );
    expect(results.map((r) => r.status)).toEqual([201, 400]);
    const drops = lines.filter((l) => l.event === 'r4-import-drop');
    expect(drops).toEqual([
      expect.objectContaining({ level: 'WARN', correlation_id: 'req-import-1', service: 'fhir-import', event: 'r4-import-drop', type: 'Location', path: 'Location.availabilityExceptions', kind: 'removed', message: 'R4 import dropped a field' }),
      expect.objectContaining({ level: 'WARN', correlation_id: 'req-import-1', service: 'fhir-import', event: 'r4-import-drop', type: 'Coverage', path: 'Coverage.payor', kind: 'removed', message: 'R4 import dropped a field' }),
    ]);
    expect(JSON.stringify(lines)).not.toMatch(/SECRET/);
  });
});
