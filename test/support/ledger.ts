/**
 * What the responses said was stored, kept beside the store to compare with what it holds: a
 * reading is known by its patient and `header.uuid` (the id the service gave it), an auxiliary
 * resource by its id. A response that said created (or "already stored as") enters the ledger;
 * anything else must have left nothing behind. `compare` then names what was acknowledged yet is
 * not stored (lost), what is stored twice (duplicated) and what is stored though no response said
 * so (unacknowledged).
 */
import { expect } from 'vitest';
import type { TestResponse } from './invoke';
import { auditAuxiliary, auditObservations, defectsOf, type AuxiliaryAudit, type ObservationAudit } from './audit';

type Json = Record<string, any>;

export interface Discrepancies {
  lost: string[];
  duplicated: string[];
  unacknowledged: string[];
}

const readingKey = (patientId: number, uuid: string) => `${patientId}|${uuid.toLowerCase()}`;

/** The patient and `header.uuid` of an Observation as the service returns it (the payload is kept byte for byte). */
function readingOf(resource: Json): { patientId: number; uuid: string } | undefined {
  const patientId = Number(/^Patient\/(\d+)$/.exec(String(resource.subject?.reference ?? ''))?.[1]);
  try {
    const payload = JSON.parse(Buffer.from(String(resource.valueAttachment?.data ?? ''), 'base64').toString('utf8'));
    return Number.isSafeInteger(patientId) && typeof payload?.header?.uuid === 'string' ? { patientId, uuid: payload.header.uuid } : undefined;
  } catch {
    return undefined;
  }
}

const isSuccess = (status: string | number) => /^2\d\d/.test(String(status));

export class Ledger {
  /** patient|uuid -> the id the responses gave the reading. */
  private readonly readings = new Map<string, number>();
  private readonly auxiliaryIds = new Set<string>();
  private readonly conflicts: string[] = [];

  /** Starts from what the store holds now (the fixtures of the file). */
  static async ofStore(): Promise<Ledger> {
    const ledger = new Ledger();
    for (const r of (await auditObservations()).readings) ledger.readings.set(readingKey(r.patientId, r.uuid), r.id);
    for (const r of (await auditAuxiliary()).resources) ledger.auxiliaryIds.add(r.id);
    return ledger;
  }

  /** Notes a resource a response says is stored (created now, or already stored). */
  acknowledge(resource: Json | undefined): void {
    if (!resource || typeof resource.id !== 'string') return;
    const reading = /^\d+$/.test(resource.id) && resource.resourceType === 'Observation' ? readingOf(resource) : undefined;
    if (!reading) {
      this.auxiliaryIds.add(resource.id);
      return;
    }
    const key = readingKey(reading.patientId, reading.uuid);
    const known = this.readings.get(key);
    if (known !== undefined && known !== Number(resource.id)) this.conflicts.push(`${key} acknowledged as ${known} and as ${resource.id}`);
    this.readings.set(key, Number(resource.id));
  }

  /** Notes every successful entry of a batch or batch-response Bundle. */
  acknowledgeBundle(res: TestResponse): void {
    if (res.json?.resourceType !== 'Bundle' || !Array.isArray(res.json.entry)) return;
    for (const entry of res.json.entry as Json[]) if (isSuccess(entry.response?.status ?? '')) this.acknowledge(entry.resource);
  }

  /** Notes the resource of a single create or update that succeeded. */
  acknowledgeResponse(res: TestResponse): void {
    if (res.status >= 200 && res.status < 300) this.acknowledge(res.json);
  }

  /** Forgets an auxiliary resource that a successful delete removed. */
  forget(id: string): void {
    this.auxiliaryIds.delete(id);
  }

  get acknowledgedReadings(): number {
    return this.readings.size;
  }

  /** The store against the ledger. */
  async compare(observations?: ObservationAudit, aux?: AuxiliaryAudit): Promise<Discrepancies> {
    const stored = observations ?? (await auditObservations());
    const auxiliaryStored = aux ?? (await auditAuxiliary());
    const rowsByReading = new Map<string, number[]>();
    for (const r of stored.readings) {
      const key = readingKey(r.patientId, r.uuid);
      rowsByReading.set(key, [...(rowsByReading.get(key) ?? []), r.id]);
    }
    const lost = [...this.readings].filter(([key, id]) => !rowsByReading.get(key)?.includes(id)).map(([key, id]) => `Observation/${id} (${key})`);
    const duplicated = [...this.conflicts, ...[...rowsByReading].filter(([, ids]) => ids.length > 1).map(([key, ids]) => `${key}: ${ids.join(', ')}`)];
    const unacknowledged = [...rowsByReading].filter(([key]) => !this.readings.has(key)).map(([key, ids]) => `Observation/${ids.join(',')} (${key})`);

    const auxiliaryById = new Set(auxiliaryStored.resources.map((r) => r.id));
    lost.push(...[...this.auxiliaryIds].filter((id) => !auxiliaryById.has(id)));
    const upstream = new Map<string, number>();
    for (const r of auxiliaryStored.resources) {
      if (r.upstreamId === undefined) continue;
      const key = `${r.sourceId}|${r.type}|${r.upstreamId}`;
      upstream.set(key, (upstream.get(key) ?? 0) + 1);
    }
    duplicated.push(...[...upstream].filter(([, n]) => n > 1).map(([key, n]) => `${key} stored ${n} times`));
    unacknowledged.push(...auxiliaryStored.resources.filter((r) => !this.auxiliaryIds.has(r.id)).map((r) => `${r.type}/${r.id}`));
    return { lost, duplicated, unacknowledged };
  }
}

/**
 * Asserts that the store holds exactly what the responses acknowledged (nothing lost, nothing
 * twice, nothing unacknowledged) and that no item lacks the rest of its set (no orphan pointer,
 * claim, index item or S3 object). Returns what it found, for the suite's summary.
 */
export async function expectStoreMatches(ledger: Ledger): Promise<Discrepancies> {
  const observations = await auditObservations();
  const aux = await auditAuxiliary();
  const found = await ledger.compare(observations, aux);
  expect({ ...defectsOf(observations), ...defectsOf(aux) }).toEqual({
    orphanPointers: [],
    unreachableRows: [],
    orphanIdentifierClaims: [],
    unclaimedIdentifiers: [],
    orphanIndexItems: [],
    unindexedResources: [],
    orphanUpstreamClaims: [],
    unclaimedResources: [],
    orphanBodies: [],
    pendingBodies: [],
    missingBodies: [],
  });
  expect(found).toEqual({ lost: [], duplicated: [], unacknowledged: [] });
  return found;
}
