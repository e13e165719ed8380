/**
 * An export's Observation lines are made as text (`ObservationTexts`), not as objects then
 * serialised: for every kind of reading the text must be exactly `JSON.stringify` of
 * `toFhirObservation`, from one writer that has already seen readings of the same code coded
 * otherwise (its per-code texts are shared across readings).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Code } from '../../../shared/directory/model';
import { ObservationTexts } from '../../../shared/observations/fhir-observation-text';
import { toFhirObservation } from '../../../shared/observations/fhir-observation';
import type { ObservationIdentifier, StoredObservation } from '../../../shared/observations/model';
import { keptValues } from '../../../shared/observations/values';
import { DERIVED_MEMBER } from '../../../shared/omh/derived';
import { liftEffectiveTime } from '../../../shared/omh/effective-time';
import { EFFECTIVE_FORMS, EXAMPLE_BODIES, encodePayload, samplePayload, type SampleOptions } from '../../../shared/omh/samples';

const codes: Code[] = Object.keys(EXAMPLE_BODIES).map((code, i) => ({ id: i + 1, system: 'https://w3id.org/openmhealth/schemas/omh', code, display: `Display of "${code}" é` }));

interface Variant {
  identifiers?: ObservationIdentifier[];
  status?: string;
  lastUpdated?: string;
  derived?: boolean;
  /** As a reading stored before values were lifted: rendered from its payload. */
  unlifted?: boolean;
  undated?: boolean;
  id?: number;
}

function reading(code: Code, sample: SampleOptions, v: Variant = {}): StoredObservation {
  const payload = samplePayload(code.code, sample) as { header: Record<string, unknown>; body: Record<string, unknown> };
  if (v.derived) payload.header[DERIVED_MEMBER] = { resourceType: 'Observation', id: 'x' };
  const values = keptValues(code.code, payload.body);
  return {
    id: v.id ?? 42,
    patientId: 7,
    codeId: code.id,
    deviceId: 9,
    status: v.status ?? 'final',
    identifiers: v.identifiers ?? [],
    data: encodePayload(payload),
    uuid: String(payload.header.uuid),
    effective: v.undated ? undefined : liftEffectiveTime(payload.body),
    ...(v.unlifted ? {} : { values }),
    lastUpdated: v.lastUpdated ?? '2026-03-08T12:00:00.000Z',
  };
}

const texts = new ObservationTexts();
const bothWays = (o: StoredObservation, code: Code) => [texts.of(o, code), JSON.stringify(toFhirObservation(o, code))];

describe('ObservationTexts', () => {
  it('renders every code in every effective-time form as toFhirObservation serialised', () => {
    let compared = 0;
    for (const code of codes) {
      for (const form of EFFECTIVE_FORMS) {
        for (const variant of [{}, { derived: true }, { unlifted: true }, { undated: true }, { identifiers: [{ system: 'urn:x', value: 'a' }, { value: 'b' }] }]) {
          const [text, expected] = bothWays(reading(code, { form, at: Date.UTC(2025, 2, 4, 10, 30, 15, compared % 2 ? 250 : 0) }, variant), code);
          expect(text).toBe(expected);
          compared += 1;
        }
      }
    }
    expect(compared).toBe(codes.length * EFFECTIVE_FORMS.length * 5);
  });

  it('follows the units and specimen that choose a reading’s codings, code by code', () => {
    const glucose = codes.find((c) => c.code === 'omh:blood-glucose:4.0')!;
    const members = [
      { blood_glucose: { value: 5.4, unit: 'mmol/L' }, specimen_source: 'interstitial fluid' },
      { blood_glucose: { value: 97, unit: 'mg/dL' }, specimen_source: 'capillary blood' },
      { blood_glucose: { value: 97, unit: 'mg/dL' }, specimen_source: undefined },
      { blood_glucose: { value: 5.4, unit: 'mmol/L' }, specimen_source: 'plasma' },
    ];
    // Each twice: the second from the writer's texts of the first.
    for (const m of [...members, ...members]) {
      const [text, expected] = bothWays(reading(glucose, { members: m }), glucose);
      expect(text).toBe(expected);
    }
    const [text] = bothWays(reading(glucose, { members: members[0] }), glucose);
    expect(JSON.parse(text!).component[0].valueQuantity).toEqual({ value: 5.4, unit: 'mmol/L', system: 'http://unitsofmeasure.org', code: 'mmol/L' });
  });

  it('escapes what the client sent (identifiers, status) and keeps any id and time', () => {
    const heartRate = codes.find((c) => c.code === 'omh:heart-rate:2.0')!;
    fc.assert(
      fc.property(
        fc.array(fc.record({ system: fc.option(fc.string(), { nil: undefined }), value: fc.string() }, { requiredKeys: ['value'] }), { maxLength: 3 }),
        fc.string(),
        fc.integer({ min: 1, max: Number.MAX_SAFE_INTEGER }),
        fc.integer({ min: -8.6e15, max: 8.6e15 }),
        fc.integer({ min: 0, max: 100_000 }),
        (identifiers, status, id, at, value) => {
          const o = reading(heartRate, { at, members: { heart_rate: { value, unit: 'beats/min' } } }, { identifiers, status, id, lastUpdated: new Date(Math.abs(at) % 4e12).toISOString() });
          const [text, expected] = bothWays(o, heartRate);
          expect(text).toBe(expected);
        },
      ),
      { numRuns: 300 },
    );
  });
});

describe('ObservationTexts and the code table', () => {
  it('writes a code as the table gives it, an edited display included', () => {
    const own = new ObservationTexts();
    const before: Code = { id: 99, system: 'https://w3id.org/openmhealth/schemas/omh', code: 'omh:heart-rate:2.0', display: 'Heart rate' };
    const after: Code = { ...before, display: 'Pulse' };
    const o = reading(before, {});
    expect(JSON.parse(own.of(o, before)).code.coding[0].display).toBe('Heart rate');
    expect(own.of(o, after)).toBe(JSON.stringify(toFhirObservation(o, after)));
    expect(JSON.parse(own.of(o, after)).code.coding[0].display).toBe('Pulse');
  });
});
