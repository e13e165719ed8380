/**
 * THE key builders of the directory table (single-table design). Every item kind of the identity
 * model has its keys here and nowhere else, including the kinds other modules own (invitations,
 * OAuth clients, authorization codes, refresh tokens), so no two kinds can ever collide.
 *
 * Layout:
 * - An entity lives at `pk = <KIND>#<id>`, `sk = <KIND>` (e.g. `ORG#7 / ORG`).
 * - A relation lives in its container's partition: `pk = <container>`, `sk = <MEMBER KIND>#<padded id>`
 *   (e.g. `ORG#7 / PATIENT#000000000012`), so listing a container is one strongly consistent Query.
 *   The other direction is kept on the member entity itself (a patient's `organizationIds`, a user's
 *   `roles`), written in the same transaction, so it is one GetItem.
 * - A uniqueness claim is an item whose key is the unique value (`EMAIL#<address> / UNIQUE`), put with
 *   `attribute_not_exists(pk)` in the transaction that writes the entity: the store refuses the
 *   second claim, never a read before the write.
 * - `gsi1` holds collections: every entity of a kind (`KIND#ORG`) and inverse relations that are not
 *   kept on an entity (`DATASOURCE#3 -> STUDY#...`). `gsi2` holds lookups by a secondary value
 *   (parent organization, identifier value, a patient's FHIR Sources, a client's owner).
 * - Free text in a key (emails, identifier systems and values, client ids) is percent-encoded, so a
 *   `#` or `|` inside a value can never forge another key.
 */

import { createHash } from 'node:crypto';
import { fitsPartitionKey } from './key-limits';

/** Numeric ids padded to a fixed width, so sort keys order numerically. */
export function pad(id: number): string {
  return String(id).padStart(15, '0');
}

/** Inverse of `pad` for the id part of a sort key (`PATIENT#000000000000012` -> 12). */
export function idFromSortKey(sk: string): number {
  return Number(sk.slice(sk.lastIndexOf('#') + 1));
}

/** Free text inside a key, encoded so it contains no `#` or `|`. */
export function keyText(value: string): string {
  return encodeURIComponent(value);
}

export interface Key {
  pk: string;
  sk: string;
}

/** Index attributes an item carries (only the ones it uses). */
export interface IndexAttributes {
  gsi1pk?: string;
  gsi1sk?: string;
  gsi2pk?: string;
  gsi2sk?: string;
}

export const GSI1 = 'gsi1';
export const GSI2 = 'gsi2';

/** Sort key of every uniqueness claim. */
export const UNIQUE = 'UNIQUE';

/** Prefixes of relation sort keys, for `begins_with` queries. */
export const REL = {
  patient: 'PATIENT#',
  member: 'MEMBER#',
  study: 'STUDY#',
  code: 'CODE#',
  dataSource: 'DATASOURCE#',
  client: 'CLIENT#',
  consent: 'CONSENT#',
  approval: 'APPROVAL#',
} as const;

/** Collections of every entity of one kind (on gsi1). */
export const KIND = {
  organization: 'KIND#ORG',
  practitioner: 'KIND#PRACTITIONER',
  dataSource: 'KIND#DATASOURCE',
  code: 'KIND#CODE',
  oauthClient: 'KIND#OAUTHCLIENT',
} as const;

const ROOT = 'ROOT';

/** The partition-key prefix of the `/mcp` rate windows (the stack lets the `mcp` function write these items and no other). */
export const RATE_WINDOW_PREFIX = 'RATEWINDOW#';

export const keys = {
  // --- entities -------------------------------------------------------------------------------
  organization: (id: number): Key => ({ pk: `ORG#${id}`, sk: 'ORG' }),
  user: (id: number): Key => ({ pk: `USER#${id}`, sk: 'USER' }),
  patient: (id: number): Key => ({ pk: `PATIENT#${id}`, sk: 'PATIENT' }),
  study: (id: number): Key => ({ pk: `STUDY#${id}`, sk: 'STUDY' }),
  dataSource: (id: number): Key => ({ pk: `DATASOURCE#${id}`, sk: 'DATASOURCE' }),
  code: (id: number): Key => ({ pk: `CODE#${id}`, sk: 'CODE' }),
  fhirSource: (id: number): Key => ({ pk: `FHIRSOURCE#${id}`, sk: 'FHIRSOURCE' }),
  /** An OAuth client, by its public `client_id` (the token endpoint's lookup). */
  oauthClient: (clientId: string): Key => ({ pk: `OAUTHCLIENT#${keyText(clientId)}`, sk: 'OAUTHCLIENT' }),
  /** Pointer from an OAuth client's numeric id (used by `/api/v1/`) to its `client_id`. */
  oauthClientNumber: (id: number): Key => ({ pk: `OAUTHCLIENTNO#${id}`, sk: UNIQUE }),

  // --- uniqueness claims ----------------------------------------------------------------------
  /** A login email, case-insensitive. */
  email: (email: string): Key => ({ pk: `EMAIL#${keyText(email.trim().toLowerCase())}`, sk: UNIQUE }),
  /** A patient identifier, unique per (system, value) across all patients. */
  patientIdentifier: (system: string, value: string): Key => ({
    pk: `IDENTIFIER#${keyText(system)}#${keyText(value)}`,
    sk: UNIQUE,
  }),
  /** A code of the code table, unique per (system, code). */
  codeCoding: (system: string, code: string): Key => ({ pk: `CODING#${keyText(system)}#${keyText(code)}`, sk: UNIQUE }),

  // --- relations (container partition / member) ------------------------------------------------
  organizationPatient: (orgId: number, patientId: number): Key => ({ pk: `ORG#${orgId}`, sk: `${REL.patient}${pad(patientId)}` }),
  organizationMember: (orgId: number, userId: number): Key => ({ pk: `ORG#${orgId}`, sk: `${REL.member}${pad(userId)}` }),
  organizationStudy: (orgId: number, studyId: number): Key => ({ pk: `ORG#${orgId}`, sk: `${REL.study}${pad(studyId)}` }),
  studyPatient: (studyId: number, patientId: number): Key => ({ pk: `STUDY#${studyId}`, sk: `${REL.patient}${pad(patientId)}` }),
  /** A code the study requests ("scope request"). */
  studyCode: (studyId: number, codeId: number): Key => ({ pk: `STUDY#${studyId}`, sk: `${REL.code}${pad(codeId)}` }),
  studyDataSource: (studyId: number, dataSourceId: number): Key => ({
    pk: `STUDY#${studyId}`,
    sk: `${REL.dataSource}${pad(dataSourceId)}`,
  }),
  studyClient: (studyId: number, clientNumber: number): Key => ({ pk: `STUDY#${studyId}`, sk: `${REL.client}${pad(clientNumber)}` }),
  dataSourceCode: (dataSourceId: number, codeId: number): Key => ({
    pk: `DATASOURCE#${dataSourceId}`,
    sk: `${REL.code}${pad(codeId)}`,
  }),
  /** A patient's consent decision for one code of one study. */
  consent: (patientId: number, studyId: number, codeId: number): Key => ({
    pk: `PATIENT#${patientId}`,
    sk: `${REL.consent}${pad(studyId)}#${pad(codeId)}`,
  }),
  /** Sort-key prefix of a patient's consents for one study. */
  consentsOfStudy: (studyId: number): string => `${REL.consent}${pad(studyId)}#`,

  // --- kinds owned by the OAuth server (reserved here; see the comments for their intended use) --
  /** An invitation, by the SHA-256 (hex) of its secret token; the token itself is never stored. */
  invitation: (tokenHash: string): Key => ({ pk: `INVITATION#${tokenHash}`, sk: 'INVITATION' }),
  /** Pointer from an invitation's numeric id to its token hash. */
  invitationNumber: (id: number): Key => ({ pk: `INVITATIONNO#${id}`, sk: UNIQUE }),
  /** An authorization code, by the SHA-256 (hex) of the code; carries `expiresAt` (TTL). */
  authorizationCode: (codeHash: string): Key => ({ pk: `AUTHCODE#${codeHash}`, sk: 'AUTHCODE' }),
  /** A refresh token, by the SHA-256 (hex) of the token; carries `expiresAt` (TTL). */
  refreshToken: (tokenHash: string): Key => ({ pk: `REFRESH#${tokenHash}`, sk: 'REFRESH' }),
  /**
   * A grant: one sign-in of a user at one client, the family of refresh tokens rotated from it and
   * the access tokens issued under it (their `sid`); revoking it ends them all. Carries `expiresAt` (TTL).
   */
  grant: (grantId: string): Key => ({ pk: `GRANT#${grantId}`, sk: 'GRANT' }),
  /** The invitation currently issued for one patient and one app (issuing again replaces it). */
  currentInvitation: (patientId: number, clientNumber: number): Key => ({ pk: `PATIENT#${patientId}`, sk: `INVITECURRENT#${pad(clientNumber)}` }),
  /** Failed sign-ins for one email (SHA-256 hex of the lower-cased address, so unknown addresses are not stored); TTL. */
  loginThrottle: (emailHash: string): Key => ({ pk: `LOGINTHROTTLE#${emailHash}`, sk: 'LOGINTHROTTLE' }),
  /** Client registrations counted for one scope (an address's hash, or everyone) in one window (its start, epoch seconds); TTL. */
  registrations: (scope: string, windowStart: number): Key => ({ pk: `REGISTRATIONS#${scope}`, sk: String(windowStart) }),
  /** Attempts at the invitation's password page counted for one source address (its hash) in one window (its start, epoch seconds); TTL. */
  passwordAttempts: (scope: string, windowStart: number): Key => ({ pk: `PASSWORDATTEMPTS#${scope}`, sk: String(windowStart) }),
  /** A client assertion a backend client signed in with, by client and the SHA-256 (hex) of its `jti`, so it is used once; TTL. */
  clientAssertion: (clientId: string, jtiHash: string): Key => ({ pk: `ASSERTION#${keyText(clientId)}#${jtiHash}`, sk: 'ASSERTION' }),
  /** A sign-in waiting for its next page (consent, connected applications), by the SHA-256 (hex) of its id; TTL. */
  signInSession: (sessionHash: string): Key => ({ pk: `SIGNINSESSION#${sessionHash}`, sk: 'SIGNINSESSION' }),
  /**
   * A person's approval of a client for a resource, in the user's partition (their list is one
   * Query). The client id is hashed (SHA-256 hex): any length of client text fits the key.
   */
  approval: (userId: number, resource: string, clientId: string): Key => ({
    pk: `USER#${userId}`,
    sk: `${REL.approval}${resource}#${createHash('sha256').update(clientId).digest('hex')}`,
  }),

  // --- bookkeeping of the /mcp endpoint -------------------------------------------------------------
  /**
   * The requests one (client, user) made in one fixed window of the `/mcp` rate limit, by the SHA-256
   * (base64url) of who asks and the window's first second; carries `expiresAt` (TTL). Its prefix is
   * the only key the `mcp` function may write (`RATE_WINDOW_PREFIX`, the stack's IAM condition).
   */
  rateWindow: (subjectHash: string, windowStart: number): Key => ({ pk: `${RATE_WINDOW_PREFIX}${subjectHash}`, sk: String(windowStart) }),
} as const;

/** Index attributes of items, built here so the index layout stays in this file. */
export const indexes = {
  organization: (id: number, partOf: number | undefined): IndexAttributes => ({
    gsi1pk: KIND.organization,
    gsi1sk: pad(id),
    gsi2pk: `ORGCHILD#${partOf ?? ROOT}`,
    gsi2sk: pad(id),
  }),
  /** Children of an organization (`undefined`: the top-level organizations). */
  organizationChildren: (partOf: number | undefined) => ({ name: GSI2, pk: `ORGCHILD#${partOf ?? ROOT}` }),
  practitionerUser: (id: number): IndexAttributes => ({ gsi1pk: KIND.practitioner, gsi1sk: pad(id) }),
  dataSource: (id: number): IndexAttributes => ({ gsi1pk: KIND.dataSource, gsi1sk: pad(id) }),
  code: (id: number): IndexAttributes => ({ gsi1pk: KIND.code, gsi1sk: pad(id) }),
  oauthClient: (id: number, ownerUserId: number | undefined): IndexAttributes => ({
    gsi1pk: KIND.oauthClient,
    gsi1sk: pad(id),
    ...(ownerUserId === undefined ? {} : { gsi2pk: `CLIENTOWNER#${ownerUserId}`, gsi2sk: pad(id) }),
  }),
  /** OAuth clients (API keys) owned by a practitioner. */
  clientsOfOwner: (userId: number) => ({ name: GSI2, pk: `CLIENTOWNER#${userId}` }),
  /** Identifier claims also answer "which patients have this value, in any system". */
  patientIdentifier: (system: string, value: string): IndexAttributes => ({
    gsi2pk: `IDVALUE#${keyText(value)}`,
    gsi2sk: keyText(system),
  }),
  identifierValue: (value: string) => ({ name: GSI2, pk: `IDVALUE#${keyText(value)}` }),
  fhirSource: (id: number, patientId: number): IndexAttributes => ({ gsi2pk: `PATIENTSOURCES#${patientId}`, gsi2sk: pad(id) }),
  fhirSourcesOfPatient: (patientId: number) => ({ name: GSI2, pk: `PATIENTSOURCES#${patientId}` }),
  /** Inverse of `studyDataSource`: the studies that use a data source. */
  studyDataSource: (studyId: number, dataSourceId: number): IndexAttributes => ({
    gsi1pk: `DATASOURCE#${dataSourceId}`,
    gsi1sk: `${REL.study}${pad(studyId)}`,
  }),
  studiesOfDataSource: (dataSourceId: number) => ({ name: GSI1, pk: `DATASOURCE#${dataSourceId}`, skPrefix: REL.study }),
  /** Inverse of `studyClient`: the studies that use an OAuth client (app). */
  studyClient: (studyId: number, clientNumber: number): IndexAttributes => ({
    gsi1pk: `OAUTHCLIENTNO#${clientNumber}`,
    gsi1sk: `${REL.study}${pad(studyId)}`,
  }),
  studiesOfClient: (clientNumber: number) => ({ name: GSI1, pk: `OAUTHCLIENTNO#${clientNumber}`, skPrefix: REL.study }),
  /** Reserved for the OAuth server: a patient's invitations, newest last. */
  invitationOfPatient: (patientId: number, issuedAt: string): IndexAttributes => ({
    gsi2pk: `PATIENTINVITES#${patientId}`,
    gsi2sk: issuedAt,
  }),
  invitationsOfPatient: (patientId: number) => ({ name: GSI2, pk: `PATIENTINVITES#${patientId}` }),
  /** Reserved for the OAuth server: all refresh tokens of one rotation family (revoked together). */
  refreshTokenOfFamily: (familyId: string, issuedAt: string): IndexAttributes => ({
    gsi2pk: `REFRESHFAMILY#${familyId}`,
    gsi2sk: issuedAt,
  }),
  refreshTokenFamily: (familyId: string) => ({ name: GSI2, pk: `REFRESHFAMILY#${familyId}` }),
} as const;

/** Whether a patient identifier's claim (and so its lookups) fits a key: system and value are client text. */
export const identifierClaimFits = (system: string, value: string): boolean => fitsPartitionKey(keys.patientIdentifier(system, value).pk);
