/**
 * Fixtures of the auxiliary-store tests: a small world (organization, practitioner, patients with
 * FHIR Sources), sample R5 resources, calls with the source header, and direct looks at what the
 * table and the bucket hold (through clients of their own, so a test can list everything while
 * the service's own client refuses to scan), or the twins when the file runs on them.
 */
import { ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import { config } from '../../shared/config';
import type { FhirSource, Organization, Patient, Practitioner } from '../../shared/directory/model';
import { SOURCE_HEADER } from '../../shared/fhir/constants';
import { dynamo } from '../../shared/store/clients';
import { makeDataSource, makeFhirSource, makeOrganization, makePatient, makePractitioner, type WithToken } from './directory';
import { call, type CallOptions } from './invoke';
import { tableItems, twinRecords, twinsInUse } from './store';

export interface AuxiliaryWorld {
  org: Organization;
  doctor: Practitioner & WithToken;
  alice: Patient & WithToken;
  bob: Patient & WithToken;
  aliceSource: FhirSource;
  bobSource: FhirSource;
}

/** Two patients with a login and a FHIR Source each, in one organization with a member practitioner. */
export async function auxiliaryWorld(): Promise<AuxiliaryWorld> {
  const org = await makeOrganization();
  const doctor = await makePractitioner({ organizations: [org] });
  const alice = (await makePatient({ organizations: [org], login: true })) as Patient & WithToken;
  const bob = (await makePatient({ organizations: [org], login: true })) as Patient & WithToken;
  const device = await makeDataSource({ type: 'patient_app' });
  const aliceSource = await makeFhirSource({ patient: alice, dataSource: device });
  const bobSource = await makeFhirSource({ patient: bob, dataSource: device });
  return { org, doctor, alice, bob, aliceSource, bobSource };
}

/** A valid R5 Condition; `extra` is merged over it. */
export function condition(extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    resourceType: 'Condition',
    clinicalStatus: { coding: [{ system: 'http://terminology.hl7.org/CodeSystem/condition-clinical', code: 'active' }] },
    code: { coding: [{ system: 'http://snomed.info/sct', code: '44054006', display: 'Diabetes mellitus type 2' }], text: 'Type 2 diabetes' },
    subject: { reference: 'Patient/upstream-1' },
    recordedDate: '2019-05-02T10:00:00+02:00',
    ...extra,
  };
}

/** POST /FHIR/R5/<type> through a source (by header). */
export function postAuxiliary(type: string, body: unknown, token: string, source?: number | string, options: CallOptions = {}) {
  return call('POST', `/FHIR/R5/${type}`, {
    ...options,
    token,
    body,
    headers: { ...(source !== undefined ? { [SOURCE_HEADER]: String(source) } : {}), ...options.headers },
  });
}

/**
 * Every item of the auxiliary table (a Scan through a client of the test's own), or on the twins
 * every record of the auxiliary twin but its bodies (`twinRecords`).
 */
export async function auxiliaryItems(): Promise<Record<string, unknown>[]> {
  const twins = twinsInUse();
  if (!twins) return tableItems(config().auxTable);
  const { bodies: _bodies, ...rows } = twins.auxiliary;
  return twinRecords(rows);
}

/** The items (or twin records) of one resource: each carries the resource's id. */
export async function auxiliaryItemsOf(id: string): Promise<Record<string, unknown>[]> {
  return (await auxiliaryItems()).filter((i) => i.id === id);
}

let rawBucket: S3Client | undefined;

/** Every object key in the bodies bucket (or the bodies twin). */
export async function bucketKeys(): Promise<string[]> {
  const twins = twinsInUse();
  if (twins) return twinRecords(twins.auxiliary.bodies).map((object) => String(object.key)).sort();
  rawBucket ??= new S3Client({ forcePathStyle: true });
  const out = await rawBucket.send(new ListObjectsV2Command({ Bucket: config().auxBucket }));
  return (out.Contents ?? []).map((o) => o.Key!).sort();
}

/** Makes the service's DynamoDB client fail on any Scan, so a test proves that no search scans. */
export function forbidScans(): void {
  const stack = dynamo().middlewareStack;
  if (stack.identify().some((m) => m.startsWith('forbid-scan'))) return;
  stack.add(
    (next, context) => async (args) => {
      if (context.commandName === 'ScanCommand') throw new Error('a Scan was issued: searches must use key queries only');
      return next(args);
    },
    { step: 'initialize', name: 'forbid-scan' },
  );
}
