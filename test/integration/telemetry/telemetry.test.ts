/**
 * What an operator reads off the running service: the EMF metric lines a batch upload and an R4
 * import emit (names, dimensions, values), the request line of each request, and the audit line of
 * each read or write of patient data (who, what, which patients, result, request id; never a payload).
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { resetConfig } from '../../../shared/config';
import { SOURCE_HEADER } from '../../../shared/fhir/constants';
import { resetLoggers } from '../../../shared/telemetry/logger';
import { LOG_MESSAGE, METRIC } from '../../../shared/telemetry/names';
import { auxiliaryWorld, condition, postAuxiliary, type AuxiliaryWorld } from '../../support/auxiliary';
import { makePatient, makeStudy, type WithToken } from '../../support/directory';
import { call, type TestResponse } from '../../support/invoke';
import { capturedLines, metricTotals } from '../../support/logs';
import { observation, observationWorld, search, upload, type ObservationWorld } from '../../support/observations';
import type { Patient } from '../../../shared/directory/model';

// This file reads the lines the other test files keep quiet (set before the handlers load).
process.env.LOG_LEVEL = 'info';
process.env.POWERTOOLS_METRICS_DISABLED = 'false';
resetConfig();
resetLoggers();

let ow: ObservationWorld;
let aw: AuxiliaryWorld;
let other: Patient & WithToken;
beforeAll(async () => {
  ow = await observationWorld();
  aw = await auxiliaryWorld();
  other = (await makePatient({ organizations: [ow.organization], login: true })) as Patient & WithToken;
  await makeStudy({ organization: ow.organization, codes: ['omh:heart-rate:2.0'], patients: [other], consent: true, dataSources: [ow.device] });
});

async function observed(request: () => Promise<TestResponse>) {
  const { result, lines } = await capturedLines(request);
  const requestId = result.headers['x-request-id'];
  return {
    res: result,
    metrics: metricTotals(lines),
    request: lines.filter((l) => l.message === LOG_MESSAGE.request),
    audit: lines.filter((l) => l.message === LOG_MESSAGE.audit),
    requestId,
    lines,
  };
}

describe('metric lines', () => {
  it('a batch upload counts readings stored, duplicates and refused entries by status, under service=fhir', async () => {
    const readings = [observation(ow), observation(ow)];
    const invalid = { ...observation(ow), status: 'not-a-status' };
    const first = await observed(() => upload(ow.patient.token, [...readings, invalid]));
    expect(first.res.status).toBe(200);
    const refusedStatus = Number(String(first.res.json.entry[2].response.status).slice(0, 3));
    expect(refusedStatus).toBeGreaterThanOrEqual(400);
    expect(first.metrics.get(METRIC.readingsStored)).toEqual({ 'service=fhir': 2 });
    expect(first.metrics.get(METRIC.uploadEntriesRefused)).toEqual({ 'service=fhir': 1, [`service=fhir,status=${refusedStatus}`]: 1 });
    expect(first.metrics.has(METRIC.readingsDuplicate)).toBe(false);

    const retry = await observed(() => upload(ow.patient.token, readings));
    expect(retry.metrics.get(METRIC.readingsDuplicate)).toEqual({ 'service=fhir': 2 });
    expect(retry.metrics.has(METRIC.readingsStored)).toBe(false);
    for (const line of [...first.lines, ...retry.lines].filter((l) => l._aws)) {
      expect(line._aws.CloudWatchMetrics[0].Namespace).toBe('ClinicalDataExchange');
    }
  });

  it('an import counts entries created, created with loss, failed, and the fields dropped, under service=fhir-import', async () => {
    const r4Condition = {
      resourceType: 'Condition',
      clinicalStatus: { coding: [{ system: 'http://terminology.hl7.org/CodeSystem/condition-clinical', code: 'active' }] },
      code: { text: 'Asthma' },
      subject: { reference: 'Patient/p1' },
    };
    // Extensions of a primitive value are not carried (docs/r4-import.md): one field dropped.
    const lossy = { ...r4Condition, recordedDate: '2020-01-01', _recordedDate: { extension: [{ url: 'http://example.org/source', valueString: 'paper chart' }] } };
    const coverage = { resourceType: 'Coverage', status: 'active', beneficiary: { reference: 'Patient/p1' }, payor: [{ reference: 'Organization/o1' }] };
    const bundle = { resourceType: 'Bundle', type: 'batch', entry: [r4Condition, lossy, coverage].map((resource) => ({ resource })) };
    const { res, metrics } = await observed(() =>
      call('POST', '/fhir-import/R4', { token: aw.alice.token, body: bundle, headers: { [SOURCE_HEADER]: String(aw.aliceSource.id) } }),
    );
    expect(res.json.entry.map((e: any) => e.response.status.slice(0, 3))).toEqual(['201', '201', expect.stringMatching(/^4/)]);
    const under = (total: number) => ({ 'service=fhir-import': total });
    expect(metrics.get(METRIC.importEntriesCreated)).toEqual(under(1));
    expect(metrics.get(METRIC.importEntriesWithLoss)).toEqual(under(1));
    expect(metrics.get(METRIC.importEntriesFailed)).toEqual(under(1));
    expect(metrics.get(METRIC.importFieldsDropped)).toEqual(under(2));
  });

  it('a refused token counts as an authentication failure; a search counts its page and rows', async () => {
    const refused = await observed(() => search('not-a-token'));
    expect(refused.res.status).toBe(401);
    expect(refused.metrics.get(METRIC.authenticationFailures)).toEqual({ 'service=fhir': 1 });
    const found = await observed(() => search(ow.patient.token, '_count=1'));
    expect(found.metrics.get(METRIC.searchPages)).toEqual({ 'service=fhir': 1 });
    expect(found.metrics.get(METRIC.searchRows)).toEqual({ 'service=fhir': 1 });
  });
});

describe('request and audit lines', () => {
  it('each request writes one request line with its route, status and duration, under the request id', async () => {
    const { request, requestId } = await observed(() => search(ow.practitioner.token, '_count=2'));
    expect(request).toEqual([
      expect.objectContaining({ level: 'INFO', service: 'fhir', correlation_id: requestId, method: 'GET', path: '/FHIR/R5/Observation', route: '/FHIR/R5/{type}', status: 200, durationMs: expect.any(Number) }),
    ]);
  });

  it('an upload, a search and a read are audited with who, what, which patients and the result; never a payload', async () => {
    const reading = observation(ow);
    const posted = await observed(() => upload(ow.patient.token, [reading]));
    expect(posted.audit).toEqual([
      expect.objectContaining({
        correlation_id: posted.requestId,
        audit: { action: 'upload', resourceType: 'Bundle', route: 'POST /FHIR/R5', who: { kind: 'patient', userId: ow.patient.userId }, patients: [ow.patient.id], result: 200 },
      }),
    ]);
    const payload = (reading.valueAttachment as { data: string }).data;
    expect(JSON.stringify(posted.lines)).not.toContain(payload.slice(0, 40));

    const id = posted.res.json.entry[0].resource.id;
    const read = await observed(() => call('GET', `/FHIR/R5/Observation/${id}`, { token: ow.practitioner.token }));
    expect(read.audit[0]!.audit).toEqual({
      action: 'read',
      resourceType: 'Observation',
      route: 'GET /FHIR/R5/{type}/{id}',
      who: { kind: 'practitioner', userId: ow.practitioner.id },
      patients: [ow.patient.id],
      result: 200,
    });

    await upload(other.token!, [observation({ patient: other, device: ow.device })]);
    const searched = await observed(() => search(ow.practitioner.token, '_count=1000'));
    expect(searched.audit[0]!.audit).toMatchObject({ action: 'search', resourceType: 'Observation', patients: [ow.patient.id, other.id].sort((a, b) => a - b), result: 200 });
  });

  it('a refused read names no patient; a request without a valid token is audited as anonymous', async () => {
    const posted = await upload(ow.patient.token, [observation(ow)]);
    const id = posted.json.entry[0].resource.id;
    const probed = await observed(() => call('GET', `/FHIR/R5/Observation/${id}`, { token: other.token! }));
    expect(probed.res.status).toBe(404);
    expect(probed.audit[0]!.audit).toMatchObject({ action: 'read', who: { kind: 'patient', userId: other.userId }, patients: [], result: 404 });

    const anonymous = await observed(() => call('GET', `/FHIR/R5/Observation/${id}`));
    expect(anonymous.audit[0]!.audit).toMatchObject({ who: { kind: 'anonymous' }, patients: [], result: 401 });
  });

  it('auxiliary writes and reads, and the management API, name the patient; requests that ask for no token write no audit line', async () => {
    const created = await observed(() => postAuxiliary('Condition', condition(), aw.alice.token, aw.aliceSource.id));
    expect(created.res.status).toBe(201);
    expect(created.audit[0]!.audit).toMatchObject({ action: 'create', resourceType: 'Condition', patients: [aw.alice.id], result: 201 });
    expect(created.metrics.get(METRIC.auxiliaryWrites)).toEqual({ 'service=fhir': 1 });

    const listed = await observed(() => call('GET', `/api/v1/patients/${aw.bob.id}`, { token: aw.doctor.token }));
    expect(listed.audit[0]!.audit).toMatchObject({ action: 'read', resourceType: 'patients', route: 'GET /api/v1/patients/{id}', patients: [aw.bob.id], result: 200 });

    const metadata = await observed(() => call('GET', '/FHIR/R5/metadata'));
    expect(metadata.res.status).toBe(200);
    expect(metadata.audit).toEqual([]);
    expect(metadata.request).toHaveLength(1);
  });
});
