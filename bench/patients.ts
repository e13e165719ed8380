/**
 * A scoped Patient search end to end (`GET /FHIR/R5/Patient` through the fhir Lambda handler
 * in-process: middy, token verification, the user GetItem, scoping, projection, Bundle) against
 * the raw DynamoDB reads the search itself runs (the Query of the organization's patient ids and
 * the BatchGetItem of the page), interleaved in one run so machine noise hits both alike.
 * Also a name search, which loads and matches every patient in scope, against its own raw reads.
 * DynamoDB Local in memory; `BENCH_PATIENTS` patients in one organization (default 500).
 */
import { BatchGetCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fromResult, lambdaContext, toEvent } from '../local/api-gateway-event';
import { startRuntime } from '../local/runtime';
import { issueAccessToken } from '../shared/auth/tokens';
import { config } from '../shared/config';
import { keys, REL } from '../shared/store/directory-keys';
import { createOrganization } from '../shared/directory/organizations';
import { createPatient } from '../shared/directory/patients';
import { createPractitioner } from '../shared/directory/users';
import { dynamo } from '../shared/store/clients';
import { median, percentile, printTable, timeOnce } from './table';

const PATIENTS = Number(process.env.BENCH_PATIENTS ?? 500);
const RUNS = Number(process.env.BENCH_SEARCH_RUNS ?? 300);
const FAMILIES = ['Smith', 'Garcia', 'Nguyen', 'Okafor', 'Müller', 'Rossi', 'Kowalski', 'Haddad', 'Silva', 'Tanaka'];

const ms = (x: number) => x.toFixed(2);

export async function patients(): Promise<void> {
  process.env.LOG_LEVEL = 'silent';
  const dataDir = mkdtempSync(join(tmpdir(), 'cdx-bench-patients-'));
  const runtime = await startRuntime({ dataDir, gateway: false, seed: false, inMemory: true });
  try {
    const org = await createOrganization({ name: 'Bench clinic', type: 'prov' });
    const practitioner = await createPractitioner({ email: 'bench@example.test', organizations: [{ organizationId: org.id, role: 'member' }] });
    for (let i = 0; i < PATIENTS; i += 10) {
      await Promise.all(
        Array.from({ length: Math.min(10, PATIENTS - i) }, (_, j) =>
          createPatient({ nameFamily: FAMILIES[(i + j) % FAMILIES.length]!, nameGiven: `P${i + j}`, birthDate: '1980-01-01', organizationIds: [org.id] }),
        ),
      );
    }
    const { accessToken } = await issueAccessToken({ userId: practitioner.id, kind: 'practitioner', scope: 'openid email' });
    const { handler } = await import('../functions/fhir/handler');
    const search = async (url: string) => {
      const result = fromResult(await handler(toEvent({ method: 'GET', url, headers: { host: 'localhost:8000', authorization: `Bearer ${accessToken}` } }), lambdaContext('bench')));
      if (result.status !== 200) throw new Error(`search answered ${result.status}: ${result.body.toString()}`);
      return result;
    };
    const table = config().directoryTable;
    const patientIds = async () => {
      const out = await dynamo().send(
        new QueryCommand({
          TableName: table,
          KeyConditionExpression: 'pk = :pk AND begins_with(sk, :sk)',
          ExpressionAttributeValues: { ':pk': keys.organization(org.id).pk, ':sk': REL.patient },
          ProjectionExpression: 'sk',
          ConsistentRead: true,
        }),
      );
      return (out.Items ?? []).map((i) => Number(String(i.sk).slice(REL.patient.length)));
    };
    const batchGet = async (ids: number[]) => {
      for (let i = 0; i < ids.length; i += 100) {
        await dynamo().send(new BatchGetCommand({ RequestItems: { [table]: { Keys: ids.slice(i, i + 100).map((id) => keys.patient(id)), ConsistentRead: true } } }));
      }
    };
    const rawPage = async () => batchGet((await patientIds()).slice(0, 20));
    const rawAll = async () => batchGet(await patientIds());

    const cases = [
      { name: 'raw: Query org patient ids + BatchGetItem 20', op: rawPage },
      { name: `GET /FHIR/R5/Patient (${PATIENTS} in scope, page of 20)`, op: () => search('/FHIR/R5/Patient') },
      { name: `raw: Query org patient ids + BatchGetItem all ${PATIENTS}`, op: rawAll },
      { name: 'GET /FHIR/R5/Patient?family=gar (loads and matches all)', op: () => search('/FHIR/R5/Patient?family=gar') },
    ];
    for (const c of cases) for (let i = 0; i < 30; i++) await c.op();
    const times = cases.map(() => [] as number[]);
    const runsFor = (i: number) => (i >= 2 ? Math.max(20, Math.floor(RUNS / 5)) : RUNS);
    for (let r = 0; r < RUNS; r++) {
      for (const [i, c] of cases.entries()) if (r < runsFor(i)) times[i]!.push(await timeOnce(c.op));
    }
    printTable(`Scoped Patient search vs its raw DynamoDB reads (Node ${process.version}; DynamoDB Local in memory; ${PATIENTS} patients)`, cases.map((c, i) => ({
      operation: c.name,
      runs: times[i]!.length,
      'p50 ms': ms(median(times[i]!)),
      'p90 ms': ms(percentile(times[i]!, 90)),
      'p99 ms': ms(percentile(times[i]!, 99)),
    })));
    console.log(`\npage search / its raw reads (p50): ${(median(times[1]!) / median(times[0]!)).toFixed(2)}x`);
    console.log(`name search / its raw reads (p50): ${(median(times[3]!) / median(times[2]!)).toFixed(2)}x`);
  } finally {
    await runtime.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}
