/**
 * A property of the CGM summary over random sensor traces (on the in-memory twins): whatever the
 * trace (a reading every 1, 5 or 15 minutes, mg/dL or mmol/L, outages, a clock that changes its
 * offset, a glucometer's readings and ones entered in error among them) and whatever the period
 * (cut within days or on midnights), the summary made from the day digests kept on upload and the
 * edge days' readings equals the one computed straight from the raw readings sent: counts, bands,
 * interval, sensor active %, days of wear, every profile bin exactly; mean, SD, CV and GMI up to
 * floating point. And what was read: the whole days' digests, and readings of the partial days only.
 */
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Caller } from '../../../shared/auth/caller';
import type { CgmReading } from '../../../shared/cgm/digest';
import { summariseReadings } from '../../../shared/cgm/metrics';
import { MGDL_PER_MMOLL } from '../../../shared/cgm/units';
import { glucoseSummary } from '../../../shared/observations/cgm/operation';
import { DAY, glucoseMembers, MINUTE } from '../../support/cgm';

const HOUR = 60 * MINUTE;
import { makeDataSource, makeOrganization, makePatient, makePractitioner, makeStudy } from '../../support/directory';
import { observation, statusesOf, upload } from '../../support/observations';
import type { DataSource, Organization } from '../../../shared/directory/model';

const GLUCOSE = 'omh:blood-glucose:4.0';
const START = Date.UTC(2025, 2, 1);
const OFFSETS = [-480, -420, -300, 0, 60, 330, 345, 600];

let organization: Organization;
let device: DataSource;
/** The organization's practitioner, who uploads for its patients (the device's path is the same). */
let uploader: string;
beforeAll(async () => {
  organization = await makeOrganization();
  device = await makeDataSource({ codes: [GLUCOSE] });
  uploader = ((await makePractitioner({ organizations: [organization] })) as { token: string }).token;
});

interface Trace {
  everyMinutes: 1 | 5 | 15;
  days: number;
  unit: 'mg/dL' | 'mmol/L';
  offsets: [number, number];
  /** Where the clock changes from the first offset to the second (share of the trace). */
  change: number;
  /** Outages: `[start share, length in readings]`. */
  outages: Array<[number, number]>;
  values: number[];
  /** Readings that are no sensor's: a glucometer's (capillary blood) or entered in error, at these shares of the trace. */
  others: number[];
  /** The period's start and end, in minutes from the trace's first day's midnight. */
  from: number;
  length: number;
}

const traceArbitrary: fc.Arbitrary<Trace> = fc
  .record({
    everyMinutes: fc.constantFrom(1 as const, 5 as const, 15 as const),
    unit: fc.constantFrom('mg/dL' as const, 'mmol/L' as const),
    offsets: fc.tuple(fc.constantFrom(...OFFSETS), fc.constantFrom(...OFFSETS)),
    change: fc.double({ min: 0, max: 1, noNaN: true }),
    outages: fc.array(fc.tuple(fc.double({ min: 0, max: 1, noNaN: true }), fc.integer({ min: 1, max: 200 })), { maxLength: 3 }),
    values: fc.array(fc.integer({ min: 35, max: 420 }), { minLength: 7, maxLength: 7 }),
    others: fc.array(fc.double({ min: 0, max: 1, noNaN: true }), { maxLength: 3 }),
  })
  // A minute sensor for a day at most, the others up to four: each run uploads at most about 1,500 readings.
  .chain((t) => fc.integer({ min: 1, max: t.everyMinutes === 1 ? 1 : 4 }).map((days) => ({ ...t, days })))
  // The period: whole days of the trace, or cut anywhere within it (its end up to half a day past the trace's).
  .chain((t) =>
    fc
      .oneof(
        fc.integer({ min: 0, max: t.days - 1 }).chain((day) => fc.integer({ min: 1, max: t.days - day }).map((days) => ({ from: day * 1440, length: days * 1440 }))),
        fc.integer({ min: 0, max: t.days * 1440 - 30 }).chain((from) => fc.integer({ min: 30, max: t.days * 1440 + 720 - from }).map((length) => ({ from, length }))),
      )
      .map((period) => ({ ...t, ...period })),
  );

interface Sent {
  resource: Record<string, unknown>;
  /** Undefined for a reading that is no sensor's. */
  raw?: CgmReading;
  at: number;
}

function readingsOf(t: Trace, patient: { id: number }): Sent[] {
  const world = { patient: patient as never, device };
  const count = Math.round((t.days * DAY) / (t.everyMinutes * MINUTE));
  const changeAt = Math.floor(t.change * count);
  const out: Sent[] = [];
  for (let i = 0; i < count; i += 1) {
    if (t.outages.some(([share, length]) => i >= Math.floor(share * count) && i < Math.floor(share * count) + length)) continue;
    // A few seconds of clock jitter.
    const at = START + i * t.everyMinutes * MINUTE + ((i * 7) % 5) * 1000;
    const offset = i < changeAt ? t.offsets[0] : t.offsets[1];
    const mgdl = t.values[i % t.values.length]! + (i % 3) * 0.4;
    const value = t.unit === 'mg/dL' ? mgdl : Math.round((mgdl / MGDL_PER_MMOLL) * 10) / 10;
    out.push({
      at,
      raw: { at, offsetMinutes: offset, mgdl: t.unit === 'mg/dL' ? value : value * MGDL_PER_MMOLL },
      resource: observation(world, { code: GLUCOSE, members: glucoseMembers(at, offset, value, t.unit) }),
    });
  }
  t.others.forEach((share, i) => {
    const at = START + Math.floor(share * t.days * DAY) + 17_000;
    const members = glucoseMembers(at, t.offsets[0], 99, 'mg/dL', i % 2 === 0 ? 'capillary blood' : 'interstitial fluid');
    out.push({ at, resource: observation(world, { code: GLUCOSE, members, ...(i % 2 === 0 ? {} : { status: 'entered-in-error' }) }) });
  });
  return out;
}

const close = (a: number | undefined, b: number | undefined) => a !== undefined && b !== undefined && Math.abs(a - b) <= 1e-9 * Math.max(1, Math.abs(b));

describe('the CGM summary from the digests kept on upload', () => {
  it('equals the summary of the raw readings, for random traces and periods', async () => {
    await fc.assert(
      fc.asyncProperty(traceArbitrary, async (t) => {
        const patient = (await makePatient({ organizations: [organization] })) as { id: number };
        await makeStudy({ organization, codes: [GLUCOSE], patients: [patient], consent: true, dataSources: [device] });
        const sent = readingsOf(t, patient);
        const caller: Caller = { kind: 'patient', userId: patient.id, patientId: patient.id, scopes: [] };
        for (let i = 0; i < sent.length; i += 500) {
          const res = await upload(uploader, sent.slice(i, i + 500).map((s) => s.resource));
          expect(statusesOf(res).every((s) => s === '201 Created')).toBe(true);
        }
        const from = START + t.from * MINUTE;
        const to = from + t.length * MINUTE;
        const result = await glucoseSummary(caller, { subject: `Patient/${patient.id}`, start: new Date(from).toISOString(), end: new Date(to - 1).toISOString() });
        const raw = sent.flatMap((s) => (s.raw ? [s.raw] : []));
        const expected = summariseReadings(raw, { period: { from, to } });
        const { glucose: got, ...gotRest } = result.summary;
        const { glucose: want, ...wantRest } = expected;
        expect(gotRest).toEqual(wantRest);
        expect(got === undefined).toBe(want === undefined);
        if (got && want) {
          const { meanMgdl, sdMgdl, cvPercent, gmiPercent, targets, ...exact } = got;
          const { meanMgdl: m, sdMgdl: s, cvPercent: c, gmiPercent: g, targets: wantTargets, ...wantExact } = want;
          expect(exact).toEqual(wantExact);
          for (const [a, b] of [[meanMgdl, m], [sdMgdl, s], [cvPercent, c], [gmiPercent, g]] as const) expect(close(a, b), `${a} vs ${b}`).toBe(true);
          expect(targets.map((x) => x.metric)).toEqual(wantTargets.map((x) => x.metric));
        }
        // Read: at most the readings of the parts of hours at the period's ends (none when an hour's digest lies inside its part), never of a whole hour or day inside it.
        const wholeFrom = Math.ceil(from / DAY) * DAY;
        const wholeTo = Math.floor(to / DAY) * DAY;
        const edges = wholeFrom < wholeTo ? [[from, wholeFrom], [wholeTo, to]] : [[from, to]];
        const partial = edges.flatMap(([a, b]) => {
          const [h0, h1] = [Math.ceil(a! / HOUR) * HOUR, Math.floor(b! / HOUR) * HOUR];
          return h0 < h1 ? [[a!, h0], [h1, b!]] : [[a!, b!]];
        });
        const inPartialHour = (at: number) => partial.some(([a, b]) => at >= a! && at < b!);
        expect(result.sources.readingsRead).toBeLessThanOrEqual(sent.filter((s) => inPartialHour(s.at)).length);
      }),
      { numRuns: Number(process.env.CGM_PROPERTY_RUNS ?? 20) },
    );
    // Each run uploads up to about 1,500 readings through the handler: minutes on a busy machine.
  }, 600_000);
});
