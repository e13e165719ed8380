/** Practitioners' API keys (`/api/v1/practitioner_clients`) and the client_credentials grant. */
import { describe, expect, it } from 'vitest';
import { updateUser } from '../../../shared/directory/users';
import { makeOrganization, makePatient, makePractitioner } from '../../support/directory';
import { call } from '../../support/invoke';
import { basic, postForm } from '../../support/oauth';
import { directoryRows } from '../../support/store';

const JSON_BODY = { 'content-type': 'application/json' };

async function newKey(token: string, name = 'notebook') {
  const res = await call('POST', '/api/v1/practitioner_clients', { token, body: { name }, headers: JSON_BODY });
  expect(res.status).toBe(201);
  return res.json as { id: number; clientId: string; clientSecret: string; key: string; name: string };
}

const credentials = (key: { key: string }) => postForm('/o/token/', { grant_type: 'client_credentials' }, { authorization: `Basic ${key.key}` });

describe('API keys', () => {
  it('creates a key (secret shown once, stored as a hash) that gets tokens acting as the practitioner', async () => {
    const doctor = await makePractitioner({ organizations: [await makeOrganization()] });
    const key = await newKey(doctor.token);
    expect(key.clientId).toMatch(/^[A-Za-z0-9]{16}$/);
    expect(key.clientSecret).toMatch(/^[A-Za-z0-9]{32}$/);
    expect(Buffer.from(key.key, 'base64').toString()).toBe(`${key.clientId}:${key.clientSecret}`);
    const items = (await directoryRows()).join('\n');
    expect(items).not.toContain(key.clientSecret);

    const listed = await call('GET', '/api/v1/practitioner_clients', { token: doctor.token });
    expect(listed.json).toMatchObject({ count: 1, results: [{ id: key.id, clientId: key.clientId, name: 'notebook' }] });
    expect(JSON.stringify(listed.json)).not.toContain(key.clientSecret);

    for (const res of [
      await credentials(key),
      await postForm('/o/token/', { grant_type: 'client_credentials' }, basic(key.clientId, key.clientSecret)),
      await postForm('/o/token/', { grant_type: 'client_credentials', client_id: key.clientId, client_secret: key.clientSecret }),
    ]) {
      expect(res.status).toBe(200);
      expect(res.json).toMatchObject({ token_type: 'Bearer', expires_in: 900, scope: 'user/*.cruds' });
      expect(res.json.refresh_token).toBeUndefined();
      const me = await call('GET', '/o/userinfo/', { token: res.json.access_token });
      expect(me.json.sub).toBe(String(doctor.id));
      // The token acts as the practitioner on the API.
      expect((await call('GET', '/api/v1/practitioner_clients', { token: res.json.access_token })).json.count).toBe(1);
    }
  });

  it('refuses wrong secrets, mixed authentication and other clients', async () => {
    const doctor = await makePractitioner({ organizations: [await makeOrganization()] });
    const key = await newKey(doctor.token);
    const wrong = await postForm('/o/token/', { grant_type: 'client_credentials' }, basic(key.clientId, 'x'.repeat(32)));
    expect([wrong.status, wrong.json.error]).toEqual([401, 'invalid_client']);
    expect(wrong.headers['www-authenticate']).toMatch(/^Basic/);
    const noSecret = await postForm('/o/token/', { grant_type: 'client_credentials', client_id: key.clientId });
    expect([noSecret.status, noSecret.json.error]).toEqual([401, 'invalid_client']);
    const both = await postForm('/o/token/', { grant_type: 'client_credentials', client_secret: key.clientSecret }, basic(key.clientId, key.clientSecret));
    expect([both.status, both.json.error]).toEqual([400, 'invalid_request']);
    const garbage = await postForm('/o/token/', { grant_type: 'client_credentials' }, { authorization: 'Basic !!!' });
    expect([garbage.status, garbage.json.error]).toEqual([401, 'invalid_client']);
    const asCode = await postForm('/o/token/', { grant_type: 'authorization_code', code: 'x', redirect_uri: 'http://a', code_verifier: 'y'.repeat(43) }, basic(key.clientId, key.clientSecret));
    expect(asCode.json.error).toBe('unauthorized_client');
  });

  it('stops working when deleted (its live tokens too) or when its practitioner is deactivated', async () => {
    const doctor = await makePractitioner({ organizations: [await makeOrganization()] });
    const other = await makePractitioner({ organizations: [await makeOrganization()] });
    const key = await newKey(doctor.token);
    const token = (await credentials(key)).json.access_token;
    expect((await call('DELETE', `/api/v1/practitioner_clients/${key.id}`, { token: other.token })).status).toBe(404);
    expect((await call('DELETE', `/api/v1/practitioner_clients/${key.id}`, { token: doctor.token })).status).toBe(204);
    expect((await call('GET', '/o/userinfo/', { token })).status).toBe(401);
    expect((await credentials(key)).json.error).toBe('invalid_client');

    const second = await newKey(doctor.token);
    await updateUser(doctor.id, { active: false });
    expect((await credentials(second)).json.error).toBe('invalid_client');
  });

  it('is for practitioners only, with strict bodies', async () => {
    const org = await makeOrganization();
    const patient = await makePatient({ organizations: [org], login: true });
    expect((await call('POST', '/api/v1/practitioner_clients', { token: patient.token!, body: {}, headers: JSON_BODY })).status).toBe(403);
    expect((await call('GET', '/api/v1/practitioner_clients', { token: patient.token! })).status).toBe(403);
    expect((await call('GET', '/api/v1/practitioner_clients')).status).toBe(401);
    const doctor = await makePractitioner({ organizations: [org] });
    const post = (body: unknown) => call('POST', '/api/v1/practitioner_clients', { token: doctor.token, body, headers: JSON_BODY });
    expect((await post({ name: 'a', owner_user_id: 1 })).json).toEqual({ ownerUserId: ['Unknown field.'] });
    expect((await post({ name: 7 })).json).toEqual({ name: ['Not a valid string.'] });
    expect((await post({ name: 'x'.repeat(201) })).json).toEqual({ name: ['Ensure this field has no more than 200 characters.'] });
    expect((await call('GET', '/api/v1/practitioner_clients', { token: doctor.token })).json.count).toBe(0);
    expect((await call('DELETE', '/api/v1/practitioner_clients/abc', { token: doctor.token })).status).toBe(404);
  });
});
