/**
 * The OAuth store contract (test/contract/oauth-store.ts) against DynamoDB Local and the in-memory
 * twin; and the assistants' registrations on the service's own adapter, item by item: the client
 * and its number pointer carry the TTL attribute and move it together, the counts are items of
 * their own, and the operator's command revokes on the table; a metadata-document client's record
 * is written at its first use with the TTL and kept without it once revoked.
 */
import { describe, expect, it } from 'vitest';
import { runClientsCommand } from '../../../scripts/clients';
import { config } from '../../../shared/config';
import { keyText } from '../../../shared/store/directory-keys';
import { dynamoOAuthStore } from '../../../shared/oauth/store/dynamo';
import { memoryOAuthStore } from '../../../shared/oauth/store/memory';
import { findClient, noteClientUse, KEPT_AFTER_USE_SECONDS, REVOKED_DOCUMENT, UNUSED_CLIENT_SECONDS } from '../../../shared/oauth/clients';
import type { OAuthClient } from '../../../shared/directory/model';
import { getOAuthClient } from '../../../shared/directory/oauth-clients';
import { oauthStoreContract } from '../../contract/oauth-store';
import { call } from '../../support/invoke';
import { tableItems } from '../../support/store';

oauthStoreContract([
  ['dynamodb', () => dynamoOAuthStore],
  ['memory', memoryOAuthStore],
]);

describe('registered clients on DynamoDB', () => {
  it('stores the client and its pointer with the TTL attribute, moves both on use, counts registrations, and revokes on the table', async () => {
    const res = await call('POST', '/o/register/', { headers: { 'content-type': 'application/json' }, body: { client_name: 'On the table', redirect_uris: ['https://app.example/cb'] }, sourceIp: '198.51.100.7' });
    expect(res.status, res.text).toBe(201);
    const clientId = res.json.client_id as string;
    const now = Math.floor(Date.now() / 1000);
    const itemsOf = async () => {
      const items = await tableItems(config().directoryTable);
      const client = items.find((i) => i.pk === `OAUTHCLIENT#${clientId}`)!;
      const pointer = items.find((i) => String(i.pk).startsWith('OAUTHCLIENTNO#') && i.clientId === clientId)!;
      return { items, client, pointer };
    };
    const first = await itemsOf();
    expect(first.client.expiresAt as number).toBeGreaterThanOrEqual(now + UNUSED_CLIENT_SECONDS - 5);
    expect(first.pointer.expiresAt).toBe(first.client.expiresAt);
    expect(first.items.filter((i) => String(i.pk).startsWith('REGISTRATIONS#')).map((i) => i.registrations)).toEqual(expect.arrayContaining([1]));

    await noteClientUse((await getOAuthClient(clientId))!, { grantId: 'grant-on-table', userId: 99 });
    const used = await itemsOf();
    expect(used.client.expiresAt as number).toBeGreaterThanOrEqual(now + KEPT_AFTER_USE_SECONDS - 5);
    expect(used.pointer.expiresAt).toBe(used.client.expiresAt);
    expect(used.client.grants).toEqual([{ grantId: 'grant-on-table', userId: 99 }]);

    expect((await runClientsCommand(['list'])).some((line) => line.startsWith(`${clientId} "On the table"`))).toBe(true);
    expect(await runClientsCommand(['revoke', clientId])).toEqual([`revoked ${clientId} ("On the table"): 1 grant(s) ended`]);
    const gone = await itemsOf();
    expect(gone.client).toBeUndefined();
    expect(gone.pointer).toBeUndefined();
  });

  it('records every grant of exchanges racing each other (a lost race is retried)', async () => {
    const res = await call('POST', '/o/register/', { headers: { 'content-type': 'application/json' }, body: { redirect_uris: ['https://app.example/cb'] }, sourceIp: '198.51.100.8' });
    const stored = (await getOAuthClient(res.json.client_id))!;
    await Promise.all([1, 2, 3].map((n) => noteClientUse(stored, { grantId: `race-${n}`, userId: n })));
    expect((await getOAuthClient(stored.clientId))!.grants!.map((g) => g.grantId).sort()).toEqual(['race-1', 'race-2', 'race-3']);
  });
});

describe('metadata-document clients on DynamoDB', () => {
  /** A document's client as the token endpoint holds it before its first use (nothing stored). */
  const described = (clientId: string): OAuthClient => ({
    id: 0,
    clientId,
    name: 'Document on the table',
    type: 'public',
    redirectUris: ['https://app.example/cb'],
    grantTypes: ['authorization_code', 'refresh_token'],
    registration: 'metadata-document',
    createdAt: new Date().toISOString(),
    updatedAt: new Date().toISOString(),
  });
  const itemsOf = async (clientId: string) => {
    const items = await tableItems(config().directoryTable);
    return { client: items.find((i) => i.pk === `OAUTHCLIENT#${keyText(clientId)}`), pointer: items.find((i) => String(i.pk).startsWith('OAUTHCLIENTNO#') && i.clientId === clientId) };
  };

  it('writes the record at the first use with the TTL on it and its pointer; revoking keeps both without it, and the URL is refused', async () => {
    const clientId = 'https://app.example/oauth/on-the-table.json';
    expect((await itemsOf(clientId)).client).toBeUndefined();
    // Two first uses racing: one creates the record, the other adds its grant to it.
    await Promise.all([1, 2].map((n) => noteClientUse(described(clientId), { grantId: `doc-grant-${n}`, userId: 90 + n })));
    const now = Math.floor(Date.now() / 1000);
    const used = await itemsOf(clientId);
    expect(used.client).toMatchObject({ registration: 'metadata-document', name: 'Document on the table' });
    expect(used.client!.expiresAt as number).toBeGreaterThanOrEqual(now + KEPT_AFTER_USE_SECONDS - 5);
    expect(used.pointer!.expiresAt).toBe(used.client!.expiresAt);
    expect((used.client!.grants as Array<{ grantId: string }>).map((g) => g.grantId).sort()).toEqual(['doc-grant-1', 'doc-grant-2']);

    expect(await runClientsCommand(['revoke', clientId])).toEqual([`revoked ${clientId} ("Document on the table"): 2 grant(s) ended; authorize and token refuse it from now on`]);
    const revoked = await itemsOf(clientId);
    expect(revoked.client!.revokedAt).toBeGreaterThanOrEqual(now - 5);
    expect(revoked.client!.expiresAt).toBeUndefined();
    expect(revoked.client!.grants).toBeUndefined();
    expect(revoked.pointer).toBeDefined();
    expect(revoked.pointer!.expiresAt).toBeUndefined();
    await expect(findClient(clientId)).rejects.toThrow(REVOKED_DOCUMENT);
  });
});
