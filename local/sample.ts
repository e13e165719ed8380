/**
 * `npm run --silent sample -- [code] [count]`: prints a batch Bundle of `count` valid readings of
 * `code` (default one `omh:heart-rate:2.0`), a minute apart and ending now, for the demo patient
 * and the demo device, ready to POST to `/FHIR/R5/`. `PATIENT` and `DEVICE` name others.
 * Each run makes new readings (fresh `header.uuid`s); posting the same file twice stores nothing new.
 */
import { randomUUID } from 'node:crypto';
import { DEMO_CODES, SEEDED_CODES } from '../shared/directory/codes';
import { formsFor, sampleAttachment } from '../shared/omh/samples';
import { schemaForCode } from '../shared/omh/schemas/index';

const MINUTE = 60_000;
const MAX_READINGS = 1000;

function fail(message: string): never {
  console.error(message);
  process.exit(2);
}

function main() {
  const [code = 'omh:heart-rate:2.0', countText = '1'] = process.argv.slice(2);
  const row = [...SEEDED_CODES, ...DEMO_CODES].find((c) => c.code === code);
  if (!row || !schemaForCode(code)) {
    const known = [...SEEDED_CODES, ...DEMO_CODES].filter((c) => schemaForCode(c.code)).map((c) => c.code);
    fail(`Unknown mobile-health code ${code}; one of: ${known.join(', ')}`);
  }
  const count = Number(countText);
  if (!Number.isInteger(count) || count < 1 || count > MAX_READINGS) fail(`count must be a whole number from 1 to ${MAX_READINGS}`);
  const patient = process.env.PATIENT ?? '1';
  const device = process.env.DEVICE ?? '1';
  const now = Math.floor(Date.now() / MINUTE) * MINUTE;
  // A point in time where the schema allows one, so readings a minute apart are a minute apart
  // (a part-of-day example would put them all in the same morning).
  const form = formsFor(code).includes('date_time') ? ('date_time' as const) : undefined;
  const entry = Array.from({ length: count }, (_, i) => ({
    resource: {
      resourceType: 'Observation',
      status: 'final',
      code: { coding: [{ system: row.system, code: row.code }] },
      subject: { reference: `Patient/${patient}` },
      device: { reference: `Device/${device}` },
      valueAttachment: sampleAttachment(code, { uuid: randomUUID(), at: now - (count - 1 - i) * MINUTE, ...(form ? { form } : {}) }),
    },
    request: { method: 'POST', url: 'Observation' },
  }));
  process.stdout.write(`${JSON.stringify({ resourceType: 'Bundle', type: 'batch', entry }, null, 2)}\n`);
}

main();
