/**
 * Fixtures that build a directory world in a line or two each, against the test file's own tables:
 *
 *   const org = await makeOrganization();
 *   const doctor = await makePractitioner({ organizations: [org] });          // doctor.token
 *   const alice = await makePatient({ organizations: [org], login: true });    // alice.token
 *   const ds = await makeDataSource({ codes: ['omh:heart-rate:2.0'] });
 *   const study = await makeStudy({ organization: org, codes: ['omh:heart-rate:2.0'], patients: [alice], consent: true, dataSources: [ds] });
 *   const source = await makeFhirSource({ patient: alice, dataSource: ds });
 *   const token = await tokenFor(alice, { lifetimeSeconds: 5 });
 *
 * Emails and names are unique per call, so fixtures never collide within a file.
 */
import { decodeJwt } from 'jose';
import { randomBytes, randomUUID } from 'node:crypto';
import { audienceOf, type TokenResource } from '../../shared/auth/claims';
import { signingKeys } from '../../shared/auth/signing-keys';
import { ACCESS_TOKEN_TYPE, issueAccessToken } from '../../shared/auth/tokens';
import { ensureCodes } from '../../shared/directory/code-table';
import { DEMO_CODES, SEEDED_CODES } from '../../shared/directory/codes';
import { recordConsents } from '../../shared/directory/consents';
import { addSupportedCode, createDataSource } from '../../shared/directory/data-sources';
import { createFhirSource } from '../../shared/directory/fhir-sources';
import type { Code, DataSource, DataSourceType, FhirSource, Identifier, Id, Organization, OrganizationType, OrgRole, Patient, Practitioner, Study } from '../../shared/directory/model';
import { createOrganization } from '../../shared/directory/organizations';
import { createPatient } from '../../shared/directory/patients';
import { addStudyCode, addStudyDataSource, createStudy, enrollPatients } from '../../shared/directory/studies';
import { createPractitioner } from '../../shared/directory/users';
import { forgetCodeTable } from '../../shared/observations/code-table-cache';

type Ref = number | { id: Id };
const idOf = (ref: Ref): Id => (typeof ref === 'number' ? ref : ref.id);
const unique = () => randomBytes(4).toString('hex');

let codeTable: Promise<Code[]> | undefined;

/** Forgets the code table of this process (a later call creates it in the stores then in use). */
export function forgetCodes(): void {
  codeTable = undefined;
  forgetCodeTable();
}

/** The code table (the seeded rows plus the demo ones), created once per test file. */
export function codes(): Promise<Code[]> {
  codeTable ??= ensureCodes([...SEEDED_CODES, ...DEMO_CODES]);
  return codeTable;
}

/** A code of the table by its code text (e.g. `omh:heart-rate:2.0`). */
export async function code(text: string): Promise<Code> {
  const found = (await codes()).find((c) => c.code === text);
  if (!found) throw new Error(`no code ${text} in the code table`);
  return found;
}

export async function makeOrganization(options: { name?: string; type?: OrganizationType; partOf?: Ref } = {}): Promise<Organization> {
  return createOrganization({
    name: options.name ?? `Org ${unique()}`,
    type: options.type ?? 'prov',
    ...(options.partOf !== undefined ? { partOf: idOf(options.partOf) } : {}),
  });
}

export interface WithToken {
  /** A valid access token (15 minutes). */
  token: string;
}

export async function makePractitioner(
  options: {
    organizations?: readonly Ref[];
    /** Role in every organization given (default `member`). */
    role?: OrgRole;
    /** Per-organization roles, beyond `organizations`. */
    roles?: ReadonlyArray<[Ref, OrgRole]>;
    superuser?: boolean;
    email?: string;
    passwordHash?: string;
    nameFamily?: string;
    nameGiven?: string;
  } = {},
): Promise<Practitioner & WithToken> {
  const memberships = [
    ...(options.organizations ?? []).map((o) => ({ organizationId: idOf(o), role: options.role ?? ('member' as OrgRole) })),
    ...(options.roles ?? []).map(([o, role]) => ({ organizationId: idOf(o), role })),
  ];
  const practitioner = await createPractitioner({
    email: options.email ?? `practitioner-${unique()}@example.test`,
    nameFamily: options.nameFamily ?? `Doe${unique()}`,
    nameGiven: options.nameGiven ?? 'Jamie',
    organizations: memberships,
    ...(options.superuser ? { superuser: true } : {}),
    ...(options.passwordHash ? { passwordHash: options.passwordHash } : {}),
  });
  return { ...practitioner, token: await tokenFor(practitioner) };
}

export async function makePatient(
  options: {
    organizations?: readonly Ref[];
    /** Give the patient a login account (and a token). */
    login?: boolean;
    email?: string;
    nameFamily?: string;
    nameGiven?: string;
    birthDate?: string;
    telecomPhone?: string;
    identifiers?: readonly Identifier[];
  } = {},
): Promise<Patient & Partial<WithToken>> {
  const email = options.email ?? `patient-${unique()}@example.test`;
  const patient = await createPatient({
    nameFamily: options.nameFamily ?? `Smith${unique()}`,
    nameGiven: options.nameGiven ?? 'Pat',
    telecomEmail: email,
    organizationIds: (options.organizations ?? []).map(idOf),
    ...(options.birthDate ? { birthDate: options.birthDate } : {}),
    ...(options.telecomPhone ? { telecomPhone: options.telecomPhone } : {}),
    ...(options.identifiers ? { identifiers: options.identifiers } : {}),
    ...(options.login ? { account: { email } } : {}),
  });
  return options.login ? { ...patient, token: await tokenFor(patient) } : patient;
}

export async function makeDataSource(options: { name?: string; type?: DataSourceType; codes?: readonly string[] } = {}): Promise<DataSource> {
  const source = await createDataSource({ name: options.name ?? `Device ${unique()}`, type: options.type ?? 'personal_device' });
  for (const text of options.codes ?? []) await addSupportedCode(source.id, (await code(text)).id);
  return source;
}

export async function makeStudy(options: {
  organization: Ref;
  name?: string;
  /** Requested codes, by code text. */
  codes?: readonly string[];
  /** Patients to enrol (they must be members of the organization). */
  patients?: readonly Ref[];
  /** Enrolled patients consent to every requested code. */
  consent?: boolean;
  dataSources?: readonly Ref[];
}): Promise<Study> {
  const study = await createStudy({ organizationId: idOf(options.organization), name: options.name ?? `Study ${unique()}`, description: 'A test study.' });
  const requested = await Promise.all((options.codes ?? []).map(code));
  for (const c of requested) await addStudyCode(study.id, c.id);
  for (const ds of options.dataSources ?? []) await addStudyDataSource(study.id, idOf(ds));
  const patientIds = (options.patients ?? []).map(idOf);
  if (patientIds.length > 0) await enrollPatients(study.id, patientIds);
  if (options.consent) {
    for (const patientId of patientIds) {
      await recordConsents(patientId, requested.map((c) => ({ studyId: study.id, codeId: c.id, consented: true })));
    }
  }
  return study;
}

export async function makeFhirSource(options: { patient: Ref; dataSource: Ref; label?: string; fhirBaseUrl?: string }): Promise<FhirSource> {
  return createFhirSource({
    patientId: idOf(options.patient),
    dataSourceId: idOf(options.dataSource),
    label: options.label ?? 'Test EHR',
    fhirBaseUrl: options.fhirBaseUrl ?? 'https://ehr.example.test/fhir',
  });
}

/** An access token for a practitioner, or for a patient with a login. */
export async function tokenFor(
  who: Practitioner | Patient,
  options: { lifetimeSeconds?: number; scope?: string; resource?: TokenResource } = {},
): Promise<string> {
  const isPractitioner = 'kind' in who && who.kind === 'practitioner';
  const userId = isPractitioner ? who.id : (who as Patient).userId;
  if (userId === undefined) throw new Error(`patient ${who.id} has no login account`);
  const issued = await issueAccessToken({
    userId,
    kind: isPractitioner ? 'practitioner' : 'patient',
    ...(isPractitioner ? {} : { patientId: who.id }),
    scope: options.scope ?? 'openid email',
    ...(options.lifetimeSeconds ? { lifetimeSeconds: options.lifetimeSeconds } : {}),
    ...(options.resource ? { resource: options.resource } : {}),
  });
  return issued.accessToken;
}

/**
 * The same token issued for `/mcp` (RFC 8707): its claims (user, kind, scopes, client, grant, issue
 * and expiry times) signed again with `/mcp`'s audience and a new `jti`, as the token endpoint
 * issues it for `resource=<site>/mcp`. `/mcp` takes no other token. A token of any other audience
 * (not of the service's APIs: the isolation table's foreign one) is returned as it is.
 */
export async function forMcp(token: string): Promise<string> {
  const claims = decodeJwt(token);
  if (claims.aud !== audienceOf('service')) return token;
  return (await signingKeys()).sign({ ...claims, aud: audienceOf('mcp'), jti: randomUUID() }, ACCESS_TOKEN_TYPE);
}
