/**
 * A stored reading as a FHIR R5 Observation (docs/api.md#effective-time-and-rendering): id, meta (lastUpdated, the native source),
 * identifiers, status as uploaded, the code with its display, subject, device, the lifted
 * effective time, and the payload attachment byte for byte.
 */
import type { Code } from '../directory/model';
import { nativeSourceUri } from '../fhir/constants';
import { fhirEffective } from '../omh/effective-time';
import type { StoredObservation } from './model';

export type FhirObservation = Record<string, unknown> & { resourceType: 'Observation'; id: string };

export function toFhirObservation(o: StoredObservation, code: Code): FhirObservation {
  return {
    resourceType: 'Observation',
    id: String(o.id),
    meta: { lastUpdated: o.lastUpdated, source: nativeSourceUri() },
    ...(o.identifiers.length > 0 ? { identifier: o.identifiers.map((i) => ({ ...(i.system !== undefined ? { system: i.system } : {}), value: i.value })) } : {}),
    status: o.status,
    code: { coding: [{ system: code.system, code: code.code, display: code.display }] },
    subject: { reference: `Patient/${o.patientId}` },
    ...fhirEffective(o.effective),
    device: { reference: `Device/${o.deviceId}` },
    valueAttachment: { contentType: 'application/json', data: o.data },
  };
}

/** The version of every stored reading: rows are written once (its meta carries no versionId). */
export const READING_VERSION = '1';
