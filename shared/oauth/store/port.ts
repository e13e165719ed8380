/**
 * The OAuth server's store port: the records its flows keep, in their own terms. Two adapters
 * implement it, DynamoDB (`dynamo.ts`, the service's, on the directory table) and in memory
 * (`memory.ts`, a twin for fast tests); one contract suite (test/contract/oauth-store.ts) runs
 * against both, so they cannot drift. The rules of the flows (expiry, PKCE, lockout thresholds,
 * which invitation status may become which) stay in the domain functions (`../authorization-codes.ts`,
 * `../grants.ts`, `../invitations.ts`, `../sign-in.ts`), once, in front of either adapter.
 *
 * Records are handed out as stored, expired ones included: DynamoDB's TTL deletes late, so every
 * reader checks expiry itself, and the twin keeps them for the same readers.
 *
 * Every step that must not be taken twice (using a code, rotating a refresh token, redeeming or
 * reissuing an invitation) is one call, all or nothing in either adapter. The errors a store raises
 * for a refused change are the same values from either adapter, built here.
 */
import type { TokenResource } from '../../auth/claims';
import type { Id, UserKind } from '../../directory/model';
import { conflict } from '../../http/errors';

export { concurrentChange as invitationChanged } from '../../store/transact';

// --- authorization codes -------------------------------------------------------------------------

export interface CodeBinding {
  clientId: string;
  redirectUri: string;
  userId: Id;
  kind: UserKind;
  scope: string;
  codeChallenge: string;
  /** OpenID Connect `nonce` of the authorization request, echoed in the id_token. */
  nonce?: string;
  /** The resource the authorization request named (RFC 8707); absent: the service's APIs. */
  resource?: TokenResource;
  /** The invitation whose redemption issued the code (only its latest code is honoured). */
  invitationHash?: string;
  /** The person's approval of the client the code was issued under (`approvalId`); it must still stand at the exchange. */
  approvalId?: string;
}

export interface StoredCode extends CodeBinding {
  codeHash: string;
  /** The grant the code starts; set before use, so a replay knows what to revoke. */
  grantId: string;
  issuedAt: number;
  expiresAt: number;
  usedAt?: number;
}

export interface AuthorizationCodeRecords {
  /** Stores a new code; 409 (`codeCollision`) when its hash is already stored. */
  insert(code: StoredCode): Promise<void>;
  /** The code as stored (used and expired ones too), strongly consistent. */
  get(codeHash: string): Promise<StoredCode | undefined>;
  /**
   * Uses the code: marks it used at `usedAt` and stores the grant it starts with that grant's first
   * refresh token (`grant.currentHash`, issued at `grant.createdAt`), all in one step. `false`, with
   * nothing written, when the code was used already or is gone: the caller has a replay.
   */
  consume(codeHash: string, usedAt: number, grant: Grant): Promise<boolean>;
}

// --- grants and refresh tokens ---------------------------------------------------------------------

export interface Grant {
  grantId: string;
  userId: Id;
  kind: UserKind;
  clientId: string;
  scope: string;
  /** The resource every token of the grant is for (its code's); absent: the service's APIs. */
  resource?: TokenResource;
  /** The approval its code was issued under (its code's); the grant ends when the person withdraws it. */
  approvalId?: string;
  /** Epoch seconds. */
  createdAt: number;
  /** SHA-256 of the one refresh token that may be used next. */
  currentHash: string;
  /** Epoch seconds after which the grant is gone (the current refresh token's expiry). */
  expiresAt: number;
  revokedAt?: number;
}

/** What a refresh token, live or retired, points at. */
export interface RefreshTokenRecord {
  grantId: string;
  issuedAt: number;
  expiresAt: number;
}

export interface GrantRecords {
  get(grantId: string): Promise<Grant | undefined>;
  /** The record of a refresh token by its hash, whether it is the grant's live one or a retired one. */
  token(tokenHash: string): Promise<RefreshTokenRecord | undefined>;
  /** Marks the grant revoked at `at`; a grant revoked before keeps its first time; no grant, no change. */
  revoke(grantId: string, at: number): Promise<void>;
  /**
   * Replaces the grant's live refresh token `presentedHash` by `next` (the grant now expires with
   * it) and stores next's record, in one step. `false`, with nothing written, when `presentedHash`
   * is no longer the live one or the grant is revoked or gone: the caller has a replay.
   */
  rotate(grantId: string, presentedHash: string, next: RefreshTokenRecord & { hash: string }): Promise<boolean>;
}

// --- invitations ---------------------------------------------------------------------------------

export type InvitationStatus = 'issued' | 'redeemed' | 'reissued' | 'cancelled';

export interface Invitation {
  id: Id;
  tokenHash: string;
  patientId: Id;
  /** The app's numeric id (`/api/v1/`), and its OAuth `client_id`. */
  clientNumber: Id;
  clientId: string;
  status: InvitationStatus;
  sendEmail: boolean;
  /** The practitioner who issued it (absent for the demo seed). */
  createdBy?: Id;
  createdAt: string;
  updatedAt: string;
  /** When it stops being redeemable. */
  expires: string;
  /** The last redemption, which opens the re-redemption window. */
  redeemedAt?: string;
  redemptions: number;
  /** The authorization code of the last redemption (the only one honoured). */
  codeHash?: string;
  /** When the patient set their account's password with it (once per invitation). */
  passwordSetAt?: string;
}

/** The fields a change of an invitation may set, in the order the change names them. */
export type InvitationChange = Partial<Pick<Invitation, 'status' | 'updatedAt' | 'redeemedAt' | 'codeHash' | 'redemptions' | 'passwordSetAt'>>;

/** An invitation as read, with the version a change of it must still find. */
export interface SeenInvitation {
  invitation: Invitation;
  version: number;
}

export interface InvitationRecords {
  /** A fresh invitation number. */
  newId(): Promise<Id>;
  /** By the hash of its token, strongly consistent. */
  get(tokenHash: string): Promise<SeenInvitation | undefined>;
  /** By its number, strongly consistent. */
  getById(id: Id): Promise<SeenInvitation | undefined>;
  /** A patient's invitations, oldest first; read from an index, so one just issued may show a moment later. */
  listOfPatient(patientId: Id): Promise<Invitation[]>;
  /**
   * Stores a new invitation as the current one of its patient and app; the one it replaces, if
   * `retire` answers a change for it, gets that change in the same step. 409 (`invitationChanged`)
   * when another issue for the same patient and app, or a change of the replaced one, landed in
   * between; 409 (`invitationCollision`) when the token hash or number is taken.
   */
  issue(invitation: Invitation, retire: (replaced: Invitation) => InvitationChange | undefined): Promise<void>;
  /** Sets these fields over the version read; 409 (`invitationChanged`) when it moved on (or is gone). */
  change(seen: SeenInvitation, fields: InvitationChange): Promise<void>;
  /** As `change`, and stores the code the redemption issues (409 `codeCollision`), in one step. */
  redeem(seen: SeenInvitation, fields: InvitationChange, code: StoredCode): Promise<void>;
}

// --- sign-in attempts ------------------------------------------------------------------------------

/** Failed sign-ins for one email address (keyed by the hash of the lower-cased address). */
export interface SignInAttempts {
  failures: number;
  /** Start of the window the failures count in (epoch seconds); absent when the first count found no record. */
  windowStart?: number;
  /** End of a lockout (epoch seconds). */
  lockedUntil?: number;
  /** When the record may be forgotten (epoch seconds). */
  expiresAt: number;
}

export interface SignInAttemptRecords {
  get(emailHash: string): Promise<SignInAttempts | undefined>;
  /** Replaces the record (a fresh window, or a lockout). */
  set(emailHash: string, attempts: SignInAttempts): Promise<void>;
  /**
   * Counts one more failure and moves the expiry to `expiresAt`, atomically (concurrent failures
   * all count); answers the count now stored. Without a record, starts one at 1 (with no window).
   */
  addFailure(emailHash: string, expiresAt: number): Promise<number>;
  /** Forgets the failures (nothing when there are none). */
  clear(emailHash: string): Promise<void>;
}

// --- client assertions ------------------------------------------------------------------------------

/**
 * The assertions backend clients signed in with (SMART Backend Services), by client and the
 * SHA-256 of the assertion's `jti`, each kept until the assertion could no longer be accepted.
 */
export interface ClientAssertionRecords {
  /**
   * Records that the client used this `jti` until `expiresAt` (epoch seconds), in one step: `false`,
   * with nothing written, when a record of it is still live at `now` (a replay). A record whose
   * `expiresAt` has passed counts as gone, whether or not DynamoDB's TTL has removed it yet.
   */
  use(clientId: string, jtiHash: string, expiresAt: number, now: number): Promise<boolean>;
}

// --- client registrations, password page attempts ----------------------------------------------------

/**
 * Something counted per scope and fixed window: client registrations (per the hash of a source
 * address, or `all`), attempts at the invitation's password page (per the hash of a source address).
 */
export interface WindowCountRecords {
  /**
   * Counts one in the scope's window starting at `windowStart` (epoch seconds) if that window holds
   * fewer than `limit`, and answers whether it did: racing ones never both take the last place,
   * and a refused one is not counted. The window may be forgotten after `expiresAt` (epoch seconds).
   */
  take(scope: string, windowStart: number, limit: number, expiresAt: number): Promise<boolean>;
}

export type RegistrationCountRecords = WindowCountRecords;

// --- sign-in sessions ------------------------------------------------------------------------------

/** An authorization request whose person signed in and has not answered its consent page yet. */
export interface PendingAuthorization {
  clientId: string;
  redirectUri: string;
  state?: string;
  codeChallenge: string;
  /** The scope granted to this account (what the consent page shows and the code carries). */
  scope: string;
  nonce?: string;
  resource?: TokenResource;
}

/**
 * A password sign-in that goes on to a next page: the consent page of an authorization request, or
 * the page of a person's connected applications. Kept under the SHA-256 of its random id (the id
 * travels in the page's form or a short-lived cookie), with the hash of the CSRF token its forms
 * must carry, for minutes only (TTL `expiresAt`).
 */
export interface SignInSession {
  sessionHash: string;
  userId: Id;
  kind: UserKind;
  csrfHash: string;
  /** The request waiting for consent; absent for the connections page. */
  authorization?: PendingAuthorization;
  createdAt: number;
  expiresAt: number;
}

export interface SignInSessionRecords {
  /** Stores a new session; 409 (`sessionCollision`) when its hash is already stored. */
  insert(session: SignInSession): Promise<void>;
  /** The session as stored (expired ones too), strongly consistent. */
  get(sessionHash: string): Promise<SignInSession | undefined>;
  /** Removes the session; `true` for the one call that removed it (of racing ones), `false` when it was gone. */
  take(sessionHash: string): Promise<boolean>;
}

// --- approvals (consent remembered) -----------------------------------------------------------------

/** A person's approval of one client for one resource: the scopes approved so far. */
export interface Approval {
  userId: Id;
  clientId: string;
  resource: TokenResource;
  /** Space-separated, the union of every scope approved since `approvedAt`. */
  scope: string;
  /** Random, new with every approval after a withdrawal: codes and grants name the approval they came under. */
  approvalId: string;
  /** Epoch seconds of the first approval, and of the last widening. */
  approvedAt: number;
  updatedAt: number;
}

export interface ApprovalRecords {
  get(userId: Id, clientId: string, resource: TokenResource): Promise<Approval | undefined>;
  /** A person's approvals (any order), strongly consistent. */
  listOfUser(userId: Id): Promise<Approval[]>;
  /** Stores the approval, replacing the one of the same person, client and resource. */
  put(approval: Approval): Promise<void>;
  /** Removes it; `true` for the one call that removed it, `false` when there was none. */
  remove(userId: Id, clientId: string, resource: TokenResource): Promise<boolean>;
}

export interface OAuthStore {
  codes: AuthorizationCodeRecords;
  grants: GrantRecords;
  invitations: InvitationRecords;
  signIns: SignInAttemptRecords;
  clientAssertions: ClientAssertionRecords;
  registrations: RegistrationCountRecords;
  passwordAttempts: WindowCountRecords;
  sessions: SignInSessionRecords;
  approvals: ApprovalRecords;
}

export const sessionCollision = () => conflict('Sign-in session collision.');

export const codeCollision = () => conflict('Authorization code collision.');
export const grantCollision = () => conflict('Grant id collision.');
export const refreshTokenCollision = () => conflict('Refresh token collision.');
export const invitationCollision = () => conflict('Invitation collision.');
export const invitationNumberCollision = () => conflict('Invitation number collision.');
