/**
 * The longest effective period stored per patient. The local indexes order rows by effective
 * START, but "ends after X" (`date=ge`, `gt`, `ap`) is a condition on the end. Knowing that no row
 * of the patient spans more than W, such a search becomes the key condition `start >= X - W` plus
 * an exact test of each row read.
 *
 * The value only grows and is rounded up to a power of two (so it changes a few times in a
 * patient's life). An upload raises it BEFORE it writes the rows that need it (idempotent), so a
 * reader that sees a row always sees a span at least as long as the row's. A process remembers what
 * it has raised, so the hot path costs no extra write.
 */
import type { EffectiveTime } from '../omh/effective-time';
import { observationStore } from './store/current';
import type { ObservationStore } from './store/port';

/** Width of a row's effective time as a half-open range: at least 1 ms (an instant). */
export function spanOf(effective: EffectiveTime | undefined): number {
  return effective ? Math.max(1, effective.end - effective.start) : 1;
}

/** The power of two at or above a span, so the stored value changes rarely. */
export function spanBucket(span: number): number {
  return 2 ** Math.ceil(Math.log2(Math.max(1, span)));
}

/**
 * Spans known to be stored per patient in this process (never larger than what is stored), per
 * store: what one store holds says nothing of another installed later.
 */
const knownByStore = new WeakMap<ObservationStore, Map<number, number>>();
const KNOWN_LIMIT = 50_000;

function known(store = observationStore()): Map<number, number> {
  let spans = knownByStore.get(store);
  if (!spans) {
    spans = new Map();
    knownByStore.set(store, spans);
  }
  return spans;
}

function remember(store: ObservationStore, patientId: number, span: number) {
  const spans = known(store);
  if (spans.size >= KNOWN_LIMIT) spans.clear();
  spans.set(patientId, Math.max(span, spans.get(patientId) ?? 1));
}

/** Makes sure the stored span of each patient is at least the given one. */
export async function raiseSpans(spans: ReadonlyMap<number, number>): Promise<void> {
  const store = observationStore();
  await Promise.all(
    [...spans].map(async ([patientId, span]) => {
      const bucket = spanBucket(span);
      if (bucket <= 1 || (known(store).get(patientId) ?? 1) >= bucket) return;
      remember(store, patientId, await store.raiseSpan(patientId, bucket));
    }),
  );
}

/** The stored span per patient (1 ms, an instant, when none is stored); strongly consistent. */
export async function storedSpans(patientIds: readonly number[]): Promise<Map<number, number>> {
  const stored = await observationStore().spans(patientIds);
  return new Map(patientIds.map((p) => [p, stored.get(p) ?? 1]));
}

/** The span this process knows to be stored for a patient (at least; 1 ms when it knows none). */
export function knownSpan(patientId: number): number {
  return known().get(patientId) ?? 1;
}

/** Forget what this process knows (tests that delete rows behind its back). */
export function forgetKnownSpans(): void {
  known().clear();
}
