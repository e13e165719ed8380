/**
 * The service's own URIs come from the deployment's namespace (SERVICE_NAMESPACE): what it stamps
 * (meta.source, FHIR Source URIs, the model code system) and what it reads back (`_source`,
 * `meta.source` naming a FHIR Source) follow the setting, and nothing keeps the local default.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { namedSourceId } from '../../../shared/auxiliary/submission';
import { sourceIdOfUri } from '../../../shared/auxiliary/search/params';
import { LOCAL_NAMESPACE, resetConfig } from '../../../shared/config';
import type { DataSource, Patient } from '../../../shared/directory/model';
import { modelCodeSystem, nativeSourceUri, sourceUri, sourceUriPrefix } from '../../../shared/fhir/constants';
import { deviceResource, patientResource } from '../../../shared/fhir/projections/resources';

const NAMESPACE = 'https://fhir.hospital.example/exchange';
const at = '2026-06-07T04:11:52.577Z';
const patient = { id: 7, userId: 3, nameFamily: 'Rivera', identifiers: [], organizationIds: [], studyIds: [], createdAt: at, updatedAt: at } as unknown as Patient;
const device: DataSource = { id: 9, name: 'Wearable', type: 'personal_device', createdAt: at, updatedAt: at };

describe('the namespace setting', () => {
  const saved = process.env.SERVICE_NAMESPACE;
  beforeEach(() => {
    process.env.SERVICE_NAMESPACE = `${NAMESPACE}/`;
    resetConfig();
  });
  afterEach(() => {
    if (saved === undefined) delete process.env.SERVICE_NAMESPACE;
    else process.env.SERVICE_NAMESPACE = saved;
    resetConfig();
  });

  it('prefixes every URI of the service, without a doubled slash', () => {
    expect(nativeSourceUri()).toBe(`${NAMESPACE}/native`);
    expect(sourceUriPrefix()).toBe(`${NAMESPACE}/fhir-source/`);
    expect(sourceUri(12)).toBe(`${NAMESPACE}/fhir-source/12`);
    expect(modelCodeSystem()).toBe(`${NAMESPACE}/CodeSystem/model`);
  });

  it('is what projections stamp', () => {
    expect(patientResource(patient).meta).toMatchObject({ source: `${NAMESPACE}/native` });
    const codings = (deviceResource(device).type as { coding: Array<{ system: string }> }[]).flatMap((t) => t.coding.map((c) => c.system));
    expect(codings).toEqual([`${NAMESPACE}/CodeSystem/model`, `${NAMESPACE}/CodeSystem/model`]);
  });

  it('is what FHIR Source URIs are read against: the local default no longer names a source', () => {
    expect(sourceIdOfUri(`${NAMESPACE}/fhir-source/42`)).toBe(42);
    expect(sourceIdOfUri(`${LOCAL_NAMESPACE}/fhir-source/42`)).toBeUndefined();
    expect(namedSourceId(undefined, { resourceType: 'Condition', meta: { source: `${NAMESPACE}/fhir-source/5` } })).toBe('5');
    expect(namedSourceId(undefined, { resourceType: 'Condition', meta: { source: `${LOCAL_NAMESPACE}/fhir-source/5` } })).toBeUndefined();
  });
});
