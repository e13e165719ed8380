/**
 * The glucose sensor tool: a patient's CGM summary over a period through the operation's own typed
 * function (`glucoseSummary`, the one `Patient/<id>/$cgm-summary` renders as FHIR): the consensus's
 * metrics with its targets and data sufficiency, and the ambulatory glucose profile by time of day
 * on the readings' own clocks, as structured content and lines a model can read.
 */
import * as z from 'zod';
import { AGP_PERCENTILES } from '../../cgm/agp';
import { effectivePeriodOf, notesOf, shownPercent } from '../../cgm/fhir';
import type { CgmSummary } from '../../cgm/metrics';
import { BANDS, METRIC_LABELS, TARGET_SETS, type TargetSetName } from '../../cgm/thresholds';
import { clockOf } from '../../cgm/time-of-day';
import { GLUCOSE_UNITS, shownGlucose, type GlucoseUnit } from '../../cgm/units';
import { glucoseSummary } from '../../observations/cgm/operation';
import { readVisiblePatient } from '../access';
import { fromField, optionalPatientIdField, toField } from '../fields';
import { defineTool } from '../tool';

const UNITS = GLUCOSE_UNITS as unknown as [GlucoseUnit, ...GlucoseUnit[]];
const TARGET_NAMES = [...TARGET_SETS.keys()] as [TargetSetName, ...TargetSetName[]];

/** Each band as the consensus names it, in mg/dL and mmol/L. */
const BAND_TEXT: Readonly<Record<(typeof BANDS)[number], Readonly<Record<GlucoseUnit, string>>>> = {
  veryLow: { 'mg/dL': 'very low (<54)', 'mmol/L': 'very low (<3.0)' },
  low: { 'mg/dL': 'low (54-69)', 'mmol/L': 'low (3.0-3.8)' },
  target: { 'mg/dL': 'in range (70-180)', 'mmol/L': 'in range (3.9-10.0)' },
  high: { 'mg/dL': 'high (181-250)', 'mmol/L': 'high (10.1-13.9)' },
  veryHigh: { 'mg/dL': 'very high (>250)', 'mmol/L': 'very high (>13.9)' },
};


const bandsShape = z.object(Object.fromEntries(BANDS.map((band) => [band, z.number().describe('% of the readings')])) as Record<(typeof BANDS)[number], z.ZodNumber>);
const profileBinShape = z.object({
  time: z.string().describe('Start of the 15-minute bin, HH:MM on the readings\' own clocks'),
  readings: z.number(),
  ...(Object.fromEntries(AGP_PERCENTILES.map((p) => [`p${p}`, z.number()])) as Record<`p${(typeof AGP_PERCENTILES)[number]}`, z.ZodNumber>),
});

/** The summary as the tool's structured content: figures rounded as the FHIR answer shows them, glucose in the unit asked. */
function structuredOf(patientId: number, summary: CgmSummary, unit: GlucoseUnit, period: { start: string; end: string }) {
  const g = summary.glucose;
  return {
    patientId,
    period: { ...period, days: shownPercent(summary.periodDays) },
    unit,
    readings: summary.readings,
    intervalMinutes: summary.interval.minutes,
    sensorActivePercent: shownPercent(summary.sensorActivePercent),
    daysOfWear: summary.daysOfWear,
    sufficient: summary.sufficiency.sufficient,
    glucose: g
      ? {
          mean: shownGlucose(g.meanMgdl, unit),
          sd: shownGlucose(g.sdMgdl, unit),
          cvPercent: shownPercent(g.cvPercent),
          gmiPercent: shownPercent(g.gmiPercent),
          min: shownGlucose(g.minMgdl, unit),
          max: shownGlucose(g.maxMgdl, unit),
          ranges: Object.fromEntries(BANDS.map((band) => [band, shownPercent(g.bands[band].percent)])) as Record<(typeof BANDS)[number], number>,
          targets: g.targets.map((t) => ({ name: METRIC_LABELS[t.metric][unit], value: shownPercent(t.value), target: `${t.comparator === '<=' ? '≤' : t.comparator} ${t.percent}%`, met: t.met })),
        }
      : null,
    notes: notesOf(summary, unit),
    profile: summary.agp.bins.flatMap((bin) =>
      bin.percentiles
        ? [{ time: clockOf(bin.startMinute), readings: bin.readings, ...(Object.fromEntries(AGP_PERCENTILES.map((p) => [`p${p}`, shownGlucose(bin.percentiles![p], unit)])) as Record<`p${(typeof AGP_PERCENTILES)[number]}`, number>) }]
        : [],
    ),
  };
}

type Structured = ReturnType<typeof structuredOf>;

/** A few lines: the period and the data, the metrics, the ranges, each target and shortfall, and the profile at each hour. */
function textOf(s: Structured): string {
  const u = s.unit;
  const lines = [
    `Glucose sensor of patient ${s.patientId}, ${s.period.start} to ${s.period.end} (${s.period.days} days), in ${u}:`,
    `- ${s.readings} readings, one every ${s.intervalMinutes} min; sensor active ${s.sensorActivePercent}%; ${s.daysOfWear} days of wear; ${s.sufficient ? 'enough data' : 'NOT enough data'} for the consensus's figures (14 days, 70% active).`,
  ];
  if (s.glucose) {
    const g = s.glucose;
    lines.push(`- mean ${g.mean} ${u} (SD ${g.sd}, range ${g.min}-${g.max}); GMI ${g.gmiPercent}%; CV ${g.cvPercent}%`);
    lines.push(`- time in ranges (${u}): ${BANDS.map((band) => `${BAND_TEXT[band][u]} ${g.ranges[band]}%`).join(', ')}`);
  }
  lines.push(...s.notes.map((n) => `- ${n}`));
  const hourly = s.profile.filter((b) => b.time.endsWith(':00'));
  if (hourly.length > 0) {
    lines.push(`Profile by time of day (median, 25th-75th, 5th-95th percentile, ${u}; the first 15 minutes of each hour):`);
    lines.push(...hourly.map((b) => `${b.time} ${b.p50} (${b.p25}-${b.p75}; ${b.p5}-${b.p95}), ${b.readings} readings`));
  }
  return lines.join('\n');
}

export const glucoseSummaryTool = defineTool({
  name: 'glucose_summary',
  title: "A glucose sensor's summary (CGM metrics and AGP)",
  description:
    "A patient's continuous glucose monitor (CGM) summary over a period, 14 days ending now by default: the International Consensus on Time in Range's metrics (mean glucose, GMI, CV, time very low / low / in range / high / very high, days of wear, sensor active %) judged against its targets, whether the data suffice (at least 14 days and 70% active), and the ambulatory glucose profile (5th-95th percentiles per 15 minutes of the day, on the readings' own clocks). From the same computation as the FHIR operation Patient/$cgm-summary.",
  input: {
    patientId: optionalPatientIdField,
    from: fromField,
    to: toField,
    timeZone: z
      .string()
      .max(64)
      .regex(/^[A-Za-z][A-Za-z0-9_+-]*(\/[A-Za-z0-9_+-]+)*$/, 'an IANA time zone such as Europe/Paris')
      .optional()
      .describe("An IANA time zone (America/Los_Angeles): the calendar a date in from and to is read on; UTC when left out. The profile always uses the readings' own clocks."),
    unit: z.enum(UNITS).optional().describe('mg/dL (default) or mmol/L'),
    targets: z.enum(TARGET_NAMES).optional().describe('The consensus targets: standard (most adults, the default) or older-or-high-risk'),
  },
  output: {
    patientId: z.number(),
    period: z.object({ start: z.string(), end: z.string(), days: z.number() }),
    unit: z.string(),
    readings: z.number(),
    intervalMinutes: z.number(),
    sensorActivePercent: z.number(),
    daysOfWear: z.number(),
    sufficient: z.boolean(),
    glucose: z
      .object({
        mean: z.number(),
        sd: z.number(),
        cvPercent: z.number(),
        gmiPercent: z.number(),
        min: z.number(),
        max: z.number(),
        ranges: bandsShape,
        targets: z.array(z.object({ name: z.string(), value: z.number(), target: z.string(), met: z.boolean() })),
      })
      .nullable()
      .describe('Absent (null) when the period holds no sensor reading'),
    notes: z.array(z.string()).describe('Each target with its figure, and why the data do not suffice when they do not'),
    profile: z.array(profileBinShape).describe('The 15-minute bins holding readings, from midnight'),
  },
  reads: ['Observation'],
  async run(args, context) {
    const { patientId, result } = await readVisiblePatient(context.caller, args.patientId, (id) =>
      glucoseSummary(
        context.caller,
        {
          subject: `Patient/${id}`,
          ...(args.from ? { start: args.from } : {}),
          ...(args.to ? { end: args.to } : {}),
          ...(args.timeZone ? { timeZone: args.timeZone } : {}),
          ...(args.unit ? { unit: args.unit } : {}),
          ...(args.targets ? { targets: args.targets } : {}),
        },
        context.now,
      ),
    );
    context.touched([patientId]);
    const structured = structuredOf(patientId, result.summary, result.unit, effectivePeriodOf(result.summary.period, result.clock));
    return { structured, text: textOf(structured) };
  },
});
