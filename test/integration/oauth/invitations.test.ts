/** Invitations through `/api/v1/`: who may issue and list them, their lifecycle, and every way to misuse one. */
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createUser } from '../../../shared/directory/users';
import { getPatient } from '../../../shared/directory/patients';
import type { OAuthClient } from '../../../shared/directory/model';
import { nowMs, resetClock, useClock } from '../../../shared/oauth/clock';
import { makeOrganization, makePatient, makePractitioner } from '../../support/directory';
import { call } from '../../support/invoke';
import { invitationWorld as world, invite, portalVerifier, postForm, redeemAndExchange, serviceClients } from '../../support/oauth';
import { directoryRows } from '../../support/store';

const HOUR = 3600 * 1000;
const JSON_BODY = { 'content-type': 'application/json' };
let portal: OAuthClient;
let web: OAuthClient;

beforeAll(async () => {
  ({ portal, web } = await serviceClients());
});
afterEach(() => resetClock());

const create = (token: string | undefined, body: unknown) => call('POST', '/api/v1/invitation', { ...(token ? { token } : {}), body, headers: JSON_BODY });
const redeem = (token: string) => call('POST', `/api/v1/invitation/${token}`);

/** Everything the directory holds (the OAuth records included), as one text. */
const storedText = async () => (await directoryRows()).join('\n');

describe('issuing', () => {
  it('stores only the hash of the token', async () => {
    const { doctor, patient } = await world();
    const created = await invite(doctor.token, patient.id, portal.id);
    const stored = await storedText();
    expect(stored).toContain(created.tokenHash);
    expect(stored).not.toContain(created.token);
  });

  it('refuses callers who may not invite the patient', async () => {
    const { org, patient } = await world();
    const viewer = await makePractitioner({ organizations: [org], role: 'viewer' });
    const stranger = await makePractitioner({ organizations: [await makeOrganization()], role: 'manager' });
    const self = await makePatient({ organizations: [org], login: true });
    const body = { patient_id: patient.id, client_id: portal.id };
    expect((await create(undefined, body)).status).toBe(401);
    expect((await create(viewer.token, body)).status).toBe(403);
    expect((await create(stranger.token, body)).status).toBe(403);
    expect((await create(self.token!, { ...body, patient_id: self.id })).status).toBe(403);
    expect((await create(stranger.token, { ...body, patient_id: 999_999 })).status).toBe(403);
  });

  it('answers field errors for unknown fields, wrong types and missing fields, and 404 / 400 for unusable apps', async () => {
    const { doctor, patient } = await world();
    const before = await directoryRows();
    const cases: Array<[unknown, Record<string, string[]>]> = [
      [{ patient_id: patient.id, client_id: portal.id, admin: true }, { admin: ['Unknown field.'] }],
      [{ patient_id: `${patient.id}x`, client_id: portal.id }, { patientId: ['A valid integer is required.'] }],
      [{ patient_id: patient.id, client_id: portal.id, send_email: 'yes' }, { sendEmail: ['Must be a valid boolean.'] }],
      [{ client_id: portal.id }, { patientId: ['This field is required.'] }],
      [{ patient_id: patient.id }, { client_id: ['This field is required.'] }],
      [{ patient_id: patient.id, client_id: null }, { client_id: ['This field may not be null.'] }],
      [['patient_id'], { nonFieldErrors: ['Invalid data. Expected a dictionary, but got list.'] }],
    ];
    for (const [body, fields] of cases) {
      const res = await create(doctor.token, body);
      expect([res.status, res.json]).toEqual([400, fields]);
    }
    expect((await create(doctor.token, { patient_id: patient.id, client_id: 987_654 })).status).toBe(404);
    const noTemplate = await create(doctor.token, { patient_id: patient.id, client_id: web.id });
    expect(noTemplate.status).toBe(400);
    expect(noTemplate.json.client_id[0]).toMatch(/invitation link/);
    expect(await directoryRows()).toEqual(before);
  });

  it('marks the earlier invitation for the same patient and app reissued', async () => {
    const { doctor, patient } = await world();
    const first = await invite(doctor.token, patient.id, portal.id);
    const second = await invite(doctor.token, patient.id, portal.id);
    const refused = await redeem(first.token);
    expect(refused.status).toBe(409);
    expect(refused.json.detail).toMatch(/replaced/);
    expect((await redeem(second.token)).status).toBe(200);
  });

  it('lists a patient\'s invitations for practitioners who see the patient, never with tokens', async () => {
    const { org, doctor, patient } = await world();
    const first = await invite(doctor.token, patient.id, portal.id);
    await invite(doctor.token, patient.id, portal.id);
    const viewer = await makePractitioner({ organizations: [org], role: 'viewer' });
    const listed = await call('GET', `/api/v1/invitation?patient_id=${patient.id}`, { token: viewer.token });
    expect(listed.status).toBe(200);
    expect(listed.json).toMatchObject({ count: 2, next: null, previous: null });
    expect(listed.json.results.map((r: { id: number; status: string }) => [r.id, r.status])).toEqual([
      [first.id, 'reissued'],
      [first.id + 1, 'issued'],
    ]);
    expect(JSON.stringify(listed.json)).not.toContain(first.token);
    const stranger = await makePractitioner({ organizations: [await makeOrganization()] });
    expect((await call('GET', `/api/v1/invitation?patient_id=${patient.id}`, { token: stranger.token })).status).toBe(404);
    expect((await call('GET', '/api/v1/invitation', { token: doctor.token })).json).toEqual({ patientId: ['This field is required.'] });
    expect((await call('GET', '/api/v1/invitation?patient_id=abc', { token: doctor.token })).status).toBe(400);
  });
});

describe('redeeming', () => {
  it('may redeem again within 12 hours; each redemption replaces the earlier grant', async () => {
    const { doctor, patient } = await world();
    const { token } = await invite(doctor.token, patient.id, portal.id);
    const start = nowMs();
    const first = (await redeem(token)).json.grant;
    useClock(() => start + 11 * HOUR);
    const second = (await redeem(token)).json.grant;
    expect(second.code).not.toBe(first.code);
    // The earlier code stops working (it was replaced), the new one works.
    expect((await postForm('/o/token/', { ...first, code_verifier: portalVerifier(token) })).json.error).toBe('invalid_grant');
    useClock(() => start + 11 * HOUR + 1000);
    expect((await postForm('/o/token/', { ...second, code_verifier: portalVerifier(token) })).status).toBe(200);
    // The window restarted at the second redemption: 12 h after it, the invitation is used up.
    useClock(() => start + 22 * HOUR);
    expect((await redeem(token)).status).toBe(200);
    useClock(() => start + 34 * HOUR + 1000);
    const used = await redeem(token);
    expect(used.status).toBe(409);
    expect(used.json.detail).toBe('This invitation was already used.');
  });

  it('expires 7 days after issue (410)', async () => {
    const { doctor, patient } = await world();
    const { token } = await invite(doctor.token, patient.id, portal.id);
    const start = nowMs();
    useClock(() => start + 7 * 24 * HOUR + 1000);
    const res = await redeem(token);
    expect(res.status).toBe(410);
    expect(res.json.detail).toMatch(/expired/);
  });

  it('answers 404 for unknown or malformed tokens', async () => {
    for (const token of ['A'.repeat(32), 'short', 'x'.repeat(5000), "1' OR '1'='1", '%3Cscript%3E', 'localhost%3A8000_' + 'a'.repeat(32)]) {
      const res = await redeem(token);
      expect(res.status).toBe(404);
      expect(res.json).toEqual({ detail: 'Invitation not found or already used.' });
    }
  });

  it('cancelled: 403 on redemption, and the code of an earlier redemption stops working', async () => {
    const { org, doctor, patient } = await world();
    const created = await invite(doctor.token, patient.id, portal.id);
    const grant = (await redeem(created.token)).json.grant;
    const viewer = await makePractitioner({ organizations: [org], role: 'viewer' });
    expect((await call('DELETE', `/api/v1/invitation/${created.id}`, { token: viewer.token })).status).toBe(403);
    expect((await call('DELETE', `/api/v1/invitation/${created.id}`, { token: doctor.token })).status).toBe(204);
    expect((await redeem(created.token)).status).toBe(403);
    expect((await postForm('/o/token/', { ...grant, code_verifier: portalVerifier(created.token) })).json.error).toBe('invalid_grant');
    expect((await call('DELETE', '/api/v1/invitation/999999', { token: doctor.token })).status).toBe(404);
  });

  it('uses the account the patient already has', async () => {
    const { org, doctor } = await world();
    const patient = await makePatient({ organizations: [org], login: true });
    const tokens = await redeemAndExchange((await invite(doctor.token, patient.id, portal.id)).token);
    expect((await call('GET', '/o/userinfo/', { token: tokens.access_token })).json.sub).toBe(String(patient.userId));
  });

  it("gives a patient whose contact email belongs to another account a placeholder login", async () => {
    const { org, doctor } = await world();
    const email = `shared-${Date.now()}@example.test`;
    await createUser({ email, kind: 'practitioner' });
    const patient = await makePatient({ organizations: [org], email });
    await redeemAndExchange((await invite(doctor.token, patient.id, portal.id)).token);
    const after = await getPatient(patient.id);
    const me = await call('GET', '/o/userinfo/', { token: (await redeemAndExchange((await invite(doctor.token, patient.id, portal.id)).token)).access_token });
    expect(me.json).toMatchObject({ sub: String(after!.userId), email: `patient-${patient.id}@accounts.invalid` });
  });

  it('refuses the portal verifier of another invitation', async () => {
    const { doctor, patient } = await world();
    const a = await invite(doctor.token, patient.id, portal.id);
    const other = await world();
    const b = await invite(other.doctor.token, other.patient.id, portal.id);
    const grant = (await redeem(a.token)).json.grant;
    expect((await postForm('/o/token/', { ...grant, code_verifier: portalVerifier(b.token) })).json.error).toBe('invalid_grant');
    expect((await postForm('/o/token/', { ...grant, code_verifier: portalVerifier(a.token) })).status).toBe(200);
  });
});
