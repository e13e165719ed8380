import { describe, expect, it } from 'vitest';
import { demoDirectory } from '../../../local/demo-directory';
import { demoOAuth } from '../../../local/demo-oauth';
import { getOAuthClient } from '../../../shared/directory/oauth-clients';
import { PORTAL_CLIENT_ID, WEB_CLIENT_ID } from '../../../shared/oauth/service-clients';
import { call } from '../../support/invoke';
import { redeemAndExchange } from '../../support/oauth';

describe('demo OAuth data', () => {
  it('seeds the service clients and a working invitation for demo patient 2, printed in the banner', async () => {
    const ctx = { notes: [] as string[] };
    await demoDirectory.run(ctx);
    await demoOAuth.run(ctx);
    expect(await getOAuthClient(PORTAL_CLIENT_ID)).toMatchObject({ type: 'public', redirectUris: ['/auth/callback'], invitationUrl: '/clients/portal/?code=CODE' });
    expect(await getOAuthClient(WEB_CLIENT_ID)).toMatchObject({ type: 'public', redirectUris: ['/auth/callback'] });

    const link = /(http:\/\/localhost:8000\/clients\/portal\/\?code=\S+)/.exec(ctx.notes.join('\n'))?.[1];
    expect(link).toBeDefined();
    // Where the invited patient sets a password with that link, to sign an assistant in.
    const passwordPage = /(http:\/\/localhost:8000\/o\/password\/)\)/.exec(ctx.notes.join('\n'))?.[1];
    expect((await call('GET', new URL(passwordPage!).pathname)).status).toBe(200);
    const code = new URL(link!).searchParams.get('code')!;
    const [host, token] = code.split('_');
    expect(host).toBe('localhost:8000');
    const tokens = await redeemAndExchange(token!);
    expect(tokens.patient).toBe('2');
    expect((await call('GET', '/o/userinfo/', { token: tokens.access_token })).json.patient).toBe('2');
  });
});
