/**
 * What an upload tells the operator and the audit trail: readings stored, readings a retry sent
 * again, auxiliary writes, entries refused (by status), and the patients whose data was written.
 */
import type { HttpRequest } from '../../http/request';
import { METRIC } from '../../telemetry/names';
import type { EntryResult } from './process';

export function recordUpload(req: Pick<HttpRequest, 'meter' | 'audit'>, results: readonly EntryResult[]): void {
  const refused = new Map<number, number>();
  let stored = 0;
  let duplicates = 0;
  let auxiliary = 0;
  for (const r of results) {
    if (r.status >= 400) refused.set(r.status, (refused.get(r.status) ?? 0) + 1);
    else if (r.written?.store === 'auxiliary') auxiliary += 1;
    else if (r.written?.store === 'native') {
      if (r.status === 201) stored += 1;
      else duplicates += 1;
    }
  }
  req.meter.count(METRIC.readingsStored, stored);
  req.meter.count(METRIC.readingsDuplicate, duplicates);
  req.meter.count(METRIC.auxiliaryWrites, auxiliary);
  for (const [status, n] of refused) req.meter.countByStatus(METRIC.uploadEntriesRefused, status, n);
  req.audit.touched(results.map((r) => r.written?.patientId));
}
