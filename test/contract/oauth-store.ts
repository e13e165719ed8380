/**
 * THE contract of the OAuth store port (shared/oauth/store/port.ts), run against every adapter: the
 * same calls, through the port and through the domain functions that stand on it, the same
 * observable results, so the in-memory twin cannot drift from the DynamoDB adapter. A run file
 * (under test/integration, where DynamoDB Local is set up) calls `oauthStoreContract` with the
 * adapters to hold to it.
 *
 * Each test makes its own records (random hashes, ids and addresses) and asserts on those only: the
 * DynamoDB adapter's table is shared by the file's tests, the twin is new for each.
 */
import { randomBytes, randomInt } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AUTHORIZATION_CODE_SECONDS, REFRESH_TOKEN_SECONDS } from '../../shared/auth/lifetimes';
import { hashSecret } from '../../shared/secrets';
import { checkAuthorizationCode, issueAuthorizationCode, useAuthorizationCode } from '../../shared/oauth/authorization-codes';
import { resetClock, useClock } from '../../shared/oauth/clock';
import { grantOfRefreshToken, rotateRefreshToken, startGrant } from '../../shared/oauth/grants';
import { FAILURE_WINDOW_SECONDS, LOCKOUT_SECONDS, MAX_FAILURES, signIn } from '../../shared/oauth/sign-in';
import { useOAuthStore } from '../../shared/oauth/store/current';
import type { Grant, Invitation, OAuthStore, SeenInvitation, StoredCode } from '../../shared/oauth/store/port';
import { s256Challenge } from '../../shared/oauth/pkce';
import { approvalCovers, approvalStands, approve, approvalsOf, withdrawApproval } from '../../shared/oauth/approvals';
import { endSession, openSession, sessionCsrf, startSession } from '../../shared/oauth/sign-in-sessions';
import type { Approval, SignInSession } from '../../shared/oauth/store/port';

export type OAuthAdapter = [name: string, make: () => OAuthStore];

const hash = () => randomBytes(32).toString('hex');
/** Far from any id the directory's counters hand out in a test file, and from each other. */
const someId = () => 900_000_000 + randomInt(90_000_000);
const NOW = 1_800_000_000;

function storedCode(fields: Partial<StoredCode> = {}): StoredCode {
  return {
    clientId: 'app',
    redirectUri: 'https://app.test/cb',
    userId: someId(),
    kind: 'patient',
    scope: 'openid',
    codeChallenge: 'challenge',
    codeHash: hash(),
    grantId: hash(),
    issuedAt: NOW,
    expiresAt: NOW + AUTHORIZATION_CODE_SECONDS,
    ...fields,
  };
}

function grantOf(fields: Partial<Grant> = {}): Grant {
  return { grantId: hash(), userId: someId(), kind: 'patient', clientId: 'app', scope: 'openid', createdAt: NOW, currentHash: hash(), expiresAt: NOW + REFRESH_TOKEN_SECONDS, ...fields };
}

function invitationOf(fields: Partial<Invitation> = {}): Invitation {
  return {
    id: someId(),
    tokenHash: hash(),
    patientId: someId(),
    clientNumber: 7,
    clientId: 'portal',
    status: 'issued',
    sendEmail: false,
    createdAt: '2027-01-15T08:00:00.000Z',
    updatedAt: '2027-01-15T08:00:00.000Z',
    expires: '2027-01-22T08:00:00.000Z',
    redemptions: 0,
    ...fields,
  };
}

const CHANGED = { status: 409, message: 'The record was changed by another request at the same time; please retry.' };

export function oauthStoreContract(adapters: readonly OAuthAdapter[]): void {
  describe.each(adapters)('OAuth store: %s', (_name, make) => {
    let store: OAuthStore;
    let previous: OAuthStore | undefined;
    beforeEach(() => {
      store = make();
      previous = useOAuthStore(store);
    });
    afterEach(() => {
      useOAuthStore(previous!);
      resetClock();
    });

    describe('authorization codes', () => {
      it('stores a code once: read back as stored, a second one under the same hash is a 409 that changes nothing', async () => {
        const code = storedCode({ nonce: 'n-1', invitationHash: hash() });
        await store.codes.insert(code);
        expect(await store.codes.get(code.codeHash)).toEqual(code);
        expect(await store.codes.get(hash())).toBeUndefined();
        await expect(store.codes.insert({ ...code, clientId: 'other' })).rejects.toMatchObject({ status: 409, message: 'Authorization code collision.' });
        expect(await store.codes.get(code.codeHash)).toEqual(code);
      });

      it('hands out copies: changing a code read does not change the stored one', async () => {
        const code = storedCode();
        await store.codes.insert(code);
        (await store.codes.get(code.codeHash))!.clientId = 'changed';
        code.scope = 'changed after insert';
        expect((await store.codes.get(code.codeHash))!).toMatchObject({ clientId: 'app', scope: 'openid' });
      });

      it('uses a code once: the first use marks it and stores its grant and first refresh token, a second use takes nothing', async () => {
        const code = storedCode();
        await store.codes.insert(code);
        const grant = grantOf({ grantId: code.grantId });
        expect(await store.codes.consume(code.codeHash, NOW + 5, grant)).toBe(true);
        expect(await store.codes.get(code.codeHash)).toEqual({ ...code, usedAt: NOW + 5 });
        expect(await store.grants.get(grant.grantId)).toEqual(grant);
        expect(await store.grants.token(grant.currentHash)).toEqual({ grantId: grant.grantId, issuedAt: grant.createdAt, expiresAt: grant.expiresAt });

        const again = grantOf();
        expect(await store.codes.consume(code.codeHash, NOW + 9, again)).toBe(false);
        expect(await store.codes.get(code.codeHash)).toEqual({ ...code, usedAt: NOW + 5 });
        expect(await store.grants.get(again.grantId)).toBeUndefined();
        expect(await store.grants.token(again.currentHash)).toBeUndefined();
        expect(await store.codes.consume(hash(), NOW, grantOf())).toBe(false);
      });

      it('lets exactly one of racing uses take the code', async () => {
        const code = storedCode();
        await store.codes.insert(code);
        const grants = [grantOf(), grantOf(), grantOf()];
        const taken = await Promise.all(grants.map((g) => store.codes.consume(code.codeHash, NOW, g)));
        expect(taken.filter(Boolean)).toHaveLength(1);
        const stored = await Promise.all(grants.map((g) => store.grants.get(g.grantId)));
        expect(stored.filter((g) => g !== undefined)).toEqual([grants[taken.indexOf(true)]]);
      });

      it('refuses a use whose grant id is taken with a 409, leaving the code unused', async () => {
        const first = storedCode();
        const second = storedCode();
        await store.codes.insert(first);
        await store.codes.insert(second);
        const grant = grantOf();
        await store.codes.consume(first.codeHash, NOW, grant);
        await expect(store.codes.consume(second.codeHash, NOW, grantOf({ grantId: grant.grantId }))).rejects.toMatchObject({ status: 409, message: 'Grant id collision.' });
        expect(await store.codes.get(second.codeHash)).toEqual(second);
        await expect(store.codes.consume(second.codeHash, NOW, grantOf({ currentHash: grant.currentHash }))).rejects.toMatchObject({ status: 409, message: 'Refresh token collision.' });
        expect(await store.codes.get(second.codeHash)).toEqual(second);
      });

      it('checks a code through the domain: expired after its lifetime, and a used one revokes the grant it started', async () => {
        useClock(() => NOW * 1000);
        const verifier = 'v'.repeat(43);
        const binding = { clientId: 'app', redirectUri: 'https://app.test/cb', userId: someId(), kind: 'patient' as const, scope: 'openid', codeChallenge: s256Challenge(verifier) };
        const exchange = (code: string) => ({ code, clientId: 'app', redirectUri: 'https://app.test/cb', verifier });

        const late = await issueAuthorizationCode(binding);
        useClock(() => (NOW + AUTHORIZATION_CODE_SECONDS) * 1000);
        await expect(checkAuthorizationCode(exchange(late.code))).rejects.toMatchObject({ message: 'The authorization code has expired.' });

        const { code, stored } = await issueAuthorizationCode(binding);
        expect(await checkAuthorizationCode(exchange(code))).toEqual(stored);
        const { grant } = startGrant({ grantId: stored.grantId, userId: stored.userId, kind: 'patient', clientId: 'app', scope: 'openid' });
        await useAuthorizationCode(stored, grant);
        await expect(useAuthorizationCode(stored, startGrant({ ...grant }).grant)).rejects.toMatchObject({ message: 'The authorization code was already used; the tokens issued from it are revoked.' });
        expect((await store.grants.get(grant.grantId))?.revokedAt).toBe(NOW + AUTHORIZATION_CODE_SECONDS);
        await expect(checkAuthorizationCode(exchange(code))).rejects.toMatchObject({ message: 'The authorization code was already used; the tokens issued from it are revoked.' });
      });
    });

    describe('grants and refresh tokens', () => {
      async function started(): Promise<Grant> {
        const code = storedCode();
        const grant = grantOf({ grantId: code.grantId });
        await store.codes.insert(code);
        await store.codes.consume(code.codeHash, NOW, grant);
        return grant;
      }

      it('rotates the live token once: the grant holds the next one, and the retired one still finds its grant', async () => {
        const grant = await started();
        const next = { hash: hash(), grantId: grant.grantId, issuedAt: NOW + 60, expiresAt: NOW + 60 + REFRESH_TOKEN_SECONDS };
        expect(await store.grants.rotate(grant.grantId, grant.currentHash, next)).toBe(true);
        expect(await store.grants.get(grant.grantId)).toEqual({ ...grant, currentHash: next.hash, expiresAt: next.expiresAt });
        expect(await store.grants.token(next.hash)).toEqual({ grantId: grant.grantId, issuedAt: NOW + 60, expiresAt: next.expiresAt });
        expect(await store.grants.token(grant.currentHash)).toEqual({ grantId: grant.grantId, issuedAt: NOW, expiresAt: grant.expiresAt });

        const replay = { ...next, hash: hash() };
        expect(await store.grants.rotate(grant.grantId, grant.currentHash, replay)).toBe(false);
        expect(await store.grants.get(grant.grantId)).toMatchObject({ currentHash: next.hash });
        expect(await store.grants.token(replay.hash)).toBeUndefined();
        expect(await store.grants.rotate(hash(), grant.currentHash, { ...next, hash: hash() })).toBe(false);
      });

      it('lets exactly one of racing rotations of the same token win', async () => {
        const grant = await started();
        const nexts = [0, 1, 2].map(() => ({ hash: hash(), grantId: grant.grantId, issuedAt: NOW, expiresAt: NOW + REFRESH_TOKEN_SECONDS }));
        const won = await Promise.all(nexts.map((n) => store.grants.rotate(grant.grantId, grant.currentHash, n)));
        expect(won.filter(Boolean)).toHaveLength(1);
        expect((await store.grants.get(grant.grantId))?.currentHash).toBe(nexts[won.indexOf(true)]!.hash);
      });

      it('revokes a grant once (the first time is kept), after which it does not rotate; an unknown grant is no error', async () => {
        const grant = await started();
        await store.grants.revoke(grant.grantId, NOW + 10);
        await store.grants.revoke(grant.grantId, NOW + 20);
        expect(await store.grants.get(grant.grantId)).toEqual({ ...grant, revokedAt: NOW + 10 });
        expect(await store.grants.rotate(grant.grantId, grant.currentHash, { hash: hash(), grantId: grant.grantId, issuedAt: NOW, expiresAt: NOW })).toBe(false);
        const unknown = hash();
        await store.grants.revoke(unknown, NOW);
        expect(await store.grants.get(unknown)).toBeUndefined();
      });

      it('hands out copies of grants', async () => {
        const grant = await started();
        (await store.grants.get(grant.grantId))!.scope = 'changed';
        (await store.grants.token(grant.currentHash))!.grantId = 'changed';
        expect(await store.grants.get(grant.grantId)).toEqual(grant);
        expect((await store.grants.token(grant.currentHash))?.grantId).toBe(grant.grantId);
      });

      it('rotates through the domain: live and retired tokens are told apart, a retired one revokes the grant, an expired one is unknown', async () => {
        useClock(() => NOW * 1000);
        const { refreshToken, grant } = startGrant({ grantId: hash(), userId: someId(), kind: 'patient', clientId: 'app', scope: 'openid' });
        const code = storedCode({ grantId: grant.grantId });
        await store.codes.insert(code);
        await useAuthorizationCode(code, grant);
        expect(await grantOfRefreshToken(refreshToken)).toEqual({ grant, current: true });

        const next = await rotateRefreshToken(grant, hashSecret(refreshToken));
        expect(await grantOfRefreshToken(next)).toMatchObject({ current: true });
        expect(await grantOfRefreshToken(refreshToken)).toMatchObject({ current: false });
        expect(await grantOfRefreshToken('unknown')).toBeUndefined();
        await expect(rotateRefreshToken(grant, hashSecret(refreshToken))).rejects.toMatchObject({ message: 'This refresh token was already used; the grant is revoked. Sign in again.' });
        expect((await grantOfRefreshToken(next))?.grant.revokedAt).toBe(NOW);

        useClock(() => (NOW + REFRESH_TOKEN_SECONDS) * 1000);
        expect(await grantOfRefreshToken(next)).toBeUndefined();
      });
    });

    describe('invitations', () => {
      const pairOf = (i: Invitation) => ({ patientId: i.patientId, clientNumber: i.clientNumber });
      const never = () => {
        throw new Error('nothing to replace');
      };

      it('issues an invitation: read back by token hash and by number at version 1, listed with its patient\'s, oldest first', async () => {
        const first = invitationOf({ createdBy: 12 });
        const second = invitationOf({ patientId: first.patientId, clientNumber: 8, createdAt: '2027-01-15T09:00:00.000Z' });
        const older = invitationOf({ patientId: first.patientId, clientNumber: 9, createdAt: '2027-01-14T09:00:00.000Z' });
        for (const i of [first, second, older]) await store.invitations.issue(i, never);
        expect(await store.invitations.get(first.tokenHash)).toEqual({ invitation: first, version: 1 });
        expect(await store.invitations.getById(second.id)).toEqual({ invitation: second, version: 1 });
        expect(await store.invitations.get(hash())).toBeUndefined();
        expect(await store.invitations.getById(someId())).toBeUndefined();
        expect(await store.invitations.listOfPatient(first.patientId)).toEqual([older, first, second]);
        expect(await store.invitations.listOfPatient(someId())).toEqual([]);
      });

      it('hands out fresh numbers and copies', async () => {
        const [a, b] = [await store.invitations.newId(), await store.invitations.newId()];
        expect(b).toBeGreaterThan(a);
        const invitation = invitationOf();
        await store.invitations.issue(invitation, never);
        (await store.invitations.get(invitation.tokenHash))!.invitation.status = 'cancelled';
        (await store.invitations.listOfPatient(invitation.patientId))[0]!.status = 'cancelled';
        invitation.status = 'redeemed';
        expect((await store.invitations.getById(invitation.id))?.invitation.status).toBe('issued');
      });

      it('replaces the current invitation of a patient and app: the replaced one gets the change asked for, in the same step', async () => {
        const first = invitationOf();
        await store.invitations.issue(first, never);
        const other = invitationOf({ patientId: first.patientId, clientNumber: first.clientNumber + 1 });
        await store.invitations.issue(other, never);

        const seen: Invitation[] = [];
        const second = invitationOf(pairOf(first));
        await store.invitations.issue(second, (replaced) => {
          seen.push(replaced);
          return { status: 'reissued', updatedAt: '2027-01-16T00:00:00.000Z' };
        });
        expect(seen).toEqual([first]);
        expect(await store.invitations.get(first.tokenHash)).toEqual({ invitation: { ...first, status: 'reissued', updatedAt: '2027-01-16T00:00:00.000Z' }, version: 2 });
        expect(await store.invitations.get(other.tokenHash)).toEqual({ invitation: other, version: 1 });

        const third = invitationOf(pairOf(first));
        const replaced: Invitation[] = [];
        await store.invitations.issue(third, (r) => void replaced.push(r));
        expect(replaced).toEqual([second]);
        expect(await store.invitations.get(second.tokenHash)).toEqual({ invitation: second, version: 1 });
      });

      it('refuses an invitation whose token hash or number is taken with a 409, storing nothing', async () => {
        const first = invitationOf();
        await store.invitations.issue(first, never);
        const sameHash = invitationOf({ tokenHash: first.tokenHash });
        await expect(store.invitations.issue(sameHash, never)).rejects.toMatchObject({ status: 409, message: 'Invitation collision.' });
        expect(await store.invitations.getById(sameHash.id)).toBeUndefined();
        const sameNumber = invitationOf({ id: first.id });
        await expect(store.invitations.issue(sameNumber, never)).rejects.toMatchObject({ status: 409, message: 'Invitation number collision.' });
        expect(await store.invitations.get(sameNumber.tokenHash)).toBeUndefined();
        expect(await store.invitations.getById(first.id)).toEqual({ invitation: first, version: 1 });
        // The refused one did not become the current one of its pair: the next issue still replaces `first`.
        const replaced: Invitation[] = [];
        await store.invitations.issue(invitationOf(pairOf(first)), (r) => void replaced.push(r));
        expect(replaced).toEqual([first]);
      });

      it('changes an invitation over the version read only: a change over an older version is a 409 that changes nothing', async () => {
        const invitation = invitationOf();
        await store.invitations.issue(invitation, never);
        const seen = (await store.invitations.get(invitation.tokenHash))!;
        await store.invitations.change(seen, { status: 'cancelled', updatedAt: '2027-01-17T00:00:00.000Z' });
        const changed = { ...invitation, status: 'cancelled' as const, updatedAt: '2027-01-17T00:00:00.000Z' };
        expect(await store.invitations.get(invitation.tokenHash)).toEqual({ invitation: changed, version: 2 });
        await expect(store.invitations.change(seen, { status: 'redeemed' })).rejects.toMatchObject(CHANGED);
        expect(await store.invitations.get(invitation.tokenHash)).toEqual({ invitation: changed, version: 2 });
        const gone: SeenInvitation = { invitation: invitationOf(), version: 1 };
        await expect(store.invitations.change(gone, { status: 'cancelled' })).rejects.toMatchObject(CHANGED);
        expect(await store.invitations.get(gone.invitation.tokenHash)).toBeUndefined();
      });

      it('marks the password set with an invitation once: of two changes racing over one version, one lands', async () => {
        const invitation = invitationOf();
        await store.invitations.issue(invitation, never);
        const seen = (await store.invitations.get(invitation.tokenHash))!;
        const at = '2027-01-18T00:00:00.000Z';
        const results = await Promise.allSettled([1, 2].map(() => store.invitations.change(seen, { passwordSetAt: at, updatedAt: at })));
        expect(results.map((r) => r.status).sort()).toEqual(['fulfilled', 'rejected']);
        expect(results.find((r) => r.status === 'rejected')).toMatchObject({ reason: CHANGED });
        expect(await store.invitations.get(invitation.tokenHash)).toEqual({ invitation: { ...invitation, passwordSetAt: at, updatedAt: at }, version: 2 });
      });

      it('redeems an invitation with its code in one step: a stale version or a taken code hash stores neither', async () => {
        const invitation = invitationOf();
        await store.invitations.issue(invitation, never);
        const seen = (await store.invitations.get(invitation.tokenHash))!;
        const code = storedCode({ invitationHash: invitation.tokenHash });
        const redeemed = { status: 'redeemed' as const, updatedAt: 'r1', redeemedAt: 'r1', codeHash: code.codeHash, redemptions: 1 };
        await store.invitations.redeem(seen, redeemed, code);
        expect(await store.codes.get(code.codeHash)).toEqual(code);
        expect(await store.invitations.get(invitation.tokenHash)).toEqual({ invitation: { ...invitation, ...redeemed }, version: 2 });

        const late = storedCode();
        await expect(store.invitations.redeem(seen, { ...redeemed, redemptions: 2 }, late)).rejects.toMatchObject(CHANGED);
        expect(await store.codes.get(late.codeHash)).toBeUndefined();

        const now = (await store.invitations.get(invitation.tokenHash))!;
        await expect(store.invitations.redeem(now, { ...redeemed, redemptions: 2 }, code)).rejects.toMatchObject({ status: 409, message: 'Authorization code collision.' });
        expect(await store.invitations.get(invitation.tokenHash)).toEqual(now);
      });

      it('lets exactly one of racing redemptions over the same version through', async () => {
        const invitation = invitationOf();
        await store.invitations.issue(invitation, never);
        const seen = (await store.invitations.get(invitation.tokenHash))!;
        const codes = [storedCode(), storedCode(), storedCode()];
        const results = await Promise.allSettled(codes.map((c) => store.invitations.redeem(seen, { status: 'redeemed', codeHash: c.codeHash, redemptions: 1 }, c)));
        expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
        const winner = codes[results.findIndex((r) => r.status === 'fulfilled')]!;
        expect((await store.invitations.get(invitation.tokenHash))?.invitation.codeHash).toBe(winner.codeHash);
        const stored = await Promise.all(codes.map((c) => store.codes.get(c.codeHash)));
        expect(stored.filter((c) => c !== undefined)).toEqual([winner]);
      });
    });

    describe('sign-in attempts', () => {
      it('keeps a count per address: set, counted up atomically (the window kept), cleared', async () => {
        const address = hash();
        expect(await store.signIns.get(address)).toBeUndefined();
        await store.signIns.set(address, { failures: 1, windowStart: NOW, expiresAt: NOW + 100 });
        const counts = await Promise.all([0, 1, 2].map(() => store.signIns.addFailure(address, NOW + 200)));
        expect(counts.sort()).toEqual([2, 3, 4]);
        expect(await store.signIns.get(address)).toEqual({ failures: 4, windowStart: NOW, expiresAt: NOW + 200 });
        await store.signIns.set(address, { failures: 0, windowStart: NOW + 900, lockedUntil: NOW + 900, expiresAt: NOW + 1800 });
        expect(await store.signIns.get(address)).toEqual({ failures: 0, windowStart: NOW + 900, lockedUntil: NOW + 900, expiresAt: NOW + 1800 });
        await store.signIns.clear(address);
        expect(await store.signIns.get(address)).toBeUndefined();
        await store.signIns.clear(address);
      });

      it('starts a count at 1 (with no window) when a failure finds no record, and hands out copies', async () => {
        const address = hash();
        expect(await store.signIns.addFailure(address, NOW + 5)).toBe(1);
        const read = (await store.signIns.get(address))!;
        expect(read).toEqual({ failures: 1, expiresAt: NOW + 5 });
        read.failures = 99;
        expect((await store.signIns.get(address))?.failures).toBe(1);
      });

      it('locks an address through the domain after the allowed failures, and frees it when the lockout ends', async () => {
        let now = NOW;
        useClock(() => now * 1000);
        const email = `nobody-${hash().slice(0, 8)}@example.test`;
        for (let i = 1; i < MAX_FAILURES; i += 1) expect(await signIn(email, 'wrong')).toEqual({ ok: false, locked: false });
        expect(await signIn(email.toUpperCase(), 'wrong')).toEqual({ ok: false, locked: true, retryAfterSeconds: LOCKOUT_SECONDS });
        now += 60;
        expect(await signIn(email, 'wrong')).toEqual({ ok: false, locked: true, retryAfterSeconds: LOCKOUT_SECONDS - 60 });
        now = NOW + LOCKOUT_SECONDS;
        expect(await signIn(email, 'wrong')).toEqual({ ok: false, locked: false });
        expect(await store.signIns.get(hashSecret(email))).toMatchObject({ failures: 1, windowStart: NOW + LOCKOUT_SECONDS });
        now += FAILURE_WINDOW_SECONDS;
        expect(await signIn(email, 'wrong')).toEqual({ ok: false, locked: false });
        expect(await store.signIns.get(hashSecret(email))).toMatchObject({ failures: 1, windowStart: now });
      });
    });

    describe('password page attempts', () => {
      it('counts attempts per scope and window up to the limit, apart from the registrations of the same scope', async () => {
        const scope = `address:${hash()}`;
        expect(await Promise.all([1, 2, 3].map(() => store.passwordAttempts.take(scope, NOW, 3, NOW + 1800)))).toEqual([true, true, true]);
        expect(await store.passwordAttempts.take(scope, NOW, 3, NOW + 1800)).toBe(false);
        // Another window, and the registrations counted under the same scope, are counts of their own.
        expect(await store.passwordAttempts.take(scope, NOW + 900, 3, NOW + 2700)).toBe(true);
        expect(await store.registrations.take(scope, NOW, 1, NOW + 7200)).toBe(true);
        expect(await store.passwordAttempts.take(scope, NOW, 3, NOW + 1800)).toBe(false);
      });
    });

    describe('client registrations', () => {
      it('counts registrations per scope and window up to the limit, racing ones all counted, a refused one not', async () => {
        const scope = `address:${hash()}`;
        const taken = await Promise.all([1, 2, 3, 4].map(() => store.registrations.take(scope, NOW, 5, NOW + 7200)));
        expect(taken).toEqual([true, true, true, true]);
        expect(await store.registrations.take(scope, NOW + 3600, 1, NOW + 10800)).toBe(true);
        expect(await store.registrations.take(`${scope}-other`, NOW, 1, NOW + 7200)).toBe(true);
        expect(await store.registrations.take(scope, NOW, 5, NOW + 7200)).toBe(true);
        // The fifth was the last place: the refused ones are not counted, so a raised limit finds room for one.
        expect(await store.registrations.take(scope, NOW, 5, NOW + 7200)).toBe(false);
        expect(await store.registrations.take(scope, NOW, 5, NOW + 7200)).toBe(false);
        expect(await store.registrations.take(scope, NOW, 6, NOW + 7200)).toBe(true);
        expect(await store.registrations.take(scope, NOW, 6, NOW + 7200)).toBe(false);
      });
    });

    describe('client assertions', () => {
      it('records a jti once per client: a second use while it is live is refused, another client\'s is its own', async () => {
        const [client, jti] = [`client-${hash().slice(0, 8)}`, hash()];
        expect(await store.clientAssertions.use(client, jti, NOW + 300, NOW)).toBe(true);
        expect(await store.clientAssertions.use(client, jti, NOW + 600, NOW + 299)).toBe(false);
        expect(await store.clientAssertions.use(`${client}-other`, jti, NOW + 300, NOW)).toBe(true);
        expect(await store.clientAssertions.use(client, hash(), NOW + 300, NOW)).toBe(true);
      });

      it('lets a jti be used again once its record expired, whether or not the store has removed it', async () => {
        const [client, jti] = [`client-${hash().slice(0, 8)}`, hash()];
        expect(await store.clientAssertions.use(client, jti, NOW + 300, NOW)).toBe(true);
        expect(await store.clientAssertions.use(client, jti, NOW + 900, NOW + 300)).toBe(true);
        // The record now lives until NOW + 900.
        expect(await store.clientAssertions.use(client, jti, NOW + 1000, NOW + 899)).toBe(false);
      });

      it('lets exactly one of racing uses of a jti through', async () => {
        const [client, jti] = [`client-${hash().slice(0, 8)}`, hash()];
        const outcomes = await Promise.all([1, 2, 3, 4].map(() => store.clientAssertions.use(client, jti, NOW + 300, NOW)));
        expect(outcomes.filter(Boolean)).toHaveLength(1);
      });
    });
    describe('sign-in sessions', () => {
      const sessionOf = (fields: Partial<SignInSession> = {}): SignInSession => ({
        sessionHash: hash(),
        userId: someId(),
        kind: 'practitioner',
        csrfHash: hash(),
        authorization: { clientId: 'app', redirectUri: 'https://app.test/cb', state: 's-1', codeChallenge: 'challenge', scope: 'openid user/*.rs', resource: 'mcp' },
        createdAt: NOW,
        expiresAt: NOW + 600,
        ...fields,
      });

      it('stores a session once (a second under the same hash is a 409 that changes nothing), and takes it exactly once', async () => {
        const session = sessionOf();
        await store.sessions.insert(session);
        expect(await store.sessions.get(session.sessionHash)).toEqual(session);
        await expect(store.sessions.insert({ ...session, userId: someId() })).rejects.toMatchObject({ status: 409, message: 'Sign-in session collision.' });
        expect(await store.sessions.get(session.sessionHash)).toEqual(session);
        const outcomes = await Promise.all([1, 2, 3].map(() => store.sessions.take(session.sessionHash)));
        expect(outcomes.filter(Boolean)).toHaveLength(1);
        expect(await store.sessions.get(session.sessionHash)).toBeUndefined();
        expect(await store.sessions.take(session.sessionHash)).toBe(false);
        const bare = sessionOf({ authorization: undefined });
        await store.sessions.insert(bare);
        expect(await store.sessions.get(bare.sessionHash)).toEqual(bare);
      });

      it('opens a session through the domain only with its own CSRF token, while it lives', async () => {
        let now = NOW * 1000;
        useClock(() => now);
        const userId = someId();
        const withToken = await startSession({ userId, kind: 'patient', csrf: 'the-form-token', seconds: 600 });
        expect(await openSession(withToken, 'the-form-token')).toMatchObject({ userId, kind: 'patient', createdAt: NOW, expiresAt: NOW + 600 });
        for (const csrf of [undefined, '', 'the-form-tokeN', sessionCsrf(withToken)]) expect(await openSession(withToken, csrf)).toBeUndefined();
        for (const id of [undefined, '', `${withToken}x`, withToken.toLowerCase() === withToken ? withToken.toUpperCase() : withToken.toLowerCase()]) expect(await openSession(id, 'the-form-token')).toBeUndefined();
        const derived = await startSession({ userId, kind: 'patient', seconds: 600 });
        expect(await openSession(derived, sessionCsrf(derived))).toMatchObject({ userId });
        now += 600 * 1000;
        expect(await openSession(withToken, 'the-form-token')).toBeUndefined();
        expect(await endSession(withToken)).toBe(true);
        expect(await endSession(withToken)).toBe(false);
      });
    });

    describe('approvals', () => {
      const approvalOf = (fields: Partial<Approval> = {}): Approval => ({
        userId: someId(),
        clientId: `client-${hash().slice(0, 8)}`,
        resource: 'mcp',
        scope: 'openid user/*.rs',
        approvalId: hash(),
        approvedAt: NOW,
        updatedAt: NOW,
        ...fields,
      });

      it("keeps one approval per person, client and resource: read back, replaced, listed with the person's own only, removed once", async () => {
        const approval = approvalOf();
        const { userId, clientId } = approval;
        await store.approvals.put(approval);
        const forApis = approvalOf({ userId, clientId, resource: 'service' });
        await store.approvals.put(forApis);
        const another = approvalOf({ userId, clientId: 'https://assistant.example/client-metadata.json?x=' + 'y'.repeat(1800) });
        await store.approvals.put(another);
        await store.approvals.put(approvalOf({ clientId }));
        expect(await store.approvals.get(userId, clientId, 'mcp')).toEqual(approval);
        const widened = { ...approval, scope: 'openid user/*.rs email', updatedAt: NOW + 5 };
        await store.approvals.put(widened);
        expect(await store.approvals.get(userId, clientId, 'mcp')).toEqual(widened);
        const listed = await store.approvals.listOfUser(userId);
        const order = (a: Approval, b: Approval) => (`${a.resource} ${a.clientId}` < `${b.resource} ${b.clientId}` ? -1 : 1);
        expect(listed.sort(order)).toEqual([widened, forApis, another].sort(order));
        expect(await store.approvals.get(someId(), clientId, 'mcp')).toBeUndefined();

        const removals = await Promise.all([1, 2].map(() => store.approvals.remove(userId, clientId, 'mcp')));
        expect(removals.filter(Boolean)).toHaveLength(1);
        expect(await store.approvals.get(userId, clientId, 'mcp')).toBeUndefined();
        expect(await store.approvals.get(userId, clientId, 'service')).toEqual(forApis);
        expect(await store.approvals.remove(someId(), clientId, 'service')).toBe(false);
      });

      it('hands out copies of approvals', async () => {
        const approval = approvalOf();
        await store.approvals.put(approval);
        (await store.approvals.get(approval.userId, approval.clientId, 'mcp'))!.scope = 'changed';
        approval.scope = 'changed after put';
        expect((await store.approvals.get(approval.userId, approval.clientId, 'mcp'))!.scope).toBe('openid user/*.rs');
      });

      it('remembers through the domain: wider scopes keep the approval and add up, a withdrawal ends it and the next one is another', async () => {
        useClock(() => NOW * 1000);
        const userId = someId();
        const clientId = `client-${hash().slice(0, 8)}`;
        const first = await approve(userId, clientId, 'mcp', 'openid user/*.rs');
        expect(approvalCovers(first, 'openid')).toBe(true);
        expect(approvalCovers(first, 'user/*.rs openid')).toBe(true);
        expect(approvalCovers(first, 'openid user/*.rs email')).toBe(false);
        const wider = await approve(userId, clientId, 'mcp', 'email openid');
        expect(wider).toMatchObject({ approvalId: first.approvalId, scope: 'openid user/*.rs email', approvedAt: NOW });
        expect(await approvalStands({ userId, clientId, resource: 'mcp', approvalId: first.approvalId })).toBe(true);
        expect(await approvalStands({ userId, clientId, approvalId: first.approvalId })).toBe(false);
        expect((await approvalsOf(userId)).map((a) => a.approvalId)).toEqual([first.approvalId]);

        expect(await withdrawApproval(userId, clientId, 'mcp')).toBe(true);
        expect(await withdrawApproval(userId, clientId, 'mcp')).toBe(false);
        expect(await approvalStands({ userId, clientId, resource: 'mcp', approvalId: first.approvalId })).toBe(false);
        const again = await approve(userId, clientId, 'mcp', 'openid');
        expect(again.approvalId).not.toBe(first.approvalId);
        expect(await approvalStands({ userId, clientId, resource: 'mcp', approvalId: first.approvalId })).toBe(false);
        expect(await approvalsOf(userId)).toEqual([again]);
      });
    });
  });
}
