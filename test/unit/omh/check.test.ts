import { describe, expect, it } from 'vitest';
import { checkPayload, type PayloadCheck } from '../../../shared/omh/check';
import { fhirEffective } from '../../../shared/omh/effective-time';
import { EXAMPLE_BODIES, encodePayload, sampleAttachment, samplePayload, SAMPLE_CODES } from '../../../shared/omh/samples';
import { parseSchemaCode } from '../../../shared/omh/schemas/index';

const HEADER = {
  uuid: '6f1d2c3b-4a5e-4f60-8a7b-000000000001',
  schema_id: { namespace: 'omh', name: 'blood-pressure', version: '4.0' },
  source_creation_date_time: '2025-03-05T12:00:00Z',
  modality: 'sensed',
};

const headerFor = (code: string) => ({ ...HEADER, schema_id: parseSchemaCode(code) });
const attach = (data: string) => ({ contentType: 'application/json', data });
const json = (text: string) => attach(Buffer.from(text, 'utf8').toString('base64'));
const payloadOf = (code: string, body: unknown, header: unknown = headerFor(code)) => attach(encodePayload({ header, body }));

function failed(result: PayloadCheck) {
  if (result.ok) throw new Error('expected a failure');
  return { status: result.status, issues: result.issues.map((i) => ({ code: i.code, diagnostics: i.diagnostics, expression: i.expression })) };
}

describe('checkPayload', () => {
  it.each(SAMPLE_CODES)('accepts the documented example payload of %s', (code) => {
    const result = checkPayload(code, payloadOf(code, EXAMPLE_BODIES[code]));
    expect(result).toMatchObject({ ok: true, schema: { code }, uuid: HEADER.uuid });
  });

  it('returns the typed payload, the uuid in lower case and the lifted effective time', () => {
    const header = { ...headerFor('omh:blood-pressure:4.0'), uuid: 'AAAA1234-1A2B-3C4D-5E6F-123456789ABC' };
    const result = checkPayload('omh:blood-pressure:4.0', payloadOf('omh:blood-pressure:4.0', EXAMPLE_BODIES['omh:blood-pressure:4.0'], header));
    if (!result.ok) throw new Error(JSON.stringify(result.issues));
    expect(result.uuid).toBe('aaaa1234-1a2b-3c4d-5e6f-123456789abc');
    expect(result.payload.header.schema_id).toEqual({ namespace: 'omh', name: 'blood-pressure', version: '4.0' });
    expect(result.payload.body.body_posture).toBe('sitting');
    expect(fhirEffective(result.effective)).toEqual({ effectiveDateTime: '2025-03-01T12:58:00Z' });
  });

  it('a body without a time frame passes with no effective time', () => {
    const result = checkPayload('omh:rr-interval:1.0', payloadOf('omh:rr-interval:1.0', EXAMPLE_BODIES['omh:rr-interval:1.0']));
    expect(result).toMatchObject({ ok: true, effective: undefined });
  });

  it('accepts non-ASCII UTF-8 text in the payload', () => {
    const body = { ...EXAMPLE_BODIES['omh:physical-activity:1.2'], activity_name: 'Radfahren mit Zoë bei 12 °C' };
    const result = checkPayload('omh:physical-activity:1.2', payloadOf('omh:physical-activity:1.2', body));
    expect(result.ok && result.payload.body.activity_name).toBe('Radfahren mit Zoë bei 12 °C');
  });

  it('reads integers written with a zero fraction as integers', () => {
    const text = (n: string) =>
      `{"header":${JSON.stringify(headerFor('omh:sleep-episode:1.1'))},"body":{"effective_time_frame":{"time_interval":{"date":"2025-03-02","part_of_day":"night"}},"number_of_awakenings":${n}}}`;
    expect(checkPayload('omh:sleep-episode:1.1', json(text('2.0'))).ok).toBe(true);
    expect(failed(checkPayload('omh:sleep-episode:1.1', json(text('2.5'))))).toMatchObject({
      status: 422,
      issues: [{ diagnostics: 'body.number_of_awakenings: must be an integer' }],
    });
  });

  describe('400: not a readable payload', () => {
    it('an unknown code', () => {
      expect(failed(checkPayload('omh:heart-rate:9.9', sampleAttachment('omh:heart-rate:2.0')))).toEqual({
        status: 400,
        issues: [{ code: 'code-invalid', diagnostics: 'No mobile-health schema is known for the code omh:heart-rate:9.9', expression: ['Observation.code.coding[0].code'] }],
      });
    });

    it.each([
      ['non-Base64 data', attach('{"header":{}}'), /Base64/],
      ['Base64 of non-JSON', json('hello'), /does not decode to JSON/],
      ['invalid UTF-8', attach(Buffer.from([0x22, 0xc3, 0x28, 0x22]).toString('base64')), /UTF-8/],
      ['a wrong content type', { contentType: 'text/plain', data: sampleAttachment('omh:heart-rate:2.0').data }, /contentType/],
      ['no data', { contentType: 'application/json' }, /data is required/],
    ])('%s', (_, valueAttachment, message) => {
      const { status, issues } = failed(checkPayload('omh:heart-rate:2.0', valueAttachment));
      expect(status).toBe(400);
      expect(issues).toHaveLength(1);
      expect(issues[0]!.diagnostics).toMatch(message);
      expect(issues[0]!.expression![0]).toMatch(/^Observation\.valueAttachment/);
    });
  });

  describe('422: a payload that fails its schemas', () => {
    it('names the failing member in the diagnostics and the expression', () => {
      const body = { ...EXAMPLE_BODIES['omh:heart-rate:2.0'], heart_rate: { value: 58, unit: 'bpm' } };
      expect(failed(checkPayload('omh:heart-rate:2.0', payloadOf('omh:heart-rate:2.0', body)))).toEqual({
        status: 422,
        issues: [
          {
            code: 'value',
            diagnostics: 'body.heart_rate.unit: must be one of beats/min',
            expression: ['Observation.valueAttachment.data.body.heart_rate.unit'],
          },
        ],
      });
    });

    it('reports every header and body issue at once', () => {
      const header = { ...headerFor('omh:heart-rate:2.0'), modality: 'manual', uuid: 'not-a-uuid' };
      const body = { effective_time_frame: { date_time: '2025-02-30T10:00:00Z' } };
      const { status, issues } = failed(checkPayload('omh:heart-rate:2.0', payloadOf('omh:heart-rate:2.0', body, header)));
      expect(status).toBe(422);
      expect(issues.map((i) => i.expression![0])).toEqual([
        'Observation.valueAttachment.data.header.uuid',
        'Observation.valueAttachment.data.header.modality',
        'Observation.valueAttachment.data.body.heart_rate',
        'Observation.valueAttachment.data.body.effective_time_frame.date_time',
      ]);
      expect(issues[2]).toMatchObject({ code: 'required', diagnostics: 'body.heart_rate: is required' });
      expect(issues[3]!.diagnostics).toMatch(/does not exist \(2025-02-30\)/);
    });

    it('a header whose schema_id names another schema', () => {
      for (const schema_id of [
        { namespace: 'omh', name: 'blood-pressure', version: '4.0' },
        { namespace: 'omh', name: 'heart-rate', version: '2' },
        { namespace: 'ieee', name: 'heart-rate', version: '2.0' },
      ]) {
        const payload = payloadOf('omh:heart-rate:2.0', EXAMPLE_BODIES['omh:heart-rate:2.0'], { ...HEADER, schema_id });
        expect(failed(checkPayload('omh:heart-rate:2.0', payload)).issues).toEqual([
          {
            code: 'value',
            diagnostics: `header.schema_id: names ${schema_id.namespace}:${schema_id.name}:${schema_id.version}, but the Observation is coded omh:heart-rate:2.0`,
            expression: ['Observation.valueAttachment.data.header.schema_id'],
          },
        ]);
      }
    });

    it('a header schema_id with a number version is a type error, not a mismatch', () => {
      const header = { ...HEADER, schema_id: { namespace: 'omh', name: 'heart-rate', version: 2.0 } };
      const payload = payloadOf('omh:heart-rate:2.0', EXAMPLE_BODIES['omh:heart-rate:2.0'], header);
      expect(failed(checkPayload('omh:heart-rate:2.0', payload)).issues.map((i) => i.diagnostics)).toEqual([
        'header.schema_id.version: must be a string',
      ]);
    });

    it.each([
      [{ start_date_time: '2025-03-02T02:00:00Z', end_date_time: '2025-03-02T01:00:00Z' }, /ends \(2025-03-02T01:00:00Z\) before it starts/],
      [{ start_date_time: '2025-03-02T02:00:00Z', duration: { value: -2, unit: 'h' } }, /ends .* before it starts/],
      [{ start_date_time: '9999-12-31T02:00:00Z', duration: { value: 1, unit: 'wk' } }, /0001-9999/],
    ])('a time frame that lifts to no valid period: %j', (time_interval, message) => {
      const body = { ...EXAMPLE_BODIES['omh:heart-rate:2.0'], effective_time_frame: { time_interval } };
      expect(failed(checkPayload('omh:heart-rate:2.0', payloadOf('omh:heart-rate:2.0', body)))).toMatchObject({
        status: 422,
        issues: [{ expression: ['Observation.valueAttachment.data.body.effective_time_frame'], diagnostics: expect.stringMatching(message) }],
      });
    });

    it('lists at most 50 issues, then says how many more there are', () => {
      const code = 'ieee:sleep-stage-summary:1.0';
      const body = { ...EXAMPLE_BODIES[code], sleep_stage_episodes: Array.from({ length: 200 }, () => ({})) };
      const { issues } = failed(checkPayload(code, payloadOf(code, body)));
      expect(issues).toHaveLength(51);
      expect(issues[49]!.diagnostics).toBe('body.sleep_stage_episodes[24].sleep_stage_time_frame: is required');
      expect(issues[50]).toEqual({ code: 'too-costly', diagnostics: '350 further issues in the payload are not listed', expression: ['Observation.valueAttachment.data'] });
    });

    it('a JSON document without header or body', () => {
      expect(failed(checkPayload('omh:heart-rate:2.0', json('{"body":{}}')))).toMatchObject({
        status: 422,
        issues: [{ diagnostics: 'header: is required', expression: ['Observation.valueAttachment.data.header'] }],
      });
    });
  });

  it('accepts every sample of every code in every form its schema allows', () => {
    const at = Date.UTC(2025, 5, 15, 9, 30);
    for (const code of SAMPLE_CODES) {
      const result = checkPayload(code, attach(encodePayload(samplePayload(code, { at }))));
      expect(result.ok, code).toBe(true);
    }
  });
});
