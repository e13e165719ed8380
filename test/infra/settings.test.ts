/** The context settings: their parsing, and the stacks they give (each synth also runs cdk-nag). */
import { App } from 'aws-cdk-lib';
import { afterAll, describe, expect, it } from 'vitest';
import { DEFAULT_RESERVED_CONCURRENCY, readSettings } from '../../lib/settings';
import { FAMILIES } from '../../shared/http/families';
import { NAMESPACE, synthesize, type Synthesized } from './fixture';

const settingsOf = (context: Record<string, unknown>) => readSettings(new App({ context: { namespace: NAMESPACE, ...context } }).node);
const CERTIFICATE = 'arn:aws:acm:us-east-1:123456789012:certificate/0b9a1c3e-1111-2222-3333-444455556666';
const WEB_ACL = 'arn:aws:wafv2:us-east-1:123456789012:global/webacl/exchange/0b9a1c3e-1111-2222-3333-444455556666';

describe('settings', () => {
  it('have documented defaults', () => {
    const s = settingsOf({});
    expect(s).toMatchObject({ stackName: 'ClinicalDataExchange', logRetention: 30, lambdaConcurrencyQuota: 1000, apiThrottle: { rate: 500, burst: 1000 }, signingKeyGeneration: 1 });
    expect(s.reservedConcurrency).toEqual(DEFAULT_RESERVED_CONCURRENCY);
    expect(s.alarmEmail).toBeUndefined();
    expect(s.certificateArn).toBeUndefined();
  });

  it('reserve concurrency per family: none, one number for all, or some families', () => {
    expect(settingsOf({ reservedConcurrency: 'none' }).reservedConcurrency).toBeUndefined();
    expect(settingsOf({ reservedConcurrency: '50' }).reservedConcurrency).toEqual(Object.fromEntries(FAMILIES.map((f) => [f, 50])));
    expect(settingsOf({ reservedConcurrency: 50 }).reservedConcurrency?.fhir).toBe(50);
    expect(settingsOf({ reservedConcurrency: 'fhir=200,oauth=5' }).reservedConcurrency).toEqual({ ...DEFAULT_RESERVED_CONCURRENCY, fhir: 200, oauth: 5 });
  });

  it('give the portal per-hospital client ids from an object or a JSON string, and without smartIss the picker', () => {
    const ids = { 'https://fhir.vendor.example/': 'vendor-id' };
    expect(settingsOf({ smartClientIds: ids }).portal.clientIds).toEqual([['https://fhir.vendor.example/', 'vendor-id']]);
    expect(settingsOf({ smartClientIds: JSON.stringify(ids) }).portal.clientIds).toEqual([['https://fhir.vendor.example/', 'vendor-id']]);
    expect(() => settingsOf({ smartClientIds: '{"nope": 1}' })).toThrow(/SMART_CLIENT_IDS/);
    expect(settingsOf({}).portal.iss).toBe('');
  });

  it('refuse values that would deploy something else than asked, naming the setting', () => {
    expect(() => settingsOf({ reservedConcurrency: '0' })).toThrow(/reservedConcurrency/);
    expect(() => settingsOf({ reservedConcurrency: 'fhirx=2' })).toThrow(/reservedConcurrency/);
    expect(() => settingsOf({ logRetentionDays: '31' })).toThrow(/logRetentionDays.*retention periods/);
    expect(() => settingsOf({ alarmEmail: 'oncall' })).toThrow(/alarmEmail/);
    expect(() => settingsOf({ certificateArn: CERTIFICATE })).toThrow(/certificateArn.*siteUrl/);
    expect(() => settingsOf({ siteUrl: 'https://x.example.org', certificateArn: CERTIFICATE.replace('us-east-1', 'eu-west-1') })).toThrow(/us-east-1/);
    expect(() => settingsOf({ siteUrl: 'http://x.example.org' })).toThrow(/siteUrl/);
    expect(() => settingsOf({ signingKeyGeneration: '0' })).toThrow(/signingKeyGeneration/);
    expect(() => settingsOf({ apiRateLimit: 'fast' })).toThrow(/apiRateLimit/);
  });

  it('require the namespace, once chosen the prefix of every URI of its own, and refuse one that is not a plain absolute URI', () => {
    expect(settingsOf({}).namespace).toBe(NAMESPACE);
    expect(() => readSettings(new App({ context: {} }).node)).toThrow(/'namespace' is not set.*never change/);
    for (const bad of ['fhir.example.org/ns', 'https://fhir.example.org/ns/', 'https://fhir.example.org/ns?x=1', 'https://fhir.example.org/ns#a', 'urn:x'])
      expect(() => settingsOf({ namespace: bad }), bad).toThrow(/namespace/);
    expect(settingsOf({ namespace: 'https://fhir.example.org' }).namespace).toBe('https://fhir.example.org');
  });

  it('read the origins that may call /mcp, and refuse anything that is not an origin', () => {
    expect(settingsOf({}).mcpAllowedOrigins).toEqual([]);
    expect(settingsOf({ mcpAllowedOrigins: 'https://a.example.org, http://localhost:6274' }).mcpAllowedOrigins).toEqual(['https://a.example.org', 'http://localhost:6274']);
    expect(() => settingsOf({ mcpAllowedOrigins: 'https://a.example.org/path' })).toThrow(/mcpAllowedOrigins/);
  });

    it('keep the API burst at twice the rate unless it is set', () => {
    expect(settingsOf({ apiRateLimit: '2000' }).apiThrottle).toEqual({ rate: 2000, burst: 4000 });
    expect(settingsOf({ apiRateLimit: '2000', apiBurstLimit: '2500' }).apiThrottle).toEqual({ rate: 2000, burst: 2500 });
  });
});

describe('stack variants', () => {
  const built: Synthesized[] = [];
  const variant = (...args: Parameters<typeof synthesize>) => {
    const s = synthesize(...args);
    built.push(s);
    return s;
  };
  afterAll(() => built.forEach((s) => s.cleanup()));

  it('with a custom domain and certificate: the site URL host on the distribution, TLS 1.2 for viewers, and the web ACL', () => {
    const s = variant({ siteUrl: 'https://exchange.example.org', certificateArn: CERTIFICATE, webAclArn: WEB_ACL, alarmEmail: 'oncall@example.org' });
    const config = s.resources('AWS::CloudFront::Distribution')[0]![1].Properties.DistributionConfig;
    expect(config.Aliases).toEqual(['exchange.example.org']);
    expect(config.ViewerCertificate).toMatchObject({ AcmCertificateArn: CERTIFICATE, MinimumProtocolVersion: 'TLSv1.2_2021', SslSupportMethod: 'sni-only' });
    expect(config.WebACLId).toBe(WEB_ACL);
    expect(config.Logging.Prefix).toBe('cloudfront/');
    s.template.hasResourceProperties('AWS::SSM::Parameter', { Value: 'https://exchange.example.org' });
    s.template.resourceCountIs('AWS::SNS::Subscription', 1);
  });

  it('without reserved concurrency (reservedConcurrency=none) and without alarmEmail: no reservations, no per-family concurrency alarms, no subscription', () => {
    const s = variant({ reservedConcurrency: 'none' });
    for (const [, fn] of s.resources('AWS::Lambda::Function')) expect(fn.Properties.ReservedConcurrentExecutions).toBeUndefined();
    const names = s.resources('AWS::CloudWatch::Alarm').map(([, a]) => String(a.Properties.AlarmName));
    expect(names.filter((n) => /-(fhir|fhir-import|api|oauth)-concurrency$/.test(n))).toEqual([]);
    expect(names).toContain('ClinicalDataExchange-account-concurrency');
    s.template.resourceCountIs('AWS::SNS::Subscription', 0);
  });

  it('rotating the signing key (generation 2) in a known account: the new key signs, the previous one still verifies', () => {
    const s = variant({ signingKeyGeneration: '2', lambdaConcurrencyQuota: '3000' }, { account: '123456789012', region: 'eu-west-1' });
    const keys = s.resources('AWS::KMS::Key').filter(([, k]) => k.Properties.KeyUsage === 'SIGN_VERIFY');
    expect(keys.map(([id]) => id).sort()).toEqual([expect.stringMatching(/^tokensigningkey2/), expect.stringMatching(/^tokensigningkey[A-F0-9]{8}$/)].sort());
    const [current] = keys.find(([id]) => id.startsWith('tokensigningkey2'))!;
    const [previous] = keys.find(([id]) => !id.startsWith('tokensigningkey2'))!;
    for (const [, fn] of s.resources('AWS::Lambda::Function').filter(([, f]) => /^Clinical data exchange: .* endpoints$/.test(String(f.Properties.Description)))) {
      expect(fn.Properties.Environment.Variables.TOKEN_SIGNING_KEY_ID).toEqual({ 'Fn::GetAtt': [current, 'Arn'] });
      expect(fn.Properties.Environment.Variables.TOKEN_PREVIOUS_SIGNING_KEY_IDS).toEqual({ 'Fn::GetAtt': [previous, 'Arn'] });
    }
    const statements = s.resources('AWS::IAM::ManagedPolicy').flatMap(([, p]) => p.Properties.PolicyDocument.Statement as any[]);
    const sign = statements.filter((st) => [st.Action].flat().includes('kms:Sign'));
    expect(sign.map((st) => st.Resource)).toEqual([{ 'Fn::GetAtt': [current, 'Arn'] }]);
    for (const st of statements.filter((x) => [x.Action].flat().includes('kms:GetPublicKey'))) {
      expect(st.Resource).toEqual([{ 'Fn::GetAtt': [current, 'Arn'] }, { 'Fn::GetAtt': [previous, 'Arn'] }]);
    }
    const account = s.resources('AWS::CloudWatch::Alarm').find(([, a]) => a.Properties.AlarmName === 'ClinicalDataExchange-account-concurrency')![1];
    expect(JSON.stringify(account.Properties.Metrics)).toContain('100 * claimed / 3000');
  });
});
