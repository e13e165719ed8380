/**
 * The identity and directory entities, as the rest of the service sees them: plain, typed,
 * camelCase values. Ids are positive integers from block counters (`ids.ts`); timestamps are
 * ISO 8601 UTC strings (`2026-06-07T04:11:52.577Z`).
 */

export type Id = number;

export interface Timestamps {
  createdAt: string;
  /** Time of the last change; `meta.lastUpdated` of the FHIR projections. */
  updatedAt: string;
}

// --- organizations ---------------------------------------------------------------------------

/**
 * Organization types: the codes of the FHIR organization-type code system
 * (http://terminology.hl7.org/CodeSystem/organization-type) with their display labels.
 */
export const ORGANIZATION_TYPES = {
  prov: 'Healthcare Provider',
  dept: 'Hospital Department',
  team: 'Organizational team',
  govt: 'Government',
  ins: 'Insurance Company',
  pay: 'Payer',
  edu: 'Educational Institute',
  reli: 'Religious Institution',
  crs: 'Clinical Research Sponsor',
  cg: 'Community Group',
  bus: 'Non-Healthcare Business or Corporation',
  other: 'Other',
} as const;
export type OrganizationType = keyof typeof ORGANIZATION_TYPES;
export const ORGANIZATION_TYPE_SYSTEM = 'http://terminology.hl7.org/CodeSystem/organization-type';

export interface Organization extends Timestamps {
  id: Id;
  name: string;
  type: OrganizationType;
  /** Parent organization; absent for a top-level organization. Organizations form a tree. */
  partOf?: Id;
}

/** A practitioner's role in one organization, weakest first. Roles matter for writes only. */
export const ORG_ROLES = ['viewer', 'member', 'manager'] as const;
export type OrgRole = (typeof ORG_ROLES)[number];

/** A practitioner's membership of one organization, as its list of members shows it. */
export interface Membership {
  userId: Id;
  role: OrgRole;
}

export function roleAtLeast(role: OrgRole | undefined, minimum: OrgRole): boolean {
  return role !== undefined && ORG_ROLES.indexOf(role) >= ORG_ROLES.indexOf(minimum);
}

// --- users, practitioners, patients -----------------------------------------------------------

export type UserKind = 'patient' | 'practitioner';

/** A login account. Emails are unique case-insensitively (stored as given, compared lower-cased). */
export interface User extends Timestamps {
  id: Id;
  email: string;
  /** `scrypt$...` (see `shared/auth/passwords.ts`); absent for accounts that log in by invitation only. Never rendered. */
  passwordHash?: string;
  kind: UserKind;
  superuser: boolean;
  nameFamily: string;
  nameGiven: string;
  /** A deactivated account's tokens are refused. */
  active: boolean;
  /** The patient record of a patient account. */
  patientId?: Id;
  /** A practitioner's role per organization id (direct memberships only; no inheritance down the tree). */
  roles: ReadonlyMap<Id, OrgRole>;
  /** Access tokens issued before this instant (epoch seconds) are refused (e.g. after a password change). */
  tokensNotBefore?: number;
  /**
   * Revoked access tokens that may still be unexpired: `sid:<grant id>` (every token of a grant) or
   * `jti:<token id>` (one token), each with the epoch second after which it can be forgotten (no
   * token it matches lives longer). Kept on the user item, so `authenticate` needs no extra read.
   */
  revocations?: Readonly<Record<string, number>>;
}

/** A practitioner is a user of kind `practitioner`; the practitioner id is the user id. */
export type Practitioner = User & { kind: 'practitioner' };

export interface Identifier {
  system: string;
  value: string;
}

export interface Patient extends Timestamps {
  id: Id;
  /** The patient's login account, when they have one. */
  userId?: Id;
  nameFamily: string;
  nameGiven: string;
  /** YYYY-MM-DD */
  birthDate?: string;
  telecomPhone?: string;
  /** Contact email (for a patient created with a login, the login's address). */
  telecomEmail?: string;
  /** Unique per (system, value) across all patients. */
  identifiers: Identifier[];
  /** Organizations the patient belongs to (direct membership), ascending. */
  organizationIds: Id[];
  /** Studies the patient is enrolled in, ascending. */
  studyIds: Id[];
}

// --- studies, codes, consents, data sources -----------------------------------------------------

export interface Study extends Timestamps {
  id: Id;
  organizationId: Id;
  name: string;
  description: string;
  iconUrl?: string;
}

/** A row of the mobile-health code table (what observations and consents are about). */
export interface Code {
  id: Id;
  system: string;
  code: string;
  display: string;
}

/** A code reference as stored on relations (codes never change system or code). */
export type CodeRef = Pick<Code, 'id' | 'system' | 'code'>;

export interface Consent {
  patientId: Id;
  studyId: Id;
  code: CodeRef;
  consented: boolean;
  /** When the decision was recorded. */
  consentedAt: string;
}

export const DATA_SOURCE_TYPES = ['personal_device', 'medical_device', 'patient_app'] as const;
export type DataSourceType = (typeof DATA_SOURCE_TYPES)[number];

/** A data source (FHIR Device): a device or app that produces observations. */
export interface DataSource extends Timestamps {
  id: Id;
  name: string;
  type: DataSourceType;
}

/** Spec 2.5: the upstream system a patient's auxiliary data comes from. */
export interface FhirSource extends Timestamps {
  id: Id;
  patientId: Id;
  dataSourceId: Id;
  label: string;
  fhirBaseUrl: string;
}

// --- OAuth clients ------------------------------------------------------------------------------

export type ClientType = 'public' | 'confidential';

/** A public key of a backend client, as registered (RFC 7517 members; public ones only, never `d`). */
export type PublicJwk = Readonly<Record<string, string>>;

/** A JWK Set of public keys (RFC 7517 §5). */
export interface PublicJwkSet {
  keys: PublicJwk[];
}

export interface OAuthClient extends Timestamps {
  /** Numeric id used by `/api/v1/` (studies' apps, invitations). */
  id: Id;
  /** The OAuth `client_id`. */
  clientId: string;
  name: string;
  type: ClientType;
  /** SHA-256 of a confidential client's secret (`shared/secrets.ts`; secrets are random, high-entropy). Never rendered. */
  secretHash?: string;
  /** Exact redirect URIs; a request's redirect_uri must equal one byte for byte. */
  redirectUris: string[];
  grantTypes: string[];
  /** The practitioner a client-credentials API key or backend client acts as. */
  ownerUserId?: Id;
  /**
   * A backend client's public keys (SMART Backend Services): registered inline (`jwks`) or as the
   * https URL of its JWK Set (`jwksUri`), never both. Such a client authenticates only with a
   * signed assertion (`private_key_jwt`) and has no secret.
   */
  jwks?: PublicJwkSet;
  jwksUri?: string;
  /** Invitation link template; `CODE` is replaced by the URL-encoded invitation code. */
  invitationUrl?: string;
  /**
   * How an assistant's client came to be (absent: made by the service, the seed or an operator):
   * `dynamic`, it registered itself (RFC 7591); `metadata-document`, its `client_id` is the https
   * URL of its Client ID Metadata Document (fetched and kept a while; stored only as the record of
   * its use, with its grants, once it exchanged a code, or of its revocation: the document itself is
   * what authorize and token trust).
   */
  registration?: 'dynamic' | 'metadata-document';
  /**
   * Epoch seconds after which the client is gone (a dynamically registered one: a day unless used,
   * then months after its last use). The directory table's TTL attribute, and every read checks it,
   * because TTL deletes late.
   */
  expiresAt?: number;
  /** Epoch seconds of its last token exchange (dynamically registered and metadata-document clients). */
  lastUsedAt?: number;
  /** The latest grants issued to an assistant's client (bounded), which revoking it ends. */
  grants?: ClientGrant[];
  /**
   * Epoch seconds the operator revoked a metadata-document client. Its record is then kept without
   * an expiry, so that authorize and token refuse its URL from then on (a block list entry).
   */
  revokedAt?: number;
}

/** A grant issued to a client: what revoking the client must end. */
export interface ClientGrant {
  grantId: string;
  userId: Id;
}

// --- paging --------------------------------------------------------------------------------------

/** Page-number paging of `/api/v1/` lists (1-based). */
export interface Paging {
  page: number;
  pageSize: number;
}

export interface Page<T> {
  /** Items across all pages. */
  count: number;
  items: T[];
}
