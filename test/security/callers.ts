/**
 * Who the isolation matrix calls as: one bearer token (or none) per caller, and the patients whose
 * data each caller must never be shown.
 */
import type { JWTPayload } from 'jose';
import { signingKeys } from '../../shared/auth/signing-keys';
import { resetConfig } from '../../shared/config';
import { ACCESS_TOKEN_TYPE, issueAccessToken } from '../../shared/auth/tokens';
import { buildWorld, type PatientSide, type World } from './world';

export const CALLERS = [
  'anonymous',
  'patientA',
  'patientB',
  /** Practitioner (member) in A's and B's organization. */
  'inOrg',
  /** Practitioner of another organization. */
  'outOrg',
  /** Manager of the organization and superuser. */
  'admin',
  /** `inOrg`'s API key, exchanged for a token (client credentials). */
  'apiKey',
  /** A practitioner of the organization deactivated after the token was issued. */
  'deactivatedPractitioner',
  /** A patient of the organization deactivated after the token was issued (patient tokens start reads early). */
  'deactivatedPatient',
  /** A token of this service's own signing key, for another audience, naming `inOrg`. */
  'foreignAudience',
] as const;

export type Caller = (typeof CALLERS)[number];

/** A token signed exactly as this service signs, valid in every claim but the audience. */
async function foreignAudienceToken(userId: number): Promise<string> {
  const { claims } = await issueAccessToken({ userId, kind: 'practitioner', scope: 'openid email' });
  const payload = { ...claims, aud: 'https://another-service.example.test' } as unknown as JWTPayload;
  return (await signingKeys()).sign(payload, ACCESS_TOKEN_TYPE);
}

export type Tokens = Readonly<Record<Caller, string | undefined>>;

/**
 * The world and every caller's token, for a file that sends the table's requests as each caller:
 * every caller starts a handful of exports (each kick-off row, under both bases), and no worker
 * runs them here, so the per-caller limit of running exports is lifted.
 */
export async function worldOfCallers(): Promise<{ world: World; tokens: Tokens }> {
  process.env.EXPORT_MAX_JOBS = '100';
  resetConfig();
  const world = await buildWorld();
  return { world, tokens: await callerTokens(world) };
}

export async function callerTokens(w: World): Promise<Tokens> {
  return {
    anonymous: undefined,
    patientA: w.A.patient.token,
    patientB: w.B.patient.token,
    inOrg: w.inOrg.token,
    outOrg: w.outOrg.token,
    admin: w.admin.token,
    apiKey: w.apiKey.token,
    deactivatedPractitioner: w.deactivatedPractitioner.token,
    deactivatedPatient: w.deactivatedPatient.token,
    foreignAudience: await foreignAudienceToken(w.inOrg.id),
  };
}

/**
 * The patients whose data a caller may not see: a patient sees only themselves, a practitioner
 * the patients of their organizations, and a caller without a valid token no one.
 */
export function hiddenFrom(caller: Caller, w: World): PatientSide[] {
  switch (caller) {
    case 'patientA':
      return [w.B];
    case 'patientB':
      return [w.A];
    case 'inOrg':
    case 'admin':
    case 'apiKey':
      return [];
    case 'anonymous':
    case 'outOrg':
    case 'deactivatedPractitioner':
    case 'deactivatedPatient':
    case 'foreignAudience':
      return [w.A, w.B];
  }
}
