/**
 * The day summaries' store in memory: a twin of `dynamo-summaries.ts` for tests that need no
 * tables, held to the same behaviour by test/contract/summary-store.ts. It keeps what the table
 * keeps (histograms past the item's bound left out, `asKept`) under the same rule.
 */
import { figuresOf } from '../../cgm/digest';
import { copy, holding, innerMap, nestedEntries } from '../../store/memory';
import { DIGEST_NOT_KEPT } from '../stats/day-summary';
import type { DaySummary } from '../stats/day-summary';
import { asKept } from './dynamo-summaries';
import type { SummaryStore } from './summary-port';

export function memorySummaryStore(): SummaryStore {
  /** Patient -> `<codeId>#<day>` -> summary. */
  const byPatient = new Map<number, Map<string, DaySummary>>();
  const keyOf = (codeId: number, day: string) => `${codeId}#${day}`;
  const withoutHistograms = (s: DaySummary): DaySummary => ({ ...s, groups: s.groups.map(({ histogram: _histogram, ...figures }) => figures) });
  const withoutBounds = ({ bounds: _bounds, cgm: _cgm, ...s }: DaySummary): DaySummary => s;
  const codeDays = (patientId: number, codeId: number, range: { from: string; to: string }) =>
    [...(byPatient.get(patientId)?.values() ?? [])].filter((s) => s.codeId === codeId && s.day >= range.from && s.day <= range.to).sort((a, b) => (a.day < b.day ? -1 : 1));

  const store: SummaryStore = {
    keep: async (summary, rule) => {
      const days = innerMap(byPatient, summary.patientId);
      const kept = days.get(keyOf(summary.codeId, summary.day));
      const replaces = !kept || kept.readings < summary.readings || (rule === 'repair' && kept.readings === summary.readings);
      if (replaces) days.set(keyOf(summary.codeId, summary.day), copy(asKept(summary)));
      return replaces;
    },
    day: async (patientId, codeId, day) => {
      const kept = byPatient.get(patientId)?.get(keyOf(codeId, day));
      return kept && copy(kept);
    },
    days: async (patientId, codeId, range, histograms) => codeDays(patientId, codeId, range).map((s) => withoutBounds(histograms ? copy(s) : withoutHistograms(copy(s)))),
    bounds: async (patientId, codeId, range) => codeDays(patientId, codeId, range).map((s) => ({ day: s.day, bounds: s.bounds && copy(s.bounds) })),
    digests: async (patientId, codeId, range) => codeDays(patientId, codeId, range).map((s) => ({ day: s.day, digest: s.cgm && copy(s.cgm) })),
    figures: async (patientId, codeId, range) =>
      codeDays(patientId, codeId, range).map((s) => ({ day: s.day, digest: s.cgm === undefined || s.cgm === DIGEST_NOT_KEPT ? s.cgm : figuresOf(copy(s.cgm)) })),
    deletePatient: async (patientId) => {
      const removed = byPatient.get(patientId)?.size ?? 0;
      byPatient.delete(patientId);
      return removed;
    },
  };
  return holding(store, { daySummaries: () => nestedEntries(byPatient) });
}
