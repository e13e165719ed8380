/**
 * The day summaries' store in memory: a twin of `dynamo-summaries.ts` for tests that need no
 * tables, held to the same behaviour by test/contract/summary-store.ts. It keeps what the table
 * keeps (histograms past the item's bound left out, `asKept`) under the same rule.
 */
import { figuresOf, type CgmDigest } from '../../cgm/digest';
import { copy, holding, innerMap, nestedEntries } from '../../store/memory';
import { DIGEST_NOT_KEPT, hourKeyOf, type DaySummary } from '../stats/day-summary';
import { asKept, keptHourDigest } from './dynamo-summaries';
import type { KeepRule, KeptHour, SummaryStore } from './summary-port';

/** The store's rule (`KeepRule`): whether something computed from `now` readings replaces what was kept from `was`. */
const replaces = (was: number | undefined, now: number, rule: KeepRule) => was === undefined || was < now || (rule === 'repair' && was === now);

export function memorySummaryStore(): SummaryStore {
  /** Patient -> `<codeId>#<day>` -> summary. */
  const byPatient = new Map<number, Map<string, DaySummary>>();
  /** Patient -> `<codeId>#<yyyy-mm-ddThh>` -> the hour's digest. */
  const hoursByPatient = new Map<number, Map<string, CgmDigest>>();
  const keyOf = (codeId: number, day: string) => `${codeId}#${day}`;
  const withoutHistograms = (s: DaySummary): DaySummary => ({ ...s, groups: s.groups.map(({ histogram: _histogram, ...figures }) => figures) });
  const withoutBounds = ({ bounds: _bounds, cgm: _cgm, ...s }: DaySummary): DaySummary => s;
  const withHours = <T extends object>(s: DaySummary, day: T): T & { hours?: number[] } => (s.cgmHours ? { ...day, hours: [...s.cgmHours] } : day);
  const codeDays = (patientId: number, codeId: number, range: { from: string; to: string }) =>
    [...(byPatient.get(patientId)?.values() ?? [])].filter((s) => s.codeId === codeId && s.day >= range.from && s.day <= range.to).sort((a, b) => (a.day < b.day ? -1 : 1));

  const store: SummaryStore = {
    keep: async (summary, rule, hours = []) => {
      const keptHours = innerMap(hoursByPatient, summary.patientId);
      for (const { hour, digest } of hours) {
        const key = keyOf(summary.codeId, hourKeyOf(summary.day, hour));
        const kept = keptHourDigest(digest);
        if (kept && replaces(keptHours.get(key)?.count, digest.count, rule)) keptHours.set(key, copy(kept));
      }
      const days = innerMap(byPatient, summary.patientId);
      const kept = days.get(keyOf(summary.codeId, summary.day));
      const written = replaces(kept?.readings, summary.readings, rule);
      if (written) days.set(keyOf(summary.codeId, summary.day), copy(asKept(summary)));
      return written;
    },
    day: async (patientId, codeId, day) => {
      const kept = byPatient.get(patientId)?.get(keyOf(codeId, day));
      return kept && copy(kept);
    },
    days: async (patientId, codeId, range, histograms) => codeDays(patientId, codeId, range).map((s) => withoutBounds(histograms ? copy(s) : withoutHistograms(copy(s)))),
    bounds: async (patientId, codeId, range) => codeDays(patientId, codeId, range).map((s) => ({ day: s.day, bounds: s.bounds && copy(s.bounds) })),
    digests: async (patientId, codeId, range) => codeDays(patientId, codeId, range).map((s) => withHours(s, { day: s.day, digest: s.cgm && copy(s.cgm) })),
    figures: async (patientId, codeId, range) =>
      codeDays(patientId, codeId, range).map((s) => withHours(s, { day: s.day, digest: s.cgm === undefined || s.cgm === DIGEST_NOT_KEPT ? s.cgm : figuresOf(copy(s.cgm)) })),
    hours: (async (patientId: number, codeId: number, hours: readonly string[], withProfile: boolean): Promise<KeptHour[]> =>
      [...new Set(hours)].flatMap((hour) => {
        const digest = hoursByPatient.get(patientId)?.get(keyOf(codeId, hour));
        return digest ? [{ hour, digest: withProfile ? copy(digest) : figuresOf(copy(digest)) }] : [];
      })) as SummaryStore['hours'],
    deletePatient: async (patientId) => {
      const removed = byPatient.get(patientId)?.size ?? 0;
      byPatient.delete(patientId);
      hoursByPatient.delete(patientId);
      return removed;
    },
  };
  return holding(store, { daySummaries: () => nestedEntries(byPatient), hourDigests: () => nestedEntries(hoursByPatient) });
}
