/**
 * THE contract of the directory store port (shared/directory/store/port.ts), run against every
 * adapter: the same calls through the domain functions, the same observable results, so the
 * in-memory twin cannot drift from the DynamoDB adapter. A run file (under test/integration, where
 * DynamoDB Local is set up) calls `directoryStoreContract` with the adapters to hold to it.
 *
 * Each test makes its own rows (unique code texts, client ids, emails and identifiers) and asserts
 * on those only: the DynamoDB adapter's table is shared by the file's tests, the twin is new for
 * each. The families beyond the catalog and the clients have a file each beside this one.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { useDirectoryStore } from '../../shared/directory/store/current';
import type { DirectoryStore } from '../../shared/directory/store/port';
import { createCode, ensureCodes, findCode, getCode, getCodes, listCodes } from '../../shared/directory/code-table';
import * as sources from '../../shared/directory/data-sources';
import * as clients from '../../shared/directory/oauth-clients';
import { missing, newCode, SYSTEM, unique } from './directory-fixtures';
import { organizationsContract } from './directory-organizations';
import { patientsContract } from './directory-patients';
import { studiesContract } from './directory-studies';
import { usersContract } from './directory-users';
import { versionsContract } from './directory-versions';

export type DirectoryAdapter = [name: string, make: () => DirectoryStore];

export function directoryStoreContract(adapters: readonly DirectoryAdapter[]): void {
  describe.each(adapters)('directory store: %s', (_name, make) => {
    let previous: DirectoryStore | undefined;
    beforeEach(() => void (previous = useDirectoryStore(make())));
    afterEach(() => void useDirectoryStore(previous!));

    describe('codes', () => {
      it('stores a code and reads it back by id, by ids (in the order given, unknown ones skipped) and by coding', async () => {
        const first = await newCode('First');
        const second = await newCode('Second');
        expect(second.id).toBeGreaterThan(first.id);
        expect(await getCode(first.id)).toEqual(first);
        expect(await getCode(missing)).toBeUndefined();
        expect(await getCodes([second.id, missing, first.id])).toEqual([second, first]);
        expect(await getCodes([])).toEqual([]);
        expect(await findCode(SYSTEM, first.code)).toEqual(first);
        expect(await findCode('https://other.test', first.code)).toBeUndefined();
        expect(await findCode(SYSTEM, first.code.toUpperCase())).toBeUndefined();
      });

      it('lists every code in id order', async () => {
        const made = [await newCode(), await newCode(), await newCode()];
        const listed = await listCodes();
        expect(listed.map((c) => c.id)).toEqual([...listed.map((c) => c.id)].sort((a, b) => a - b));
        expect(listed.filter((c) => made.some((m) => m.id === c.id))).toEqual(made);
      });

      it('holds each (system, code) once: a second one is a 409 and changes nothing', async () => {
        const first = await newCode('Kept');
        await expect(createCode({ system: SYSTEM, code: first.code, display: 'Again' })).rejects.toMatchObject({
          status: 409,
          message: `The code ${SYSTEM}|${first.code} already exists.`,
          fields: { code: ['This code already exists.'] },
        });
        expect(await findCode(SYSTEM, first.code)).toEqual(first);
        expect((await listCodes()).filter((c) => c.code === first.code)).toEqual([first]);
        const raced = await Promise.allSettled([0, 1, 2].map(() => createCode({ system: SYSTEM, code: `${first.code}-r`, display: 'Raced' })));
        expect(raced.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
      });

      it('ensures codes: adds the missing ones once and returns each', async () => {
        const seeds = [1, 2].map(() => ({ system: SYSTEM, code: `e-${unique()}`, display: 'Ensured' }));
        const added = await ensureCodes(seeds);
        expect(added.map((c) => c.code)).toEqual(seeds.map((s) => s.code));
        expect(await ensureCodes(seeds)).toEqual(added);
      });

      it('hands out copies: changing a code read does not change the stored one', async () => {
        const made = await newCode('Original');
        (await getCode(made.id))!.display = 'Changed';
        expect((await getCode(made.id))!.display).toBe('Original');
      });
    });

    describe('data sources', () => {
      it('stores, reads, lists, updates and deletes a data source', async () => {
        const device = await sources.createDataSource({ name: 'Watch', type: 'personal_device' });
        const app = await sources.createDataSource({ name: 'App', type: 'patient_app' });
        expect(await sources.getDataSource(device.id)).toEqual(device);
        expect(await sources.getDataSources([app.id, missing, device.id])).toEqual([app, device]);
        const listed = await sources.listDataSources();
        expect(listed.filter((d) => d.id === device.id || d.id === app.id)).toEqual([device, app]);

        const renamed = await sources.updateDataSource(device.id, { name: 'Ring' });
        expect(renamed).toMatchObject({ id: device.id, name: 'Ring', type: 'personal_device', createdAt: device.createdAt });
        expect(await sources.getDataSource(device.id)).toEqual(renamed);

        await sources.deleteDataSource(device.id);
        expect(await sources.getDataSource(device.id)).toBeUndefined();
        expect(await sources.getDataSource(app.id)).toEqual(app);
      });

      it('answers 404 for a data source that is not there', async () => {
        await expect(sources.updateDataSource(missing, { name: 'x' })).rejects.toMatchObject({ status: 404, message: `Data source ${missing} not found.` });
        await expect(sources.deleteDataSource(missing)).rejects.toMatchObject({ status: 404 });
        expect(await sources.listSupportedCodes(missing)).toEqual([]);
      });

      it('keeps the codes a data source supports, in code id order, until it is deleted', async () => {
        const [a, b] = [await newCode(), await newCode()];
        const source = await sources.createDataSource({ name: 'Scale', type: 'medical_device' });
        expect(await sources.addSupportedCode(source.id, b.id)).toEqual({ id: b.id, system: b.system, code: b.code });
        await sources.addSupportedCode(source.id, a.id);
        await sources.addSupportedCode(source.id, a.id);
        expect(await sources.listSupportedCodes(source.id)).toEqual([a, b].map(({ id, system, code }) => ({ id, system, code })));

        await sources.removeSupportedCode(source.id, a.id);
        expect((await sources.listSupportedCodes(source.id)).map((c) => c.id)).toEqual([b.id]);
        await expect(sources.removeSupportedCode(source.id, a.id)).rejects.toMatchObject({ status: 404, message: `Data source ${source.id} does not support code ${a.id}.` });

        await expect(sources.addSupportedCode(missing, a.id)).rejects.toMatchObject({ status: 404 });
        await expect(sources.addSupportedCode(source.id, missing)).rejects.toMatchObject({ status: 400 });
        expect(await sources.listSupportedCodes(missing)).toEqual([]);

        await sources.deleteDataSource(source.id);
        expect(await sources.listSupportedCodes(source.id)).toEqual([]);
      });

      it('refuses an unknown type before storing anything', async () => {
        const before = (await sources.listDataSources()).length;
        await expect(sources.createDataSource({ name: 'x', type: 'toaster' as never })).rejects.toMatchObject({ status: 400 });
        expect(await sources.listDataSources()).toHaveLength(before);
      });
    });

    describe('OAuth clients', () => {
      const ownerId = 424_242;
      const newClient = (input: Partial<clients.OAuthClientInput> = {}) =>
        clients.createOAuthClient({ clientId: `app-${unique()}`, name: 'App', type: 'public', redirectUris: ['https://app.test/cb'], grantTypes: ['authorization_code'], ...input });

      it('stores a client and finds it by client id, by number, in the list and among its owner\'s', async () => {
        const app = await newClient();
        const key = await newClient({ type: 'confidential', secretHash: 'hash', ownerUserId: ownerId, redirectUris: [], grantTypes: ['client_credentials'] });
        const drawn = await clients.createOAuthClient({ name: 'Drawn id', type: 'public' });
        expect(drawn.clientId).toMatch(/^[A-Za-z0-9]{16}$/);
        expect(drawn).toMatchObject({ redirectUris: [], grantTypes: [] });
        expect(key.id).toBeGreaterThan(app.id);
        expect(await clients.getOAuthClient(app.clientId)).toEqual(app);
        expect(await clients.getOAuthClient('')).toBeUndefined();
        expect(await clients.getOAuthClient(app.clientId.toUpperCase())).toBeUndefined();
        expect(await clients.getOAuthClientById(key.id)).toEqual(key);
        expect(await clients.getOAuthClientById(missing)).toBeUndefined();
        const listed = await clients.listOAuthClients();
        expect(listed.filter((c) => [app.id, key.id, drawn.id].includes(c.id))).toEqual([app, key, drawn]);
        expect((await clients.listOAuthClientsOfOwner(ownerId)).filter((c) => c.id === key.id || c.id === app.id)).toEqual([key]);
      });

      it('keeps a registered client\'s expiry and use, moves them with a change, and hides it once expired', async () => {
        const now = Math.floor(Date.now() / 1000);
        const app = await newClient({ registration: 'dynamic', expiresAt: now + 3600 });
        expect(await clients.getOAuthClient(app.clientId)).toEqual(app);
        expect(app).toMatchObject({ registration: 'dynamic', expiresAt: now + 3600 });
        const used = await clients.changeOAuthClient(app.clientId, (c) => ({ ...c, lastUsedAt: now, expiresAt: now + 7200, grants: [{ grantId: 'g-1', userId: 7 }] }));
        expect(await clients.getOAuthClient(app.clientId)).toEqual(used);
        expect(await clients.getOAuthClientById(app.id)).toEqual(used);
        expect(used).toMatchObject({ lastUsedAt: now, expiresAt: now + 7200, grants: [{ grantId: 'g-1', userId: 7 }] });
        await expect(clients.changeOAuthClient(`${app.clientId}-none`, (c) => c)).rejects.toMatchObject({ status: 404 });

        // TTL deletes late: an expired client is gone to every reader while its row may remain.
        await clients.changeOAuthClient(app.clientId, (c) => ({ ...c, expiresAt: now - 1 }));
        expect(await clients.getOAuthClient(app.clientId)).toBeUndefined();
        expect(await clients.getOAuthClientById(app.id)).toBeUndefined();
        expect((await clients.listOAuthClients()).some((c) => c.id === app.id)).toBe(false);
        const kept = await newClient();
        expect(kept.expiresAt).toBeUndefined();
        expect(await clients.getOAuthClient(kept.clientId)).toEqual(kept);
      });

      it('refuses a taken client id with a 409 and keeps the first', async () => {
        const app = await newClient();
        await expect(newClient({ clientId: app.clientId, name: 'Again' })).rejects.toMatchObject({
          status: 409,
          message: `Client id '${app.clientId}' is already taken.`,
          fields: { clientId: ['This client id is already taken.'] },
        });
        expect(await clients.getOAuthClient(app.clientId)).toEqual(app);
        await expect(newClient({ clientId: '' })).rejects.toMatchObject({ status: 400 });
      });

      it('updates the fields named, keeps the others, and deletes a client everywhere', async () => {
        const app = await newClient({ invitationUrl: 'https://app.test/invite/CODE' });
        const renamed = await clients.updateOAuthClient(app.clientId, { name: 'Renamed', redirectUris: ['https://app.test/other'] });
        expect(renamed).toMatchObject({ id: app.id, name: 'Renamed', redirectUris: ['https://app.test/other'], grantTypes: app.grantTypes, invitationUrl: app.invitationUrl, createdAt: app.createdAt });
        expect(await clients.getOAuthClient(app.clientId)).toEqual(renamed);

        await clients.deleteOAuthClient(app.clientId);
        expect(await clients.getOAuthClient(app.clientId)).toBeUndefined();
        expect(await clients.getOAuthClientById(app.id)).toBeUndefined();
        expect((await clients.listOAuthClients()).some((c) => c.id === app.id)).toBe(false);
        await expect(clients.deleteOAuthClient(app.clientId)).rejects.toMatchObject({ status: 404, message: `Client ${app.clientId} not found.` });
        await expect(clients.updateOAuthClient(app.clientId, { name: 'x' })).rejects.toMatchObject({ status: 404 });
      });
    });

    organizationsContract();
    usersContract();
    patientsContract();
    studiesContract();
    versionsContract();
  });
}
