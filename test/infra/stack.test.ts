/**
 * Assertions on the synthesized CloudFormation template, with the bundles built exactly as for a
 * deploy: this is the deployment artifact, so the compliance checks of it (cdk-nag, cfn-lint) are here.
 */
import { App } from 'aws-cdk-lib';
import { Match, type Template } from 'aws-cdk-lib/assertions';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../lib/app';
import { REPO_ROOT } from '../../scripts/bundle';
import { FAMILIES, GATEWAY_ROUTES, MCP_PATH } from '../../shared/http/families';
import { RATE_WINDOW_PREFIX } from '../../shared/store/directory-keys';
import { OBSERVATIONS, TABLES } from '../../shared/store/tables';
import { MAX_RECEIVES } from '../../shared/export/worker';
import { EXPORT_WORKER, METRIC } from '../../shared/telemetry/names';
import { cfnLint, cfnLintRequired, findCfnLint } from './cfn-lint';
import { NAMESPACE, SMART, synthesized, type Resource, type Synthesized } from './fixture';

let synth: Synthesized;
let template: Template;
const outdir = mkdtempSync(join(tmpdir(), 'cdx-cdk-'));

beforeAll(() => {
  const { stack } = buildApp(new App({ outdir, context: { ...SMART, namespace: NAMESPACE } }));
  synth = synthesized(stack, outdir, () => rmSync(outdir, { recursive: true, force: true }));
  template = synth.template;
});
afterAll(() => synth?.cleanup());

const resources = (type: string): Resource[] => synth.resources(type).map(([, r]) => r);
/** The functions' own policies (one customer-managed policy each: the families' and the export worker's). */
const familyPolicies = () => resources('AWS::IAM::ManagedPolicy');
/** The service's functions: the endpoint families and the export worker. */
const serviceFunctions = () => resources('AWS::Lambda::Function').filter((f) => String(f.Properties.Description).startsWith('Clinical data exchange:'));
const familyFunctions = () => serviceFunctions().filter((f) => String(f.Properties.Description).endsWith(' endpoints'));
const SERVICE_FUNCTIONS = FAMILIES.length + 1;
const isCdkBucketDeployment = (p: Resource) => JSON.stringify(p.Properties.Roles).includes('CustomCDKBucketDeployment');
const statementsWith = (policies: Resource[], action: string) =>
  policies.filter((p) => p.Properties.PolicyDocument.Statement.some((s: any) => [s.Action].flat().includes(action)));

describe('stack', () => {
  it('has the tables with the shared key schemas, indexes and durability settings', () => {
    const tables = resources('AWS::DynamoDB::GlobalTable');
    expect(tables).toHaveLength(TABLES.length);
    for (const def of TABLES) {
      const table = tables.find((t) => t.Properties.TableName?.endsWith?.(def.name));
      expect(table, def.id).toBeDefined();
      const p = table!.Properties;
      expect(p.KeySchema).toEqual([
        { AttributeName: def.partitionKey.name, KeyType: 'HASH' },
        { AttributeName: def.sortKey.name, KeyType: 'RANGE' },
      ]);
      expect(p.BillingMode).toBe('PAY_PER_REQUEST');
      expect((p.GlobalSecondaryIndexes ?? []).map((i: any) => i.IndexName).sort()).toEqual(def.globalIndexes.map((i) => i.name).sort());
      expect((p.LocalSecondaryIndexes ?? []).map((i: any) => i.IndexName).sort()).toEqual(def.localIndexes.map((i) => i.name).sort());
      const replica = p.Replicas[0];
      expect(replica.PointInTimeRecoverySpecification.PointInTimeRecoveryEnabled).toBe(true);
      expect(replica.DeletionProtectionEnabled).toBe(true);
      expect(p.SSESpecification.SSEEnabled).toBe(true);
      // Retained on replacement too: a layout that gets a new table name leaves the old table and its data in place.
      expect(table).toMatchObject({ DeletionPolicy: 'Retain', UpdateReplacePolicy: 'Retain' });
    }
  });

  it('keeps observations in blocks without any index, their stream on, and TTL on the directory and exports tables', () => {
    const tables = resources('AWS::DynamoDB::GlobalTable');
    const obs = tables.find((t) => t.Properties.TableName.endsWith(OBSERVATIONS.name))!;
    expect(OBSERVATIONS.name).toBe('observations-v3');
    expect(obs.Properties.GlobalSecondaryIndexes ?? []).toEqual([]);
    expect(obs.Properties.LocalSecondaryIndexes ?? []).toEqual([]);
    expect(obs.Properties.StreamSpecification).toEqual({ StreamViewType: 'NEW_AND_OLD_IMAGES' });
    for (const name of ['directory', 'exports']) {
      const table = tables.find((t) => t.Properties.TableName.endsWith(name))!;
      expect(table.Properties.TimeToLiveSpecification, name).toEqual({ AttributeName: 'expiresAt', Enabled: true });
    }
  });

  it('runs the five families and the export worker on nodejs22.x arm64', () => {
    const fns = serviceFunctions();
    expect(familyFunctions()).toHaveLength(FAMILIES.length);
    expect(fns).toHaveLength(SERVICE_FUNCTIONS);
    for (const fn of fns) {
      expect(fn.Properties.Runtime).toBe('nodejs22.x');
      expect(fn.Properties.Architectures).toEqual(['arm64']);
    }
  });

  it('routes every gateway path of the shared table, plus $default', () => {
    const keys = resources('AWS::ApiGatewayV2::Route').map((r) => r.Properties.RouteKey).sort();
    expect(keys).toEqual([...GATEWAY_ROUTES.map((r) => `ANY ${r.path}`), '$default'].sort());
  });

  it("sends the preflight OPTIONS /mcp to the mcp function, which answers CORS itself", () => {
    // API Gateway answers OPTIONS itself (and drops the function's CORS headers) only when the API has a CORS configuration.
    const [api] = resources('AWS::ApiGatewayV2::Api');
    expect(api!.Properties.CorsConfiguration).toBeUndefined();
    const mcpRoute = resources('AWS::ApiGatewayV2::Route').find((r) => r.Properties.RouteKey === `ANY ${MCP_PATH}`)!;
    const integration = synth.resources('AWS::ApiGatewayV2::Integration').find(([id]) => JSON.stringify(mcpRoute.Properties.Target).includes(id))![1];
    expect(JSON.stringify(integration.Properties.IntegrationUri)).toMatch(/functionsmcp/);
    // CloudFront passes OPTIONS and the browser's Origin and Access-Control-Request-* headers on.
    const dist = resources('AWS::CloudFront::Distribution')[0]!.Properties.DistributionConfig;
    const behaviour = dist.CacheBehaviors.find((b: any) => b.PathPattern === MCP_PATH);
    expect(behaviour.AllowedMethods).toContain('OPTIONS');
    expect(behaviour.OriginRequestPolicyId).toBe('b689b0a8-53d0-40ab-baf2-68738e2966ac'); // AllViewerExceptHostHeader
  });

  it('puts the portal bucket behind CloudFront with origin access control and API behaviours', () => {
    template.resourceCountIs('AWS::CloudFront::Distribution', 1);
    template.resourceCountIs('AWS::CloudFront::OriginAccessControl', 1);
    const dist = resources('AWS::CloudFront::Distribution')[0]!.Properties.DistributionConfig;
    const patterns = dist.CacheBehaviors.map((b: any) => b.PathPattern);
    expect(patterns).toEqual(expect.arrayContaining(['/FHIR/R5/*', '/fhir/r5/*', '/api/v1/*', '/o/*', '/.well-known/*', '/fhir-import/R4', '/fhir-import/R4/*']));
    // The default behaviour is the bucket, through origin access control.
    const bucketOrigin = dist.Origins.find((o: any) => o.Id === dist.DefaultCacheBehavior.TargetOriginId);
    expect(bucketOrigin.S3OriginConfig).toBeDefined();
    expect(bucketOrigin.OriginAccessControlId).toBeDefined();
    // API behaviours forward every method to the HTTP API, uncached.
    for (const behavior of dist.CacheBehaviors) {
      expect(behavior.AllowedMethods).toEqual(expect.arrayContaining(['POST', 'PUT', 'PATCH', 'DELETE']));
      expect(behavior.TargetOriginId).not.toBe(dist.DefaultCacheBehavior.TargetOriginId);
    }
  });

  it('sends the pages with a Content-Security-Policy built from smartIss, and the usual headers everywhere', () => {
    const policies = resources('AWS::CloudFront::ResponseHeadersPolicy').map((r) => r.Properties.ResponseHeadersPolicyConfig);
    const pages = policies.find((p) => p.SecurityHeadersConfig.ContentSecurityPolicy)!;
    const csp: string = pages.SecurityHeadersConfig.ContentSecurityPolicy.ContentSecurityPolicy;
    expect(csp).toContain("connect-src 'self' https://ehr.example.org;");
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).not.toMatch(/unsafe-inline|unsafe-eval/);
    for (const policy of policies) {
      expect(policy.SecurityHeadersConfig).toMatchObject({
        StrictTransportSecurity: { IncludeSubdomains: true, Override: true },
        ContentTypeOptions: { Override: true },
        FrameOptions: { FrameOption: 'DENY' },
        ReferrerPolicy: { ReferrerPolicy: 'no-referrer' },
      });
    }
    // The page policy serves the bucket; the API behaviours keep the API pages' own CSP.
    const dist = resources('AWS::CloudFront::Distribution')[0]!.Properties.DistributionConfig;
    const ids = Object.entries(template.findResources('AWS::CloudFront::ResponseHeadersPolicy'));
    const pageId = ids.find(([, r]: any) => r.Properties.ResponseHeadersPolicyConfig.SecurityHeadersConfig.ContentSecurityPolicy)![0];
    expect(dist.DefaultCacheBehavior.ResponseHeadersPolicyId).toEqual({ Ref: pageId });
    for (const behavior of dist.CacheBehaviors) expect(behavior.ResponseHeadersPolicyId).not.toEqual({ Ref: pageId });
  });

  it('deploys the built pages and their launch configuration from the context settings', () => {
    template.resourceCountIs('Custom::CDKBucketDeployment', 1);
    const staged = readdirSync(outdir).filter((d) => d.startsWith('asset.'));
    const config = staged.map((d) => join(outdir, d, 'clients/portal/config.json')).find(existsSync);
    expect(JSON.parse(readFileSync(config!, 'utf8'))).toEqual({ iss: SMART.smartIss, clientId: SMART.smartClientId, scope: SMART.smartScopes, clientIds: [], origins: [] });
    const pages = staged.map((d) => join(outdir, d)).find((d) => existsSync(join(d, 'clients/portal/portal.js')));
    expect(existsSync(join(pages!, 'clients/portal/index.html'))).toBe(true);
    expect(existsSync(join(pages!, 'clients/portal/callback/index.html'))).toBe(true);
    expect(existsSync(join(pages!, 'src'))).toBe(false);
  });

  it('grants no wildcard actions and never dynamodb:Scan', () => {
    // CDK's own portal upload function (BucketDeployment) is the one role whose policy CDK writes
    // with wildcard S3 actions; it is limited to the portal and asset buckets and not ours to narrow.
    const policies = [...familyPolicies(), ...resources('AWS::IAM::Policy')];
    expect(familyPolicies()).toHaveLength(SERVICE_FUNCTIONS);
    for (const policy of policies) {
      for (const statement of policy.Properties.PolicyDocument.Statement) {
        const actions: string[] = [statement.Action].flat();
        for (const action of actions) {
          expect(action).not.toBe('dynamodb:Scan');
          if (!isCdkBucketDeployment(policy)) expect(action).not.toMatch(/\*/);
          else expect(action).toMatch(/^(s3:|cloudfront:(Get|Create)Invalidation$)/);
        }
      }
    }
  });

  it('keeps every permission of a family in its own customer-managed policy: no inline policy, no AWS managed policy', () => {
    const roles = synth.resources('AWS::IAM::Role').filter(([, r]) => String(r.Properties.Description).startsWith('Clinical data exchange:'));
    expect(roles).toHaveLength(SERVICE_FUNCTIONS);
    for (const [, role] of roles) expect(role.Properties.ManagedPolicyArns).toBeUndefined();
    const functionRoles = resources('AWS::Lambda::Function')
      .filter((f) => String(f.Properties.Description).startsWith('Clinical data exchange:'))
      .map((f) => f.Properties.Role['Fn::GetAtt'][0]);
    expect(functionRoles.sort()).toEqual(roles.map(([id]) => id).sort());
    expect(resources('AWS::IAM::Policy').filter((p) => !isCdkBucketDeployment(p))).toEqual([]);
    for (const policy of familyPolicies()) expect(policy.Properties.Roles).toEqual([{ Ref: expect.stringMatching(/^(functions|exportwork).*role/) }]);
  });

  it('names each table index in the grants instead of index/*', () => {
    const tableResources = familyPolicies().flatMap((p) =>
      p.Properties.PolicyDocument.Statement.filter((s: any) => [s.Action].flat().some((a: string) => a.startsWith('dynamodb:'))).flatMap((s: any) => [s.Resource].flat()),
    );
    const text = JSON.stringify(tableResources);
    expect(text).not.toContain('/index/*');
    for (const index of TABLES.flatMap((t) => [...t.localIndexes, ...t.globalIndexes])) expect(text).toContain(`/index/${index.name}"`);
  });

  it('keeps the token signing key in KMS and signs only from the OAuth function', () => {
    template.hasResourceProperties('AWS::KMS::Key', { KeySpec: 'ECC_NIST_P256', KeyUsage: 'SIGN_VERIFY' });
    const signers = statementsWith(familyPolicies(), 'kms:Sign');
    expect(signers).toHaveLength(1);
    expect(JSON.stringify(signers[0]!.Properties.Roles)).toMatch(/oauth/i);
  });

  it('publishes the site URL in SSM and lets every function read only that parameter', () => {
    template.hasResourceProperties('AWS::SSM::Parameter', { Name: '/ClinicalDataExchange/site-url' });
    for (const fn of familyFunctions()) expect(fn.Properties.Environment.Variables.SITE_URL_PARAMETER).toBe('/ClinicalDataExchange/site-url');
    const readers = statementsWith(familyPolicies(), 'ssm:GetParameter');
    expect(readers).toHaveLength(FAMILIES.length);
    expect(JSON.stringify(readers[0]!.Properties.PolicyDocument)).toContain('parameter/ClinicalDataExchange/site-url');
  });

  it('gives every function the namespace chosen at deployment', () => {
    const fns = serviceFunctions();
    expect(fns).toHaveLength(SERVICE_FUNCTIONS);
    for (const fn of fns) expect(fn.Properties.Environment.Variables.SERVICE_NAMESPACE).toBe(NAMESPACE);
  });

  it('keeps auxiliary bodies private, versioned and encrypted with the data key, expiring old versions, and lets only the api family list them', () => {
    const buckets = resources('AWS::S3::Bucket').filter((b) => JSON.stringify(b.Properties.LifecycleConfiguration ?? {}).includes('"NoncurrentDays":35'));
    expect(buckets).toHaveLength(1);
    const aux = buckets[0]!.Properties;
    expect(aux.VersioningConfiguration).toEqual({ Status: 'Enabled' });
    expect(aux.LifecycleConfiguration.Rules).toEqual([
      expect.objectContaining({ NoncurrentVersionExpiration: { NoncurrentDays: 35 }, ExpiredObjectDeleteMarker: true, Status: 'Enabled' }),
    ]);
    expect(aux.BucketEncryption.ServerSideEncryptionConfiguration[0].ServerSideEncryptionByDefault.SSEAlgorithm).toBe('aws:kms');
    const listers = statementsWith(familyPolicies(), 's3:ListBucket').filter((p) =>
      p.Properties.PolicyDocument.Statement.some((st: any) => [st.Action].flat().includes('s3:ListBucket') && JSON.stringify(st.Resource).includes('auxbodies')),
    );
    expect(listers).toHaveLength(1);
    expect(JSON.stringify(listers[0]!.Properties.Roles)).toMatch(/functionsapi/i);
    // Reading and writing bodies decrypts and makes data keys, through S3 only.
    for (const writer of statementsWith(familyPolicies(), 's3:PutObject')) {
      const kms = writer.Properties.PolicyDocument.Statement.find((s: any) => [s.Action].flat().includes('kms:GenerateDataKey'));
      expect(kms.Condition.StringEquals['kms:ViaService']).toBeDefined();
    }
  });

  it('sets log retention on every function log group', () => {
    const groups = resources('AWS::Logs::LogGroup');
    expect(groups.length).toBeGreaterThanOrEqual(5);
    for (const g of groups) expect(g.Properties.RetentionInDays).toBe(30);
    template.hasResourceProperties('AWS::Lambda::Function', { LoggingConfig: Match.objectLike({ LogFormat: 'JSON' }) });
  });
});

describe('bulk export', () => {
  const idOf = (type: string, prefix: string) => synth.resources(type).find(([id]) => id.startsWith(prefix))![0];

  it('feeds the worker from a KMS-encrypted, TLS-only queue with a dead-letter queue after three deliveries', () => {
    const queues = synth.resources('AWS::SQS::Queue');
    expect(queues).toHaveLength(2);
    const [, queue] = queues.find(([id]) => id.startsWith('exportworkqueue'))!;
    const dlq = idOf('AWS::SQS::Queue', 'exportworkdeadletters');
    expect(queue.Properties.RedrivePolicy).toEqual({ deadLetterTargetArn: { 'Fn::GetAtt': [dlq, 'Arn'] }, maxReceiveCount: MAX_RECEIVES });
    // Redelivered only once the worker that had it cannot still be running (its 15-minute timeout).
    expect(queue.Properties.VisibilityTimeout).toBeGreaterThan(15 * 60);
    for (const [, q] of queues) expect(JSON.stringify(q.Properties.KmsMasterKeyId)).toMatch(/datakey/);
    for (const policy of resources('AWS::SQS::QueuePolicy')) {
      expect(policy.Properties.PolicyDocument.Statement).toEqual(expect.arrayContaining([expect.objectContaining({ Effect: 'Deny', Condition: { Bool: { 'aws:SecureTransport': 'false' } } })]));
    }
    const worker = idOf('AWS::Lambda::Function', 'exportworkexportworker');
    template.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
      FunctionName: { Ref: worker },
      EventSourceArn: { 'Fn::GetAtt': [idOf('AWS::SQS::Queue', 'exportworkqueue'), 'Arn'] },
      BatchSize: 1,
      FunctionResponseTypes: ['ReportBatchItemFailures'],
    });
    const fn = serviceFunctions().find((f) => f.Properties.Description === 'Clinical data exchange: export worker')!;
    expect(fn.Properties.Timeout).toBe(900);
    expect(fn.Properties.Environment.Variables).toMatchObject({ EXPORT_QUEUE_URL: { Ref: idOf('AWS::SQS::Queue', 'exportworkqueue') }, EXPORT_BUCKET: { Ref: idOf('AWS::S3::Bucket', 'exportworkfiles') } });
  });

  it('sweeps on a schedule: stuck jobs failed, expired ones deleted', () => {
    const [, rule] = synth.resources('AWS::Events::Rule').find(([id]) => id.startsWith('exportworksweep'))!;
    expect(rule.Properties.ScheduleExpression).toBe('rate(5 minutes)');
    expect(JSON.parse(rule.Properties.Targets[0].Input)).toEqual({ sweep: true });
  });

  it('keeps the files private, encrypted, unversioned, expiring with their jobs by a lifecycle rule', () => {
    const [, bucket] = synth.resources('AWS::S3::Bucket').find(([id]) => id.startsWith('exportworkfiles'))!;
    expect(bucket.Properties.VersioningConfiguration).toBeUndefined();
    expect(bucket.Properties.LifecycleConfiguration.Rules).toEqual([
      expect.objectContaining({ Id: 'expire-with-job', ExpirationInDays: 2, AbortIncompleteMultipartUpload: { DaysAfterInitiation: 1 }, Status: 'Enabled' }),
    ]);
    expect(bucket.Properties.BucketEncryption.ServerSideEncryptionConfiguration[0].ServerSideEncryptionByDefault.SSEAlgorithm).toBe('aws:kms');
    expect(bucket.Properties.PublicAccessBlockConfiguration).toMatchObject({ BlockPublicAcls: true, RestrictPublicBuckets: true });
  });

  it('grants the worker only what it needs: reads of the data, its jobs and files, its queue; the fhir family signs downloads and hands work over', () => {
    const policy = (prefix: string) => synth.resources('AWS::IAM::ManagedPolicy').find(([id]) => id.startsWith(prefix))![1];
    const actionsOn = (p: Resource, resource: string) =>
      p.Properties.PolicyDocument.Statement.filter((st: any) => JSON.stringify(st.Resource).includes(resource)).flatMap((st: any) => [st.Action].flat()).sort();
    const worker = policy('exportworkexportworkerpolicy');
    expect(actionsOn(worker, 'tablesobservations')).not.toContain('dynamodb:PutItem');
    expect(actionsOn(worker, 'tablesexports')).toContain('dynamodb:UpdateItem');
    expect(actionsOn(worker, 'auxbodies')).toEqual(['s3:GetObject']);
    expect(actionsOn(worker, 'exportworkfiles')).toEqual(['s3:DeleteObject', 's3:ListBucket', 's3:PutObject']);
    expect(actionsOn(worker, 'exportworkqueue')).toEqual(expect.arrayContaining(['sqs:ReceiveMessage', 'sqs:DeleteMessage', 'sqs:SendMessage']));
    expect(JSON.stringify(worker)).not.toContain('kms:Sign');
    const fhir = policy('functionsfhirpolicy');
    expect(actionsOn(fhir, 'exportworkfiles')).toEqual(['s3:DeleteObject', 's3:GetObject', 's3:ListBucket']);
    expect(actionsOn(fhir, 'exportworkqueue')).toEqual(['sqs:GetQueueAttributes', 'sqs:GetQueueUrl', 'sqs:SendMessage']);
    for (const other of ['functionsapipolicy', 'functionsoauthpolicy', 'functionsfhirimportpolicy', 'functionsmcppolicy']) expect(JSON.stringify(policy(other)), other).not.toMatch(/exportwork(files|queue)/);
    // The assistants' tools only read: no write to any table or object, no signing; the endpoint
    // counts requests in the directory's rate windows, and its UpdateItem reaches no other item.
    const mcpPolicy = policy('functionsmcppolicy');
    const [counting, ...otherWrites] = mcpPolicy.Properties.PolicyDocument.Statement.filter((st: any) => JSON.stringify(st.Action).match(/dynamodb:(PutItem|UpdateItem|DeleteItem|BatchWriteItem)/));
    expect(otherWrites).toEqual([]);
    expect(counting).toMatchObject({ Action: 'dynamodb:UpdateItem', Condition: { 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': [`${RATE_WINDOW_PREFIX}*`] } } });
    expect(JSON.stringify(counting.Resource)).toContain('tablesdirectory');
    const mcp = JSON.stringify({ ...mcpPolicy.Properties.PolicyDocument, Statement: mcpPolicy.Properties.PolicyDocument.Statement.filter((st: any) => st !== counting) });
    expect(mcp).toMatch(/dynamodb:GetItem/);
    expect(mcp).not.toMatch(/dynamodb:(PutItem|UpdateItem|DeleteItem|BatchWriteItem)|s3:(PutObject|DeleteObject)|kms:Sign/);
  });

  it('alarms on the dead-letter queue, on stuck jobs and on worker errors', () => {
    const alarms = new Map(resources('AWS::CloudWatch::Alarm').map((a) => [String(a.Properties.AlarmName).replace(/^ClinicalDataExchange-/, ''), a.Properties]));
    expect(alarms.get('export-dead-letters')).toMatchObject({ MetricName: 'ApproximateNumberOfMessagesVisible', Threshold: 1, Dimensions: [{ Name: 'QueueName', Value: { 'Fn::GetAtt': [idOf('AWS::SQS::Queue', 'exportworkdeadletters'), 'QueueName'] } }] });
    expect(alarms.get('export-stuck-jobs')).toMatchObject({ MetricName: METRIC.exportJobsStuck, Threshold: 1, Dimensions: [{ Name: 'service', Value: EXPORT_WORKER }] });
    expect(alarms.get('export-worker-errors')).toMatchObject({ MetricName: 'Errors', Dimensions: [{ Name: 'FunctionName', Value: { Ref: idOf('AWS::Lambda::Function', 'exportworkexportworker') } }] });
  });
});

describe('deployment artifact checks', () => {
  it('has no cdk-nag finding left: every finding of the AWS Solutions and HIPAA Security packs is fixed or acknowledged', () => {
    const report = JSON.parse(readFileSync(join(outdir, 'validation-report.json'), 'utf8')) as { pluginReports: Array<{ pluginName: string; violations: unknown[] }> };
    const left = report.pluginReports.flatMap((r) => r.violations.map((v) => ({ pack: r.pluginName, ...(v as object) })));
    expect(left).toEqual([]);
  });

  it('writes the reason of every acknowledged finding into the template, and acknowledges none of the findings that were fixed', () => {
    const acknowledged = (Object.entries(template.toJSON().Resources) as Array<[string, Resource]>).flatMap(([id, r]) => ((r.Metadata?.cdk_nag?.rules_to_suppress ?? []) as Array<{ id: string; reason: string }>).map((rule) => ({ resource: id, ...rule })));
    // The metadata exists only when the packs ran with the app: it proves they are registered.
    expect(acknowledged.length).toBeGreaterThan(0);
    for (const rule of acknowledged) expect(rule.reason.length, `${rule.resource} ${rule.id}`).toBeGreaterThan(60);
    const ids = acknowledged.map((r) => r.id);
    const fixed = [
      'HIPAA.Security-CloudWatchLogGroupEncrypted',
      'AwsSolutions-S1',
      'HIPAA.Security-S3BucketLoggingEnabled',
      'AwsSolutions-CFR3',
    ];
    for (const rule of fixed) expect(ids, rule).not.toContain(rule);
    // Every bucket is versioned but the export files': a cancelled export's files must be gone for good.
    expect(acknowledged.filter((r) => r.id === 'HIPAA.Security-S3BucketVersioningEnabled').map((r) => r.resource)).toEqual([expect.stringMatching(/^exportworkfiles/)]);
    expect(ids.filter((id) => id.includes('/index/*'))).toEqual([]);
    // Only CDK's deploy-time provider keeps an AWS managed policy, an inline policy and an unreserved concurrency.
    for (const rule of ['AwsSolutions-IAM4', 'HIPAA.Security-IAMNoInlinePolicy', 'HIPAA.Security-LambdaConcurrency']) {
      for (const hit of acknowledged.filter((r) => r.id.startsWith(rule))) expect(hit.resource, rule).toMatch(/^CustomCDKBucketDeployment/);
    }
    expect(acknowledged.filter((r) => r.id === 'HIPAA.Security-S3DefaultEncryptionKMS').map((r) => r.resource)).toEqual([expect.stringMatching(/^portalsite/)]);
  });

  const executable = findCfnLint();
  if (!executable && !cfnLintRequired()) console.warn('cfn-lint is not on PATH: the template lint is SKIPPED (pip install cfn-lint; under CI=true it fails instead).');
  it.skipIf(!executable && !cfnLintRequired())('passes cfn-lint with no error', () => {
    expect(executable, 'cfn-lint is not on PATH and CI=true requires it: pip install cfn-lint').toBeDefined();
    const findings = cfnLint(executable!, join(outdir, synth.stack.templateFile));
    expect(findings.filter((f) => f.Level === 'Error').map((f) => `${f.Rule.Id} ${f.Message}`)).toEqual([]);
  });
});

/**
 * The README's Deploying block as a new user types it (it shares `dist/` with the build above, so it
 * runs in this file, after it): `cdk synth` runs as written, offline; `cdk deploy` needs an account,
 * so its line's settings go through `cdk synth` instead; `cdk bootstrap` needs an account and takes
 * no settings. A line this test does not know how to check fails it.
 */
describe("the README's Deploying commands", () => {
  const readme = readFileSync(join(REPO_ROOT, 'README.md'), 'utf8');
  const section = readme.slice(readme.indexOf('\n## Deploying'), readme.indexOf('\n## ', readme.indexOf('\n## Deploying') + 1));
  const block = /```sh\n([\s\S]*?)```/.exec(section)?.[1] ?? '';
  const lines = block.split('\n').map((l) => l.replace(/\s+#.*$/, '').trim()).filter(Boolean);

  /** Runs a `npx cdk ...` command line with no AWS account or credentials, as on a fresh clone. */
  function cdk(line: string): { status: number | null; output: string } {
    const env: NodeJS.ProcessEnv = {};
    for (const [k, v] of Object.entries(process.env)) if (!/^(AWS_|CDK_|VITEST|RESOURCE_PREFIX|SITE_URL)/.test(k)) env[k] = v;
    const out = spawnSync('bash', ['-c', line], { cwd: REPO_ROOT, env, encoding: 'utf8', timeout: 240_000, maxBuffer: 64 * 1024 * 1024 });
    return { status: out.status, output: `${out.stdout}${out.stderr}` };
  }

  it('are the ones this test checks', () => {
    expect(lines[0]).toBe('npm ci');
    const unknown = lines.slice(1).filter((l) => !/^npx cdk (synth|deploy|bootstrap)( |$)/.test(l));
    expect(unknown).toEqual([]);
    expect(lines.some((l) => l.startsWith('npx cdk synth'))).toBe(true);
  });

  it('synthesize offline on a fresh checkout: the synth line as written, the deploy line with its settings', () => {
    for (const line of lines.filter((l) => /^npx cdk (synth|deploy)( |$)/.test(l))) {
      const run = line.replace(/^npx cdk deploy/, 'npx cdk synth --quiet');
      const { status, output } = cdk(run);
      expect(status, `${run}\n${output.slice(-2000)}`).toBe(0);
      if (!run.includes('--quiet')) expect(output).toContain('AWS::Lambda::Function');
    }
    // Without the namespace, the synth stops and says what to set.
    const bare = cdk('npx cdk synth --quiet');
    expect(bare.status).not.toBe(0);
    expect(bare.output).toContain("CDK context 'namespace' is not set");
  }, 600_000);
});
