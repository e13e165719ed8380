/**
 * HL7's CGM data submission (docs/r4-import.md#continuous-glucose-monitoring-submissions), built
 * from the IG's published profiles (`test/support/cgm-ig.ts`): the R4 `transaction` Bundle at the R4
 * import, and its R5 equivalent (a `batch`) at the FHIR base. The sensor readings join the
 * patient's series as a device's do (found by code and value, counted by `$stats`, exported; sent
 * again, the same readings); the summary, its members, the PDF report and the device are stored
 * in the auxiliary store of the submitting FHIR Source, their references to each other resolved to
 * where each was stored; a malformed reading is refused with an OperationOutcome naming the
 * element, and stores nothing.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import type { FhirSource } from '../../../shared/directory/model';
import { SOURCE_HEADER, sourceUri } from '../../../shared/fhir/constants';
import { decodePayload } from '../../../shared/omh/payload';
import { auxiliaryItems } from '../../support/auxiliary';
import { CGM_CODES, LOINC, r5Of, smallPdf, standingOrder, SUBMISSION_SCHEDULE, submissionBundle, UCUM, type ReadingOptions } from '../../support/cgm-ig';
import { makeFhirSource, makeStudy } from '../../support/directory';
import { downloadAll, finished, kickOff, runExportWork } from '../../support/export';
import { call, type TestResponse } from '../../support/invoke';
import { matchIds, observationWorld, search, statusesOf, storedRows, type ObservationWorld } from '../../support/observations';
import { stats, statisticsOf } from '../../support/stats';

/** Three readings in mg/dL (two of them 180 or more) and one in mmol/L, five minutes apart. */
const READINGS: ReadingOptions[] = [
  { value: 120, at: '2024-05-02T10:15:00Z' },
  { value: 200, at: '2024-05-02T10:20:00Z' },
  { value: 185, at: '2024-05-02T10:25:00+02:00' },
  { value: 6.7, unit: 'mmol/L', at: '2024-05-02T10:30:00Z' },
];
const READING_IDS = READINGS.map((_, i) => `reading-${i}`);
const AUXILIARY_IDS = ['cgm-report', 'cgm-summary', 'cgm-mean', 'cgm-tir', 'cgm-gmi', 'cgm-cv', 'cgm-wear', 'cgm-active', 'cgm-device-1'];

interface Submitter {
  world: ObservationWorld;
  source: FhirSource;
}

async function submitter(): Promise<Submitter> {
  const world = await observationWorld();
  return { world, source: await makeFhirSource({ patient: world.patient, dataSource: world.device }) };
}

const importR4 = (s: Submitter, bundle: unknown) =>
  call('POST', '/fhir-import/R4', { token: s.world.patient.token, body: bundle, headers: { 'content-type': 'application/fhir+json', [SOURCE_HEADER]: String(s.source.id) } });
const postR5 = (s: Submitter, bundle: unknown) => call('POST', '/FHIR/R5', { token: s.world.patient.token, body: bundle, headers: { [SOURCE_HEADER]: String(s.source.id) } });

/** The answer's entries by the submitted resource's id. */
function entriesById(res: TestResponse, index: Map<string, number>): Map<string, any> {
  return new Map([...index].map(([id, i]) => [id, res.json.entry[i]]));
}

const read = (s: Submitter, reference: string) => call('GET', `/FHIR/R5/${reference}`, { token: s.world.patient.token });
const payloadOf = (resource: any): any => {
  const decoded = decodePayload(resource.valueAttachment);
  if (!decoded.ok) throw new Error(decoded.error.message);
  return decoded.payload;
};

/** What both submissions must show: the readings in the series, the rest in the auxiliary store, references resolved. */
async function expectStored(s: Submitter, entries: Map<string, any>): Promise<void> {
  const reading = (id: string) => entries.get(id).resource;
  for (const id of READING_IDS) expect(reading(id).id, id).toMatch(/^\d+$/);
  for (const id of AUXILIARY_IDS) expect(entries.get(id).resource.id, id).toMatch(/^[0-9a-f-]{36}$/);
  const ref = (id: string) => `${entries.get(id).resource.resourceType}/${entries.get(id).resource.id}`;

  // The series: by code, by value, in $stats.
  const token = s.world.patient.token;
  const mgdl = matchIds(await search(token, `code=${LOINC}|99504-3&_count=100`));
  expect(mgdl.sort()).toEqual(READING_IDS.slice(0, 3).map((id) => reading(id).id).sort());
  expect(matchIds(await search(token, `code=${LOINC}|105272-9`))).toEqual([reading('reading-3').id]);
  expect(matchIds(await search(token, `code=${LOINC}|99504-3&value-quantity=ge180`)).sort()).toEqual([reading('reading-1').id, reading('reading-2').id].sort());
  const answer = await stats(token, `subject=Patient/${s.world.patient.id}&coding=${LOINC}|99504-3,${LOINC}|105272-9&period=2024-05-02/2024-05-02&statistic=count,average`);
  expect(answer.status, JSON.stringify(answer.json)).toBe(200);
  // One statistics Observation per unit group (mass and substance concentration do not mix), each coded as the sensor's readings are.
  const [span] = statisticsOf(answer);
  expect(new Map([...span!.values].filter(([key]) => key.endsWith(' count')))).toEqual(new Map([['99504-3 count', 3], ['105272-9 count', 1]]));
  const averages = [...span!.values].filter(([key]) => key.endsWith(' average'));
  expect(averages.find(([key]) => span!.units.get(key) === 'mg/dL')![1]).toBeCloseTo((120 + 200 + 185) / 3, 9);
  expect(averages.find(([key]) => span!.units.get(key) === 'mmol/L')![1]).toBe(6.7);

  // Each reading's payload says it was derived, from which upstream resource and device.
  const header = payloadOf(reading('reading-0')).header;
  expect(header.derived_from).toEqual({ resource_type: 'Observation', code: `${LOINC}|99504-3`, id: 'reading-0', source: sourceUri(s.source.id), device: ref('cgm-device-1') });

  // The rest, readable in the source's auxiliary store, their references to each other resolved.
  const summary = (await read(s, ref('cgm-summary'))).json;
  expect(summary.meta.source).toBe(sourceUri(s.source.id));
  expect(summary.hasMember.map((m: any) => m.reference)).toEqual(['cgm-mean', 'cgm-tir', 'cgm-gmi', 'cgm-cv', 'cgm-wear', 'cgm-active'].map(ref));
  const report = (await read(s, ref('cgm-report'))).json;
  expect(report.result).toEqual([{ reference: ref('cgm-summary') }]);
  expect(report.presentedForm).toEqual([{ contentType: 'application/pdf', data: smallPdf() }]);
  const device = (await read(s, ref('cgm-device-1'))).json;
  expect(device).toMatchObject({ serialNumber: 'ABC123', identifier: [{ system: 'http://devices.example.org/cgm', value: '456789' }], name: [{ value: 'Example CGM System', type: 'user-friendly-name' }] });
  const tir = (await read(s, ref('cgm-tir'))).json;
  expect(tir.component.map((c: any) => c.valueQuantity.value)).toEqual([3, 8, 65, 20, 4]);
  // Found by the source too, as any auxiliary resource is.
  const devices = await call('GET', `/FHIR/R5/Device?_source=${encodeURIComponent(sourceUri(s.source.id))}&serial-number=ABC123`, { token });
  expect(devices.json.entry.map((e: any) => e.resource.id)).toEqual([entries.get('cgm-device-1').resource.id]);
}

describe('the R4 submission Bundle at the R4 import', () => {
  let s: Submitter;
  let submission: ReturnType<typeof submissionBundle>;
  let first: TestResponse;

  beforeAll(async () => {
    s = await submitter();
    submission = submissionBundle(READINGS);
    first = await importR4(s, submission.bundle);
  });

  it('accepts every entry, says the conversion lost nothing, and what a reading does not keep', () => {
    expect(first.status).toBe(200);
    expect(first.json.type).toBe('batch-response');
    expect(statusesOf(first)).toEqual(submission.bundle.entry.map(() => '201 Created'));
    const entries = entriesById(first, submission.index);
    for (const id of AUXILIARY_IDS) {
      expect(entries.get(id).response.outcome.issue, id).toEqual([{ severity: 'information', code: 'informational', diagnostics: 'The conversion from R4 to R5 lost no field.' }]);
    }
    for (const id of READING_IDS) {
      const issues = entries.get(id).response.outcome.issue;
      expect(issues[0], id).toEqual({ severity: 'information', code: 'informational', diagnostics: 'The conversion from R4 to R5 lost no field.' });
      // The upstream subject names the patient as the sender knows them (the reading is the source's
      // patient's), and a reading keeps no category: each is said.
      expect(issues.slice(1), id).toEqual([
        expect.objectContaining({ severity: 'warning', expression: ['Observation.subject'] }),
        expect.objectContaining({ severity: 'warning', expression: ['Observation.category'] }),
      ]);
      expect(entries.get(id).resource.subject).toEqual({ reference: `Patient/${s.world.patient.id}` });
    }
  });

  it('stores the readings in the series and the rest in the auxiliary store, references resolved', async () => {
    await expectStored(s, entriesById(first, submission.index));
  });

  it('exports the readings with the rest', async () => {
    const kicked = await kickOff(s.world.practitioner.token, '/FHIR/R5/Patient/$export?_type=Observation,DiagnosticReport,Device');
    expect(kicked.status).toBe(202);
    await runExportWork();
    const manifest = await finished(s.world.practitioner.token, kicked);
    const entries = entriesById(first, submission.index);
    const observations = (await downloadAll(s.world.practitioner.token, manifest, 'Observation')).map((o) => o.id);
    for (const id of [...READING_IDS, 'cgm-summary', 'cgm-mean']) expect(observations, id).toContain(entries.get(id).resource.id);
    expect((await downloadAll(s.world.practitioner.token, manifest, 'DiagnosticReport')).map((r) => r.id)).toEqual([entries.get('cgm-report').resource.id]);
    expect((await downloadAll(s.world.practitioner.token, manifest, 'Device')).map((d) => d.id)).toEqual(expect.arrayContaining([String(s.world.device.id), entries.get('cgm-device-1').resource.id]));
  });

  it('sent again, stores nothing new: the same ids, each entry saying it was there', async () => {
    const rows = (await storedRows(s.world.patient.id)).length;
    const items = (await auxiliaryItems()).length;
    const again = await importR4(s, submission.bundle);
    // The import answers every success 201 (docs/r4-import.md#status-codes); each says what became of it.
    expect(statusesOf(again)).toEqual(submission.bundle.entry.map(() => '201 Created'));
    const before = entriesById(first, submission.index);
    const now = entriesById(again, submission.index);
    for (const id of [...AUXILIARY_IDS, ...READING_IDS]) expect(now.get(id).resource.id, id).toBe(before.get(id).resource.id);
    for (const id of READING_IDS) expect(now.get(id).response.outcome.issue.map((i: any) => i.code), id).toContain('duplicate');
    for (const id of AUXILIARY_IDS) expect(now.get(id).response.outcome.issue.map((i: any) => i.diagnostics), id).toContainEqual(expect.stringMatching(/replaced/));
    expect((await storedRows(s.world.patient.id)).length).toBe(rows);
    expect((await auxiliaryItems()).length).toBe(items);
  });

  it('refuses a malformed reading with an OperationOutcome naming the element, storing nothing of it', async () => {
    const rows = (await storedRows(s.world.patient.id)).length;
    const { bundle, index } = submissionBundle([
      { id: 'later-0', value: 140, at: '2024-05-03T08:00:00Z' },
      { id: 'later-1', value: 7.1, at: '2024-05-03T08:05:00Z' },
      { id: 'later-2', value: 150, at: null },
    ]);
    // The first reading's unit is the mmol/L one's under the mg/dL code.
    bundle.entry[index.get('later-1')!].resource.valueQuantity = { value: 7.1, unit: 'mmol/l', system: UCUM, code: 'mmol/L' };
    const res = await importR4(s, bundle);
    const entries = entriesById(res, index);
    expect(entries.get('later-0').response.status).toBe('201 Created');
    expect(entries.get('later-1').response.status).toBe('400 Bad Request');
    expect(entries.get('later-1').response.outcome.issue[0]).toMatchObject({ severity: 'error', expression: ['Observation.valueQuantity.code'], diagnostics: expect.stringContaining('takes values in mg/dL') });
    expect(entries.get('later-2').response.status).toBe('400 Bad Request');
    expect(entries.get('later-2').response.outcome.issue[0]).toMatchObject({ severity: 'error', expression: ['Observation.effectiveDateTime'] });
    expect((await storedRows(s.world.patient.id)).length).toBe(rows + 1);
  });

  it('a reading sent again under its id with another value is a 409, and the stored one keeps its value', async () => {
    const { bundle, index } = submissionBundle([{ value: 121, at: '2024-05-02T10:15:00Z' }]);
    const res = await importR4(s, bundle);
    const entry = entriesById(res, index).get('reading-0');
    expect(entry.response.status).toBe('409 Conflict');
    const stored = entriesById(first, submission.index).get('reading-0').resource;
    expect(entry.response.outcome.issue[0]).toMatchObject({ severity: 'error', code: 'conflict', diagnostics: expect.stringContaining(`Observation/${stored.id}`) });
    expect((await read(s, `Observation/${stored.id}`)).json.component[0].valueQuantity.value).toBe(120);
  });
});

describe('the R5 equivalent at the FHIR base', () => {
  let s: Submitter;
  let submission: ReturnType<typeof submissionBundle>;
  let first: TestResponse;

  beforeAll(async () => {
    s = await submitter();
    // Entries named by urn:uuid this time (the R4 test names them as the IG's example does).
    submission = submissionBundle(READINGS, 'urn');
    first = await postR5(s, r5Of(submission.bundle));
  });

  it('accepts every entry and stores them as the import does', async () => {
    expect(first.status).toBe(200);
    expect(statusesOf(first)).toEqual(submission.bundle.entry.map(() => '201 Created'));
    await expectStored(s, entriesById(first, submission.index));
  });

  it('sent again: 200 for every entry, the same ids, nothing new stored', async () => {
    const rows = (await storedRows(s.world.patient.id)).length;
    const items = (await auxiliaryItems()).length;
    const again = await postR5(s, r5Of(submission.bundle));
    expect(statusesOf(again)).toEqual(submission.bundle.entry.map(() => '200 OK'));
    expect(again.json.entry.map((e: any) => e.resource.id)).toEqual(first.json.entry.map((e: any) => e.resource.id));
    expect((await storedRows(s.world.patient.id)).length).toBe(rows);
    expect((await auxiliaryItems()).length).toBe(items);
  });

  it('a transaction is still refused at the FHIR base: its entries are stored one by one', async () => {
    const res = await postR5(s, { ...r5Of(submission.bundle), type: 'transaction' });
    expect(res.status).toBe(400);
    expect(res.json.issue[0].expression).toEqual(['Bundle.type']);
  });
});

describe("a study's standing order, as the IG's ServiceRequest", () => {
  const ORDER_CODE = `${CGM_CODES}|cgm-data-submission-standing-order`;

  it("a study's practitioner stores it through the patient's FHIR Source; the patient's app finds it by code; the study reads it too", async () => {
    const s = await submitter();
    const study = await makeStudy({ organization: s.world.organization, patients: [s.world.patient] });
    const order = standingOrder(`Patient/${s.world.patient.id}`, 2, { supportingInfo: [{ reference: { reference: `Group/${study.id}` } }] }, 'R5');
    const posted = await call('POST', '/FHIR/R5/ServiceRequest', { token: s.world.practitioner.token, body: order, headers: { [SOURCE_HEADER]: String(s.source.id) } });
    expect(posted.status, JSON.stringify(posted.json)).toBe(201);
    // R5 made ServiceRequest.code a CodeableReference: the IG's R4 search by `code` is R5's `code-concept`.
    const found = await call('GET', `/FHIR/R5/ServiceRequest?code-concept=${encodeURIComponent(ORDER_CODE)}&status=active`, { token: s.world.patient.token, headers: { prefer: 'handling=strict' } });
    expect(found.json.entry.map((e: any) => e.resource.id)).toEqual([posted.json.id]);
    const [schedule] = found.json.entry[0].resource.extension;
    expect(schedule.url).toBe(SUBMISSION_SCHEDULE);
    expect(schedule.extension[0]).toEqual({ url: 'submissionPeriod', valueQuantity: { value: 2, unit: 'week', system: UCUM, code: 'wk' } });
    const ofStudy = await call('GET', `/FHIR/R5/ServiceRequest?patient._has:Group:member:_id=${study.id}&code-concept=${encodeURIComponent(ORDER_CODE)}`, { token: s.world.practitioner.token, headers: { prefer: 'handling=strict' } });
    expect(ofStudy.json.entry.map((e: any) => e.resource.id)).toEqual([posted.json.id]);
  });

  it('an R4 standing order converts to R5 with no loss', async () => {
    const s = await submitter();
    const res = await call('POST', '/fhir-import/R4/ServiceRequest', {
      token: s.world.patient.token,
      body: standingOrder('Patient/patientExample', 4, { id: 'order-1' }),
      headers: { 'content-type': 'application/fhir+json', [SOURCE_HEADER]: String(s.source.id) },
    });
    const [entry] = res.json.entry;
    expect(entry.response.status).toBe('201 Created');
    expect(entry.response.outcome.issue).toEqual([{ severity: 'information', code: 'informational', diagnostics: 'The conversion from R4 to R5 lost no field.' }]);
    expect(entry.resource.extension).toEqual(standingOrder('Patient/patientExample', 4).extension);
  });
});
