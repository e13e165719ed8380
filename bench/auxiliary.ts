/**
 * The auxiliary store against the raw DynamoDB operations it performs, interleaved in one run so
 * machine noise hits both alike (DynamoDB Local in memory, s3rver):
 *
 * - write: `createAuxiliary` (source and patient checks, R5 validation, index extraction, one
 *   transaction) vs the same two GetItems and the same TransactWriteItems with prepared items;
 * - read by id: `readAuxiliary` vs its GetItem;
 * - search, one patient's Conditions filtered by code, first page of 20 (streamed) and sorted by
 *   date (every index item read): `searchAuxiliary` vs the very commands it sent (recorded once,
 *   then replayed one after the other: the scope's GetItem, the Queries, the BatchGetItem).
 */
import { BatchGetCommand, GetCommand, QueryCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startRuntime } from '../local/runtime';
import type { Caller } from '../shared/auth/caller';
import { auxiliaryKeys } from '../shared/auxiliary/store/dynamo-keys';
import { readAuxiliary } from '../shared/auxiliary/read';
import { indexItem, resourceItem } from '../shared/auxiliary/store/dynamo-items';
import { searchAuxiliary } from '../shared/auxiliary/search';
import { assertValidR5, prepareStored } from '../shared/auxiliary/submission';
import { createAuxiliary } from '../shared/auxiliary/writes';
import { config } from '../shared/config';
import { createDataSource } from '../shared/directory/data-sources';
import { createFhirSource } from '../shared/directory/fhir-sources';
import { keys } from '../shared/store/directory-keys';
import { createOrganization } from '../shared/directory/organizations';
import { createPatient } from '../shared/directory/patients';
import { FHIR_BASES } from '../shared/http/families';
import { dynamo } from '../shared/store/clients';
import { interleaved, median, percentile, printTable, timeOnce } from './table';

const RUNS = Number(process.env.BENCH_RUNS ?? 300);
const ROWS = Number(process.env.BENCH_AUX_ROWS ?? 400);
const ORIGIN = 'http://localhost:8000';

const CODES = ['44054006', '38341003', '195967001', '73211009'];

function conditionBody(i: number): Record<string, unknown> {
  return {
    resourceType: 'Condition',
    clinicalStatus: { coding: [{ system: 'http://terminology.hl7.org/CodeSystem/condition-clinical', code: i % 3 === 0 ? 'resolved' : 'active' }] },
    code: { coding: [{ system: 'http://snomed.info/sct', code: CODES[i % CODES.length], display: `Condition ${i}` }], text: `Condition number ${i}` },
    subject: { reference: 'Patient/upstream-1' },
    encounter: { reference: `Encounter/enc-${i}` },
    onsetDateTime: `20${String(10 + (i % 15)).padStart(2, '0')}-0${1 + (i % 9)}-1${i % 10}`,
    recordedDate: `2024-0${1 + (i % 9)}-1${i % 10}T10:00:00+02:00`,
    note: [{ text: 'Seen in clinic; follow up in three months.' }],
  };
}

interface Recorded {
  name: string;
  input: Record<string, unknown>;
}

/** The DynamoDB commands an operation sends through the service's client, in order. */
async function recordCommands(op: () => Promise<unknown>): Promise<Recorded[]> {
  const stack = dynamo().middlewareStack;
  const recorded: Recorded[] = [];
  stack.add(
    (next, context) => async (args) => {
      recorded.push({ name: context.commandName!, input: structuredClone(args.input as Record<string, unknown>) });
      return next(args);
    },
    { step: 'initialize', name: 'bench-recorder' },
  );
  try {
    await op();
  } finally {
    stack.remove('bench-recorder');
  }
  return recorded;
}

const COMMANDS: Record<string, new (input: any) => any> = {
  GetItemCommand: GetCommand,
  QueryCommand,
  BatchGetItemCommand: BatchGetCommand,
};

/** Sends the same commands again, one after the other: the raw cost of what the operation read. */
async function replay(recorded: readonly Recorded[]): Promise<void> {
  for (const { name, input } of recorded) {
    const Command = COMMANDS[name];
    if (!Command) throw new Error(`no replay for ${name}`);
    await dynamo().send(new Command(input));
  }
}

const ms = (x: number) => x.toFixed(2);
const row = (operation: string, times: number[]) => ({
  operation,
  runs: times.length,
  'p50 ms': ms(median(times)),
  'p90 ms': ms(percentile(times, 90)),
  'p99 ms': ms(percentile(times, 99)),
});

export async function auxiliaryBench(): Promise<void> {
  process.env.LOG_LEVEL = 'silent';
  const dataDir = mkdtempSync(join(tmpdir(), 'cdx-bench-aux-'));
  const runtime = await startRuntime({ dataDir, gateway: false, seed: false, inMemory: true });
  try {
    const org = await createOrganization({ name: 'Bench', type: 'prov' });
    const patient = await createPatient({ nameFamily: 'Bench', nameGiven: 'Pat', telecomEmail: 'bench-aux@example.test', organizationIds: [org.id], account: {} });
    const device = await createDataSource({ name: 'EHR app', type: 'patient_app' });
    const source = await createFhirSource({ patientId: patient.id, dataSourceId: device.id });
    const caller: Caller = { kind: 'patient', userId: patient.userId!, patientId: patient.id, scopes: [] };
    const ctx = { caller, type: 'Condition', origin: ORIGIN, sourceHeader: String(source.id) };
    const table = config().auxTable;
    const db = dynamo();

    // --- write ---------------------------------------------------------------------------------
    let n = 0;
    const ours = () => createAuxiliary(ctx, conditionBody(n++));
    /** What a create performs, with its items prepared beforehand (untimed): the two owner reads, then the transaction. */
    const rawWrite = async () => {
      const head = { id: randomUUID(), type: 'Condition', patientId: patient.id, sourceId: source.id, version: 1, lastUpdated: new Date().toISOString() };
      const prepared = await prepareStored(conditionBody(n++), head, ORIGIN);
      const directory = config().directoryTable;
      return async () => {
        await db.send(new GetCommand({ TableName: directory, Key: keys.fhirSource(source.id), ConsistentRead: true }));
        await db.send(new GetCommand({ TableName: directory, Key: keys.patient(patient.id), ConsistentRead: true }));
        await db.send(
          new TransactWriteCommand({
            TransactItems: [
              { Put: { TableName: table, Item: resourceItem({ ...head, body: prepared.json }), ConditionExpression: 'attribute_not_exists(pk)' } },
              { Put: { TableName: table, Item: indexItem(head, prepared.index) } },
              { ConditionCheck: { TableName: directory, Key: keys.fhirSource(source.id), ConditionExpression: 'attribute_exists(pk)' } },
              { ConditionCheck: { TableName: directory, Key: keys.patient(patient.id), ConditionExpression: 'attribute_exists(pk)' } },
            ],
          }),
        );
      };
    };
    const writeOurs: number[] = [];
    const writeRaw: number[] = [];
    for (let i = 0; i < RUNS + 30; i += 1) {
      const a = await timeOnce(ours);
      const b = await timeOnce(await rawWrite());
      if (i < 30) continue; // warm-up
      writeOurs.push(a);
      writeRaw.push(b);
    }

    // The CPU part of a create alone: validation and index extraction, no store.
    const cpu: number[] = [];
    for (let i = 0; i < RUNS; i += 1) {
      const body = conditionBody(i);
      const head = { id: randomUUID(), type: 'Condition', patientId: patient.id, sourceId: source.id, version: 1, lastUpdated: new Date().toISOString() };
      cpu.push(await timeOnce(async () => {
        await assertValidR5('Condition', body);
        await prepareStored(body, head, ORIGIN);
      }));
    }

    // --- read by id ----------------------------------------------------------------------------------
    const some = await createAuxiliary(ctx, conditionBody(1));
    const [readOurs, readRaw] = await interleaved(
      () => readAuxiliary(caller, 'Condition', some.row.id),
      () => db.send(new GetCommand({ TableName: table, Key: auxiliaryKeys.resource(some.row.id), ConsistentRead: true })),
      RUNS,
    );

    // --- search: a patient with ROWS more Conditions ------------------------------------------------
    for (let i = 0; i < ROWS; i += 1) await createAuxiliary(ctx, conditionBody(i));
    const searches: Array<[string, string]> = [
      ['first page of 20, code filter (streamed)', `code=http://snomed.info/sct|${CODES[0]}&_count=20`],
      ['first page of 20, sorted by recorded-date', `_sort=recorded-date&_count=20`],
    ];
    const searchRows = [];
    const ratios: string[] = [];
    for (const [label, query] of searches) {
      const params = new URLSearchParams(query);
      const search = () => searchAuxiliary(caller, 'Condition', params, { origin: ORIGIN, base: FHIR_BASES[0] });
      const recorded = await recordCommands(search);
      const [a, b] = await interleaved(search, () => replay(recorded), Math.max(50, Math.floor(RUNS / 3)));
      const what = recorded.map((c) => c.name.replace(/Command$/, '')).join(' + ');
      searchRows.push(row(`searchAuxiliary: ${label}`, a), row(`raw: ${what}`, b));
      ratios.push(`search (${label}) / raw (p50): ${(median(a) / median(b)).toFixed(2)}x`);
    }

    printTable(`Auxiliary store vs raw DynamoDB (Node ${process.version}; DynamoDB Local in memory; ${ROWS + 1} Conditions of one patient)`, [
      row('createAuxiliary (checks, validation, index, transaction)', writeOurs),
      row('raw: 2 GetItem + TransactWriteItems (items prepared)', writeRaw),
      row('R5 validation + index extraction alone (CPU, no store)', cpu),
      row('readAuxiliary', readOurs),
      row('raw: GetItem', readRaw),
      ...searchRows,
    ]);
    console.log(`\ncreate / raw (p50): ${(median(writeOurs) / median(writeRaw)).toFixed(2)}x`);
    console.log(`read / raw (p50): ${(median(readOurs) / median(readRaw)).toFixed(2)}x`);
    for (const r of ratios) console.log(r);
  } finally {
    await runtime.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}
