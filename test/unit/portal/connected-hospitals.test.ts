/** The hospitals a patient connected, read from their FHIR Sources, and the label the import gives a source. */
import { describe, expect, it } from 'vitest';
import { connectedHospitals, MAX_CONNECTED, sameServer, sourceLabel } from '../../../shared/portal/connected-hospitals';

const source = (id: number, fhirBaseUrl: unknown, label: unknown) => ({ id, patient: 3, dataSource: 1, label, fhirBaseUrl, lastUpdated: '2026-03-01T00:00:00Z' });

describe('connected hospitals', () => {
  it('lists each hospital once, newest source first, named by its label unless the label only repeats the URL', () => {
    const list = {
      count: 5,
      results: [
        source(9, 'https://fhir.mercy.example/api/FHIR/R4', 'Mercy Health'),
        source(8, 'https://fhir.clinic.example/r5', 'Hospital records (https://fhir.clinic.example/r5)'),
        source(7, 'https://fhir.mercy.example/api/FHIR/R4/', 'Mercy (older run)'),
        source(6, '', 'No URL'),
        source(5, 'ftp://files.example/', 'Not a web URL'),
      ],
    };
    expect(connectedHospitals(list)).toEqual([
      { name: 'Mercy Health', fhirBaseUrl: 'https://fhir.mercy.example/api/FHIR/R4' },
      { name: undefined, fhirBaseUrl: 'https://fhir.clinic.example/r5' },
    ]);
  });

  it('keeps a name as it is written (the page shows it as text), and ignores what is not a list', () => {
    const markup = '<img src=x onerror=alert(1)>Saint <b>Mary</b>';
    expect(connectedHospitals({ results: [source(1, 'https://h.example/fhir', markup)] })).toEqual([{ name: markup, fhirBaseUrl: 'https://h.example/fhir' }]);
    expect(connectedHospitals({ results: [source(1, 'https://h.example/fhir', 42)] })).toEqual([{ name: undefined, fhirBaseUrl: 'https://h.example/fhir' }]);
    for (const body of [undefined, null, 'text', { results: 'no' }, { results: [null, 1, 'x'] }]) expect(connectedHospitals(body)).toEqual([]);
  });

  it(`offers at most ${MAX_CONNECTED}`, () => {
    const many = Array.from({ length: 3 * MAX_CONNECTED }, (_, i) => source(i, `https://h${i}.example/fhir`, `Hospital ${i}`));
    expect(connectedHospitals({ results: many }).map((h) => h.name)).toEqual(many.slice(0, MAX_CONNECTED).map((s) => s.label));
  });

  it('compares base URLs without their trailing slashes', () => {
    expect(sameServer('https://h.example/fhir/', 'https://h.example/fhir')).toBe(true);
    expect(sameServer('https://h.example/fhir', 'https://h.example/fhir2')).toBe(false);
  });
});

describe('the label of an imported source', () => {
  it('is the hospital’s name in one line without angle brackets, else names the URL', () => {
    expect(sourceLabel('https://h.example/fhir', 'Fixture General Hospital')).toBe('Fixture General Hospital');
    expect(sourceLabel('https://h.example/fhir', '  <b>Saint</b>\n Mary\u0000s  ')).toBe('b Saint /b Mary s');
    expect(sourceLabel('https://h.example/fhir', 'x'.repeat(300))).toHaveLength(200);
    expect(sourceLabel('https://h.example/fhir', undefined)).toBe('Hospital records (https://h.example/fhir)');
    expect(sourceLabel('https://h.example/fhir', ' <> ')).toBe('Hospital records (https://h.example/fhir)');
    // What the import registers, read back, names the hospital; the unnamed form names none.
    const read = (label: string) => connectedHospitals({ results: [source(1, 'https://h.example/fhir', label)] })[0]!.name;
    expect(read(sourceLabel('https://h.example/fhir', 'Mercy'))).toBe('Mercy');
    expect(read(sourceLabel('https://h.example/fhir', undefined))).toBeUndefined();
  });
});
