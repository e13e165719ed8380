/** The account a code, grant or API key acts for, if it may still act. */
import { getUser } from '../directory/users';
import type { Id, User, UserKind } from '../directory/model';

/** The user, if the account still exists, is active, is of the kind the grant was issued to, and (for a grant started at `since`) did not end its sessions after that. */
export async function activeUser(userId: Id, kind: UserKind, since?: number): Promise<User | undefined> {
  const user = await getUser(userId);
  if (!user || !user.active || user.kind !== kind) return undefined;
  if (kind === 'patient' && user.patientId === undefined) return undefined;
  if (since !== undefined && user.tokensNotBefore !== undefined && since < user.tokensNotBefore) return undefined;
  return user;
}
