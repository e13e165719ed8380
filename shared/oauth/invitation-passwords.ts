/**
 * A patient invited to the portal signs in there by invitation only: their account has no
 * password, so it cannot sign in at the OAuth sign-in page (an assistant's authorization, the
 * connected applications). With the invitation they hold, they set one (docs/access.md#invited-patients-set-a-password):
 *
 * - the invitation must still be usable as the portal would redeem it (not cancelled, replaced or
 *   expired, and within 12 hours of its first redemption), and sets a password once: the write
 *   that marks it is conditional, so of two racing posts one wins;
 * - it is bound to its patient: the password is the account of that invitation's patient (created
 *   passwordless first if the patient had none, as a redemption does), whose email is then shown;
 * - attempts are counted per source address (`ATTEMPTS_PER_WINDOW` a `WINDOW_SECONDS`, then 429
 *   with `Retry-After`), successful ones too; the page takes no email, so nothing tells whether an
 *   account exists;
 * - a first password ends no session (the portal's go on); one that replaces a password (a new
 *   invitation from the care team, for a forgotten one) ends every session, as any password change.
 *
 * Every refusal is an HttpError with the sentence for the person, and changes nothing.
 */
import { hashPassword } from '../auth/passwords';
import { config } from '../config';
import { getPatient } from '../directory/patients';
import { getUser, updateUser } from '../directory/users';
import { badRequest, conflict, forbidden, HttpError, isHttpError, notFound } from '../http/errors';
import { parseInvitationCode } from '../portal/invitation';
import { hashSecret } from '../secrets';
import { nowMs, nowSeconds } from './clock';
import { accountOf, invitationRefusal } from './invitations';
import { MAX_PASSWORD_LENGTH } from './sign-in';
import { oauthStore } from './store/current';

export const MIN_NEW_PASSWORD_LENGTH = 12;
export const ATTEMPTS_PER_WINDOW = 10;
export const WINDOW_SECONDS = 15 * 60;

const TOKEN = /^[A-Za-z0-9]{32}$/;
const MAX_CODE_TEXT_LENGTH = 2048;

const unknownInvitation = () =>
  notFound('This is not an invitation we know. Paste the whole invitation link your care team gave you, or its code.');

/**
 * The invitation token in what a person pastes: the invitation link, its code
 * (`<host[:port]>_<token>`, the link's `code` parameter), or the token alone. A code naming another
 * site is refused: it is another service's invitation.
 */
export function invitationTokenOf(text: string): string {
  let code = text.trim();
  if (code.length === 0 || code.length > MAX_CODE_TEXT_LENGTH) throw unknownInvitation();
  if (/^https?:\/\//i.test(code)) {
    let fromLink: string | null = null;
    try {
      fromLink = new URL(code).searchParams.get('code');
    } catch {
      // Not a URL after all: read as a code below.
    }
    if (fromLink === null) throw unknownInvitation();
    code = fromLink;
  } else if (code.includes('%')) {
    try {
      code = decodeURIComponent(code);
    } catch {
      throw unknownInvitation();
    }
  }
  if (TOKEN.test(code)) return code;
  const parsed = parseInvitationCode(code);
  if (!parsed || !TOKEN.test(parsed.token)) throw unknownInvitation();
  const site = new URL(config().siteUrl).host;
  if (parsed.host.toLowerCase() !== site.toLowerCase()) throw notFound(`This invitation is for another service (${parsed.host.slice(0, 100)}), not this one (${site}).`);
  return parsed.token;
}

/** Why a new password cannot be used, if it cannot. */
function passwordProblem(password: string, repeated: string): string | undefined {
  const length = [...password].length;
  if (length < MIN_NEW_PASSWORD_LENGTH) return `Choose a password of at least ${MIN_NEW_PASSWORD_LENGTH} characters.`;
  if (password.length > MAX_PASSWORD_LENGTH) return `Choose a password of at most ${MAX_PASSWORD_LENGTH} characters.`;
  if (password.trim().length === 0 || new Set(password).size === 1) return 'Choose a password that is not one character repeated.';
  if (password !== repeated) return 'The two passwords are not the same.';
  return undefined;
}

/** Takes one attempt of the source address's window; 429 with `Retry-After` when the window is full. */
async function countAttempt(sourceIp: string | undefined): Promise<void> {
  const now = nowSeconds();
  const windowStart = now - (now % WINDOW_SECONDS);
  const scope = `address:${hashSecret(sourceIp ?? 'unknown')}`;
  if (await oauthStore().passwordAttempts.take(scope, windowStart, ATTEMPTS_PER_WINDOW, windowStart + 2 * WINDOW_SECONDS)) return;
  const retryAfter = windowStart + WINDOW_SECONDS - now;
  const minutes = Math.max(1, Math.ceil(retryAfter / 60));
  throw new HttpError(429, `Too many attempts from your network. Try again in ${minutes} minute${minutes === 1 ? '' : 's'}.`, 'throttled', { headers: { 'Retry-After': String(retryAfter) } });
}

/** Sets the password of the account of an invitation's patient; answers the account's email (what to sign in with). */
export async function setPasswordWithInvitation(input: { invitation: string; password: string; repeated: string; sourceIp?: string }): Promise<{ email: string }> {
  if (input.invitation.trim().length === 0) throw badRequest('Paste the invitation link your care team gave you, or its code.');
  const problem = passwordProblem(input.password, input.repeated);
  if (problem) throw badRequest(problem);
  await countAttempt(input.sourceIp);
  const tokenHash = hashSecret(invitationTokenOf(input.invitation));
  const { invitations } = oauthStore();
  const seen = await invitations.get(tokenHash);
  if (!seen) throw unknownInvitation();
  const { invitation } = seen;
  const refused = invitationRefusal(invitation, nowMs());
  if (refused) throw refused;
  if (invitation.passwordSetAt !== undefined) throw conflict('This invitation was used to set a password already. Sign in with that password, or ask your care team for a new invitation.');
  const patient = await getPatient(invitation.patientId);
  if (!patient) throw unknownInvitation();
  const user = await getUser(await accountOf(patient));
  if (!user || !user.active || user.kind !== 'patient') throw forbidden('This account cannot sign in. Ask your care team.');
  const passwordHash = await hashPassword(input.password);
  const at = new Date(nowMs()).toISOString();
  try {
    await invitations.change(seen, { passwordSetAt: at, updatedAt: at });
  } catch (e) {
    // Another post with this invitation landed first (or it was redeemed, reissued or cancelled meanwhile): read it again.
    if (isHttpError(e) && e.status === 409) throw conflict('This invitation changed while the password was being set. Open the page again and retry.');
    throw e;
  }
  await updateUser(user.id, { passwordHash });
  return { email: user.email };
}
