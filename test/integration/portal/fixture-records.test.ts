/**
 * The fixture hospitals' records are what a hospital would serve and the service would take: each
 * R5 record is stored through `POST /FHIR/R5/<Type>`, each R4 record through the import, but for
 * the one with an invalid status (refused, as the portal's report expects) and the R4 primitive
 * extension (stored with a loss). So the portal's per-type counts in the browser tests measure the
 * portal, not a broken fixture.
 */
import { describe, expect, it } from 'vitest';
import { RECORD_KINDS } from '../../../shared/portal/pulls';
import { importBundle } from '../../../shared/portal/records';
import { BOGUS_ID, DROPPED_ID, hospitalRecords, LONG_ID } from '../../fixtures/smart-records';
import { auxiliaryWorld, postAuxiliary } from '../../support/auxiliary';
import { call } from '../../support/invoke';

const kept = (records: ReturnType<typeof hospitalRecords>) => records.filter((r) => r.id !== LONG_ID);

describe('the fixture hospitals serve records the service takes', () => {
  it('R5: every record of every type is stored, but the invalid status', async () => {
    const { alice, aliceSource } = await auxiliaryWorld();
    const records = kept(hospitalRecords('p-1', 'R5', 6));
    expect(new Set(records.map((r) => r.resourceType))).toEqual(new Set(RECORD_KINDS.map((k) => k.type)));
    for (const record of records) {
      const res = await postAuxiliary(record.resourceType, record, alice.token, aliceSource.id);
      expect(res.status, `${record.resourceType}/${record.id}: ${res.text}`).toBe(record.id === BOGUS_ID ? 400 : 201);
    }
  });

  it('R4: every record of every type is imported, the primitive extension with a loss, but the invalid status', async () => {
    const { alice, aliceSource } = await auxiliaryWorld();
    const records = kept(hospitalRecords('p-1', 'R4', 6));
    const res = await call('POST', '/fhir-import/R4', { token: alice.token, body: importBundle(records), headers: { 'x-svc-fhir-source-id': String(aliceSource.id) } });
    expect(res.status).toBe(200);
    res.json.entry.forEach((entry: { response: { status: string; outcome?: { issue: Array<{ severity: string }> } } }, i: number) => {
      const id = records[i]!.id;
      expect(entry.response.status, `${records[i]!.resourceType}/${id}: ${JSON.stringify(entry.response.outcome)}`).toMatch(id === BOGUS_ID ? /^4/ : /^201/);
      const warned = entry.response.outcome?.issue.some((issue) => issue.severity === 'warning') ?? false;
      if (id !== BOGUS_ID) expect(warned, `${records[i]!.resourceType}/${id}`).toBe(id === DROPPED_ID);
    });
  });
});
