/**
 * Mobile-health payload checking, in process: `checkPayload` (decode, validate header and body,
 * lift the effective time) over a mix of every supported code and effective-time form, against
 * the floor any check must pay (Base64 decode + JSON.parse of the same attachments), and the
 * schema validation alone on already-parsed payloads. Median of several rounds.
 */
import { checkPayload } from '../shared/omh/check';
import { HEADER } from '../shared/omh/schemas/header';
import { schemaForCode } from '../shared/omh/schemas/index';
import type { PayloadIssue } from '../shared/omh/schemas/validate';
import { formsFor, sampleAttachment, samplePayload, SAMPLE_CODES } from '../shared/omh/samples';
import { median, printTable } from './table';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 7);
const ROUND_MS = 400;

interface Reading {
  code: string;
  attachment: { contentType: string; data: string };
}

function mix(): Reading[] {
  const readings: Reading[] = [];
  let at = Date.UTC(2025, 0, 1);
  for (let i = 0; i < 20; i++) {
    for (const code of SAMPLE_CODES) {
      for (const form of formsFor(code)) {
        at += 97_000;
        readings.push({ code, attachment: sampleAttachment(code, { at, form }) });
      }
    }
  }
  return readings;
}

/** Operations per second of `op` over `items`, median of the rounds. */
function rate<T>(items: readonly T[], op: (item: T) => unknown): number {
  const rates: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    let done = 0;
    const start = performance.now();
    let elapsed = 0;
    while (elapsed < ROUND_MS) {
      for (const item of items) op(item);
      done += items.length;
      elapsed = performance.now() - start;
    }
    rates.push((done / elapsed) * 1000);
  }
  return median(rates);
}

export async function omh(): Promise<void> {
  const readings = mix();
  const failures = readings.filter((r) => !checkPayload(r.code, r.attachment).ok);
  if (failures.length > 0) throw new Error(`sample payloads failed: ${failures.map((f) => f.code).join(', ')}`);

  const parsed = readings.map((r) => ({ schema: schemaForCode(r.code)!, payload: samplePayload(r.code) }));
  const floor = rate(readings, (r) => JSON.parse(Buffer.from(r.attachment.data, 'base64').toString('utf8')));
  const validateOnly = rate(parsed, ({ schema, payload }) => {
    const issues: PayloadIssue[] = [];
    HEADER(payload.header, 'header', issues);
    schema.body(payload.body, 'body', issues);
    return issues;
  });
  const full = rate(readings, (r) => checkPayload(r.code, r.attachment));

  const bytes = readings.reduce((sum, r) => sum + r.attachment.data.length, 0) / readings.length;
  const row = (what: string, perSecond: number) => ({
    what,
    'payloads/s': Math.round(perSecond).toLocaleString('en-US'),
    'µs/payload': (1e6 / perSecond).toFixed(2),
    'vs decode+parse': (floor / perSecond).toFixed(2),
  });
  printTable(
    `Mobile-health payload checks: ${readings.length} attachments, ${SAMPLE_CODES.length} codes, every allowed time-frame form, mean ${bytes.toFixed(0)} B Base64 (median of ${ROUNDS} rounds)`,
    [
      row('Base64 decode + JSON.parse (floor)', floor),
      row('header + body validation only', validateOnly),
      row('checkPayload (all of it)', full),
    ],
  );
}
