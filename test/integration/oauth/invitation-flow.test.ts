import { beforeAll, describe, expect, it } from 'vitest';
import type { OAuthClient } from '../../../shared/directory/model';
import { getPatient } from '../../../shared/directory/patients';
import { getUser } from '../../../shared/directory/users';
import { PORTAL_CLIENT_ID } from '../../../shared/oauth/service-clients';
import { call } from '../../support/invoke';
import { invitationWorld as world, invite, portalVerifier, postForm, serviceClients } from '../../support/oauth';

let portal: OAuthClient;

beforeAll(async () => {
  ({ portal } = await serviceClients());
});

describe('the invitation flow as the portal runs it', () => {
  it('issues, redeems, exchanges, uses, refreshes and revokes', async () => {
    const { doctor, patient } = await world();
    const created = await invite(doctor.token, patient.id, portal.id);
    expect(created).toMatchObject({ patientId: patient.id, client_id: portal.id, status: 'issued' });
    expect(created.token).toMatch(/^[A-Za-z0-9]{32}$/);
    expect(created.invitationLink).toBe(`http://localhost:8000/clients/portal/?code=${encodeURIComponent(`localhost:8000_${created.token}`)}`);

    const redeemed = await call('POST', `/api/v1/invitation/${created.token}`);
    expect(redeemed.status).toBe(200);
    expect(redeemed.json).toMatchObject({
      grant: { grant_type: 'authorization_code', redirect_uri: 'http://localhost:8000/auth/callback', client_id: PORTAL_CLIENT_ID },
      token_endpoint: 'http://localhost:8000/o/token/',
    });
    // The patient had no login: the redemption gave them a passwordless account.
    const account = (await getPatient(patient.id))!.userId!;
    expect((await getUser(account))).toMatchObject({ kind: 'patient', patientId: patient.id });
    expect((await getUser(account))!.passwordHash).toBeUndefined();

    const tokens = await postForm('/o/token/', { ...redeemed.json.grant, code_verifier: portalVerifier(created.token) });
    expect(tokens.status).toBe(200);
    expect(tokens.headers['cache-control']).toBe('no-store');
    expect(tokens.json).toMatchObject({ token_type: 'Bearer', expires_in: 900, scope: 'openid email', patient: String(patient.id) });
    expect(tokens.json.refresh_token).toMatch(/^[A-Za-z0-9]{48}$/);

    const me = await call('GET', '/o/userinfo/', { token: tokens.json.access_token });
    expect(me.status).toBe(200);
    expect(me.json).toMatchObject({ sub: String(account), patient: String(patient.id) });

    const refreshed = await postForm('/o/token/', { grant_type: 'refresh_token', refresh_token: tokens.json.refresh_token, client_id: PORTAL_CLIENT_ID });
    expect(refreshed.status).toBe(200);
    expect(refreshed.json.refresh_token).not.toBe(tokens.json.refresh_token);
    expect((await call('GET', '/o/userinfo/', { token: refreshed.json.access_token })).status).toBe(200);

    const revoked = await postForm('/o/revoke_token/', { token: refreshed.json.refresh_token, client_id: PORTAL_CLIENT_ID });
    expect(revoked.status).toBe(200);
    // The grant is gone: its refresh token and every access token issued under it.
    expect((await postForm('/o/token/', { grant_type: 'refresh_token', refresh_token: refreshed.json.refresh_token, client_id: PORTAL_CLIENT_ID })).json.error).toBe('invalid_grant');
    expect((await call('GET', '/o/userinfo/', { token: refreshed.json.access_token })).status).toBe(401);
    expect((await call('GET', '/o/userinfo/', { token: tokens.json.access_token })).status).toBe(401);
  });
});
