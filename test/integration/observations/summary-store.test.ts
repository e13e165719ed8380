/** The day summaries' store contract (test/contract/summary-store.ts) against DynamoDB Local and the in-memory twin. */
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { summariseDay, figuresOf, type CgmReading } from '../../../shared/cgm/digest';
import { dynamoSummaryStore } from '../../../shared/observations/store/dynamo-summaries';
import { observationKeys } from '../../../shared/observations/store/dynamo-keys';
import { table } from '../../../shared/observations/store/dynamo-table';
import { memorySummaryStore } from '../../../shared/observations/store/memory-summaries';
import { dynamo } from '../../../shared/store/clients';
import { pad } from '../../../shared/store/directory-keys';
import { summaryStoreContract } from '../../contract/summary-store';

summaryStoreContract([
  ['dynamodb', () => dynamoSummaryStore],
  ['memory', memorySummaryStore],
]);

describe('summary store: dynamodb, items kept before a digest was kept in two parts', () => {
  it('reads a whole digest kept in `c` alone as the digest, and as its figures', async () => {
    const patientId = 690_000_001;
    const start = Date.UTC(2025, 7, 1);
    const readings: CgmReading[] = Array.from({ length: 288 }, (_, i) => ({ at: start + i * 300_000, offsetMinutes: 60, mgdl: 70 + ((i * 13) % 150) }));
    const digest = summariseDay(readings);
    const sk = `#DAY#${pad(4)}#2025-08-01`;
    await dynamo().send(new PutCommand({ TableName: table(), Item: { pk: observationKeys.patientPk(patientId), sk, readings: 288, g: [], h: [], c: JSON.stringify(digest) } }));
    expect(await dynamoSummaryStore.digests(patientId, 4, { from: '2025-08-01', to: '2025-08-01' })).toEqual([{ day: '2025-08-01', digest }]);
    expect(await dynamoSummaryStore.figures(patientId, 4, { from: '2025-08-01', to: '2025-08-01' })).toEqual([{ day: '2025-08-01', digest: figuresOf(digest) }]);
    expect((await dynamoSummaryStore.day(patientId, 4, '2025-08-01'))!.cgm).toEqual(digest);
  });
});
