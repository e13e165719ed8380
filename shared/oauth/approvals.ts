/**
 * Approvals: a person's consent to one client for one resource, remembered so the next
 * authorization with the same or fewer scopes does not ask again (more scopes ask again, and the
 * approval then holds both). Each approval has an id, and the codes and grants issued under it name
 * it; withdrawing the approval removes it, so
 * - a code issued under it is refused at the exchange, and a refresh of a grant under it is refused
 *   (and the grant revoked) from that moment (`approvalStands`, checked by the token endpoint);
 * - the client's access tokens for that resource issued up to the withdrawal are refused by the
 *   authenticator from that moment (`withdrawal` in shared/auth/claims.ts, on the user item it reads anyway).
 */
import { randomUUID } from 'node:crypto';
import { withdrawal, type TokenResource } from '../auth/claims';
import type { Id } from '../directory/model';
import { addRevocations } from '../directory/users';
import { nowSeconds } from './clock';
import { covers, unionOf } from './consent';
import { oauthStore } from './store/current';
import type { Approval } from './store/port';

export type { Approval } from './store/port';

/** The person's standing approval of the client for the resource. */
export const approvalOf = (userId: Id, clientId: string, resource: TokenResource): Promise<Approval | undefined> => oauthStore().approvals.get(userId, clientId, resource);

/** Whether the approval covers these scopes (the same or fewer: more ask again). */
export const approvalCovers = (approval: Approval, scope: string): boolean => covers(approval.scope, scope);

/** Records the person's approval of these scopes: a new approval, or the standing one widened (its id kept). */
export async function approve(userId: Id, clientId: string, resource: TokenResource, scope: string): Promise<Approval> {
  const { approvals } = oauthStore();
  const standing = await approvals.get(userId, clientId, resource);
  const at = nowSeconds();
  const approval: Approval = standing
    ? { ...standing, scope: unionOf(standing.scope, scope), updatedAt: at }
    : { userId, clientId, resource, scope: unionOf('', scope), approvalId: randomUUID(), approvedAt: at, updatedAt: at };
  await approvals.put(approval);
  return approval;
}

/** Whether the approval a code or grant was issued under still stands (not withdrawn since). */
export async function approvalStands(binding: { userId: Id; clientId: string; resource?: TokenResource; approvalId: string }): Promise<boolean> {
  const approval = await oauthStore().approvals.get(binding.userId, binding.clientId, binding.resource ?? 'service');
  return approval?.approvalId === binding.approvalId;
}

/** A person's approvals, the most recent first. */
export async function approvalsOf(userId: Id): Promise<Approval[]> {
  return (await oauthStore().approvals.listOfUser(userId)).sort((a, b) => b.approvedAt - a.approvedAt || (a.clientId < b.clientId ? -1 : 1));
}

/**
 * Withdraws the person's approval of the client for the resource and ends the client's tokens for
 * it; `false` (nothing changed) when the person has no such approval.
 */
export async function withdrawApproval(userId: Id, clientId: string, resource: TokenResource): Promise<boolean> {
  if (!(await oauthStore().approvals.remove(userId, clientId, resource))) return false;
  // Access tokens live by the wall clock (their `iat` and `exp`), so their withdrawal is kept by it too.
  const wallNow = Math.floor(Date.now() / 1000);
  await addRevocations(userId, { [withdrawal.entry(clientId, resource)]: withdrawal.forgottenAt(wallNow) });
  return true;
}
