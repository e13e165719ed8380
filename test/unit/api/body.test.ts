/** `/api/v1/` input parsing: key spellings, field errors in the wording clients know, field policies. */
import { describe, expect, it } from 'vitest';
import { parseBody, queryObject } from '../../../shared/api/body';
import { bool, date, email, id, identifier, list, name, optional, optionalUrl, phone, plain, requiredName, safeParse, strict, text, type Schema } from '../../../shared/api/fields';
import { camelCase, snakeCase, snakeCaseKeys } from '../../../shared/api/names';
import { HttpError } from '../../../shared/http/errors';

function fieldsOf(fn: () => unknown): Record<string, string[]> {
  try {
    fn();
  } catch (e) {
    expect(e).toBeInstanceOf(HttpError);
    expect((e as HttpError).status).toBe(400);
    return (e as HttpError).fields ?? {};
  }
  throw new Error('expected a 400');
}

const schema = strict({
  data_source: id(),
  label: optional(name()),
  nested: optional(list(strict({ study_id: id(), consented: bool() }), 0, 10)),
});

describe('key spellings', () => {
  it('converts between snake_case and camelCase', () => {
    expect(snakeCase('fhirBaseUrl')).toBe('fhir_base_url');
    expect(snakeCase('fhir_base_url')).toBe('fhir_base_url');
    expect(camelCase('study_scope_consents')).toBe('studyScopeConsents');
    expect(snakeCaseKeys({ studyScopeConsents: [{ studyId: 1 }] })).toEqual({ study_scope_consents: [{ study_id: 1 }] });
  });

  it('accepts camelCase bodies and refuses a key given in both spellings', () => {
    expect(parseBody(schema, { dataSource: 3, label: 'EHR' })).toEqual({ data_source: 3, label: 'EHR' });
    expect(fieldsOf(() => parseBody(schema, { dataSource: 3, data_source: 4 }))).toEqual({ dataSource: ['This field was given twice (snake_case and camelCase).'] });
  });

  it('does not let a body reach object prototypes', () => {
    const parsed = snakeCaseKeys(JSON.parse('{"__proto__": {"polluted": 1}, "a": 1}'));
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(Object.getPrototypeOf(parsed)).toBe(Object.prototype);
    expect(() => parseBody(schema, JSON.parse('{"__proto__": {"polluted": 1}, "data_source": 1}'))).toThrow(HttpError);
  });
});

describe('field errors', () => {
  it('names missing, unknown and mistyped fields in camelCase, nested ones dotted', () => {
    expect(fieldsOf(() => parseBody(schema, { label: 5, color: 'red', nested: [{ study_id: 'x', consented: 'yes', extra: 1 }] }))).toEqual({
      dataSource: ['This field is required.'],
      label: ['Not a valid string.'],
      color: ['Unknown field.'],
      'nested.0.studyId': ['A valid integer is required.'],
      'nested.0.consented': ['Must be a valid boolean.'],
      'nested.0.extra': ['Unknown field.'],
    });
  });

  it('refuses a body that is not an object', () => {
    expect(fieldsOf(() => parseBody(schema, [1, 2]))).toEqual({ nonFieldErrors: ['Invalid data. Expected a dictionary, but got list.'] });
    expect(fieldsOf(() => parseBody(schema, 'text'))).toEqual({ nonFieldErrors: ['Invalid data. Expected a dictionary, but got string.'] });
  });

  it('treats an absent body as an empty object', () => {
    expect(fieldsOf(() => parseBody(schema, undefined))).toEqual({ dataSource: ['This field is required.'] });
  });

  it('reports null and lists where they do not belong', () => {
    expect(fieldsOf(() => parseBody(strict({ a: plain(0, 5), b: list(plain(0, 5), 0, 5) }), { a: null, b: 'x' }))).toEqual({
      a: ['This field may not be null.'],
      b: ['Expected a list of items but got type "string".'],
    });
  });
});

describe('field policies', () => {
  const ok = (s: Schema, v: unknown) => safeParse(s, v).success;

  it('ids are positive integers or their decimal text', () => {
    expect(id().parse('12')).toBe(12);
    expect(id().parse(12)).toBe(12);
    for (const bad of ['0', '-1', '1.5', '1e3', '1 OR 1=1', '12abc', 1.5, true, null, '9999999999999999']) expect(ok(id(), bad)).toBe(false);
  });

  it('names refuse markup, control characters and oversized text, and are trimmed', () => {
    expect(name().parse("  O'Brien-Smith  ")).toBe("O'Brien-Smith");
    expect(ok(name(), "Robert'); DROP TABLE patients;--")).toBe(true);
    for (const bad of ['<script>alert(1)</script>', 'a\u0000b', 'two\nlines', 'x'.repeat(151)]) expect(ok(name(), bad)).toBe(false);
    expect(ok(requiredName(), '   ')).toBe(false);
  });

  it('text allows line breaks but no other control characters', () => {
    expect(ok(text(), 'line one\nline two < three')).toBe(true);
    expect(ok(text(), 'bell\u0007')).toBe(false);
    expect(ok(text(), 'see <a href="x">here</a>')).toBe(false);
    expect(ok(text(), '<!-- x -->')).toBe(false);
    expect(ok(text(), 'x'.repeat(5001))).toBe(false);
  });

  it('dates must be real calendar days', () => {
    expect(ok(date(), '2024-02-29')).toBe(true);
    for (const bad of ['2023-02-29', '2024-13-01', '2024-1-1', '0000-01-01', '2024-01-01T00:00:00Z', "2024-01-01' OR '1'='1"]) expect(ok(date(), bad)).toBe(false);
  });

  it('emails, phones, URLs and identifiers', () => {
    expect(ok(email(), 'a@example.org')).toBe(true);
    expect(ok(email(), 'not-an-email')).toBe(false);
    expect(ok(phone(), '+1 (555) 010-0100')).toBe(true);
    expect(ok(phone(), 'call me')).toBe(false);
    expect(ok(optionalUrl(), '')).toBe(true);
    expect(ok(optionalUrl(), 'https://ehr.example.org/fhir')).toBe(true);
    for (const bad of ['javascript:alert(1)', 'ftp://x.org', 'https://exa mple.org', 'not a url']) expect(ok(optionalUrl(), bad)).toBe(false);
    expect(ok(identifier(), { system: 'https://ehr.example.org', value: 'MRN 12' })).toBe(true);
    expect(ok(identifier(), { system: 'has spaces', value: 'x' })).toBe(false);
    expect(ok(identifier(), { system: 'urn:x', value: 'x'.repeat(257) })).toBe(false);
    expect(ok(identifier(), { system: 'urn:x', value: 'x', use: 'official' })).toBe(false);
  });
});

describe('query parameters', () => {
  it('takes the named ones in either spelling, once', () => {
    expect(queryObject(new URLSearchParams('organizationId=3&other=1'), ['organization_id'])).toEqual({ organization_id: '3' });
    expect(fieldsOf(() => queryObject(new URLSearchParams('organization_id=3&organizationId=4'), ['organization_id']))).toEqual({
      organizationId: ['This parameter was given more than once.'],
    });
  });
});
