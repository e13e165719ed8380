import { describe, expect, it } from 'vitest';
import { HEADER } from '../../../../shared/omh/schemas/header';
import { issuesOf } from '../../../../shared/omh/schemas/validate';

const base = () => ({
  uuid: '6f1d2c3b-4a5e-4f60-8a7b-000000000001',
  schema_id: { namespace: 'omh', name: 'blood-pressure', version: '4.0' },
  source_creation_date_time: '2025-03-05T12:00:00Z',
  modality: 'sensed',
});
const check = (header: unknown) => issuesOf(HEADER, header, 'header');
const paths = (header: unknown) => check(header).map((i) => `${i.path}: ${i.message}`);

describe('IEEE 1752 header 1.0', () => {
  it('accepts the documented header, and unknown members such as acquisition_provenance', () => {
    expect(check(base())).toEqual([]);
    expect(check({ ...base(), acquisition_provenance: { source_name: 'iHealth' }, modality: 'self-reported' })).toEqual([]);
  });

  it.each(['uuid', 'schema_id', 'source_creation_date_time'])('requires %s', (member) => {
    const header: Record<string, unknown> = base();
    delete header[member];
    expect(paths(header)).toEqual([`header.${member}: is required`]);
  });

  it('requires namespace, name and version as strings', () => {
    expect(paths({ ...base(), schema_id: { namespace: 'omh', name: 'blood-pressure' } })).toEqual([
      'header.schema_id.version: is required',
    ]);
    expect(paths({ ...base(), schema_id: { namespace: 'omh', name: 'blood-pressure', version: 4.0 } })).toEqual([
      'header.schema_id.version: must be a string',
    ]);
    expect(check({ ...base(), schema_id: { namespace: 'omh', name: 'x', version: '1', extra: 1 } })).toEqual([]);
  });

  it('modality is sensed or self-reported', () => {
    expect(paths({ ...base(), modality: 'manual' })).toEqual(['header.modality: must be one of sensed, self-reported']);
  });

  it('uuid: the 8-4-4-4-12 hex shape, any version and variant bits, either case', () => {
    for (const uuid of ['aaaa1234-1a2b-3c4d-5e6f-123456789abc', 'AAAA1234-1A2B-3C4D-5E6F-123456789ABC', '00000000-0000-0000-0000-000000000000']) {
      expect(check({ ...base(), uuid })).toEqual([]);
    }
    for (const uuid of ['not-a-uuid', 'aaaa12341a2b3c4d5e6f123456789abc', '{aaaa1234-1a2b-3c4d-5e6f-123456789abc}', 'gaaa1234-1a2b-3c4d-5e6f-123456789abc', 42]) {
      expect(check({ ...base(), uuid }).map((i) => i.path)).toEqual(['header.uuid']);
    }
  });

  it('source_creation_date_time is a strict date-time with an offset', () => {
    expect(paths({ ...base(), source_creation_date_time: '2025-03-05T12:00:00' })[0]).toMatch(/offset/);
    expect(paths({ ...base(), source_creation_date_time: '2025-02-30T12:00:00Z' })[0]).toMatch(/does not exist/);
  });

  describe('acquisition_rate (exactly one frequency form)', () => {
    const rate = (acquisition_rate: unknown) => paths({ ...base(), acquisition_rate });

    it('accepts Hz, a count per duration, and a count per duration range', () => {
      expect(rate({ value: 50, unit: 'Hz' })).toEqual([]);
      expect(rate({ number_of_times: 3, time_window: { value: 1, unit: 'd' } })).toEqual([]);
      expect(rate({ number_of_times: 3, time_window: { low_value: 1, high_value: 2, unit: 'h' } })).toEqual([]);
    });

    it('names the problem of the form the value aims at', () => {
      expect(rate({ value: 50, unit: 'kHz' })).toEqual(['header.acquisition_rate.unit: must be one of Hz']);
      expect(rate({ number_of_times: 3, time_window: { value: 1, unit: 'days' } })).toEqual([
        'header.acquisition_rate.time_window.unit: must be one of ps, ns, us, ms, sec, min, h, d, wk, Mo, yr',
      ]);
      expect(rate({ number_of_times: '3', time_window: { value: 1, unit: 'd' } })).toEqual([
        'header.acquisition_rate.number_of_times: must be a number',
      ]);
    });

    it('rejects a value matching two forms, or none', () => {
      expect(rate({ number_of_times: 3, time_window: { value: 1, low_value: 1, high_value: 2, unit: 'h' } })[0]).toMatch(
        /time_window: matches more than one/,
      );
      expect(rate({ value: 1, unit: 'Hz', number_of_times: 3, time_window: { value: 1, unit: 'd' } })[0]).toMatch(/more than one/);
      expect(rate({})[0]).toMatch(/^header.acquisition_rate: must be exactly one of/);
    });
  });

  describe('external_datasheets', () => {
    const sheets = (external_datasheets: unknown) => paths({ ...base(), external_datasheets });

    it('accepts absolute and relative IRI references (the reference samples use "iHealth")', () => {
      expect(sheets([{ datasheet_reference: 'iHealth' }])).toEqual([]);
      expect(sheets([{ datasheet_reference: 'https://example.org/spec%20sheet.pdf', datasheet_type: 'manual' }])).toEqual([]);
      expect(sheets([{ datasheet_reference: 'urn:ieee:1752:Zoë' }])).toEqual([]);
    });

    it('requires datasheet_reference, an IRI, in an array', () => {
      expect(sheets([{ datasheet_type: 'manual' }])).toEqual(['header.external_datasheets[0].datasheet_reference: is required']);
      expect(sheets([{ datasheet_reference: 'a b' }])[0]).toMatch(/\[0\]\.datasheet_reference: must be an IRI/);
      expect(sheets([{ datasheet_reference: '100%' }])[0]).toMatch(/must be an IRI/);
      expect(sheets([{ datasheet_reference: '' }])[0]).toMatch(/must not be empty/);
      expect(sheets({ datasheet_reference: 'iHealth' })).toEqual(['header.external_datasheets: must be an array']);
    });
  });
});
