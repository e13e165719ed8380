/** The auxiliary store contract (test/contract/auxiliary-store.ts) against DynamoDB Local with s3rver, and the in-memory twin. */
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { dynamoAuxiliaryStore } from '../../../shared/auxiliary/store/dynamo';
import { memoryAuxiliaryStore } from '../../../shared/auxiliary/store/memory';
import type { Guard } from '../../../shared/auxiliary/store/port';
import { getFhirSource } from '../../../shared/directory/fhir-sources';
import { getPatient } from '../../../shared/directory/patients';
import { auxiliaryStoreContract } from '../../contract/auxiliary-store';

/** The twin's guards ask the directory the contract writes to, as the table's conditions do. */
const inDirectory = async (guard: Guard) => (guard.kind === 'fhirSource' ? await getFhirSource(guard.id) : await getPatient(guard.id)) !== undefined;

auxiliaryStoreContract([
  ['dynamodb', () => dynamoAuxiliaryStore],
  ['memory', () => memoryAuxiliaryStore({ exists: inDirectory })],
]);

describe('the in-memory twin without a directory', () => {
  it('asks for the FHIR Source, then the patient, and takes every owner as existing when not told', async () => {
    const asked: Guard[] = [];
    const row = { id: randomUUID(), type: 'Condition', patientId: 41, sourceId: 42, version: 1, lastUpdated: '2024-01-01T00:00:00.000Z', body: '{}' };
    const refusing = memoryAuxiliaryStore({
      exists: (guard) => {
        asked.push(guard);
        return guard.kind === 'patient';
      },
    });
    await expect(refusing.rows.create(row, {})).rejects.toMatchObject({ status: 400, message: 'Unknown FHIR Source 42.' });
    expect(asked).toEqual([{ kind: 'fhirSource', id: 42 }, { kind: 'patient', id: 41 }]);
    expect(await refusing.rows.get(row.id)).toBeUndefined();

    const open = memoryAuxiliaryStore();
    await open.rows.create(row, {});
    expect(await open.rows.get(row.id)).toEqual(row);
  });
});
