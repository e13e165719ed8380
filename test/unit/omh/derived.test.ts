/**
 * Derived payloads (shared/omh/derived.ts): the sensor codings come from the quantities table and
 * name exactly the reading a payload of theirs is coded as again; a derived payload passes its
 * schema; a name gives one UUID (RFC 9562 version 5), always the same.
 */
import { describe, expect, it } from 'vitest';
import { checkPayload } from '../../../shared/omh/check';
import { derivedPayload, nameBasedUuid, SENSOR_KINDS } from '../../../shared/omh/derived';
import { liftQuantities, observationCodingOf, schemaQuantities } from '../../../shared/omh/quantities';
import { encodePayload } from '../../../shared/omh/samples';

describe('sensor codings', () => {
  it('are the interstitial-fluid glucose codes, each with its one unit', () => {
    expect([...SENSOR_KINDS].map(([coding, kind]) => [coding, kind.schemaCode, kind.member, kind.unit, kind.specimen])).toEqual([
      ['http://loinc.org|99504-3', 'omh:blood-glucose:4.0', 'blood_glucose', 'mg/dL', 'interstitial fluid'],
      ['http://loinc.org|105272-9', 'omh:blood-glucose:4.0', 'blood_glucose', 'mmol/L', 'interstitial fluid'],
    ]);
  });

  it('give a payload that passes its schema and is coded again as it came', () => {
    for (const [coding, kind] of SENSOR_KINDS) {
      const payload = derivedPayload({ kind, value: 7, at: '2024-05-02T10:15:00+02:00', created: '2024-05-02T10:15:00+02:00', uuid: nameBasedUuid(coding), from: { resource_type: 'Observation', code: coding } });
      const checked = checkPayload(kind.schemaCode, { contentType: 'application/json', data: encodePayload(payload) });
      expect(checked.ok, coding).toBe(true);
      const quantities = schemaQuantities(kind.schemaCode)!;
      const recoded = observationCodingOf(quantities, liftQuantities(kind.schemaCode, payload.body), kind.specimen);
      expect(`${recoded!.system}|${recoded!.code}`).toBe(coding);
      expect(payload.header.derived_from).toEqual({ resource_type: 'Observation', code: coding });
    }
  });
});

describe('name-based UUIDs', () => {
  it('are version 5, RFC 4122 variant, the same for the same name and different for another', () => {
    const uuid = nameBasedUuid('identifier\u0000urn:x\u00001');
    expect(uuid).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(nameBasedUuid('identifier\u0000urn:x\u00001')).toBe(uuid);
    expect(nameBasedUuid('identifier\u0000urn:x\u00002')).not.toBe(uuid);
  });
});
