/**
 * HTTP under concurrent load, as a client fleet sees it: the local gateway (`npm start`'s, with the
 * demo data, DynamoDB Local on disk) driven by autocannon with several connections at once. The
 * health check (no store, no token) is the floor every other row is compared with.
 */
import autocannon from 'autocannon';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startRuntime } from '../local/runtime';
import { issueAccessToken } from '../shared/auth/tokens';
import { getUserByEmail } from '../shared/directory/users';
import { DEMO_PATIENT_EMAIL, DEMO_PRACTITIONER_EMAIL } from '../local/demo-directory';
import { printTable } from './table';

const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 10);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);

async function tokenOf(email: string): Promise<string> {
  const user = (await getUserByEmail(email))!;
  const patient = user.patientId !== undefined ? { patientId: user.patientId } : {};
  return (await issueAccessToken({ userId: user.id, kind: user.kind, scope: 'openid', lifetimeSeconds: 3600, ...patient })).accessToken;
}

export async function httpLoad(): Promise<void> {
  // Request logs would flood the table on stdout; their cost is measured with them off, as in every bench.
  process.env.LOG_LEVEL = 'silent';
  const dataDir = mkdtempSync(join(tmpdir(), 'cdx-bench-http-'));
  const runtime = await startRuntime({ dataDir, port: 0 });
  try {
    const base = runtime.gateway!.url;
    const patient = await tokenOf(DEMO_PATIENT_EMAIL);
    const practitioner = await tokenOf(DEMO_PRACTITIONER_EMAIL);
    const cases = [
      { name: 'GET /health (floor)', path: '/health' },
      { name: 'GET /FHIR/R5/metadata', path: '/FHIR/R5/metadata' },
      { name: 'patient: own Observations, 20 a page', path: '/FHIR/R5/Observation?_count=20', token: patient },
      { name: 'practitioner: a patient\'s heart rate, 20 a page', path: '/FHIR/R5/Observation?patient=1&code=omh:heart-rate:2.0&_count=20', token: practitioner },
      { name: 'practitioner: Patient search', path: '/FHIR/R5/Patient?name=a', token: practitioner },
    ];
    const rows = [];
    let floor = 0;
    for (const c of cases) {
      const headers: Record<string, string> = c.token ? { authorization: `Bearer ${c.token}` } : {};
      // A short warm-up, then the measured run.
      await autocannon({ url: `${base}${c.path}`, connections: CONNECTIONS, duration: 2, headers });
      const r = await autocannon({ url: `${base}${c.path}`, connections: CONNECTIONS, duration: SECONDS, headers });
      if (r.non2xx > 0 || r.errors > 0) throw new Error(`${c.name}: ${r.non2xx} non-2xx answers, ${r.errors} errors`);
      if (floor === 0) floor = r.requests.average;
      rows.push({
        request: c.name,
        'req/s': r.requests.average.toFixed(0),
        'latency p50 ms': r.latency.p50.toFixed(1),
        'latency p99 ms': r.latency.p99.toFixed(1),
        'share of floor': `${((r.requests.average / floor) * 100).toFixed(0)}%`,
      });
    }
    printTable(`HTTP load: ${CONNECTIONS} connections for ${SECONDS} s each, local gateway + DynamoDB Local on disk`, rows);
  } finally {
    await runtime.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}
