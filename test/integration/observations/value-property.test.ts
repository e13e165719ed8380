/**
 * Search by value against a plain computation over the payloads sent (docs/api.md#search-by-value):
 * random heart rates, body weights (kilograms and pounds mixed) and blood pressures over random
 * days and hours, re-posts and a purge of the patient, searched with random value criteria
 * (prefixes, with and without units, OR-alternatives, repetitions, component and composite forms)
 * and codes; every page's ids and the `_summary=count` total must be the plain computation's. The
 * plain computation decodes each payload and converts units with the UCUM table
 * (shared/omh/quantities.ts) only: it knows nothing of the day summaries the search plans its
 * reads by, nor of the search's matchers.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { OMH_SYSTEM } from '../../../shared/fhir/constants';
import { deletePatientObservations } from '../../../shared/observations/delete';
import { canonicalOf, ucumOf, UCUM_SYSTEM } from '../../../shared/omh/quantities';
import { allPages, matchIds, observation, observationWorld, search, upload, type ObservationWorld } from '../../support/observations';

const START = Date.UTC(2025, 4, 1);
const MINUTE = 60_000;
const LOINC = 'http://loinc.org';
const MEMBER_SYSTEM = 'omh-member';

type Kind = 'hr' | 'weight' | 'bp';
const CODES: Record<Kind, { omh: string; loinc: string }> = {
  hr: { omh: 'omh:heart-rate:2.0', loinc: '8867-4' },
  weight: { omh: 'omh:body-weight:3.0', loinc: '29463-7' },
  bp: { omh: 'omh:blood-pressure:4.0', loinc: '85354-9' },
};

interface Sent {
  kind: Kind;
  minute: number;
  value: number;
  second: number;
  pounds: boolean;
  repost: boolean;
  /** Uploaded again after the purge. */
  again: boolean;
}

function resourceOf(w: ObservationWorld, r: Sent): Record<string, unknown> {
  const at = START + r.minute * MINUTE;
  const members =
    r.kind === 'hr'
      ? { heart_rate: { value: r.value, unit: 'beats/min' } }
      : r.kind === 'weight'
        ? { body_weight: { value: r.value / 10, unit: r.pounds ? 'lb' : 'kg' } }
        : { systolic_blood_pressure: { value: r.value, unit: 'mmHg' }, diastolic_blood_pressure: { value: r.second, unit: 'mmHg' } };
  return observation(w, { code: CODES[r.kind].omh, at, form: 'date_time', members });
}

/** A query unit: none, an Open mHealth unit as written (`||lb`) or a UCUM code with its system. */
type Unit = { text: string; ucum: string } | undefined;
const UNITS: Unit[] = [undefined, { text: '||kg', ucum: 'kg' }, { text: '||lb', ucum: '[lb_av]' }, { text: `|${UCUM_SYSTEM}|kg`, ucum: 'kg' }, { text: '||beats/min', ucum: '/min' }, { text: `|${UCUM_SYSTEM}|mm[Hg]`, ucum: 'mm[Hg]' }];
const PREFIXES = ['eq', 'ne', 'gt', 'lt', 'ge', 'le', 'sa', 'eb', 'ap'] as const;
type Prefix = (typeof PREFIXES)[number];

interface Alternative {
  /** A composite's code part (a LOINC code). */
  code?: string;
  prefix: Prefix;
  n: number;
  unit: Unit;
}
interface Criterion {
  param: string;
  alternatives: Alternative[];
}
const COMPOSITE = new Set(['code-value-quantity', 'component-code-value-quantity', 'combo-code-value-quantity']);
const PARAMS = ['value-quantity', 'component-value-quantity', 'combo-value-quantity', ...COMPOSITE];
const COMPOSITE_CODES = ['8867-4', '29463-7', '8480-6', '8462-4', '85354-9'];

const text = (c: Criterion) => c.alternatives.map((a) => `${a.code ? `${LOINC}|${a.code}$` : ''}${a.prefix}${a.n}${a.unit?.text ?? ''}`).join(',');

/** A measure as FHIR shows it: its codings and its value with the unit as uploaded. */
interface Measure {
  codings: Array<{ system: string; code: string }>;
  value: { value: number; unit: string } | undefined;
}

/** The plain computation's measures of a payload body: the reading (its principal value) and its components. */
function measuresOf(kind: Kind, body: Record<string, { value: number; unit: string }>): { reading: Measure; components: Measure[] } {
  const codings = [
    { system: OMH_SYSTEM, code: CODES[kind].omh },
    { system: LOINC, code: CODES[kind].loinc },
  ];
  if (kind === 'bp') {
    return {
      reading: { codings, value: undefined },
      components: [
        { codings: [{ system: LOINC, code: '8480-6' }], value: body.systolic_blood_pressure },
        { codings: [{ system: LOINC, code: '8462-4' }], value: body.diastolic_blood_pressure },
      ],
    };
  }
  // A component coded as the reading is coded by its member in the service's own system instead (obs-7).
  const member = kind === 'hr' ? body.heart_rate! : body.body_weight!;
  return { reading: { codings, value: member }, components: [{ codings: [{ system: MEMBER_SYSTEM, code: kind }], value: member }] };
}

/** Whether a value matches one alternative's number and unit, as the FHIR quantity rules say. */
function valueMatches(v: { value: number; unit: string }, a: Alternative): boolean {
  let value = v.value;
  let [lo, hi, n] = [a.n - 0.5, a.n + 0.5, a.n];
  if (a.unit) {
    const target = canonicalOf(a.unit.ucum)!;
    const own = canonicalOf(ucumOf(v.unit)!)!;
    if (target.canonical !== own.canonical) return false;
    const to = (x: number, u: typeof target) => x * u.factor + u.offset;
    value = to(value, own);
    [lo, hi, n] = [to(lo, target), to(hi, target), to(n, target)];
  }
  switch (a.prefix) {
    case 'eq':
      return value >= lo && value < hi;
    case 'ne':
      return !(value >= lo && value < hi);
    case 'gt':
    case 'sa':
      return value > n;
    case 'lt':
    case 'eb':
      return value < n;
    case 'ge':
      return value >= n;
    case 'le':
      return value <= n;
    case 'ap':
      return Math.abs(value - n) <= Math.abs(n) * 0.1;
  }
}

function matches(kind: Kind, body: Record<string, { value: number; unit: string }>, c: Criterion): boolean {
  const { reading, components } = measuresOf(kind, body);
  const inScope = c.param.startsWith('value') || c.param.startsWith('code') ? [reading] : c.param.startsWith('component') ? components : [reading, ...components];
  return inScope.some((m) => m.value !== undefined && c.alternatives.some((a) => (a.code === undefined || m.codings.some((x) => x.system === LOINC && x.code === a.code)) && valueMatches(m.value!, a)));
}

const bodyOf = (resource: Record<string, unknown>) =>
  (JSON.parse(Buffer.from((resource.valueAttachment as { data: string }).data, 'base64').toString('utf8')) as { body: Record<string, { value: number; unit: string }> }).body;

const reading = fc.record({
  kind: fc.constantFrom<Kind>('hr', 'weight', 'bp'),
  minute: fc.integer({ min: 0, max: 4 * 24 * 60 - 1 }),
  value: fc.integer({ min: 40, max: 1300 }),
  second: fc.integer({ min: 40, max: 130 }),
  pounds: fc.boolean(),
  repost: fc.boolean(),
  again: fc.boolean(),
});

/** Units a query may give for a kind's values (none: the value as uploaded), and the composite codes that name its values. */
const FOR_KIND: Record<Kind, { units: Unit[]; codes: string[]; n: [number, number] }> = {
  hr: { units: [undefined, UNITS[4]], codes: ['8867-4'], n: [40, 180] },
  weight: { units: [undefined, UNITS[1], UNITS[2], UNITS[3]], codes: ['29463-7'], n: [4, 300] },
  bp: { units: [undefined, UNITS[5]], codes: ['8480-6', '8462-4', '85354-9'], n: [40, 200] },
};

/** An alternative aimed at one kind's values, or (one in five) any unit and code at all. */
const alternative = (composite: boolean) =>
  fc.tuple(fc.constantFrom<Kind>('hr', 'weight', 'bp'), fc.integer({ min: 0, max: 4 })).chain(([kind, aim]) => {
    const any = aim === 0;
    const { units, codes, n } = FOR_KIND[kind];
    return fc.record({
      code: composite ? fc.constantFrom(...(any ? COMPOSITE_CODES : codes)) : fc.constant(undefined),
      prefix: fc.constantFrom(...PREFIXES),
      n: fc.integer({ min: n[0], max: n[1] }),
      unit: fc.constantFrom(...(any ? UNITS : units)),
    });
  });

const criterion = fc.constantFrom(...PARAMS).chain((param) => fc.record({ param: fc.constant(param), alternatives: fc.array(alternative(COMPOSITE.has(param)), { minLength: 1, maxLength: 2 }) }));

describe('search by value against a plain computation over the payloads sent', () => {
  it('random readings, criteria and codes; re-posts and a purge', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(reading, { minLength: 1, maxLength: 40 }),
        fc.array(criterion, { minLength: 1, maxLength: 2 }),
        fc.subarray<Kind>(['hr', 'weight', 'bp']),
        fc.constantFrom('', '&_sort=date', '&_sort=-date'),
        fc.boolean(),
        async (readings, criteria, kinds, sort, purge) => {
          const w = await observationWorld();
          // A heart rate is a whole number of beats, a weight tenths of a unit, a blood pressure's systolic 40-200.
          const sent = readings.map((r) => ({ ...r, value: r.kind === 'bp' ? 40 + (r.value % 161) : r.kind === 'hr' ? 40 + (r.value % 141) : r.value }));
          const resources = sent.map((r) => resourceOf(w, r));
          const first = await upload(w.patient.token, resources);
          expect(first.status).toBe(200);
          let stored = new Map<string, number>(); // id -> index of the reading
          (first.json.entry as Array<{ resource: { id: string } }>).forEach((e, i) => stored.set(e.resource.id, i));
          const reposted = sent.flatMap((r, i) => (r.repost ? [i] : []));
          if (reposted.length > 0) {
            const again = await upload(w.patient.token, reposted.map((i) => resources[i]));
            (again.json.entry as Array<{ resource: { id: string } }>).forEach((e) => expect(stored.has(e.resource.id)).toBe(true));
          }
          if (purge) {
            await deletePatientObservations(w.patient.id);
            stored = new Map();
            const kept = sent.flatMap((r, i) => (r.again ? [i] : []));
            if (kept.length > 0) {
              const res = await upload(w.patient.token, kept.map((i) => resources[i]));
              (res.json.entry as Array<{ resource: { id: string } }>).forEach((e, n) => stored.set(e.resource.id, kept[n]!));
            }
          }

          const params = new URLSearchParams({ patient: String(w.patient.id), _count: '7' });
          // One `code`, an OR of the chosen codes (none: every code).
          if (kinds.length > 0) params.append('code', kinds.map((k) => CODES[k].omh).join(','));
          for (const c of criteria) params.append(c.param, text(c));
          const q = `${params}${sort}`;

          const want = [...stored]
            .filter(([, i]) => (kinds.length === 0 || kinds.includes(sent[i]!.kind)) && criteria.every((c) => matches(sent[i]!.kind, bodyOf(resources[i]!), c)))
            .map(([id]) => id)
            .sort();
          const pages = await allPages(w.patient.token, q);
          for (const page of pages) expect(page.status, JSON.stringify(page.json)).toBe(200);
          expect(pages.flatMap(matchIds).sort(), q).toEqual(want);
          const count = await search(w.patient.token, `${q}&_summary=count`);
          expect(count.json.total, q).toBe(want.length);
        },
      ),
      { numRuns: 30 },
    );
  });
});
