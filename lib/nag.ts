/**
 * Compliance checks of the synthesized stack: cdk-nag's AWS Solutions and HIPAA Security packs run
 * on every synth (`cdk synth`, `cdk deploy`, the infra tests), and an error-level finding that is
 * neither fixed nor acknowledged stops it. Every finding the stack keeps on purpose is acknowledged
 * here, in one file, on the narrowest construct it applies to, with its reason. cdk-nag leaves
 * acknowledged findings out of its report, so the reasons are also written into the template, as
 * each resource's `cdk_nag` metadata: whoever reviews the deployed template reads them there.
 */
import { DefaultStackSynthesizer, Stack, Token, Validations, type App } from 'aws-cdk-lib';
import * as apigwv2 from 'aws-cdk-lib/aws-apigatewayv2';
import type * as s3 from 'aws-cdk-lib/aws-s3';
import { AwsSolutionsChecks, HIPAASecurityChecks } from 'cdk-nag';
import type { IConstruct } from 'constructs';
import { FAMILY_ACCESS, type Functions } from './constructs/functions';
import type { ExportWork } from './constructs/export-work';
import type { ServiceHttpApi } from './constructs/http-api';
import type { Portal } from './constructs/portal';
import type { Settings } from './settings';
import { FAMILIES } from '../shared/http/families';

export function checkCompliance(app: App): void {
  // One pack writing the metadata is enough: it copies every acknowledgement, whichever pack it is for.
  Validations.of(app).addPlugins(new AwsSolutionsChecks(app, { writeSuppressionsToCloudFormation: true }), new HIPAASecurityChecks(app));
}

export interface StackParts {
  stack: Stack;
  settings: Settings;
  functions: Functions;
  exportWork: ExportWork;
  http: ServiceHttpApi;
  portal: Portal;
  auxBucket: s3.Bucket;
  accessLogs: s3.Bucket;
}

const REASON = {
  routesWithoutAuthorizer:
    'Every route checks its caller inside the function, because public endpoints share the API: /health, /.well-known, the OAuth endpoints (/o/token, /o/authorize, /auth/callback) and FHIR metadata must stay open under the same paths. The functions verify ES256 access tokens against the KMS key set and then read the caller\'s account (deactivation, password change and revocation take effect at once), and check API keys and OAuth client secrets; a gateway authorizer could not read the account and would only duplicate the signature check.',
  runtime:
    'nodejs22.x is a supported Node.js LTS runtime (Node 22 is maintained until April 2027). The bundles target node20 so one bundle also runs on the local Node 20 toolchain the tests use; moving to a newer runtime is its own tested change, and this rule fires again whenever AWS adds one.',
  deadLetterQueue:
    'Invoked synchronously by API Gateway: a dead-letter queue only receives failed asynchronous invocations and would stay empty. A failed request is answered to its client, which retries (uploads are idempotent by their header.uuid), and counted by the Errors and 5xx alarms.',
  vpc:
    'The functions call only AWS service APIs (DynamoDB, S3, KMS, SSM, X-Ray, CloudWatch) over TLS with IAM-signed requests, and no resource of the stack lives in a network. A VPC would add interface endpoints or a NAT gateway (a fixed monthly cost per availability zone) without narrowing who can reach the data, which IAM already decides.',
  xrayResource: 'X-Ray\'s PutTraceSegments and PutTelemetryRecords take no resource-level permission: "*" is the only resource they accept (the statement Lambda\'s own active-tracing grant uses).',
  bodyObjects:
    'Object keys are resource ids chosen at write time, so no narrower prefix is known in advance; the grant names this one bucket\'s objects, with only the get, put and delete actions the family uses (list is granted separately to the api family only).',
  replication:
    'Cross-region replication is a disaster-recovery decision with data-residency consequences for health data (a second region may not be permitted), so it is left to the operator; in its region the bucket is versioned and retained, and S3 stores every object across several availability zones.',
  portalReplication: 'The portal pages are rebuilt from the repository and redeployed by every deployment; a replica would hold nothing that cannot be rebuilt.',
  portalEncryption:
    'The bucket holds only the public portal pages (HTML, scripts, styles and the public launch configuration) that CloudFront serves to anyone, encrypted at rest with SSE-S3. A customer key would protect nothing confidential and would put every page request through KMS.',
  geoRestriction: 'Patients use the portal and their devices upload from wherever they are; a country list would lock travelling patients out and protects nothing the access tokens do not.',
  webAcl:
    'No web ACL is attached by default: a CloudFront web ACL lives in us-east-1 and is billed per rule and per request, and the limits it would add exist already (the API stage throttle and the service\'s per-caller rate limit). The webAclArn setting attaches one.',
  viewerTls:
    'On the default *.cloudfront.net name CloudFront fixes the viewer security policy and no setting changes it. Deploying with siteUrl and certificateArn (an ACM certificate in us-east-1 for that host) sets TLSv1.2_2021 as the minimum.',
  noReservedConcurrency:
    'The operator deployed with reservedConcurrency=none because the account cannot spare reservations (a new account starts with a quota of 10): the families share the unreserved pool, which the account-concurrency alarm watches.',
  workerDeadLetters:
    'The export worker is invoked by its SQS event source, not asynchronously: a failed message returns to the queue and, after its last delivery, goes to the queue\'s own dead-letter queue (alarmed). A function DLQ would stay empty.',
  exportFileObjects:
    'Export files are named by their job (a random id) and part at run time, so no narrower prefix is known in advance; the grant names this one bucket\'s objects with only the actions each function uses (the worker writes and removes them, the fhir family signs downloads and removes a cancelled job\'s).',
  exportVersioning:
    'The bucket holds only temporary export files, rebuilt by running the export again. Versioning would keep a cancelled export\'s files after its owner deleted them, which the service promises not to do; they expire with their job.',
  bucketDeployment:
    'CDK\'s BucketDeployment provider: it copies the portal pages into their bucket during a deployment and is invoked only by CloudFormation, never by a request. Its runtime, role and policy are written by CDK and scoped by CDK to the deployment asset bucket and the portal bucket.',
} as const;

/** On the CloudFormation resource itself (an L2's default child), so the reason lands on that resource only. */
function acknowledge(scope: IConstruct, reason: string, ...ids: string[]): void {
  const target = scope.node.defaultChild ?? scope;
  for (const id of ids) Validations.of(target).acknowledge({ id, reason });
}

export function acknowledgeFindings(parts: StackParts): void {
  const { stack, settings, functions, http, portal } = parts;

  for (const route of http.api.node.findAll().filter((c) => c instanceof apigwv2.CfnRoute)) {
    acknowledge(route, REASON.routesWithoutAuthorizer, 'AwsSolutions-APIG4');
  }
  for (const family of FAMILIES) {
    const fn = functions.byFamily[family];
    acknowledge(fn, REASON.runtime, 'AwsSolutions-L1');
    acknowledge(fn, REASON.deadLetterQueue, 'HIPAA.Security-LambdaDLQ');
    acknowledge(fn, REASON.vpc, 'HIPAA.Security-LambdaInsideVPC');
    if (!settings.reservedConcurrency) acknowledge(fn, REASON.noReservedConcurrency, 'HIPAA.Security-LambdaConcurrency');
    const policy = functions.policies[family];
    acknowledge(policy, REASON.xrayResource, 'AwsSolutions-IAM5[Resource::*]');
    if (FAMILY_ACCESS[family].bucket.some((a) => a !== 'list')) {
      acknowledge(policy, REASON.bodyObjects, `AwsSolutions-IAM5[Resource::<${logicalId(parts.auxBucket)}.Arn>/*]`);
    }
  }

  const worker = parts.exportWork.worker;
  acknowledge(worker, REASON.runtime, 'AwsSolutions-L1');
  acknowledge(worker, REASON.workerDeadLetters, 'HIPAA.Security-LambdaDLQ');
  acknowledge(worker, REASON.vpc, 'HIPAA.Security-LambdaInsideVPC');
  if (!settings.reservedConcurrency) acknowledge(worker, REASON.noReservedConcurrency, 'HIPAA.Security-LambdaConcurrency');
  acknowledge(parts.exportWork.policy, REASON.xrayResource, 'AwsSolutions-IAM5[Resource::*]');
  acknowledge(parts.exportWork.policy, REASON.bodyObjects, `AwsSolutions-IAM5[Resource::<${logicalId(parts.auxBucket)}.Arn>/*]`);
  const exportFiles = `AwsSolutions-IAM5[Resource::<${logicalId(parts.exportWork.bucket)}.Arn>/*]`;
  acknowledge(parts.exportWork.policy, REASON.exportFileObjects, exportFiles);
  for (const family of FAMILIES) if (FAMILY_ACCESS[family].exports) acknowledge(functions.policies[family], REASON.exportFileObjects, exportFiles);
  acknowledge(parts.exportWork.bucket, REASON.replication, 'HIPAA.Security-S3BucketReplicationEnabled');
  acknowledge(parts.exportWork.bucket, REASON.exportVersioning, 'HIPAA.Security-S3BucketVersioningEnabled');

  acknowledge(parts.auxBucket, REASON.replication, 'HIPAA.Security-S3BucketReplicationEnabled');
  acknowledge(parts.accessLogs, REASON.replication, 'HIPAA.Security-S3BucketReplicationEnabled');
  acknowledge(portal.bucket, REASON.portalReplication, 'HIPAA.Security-S3BucketReplicationEnabled');
  acknowledge(portal.bucket, REASON.portalEncryption, 'HIPAA.Security-S3DefaultEncryptionKMS');

  acknowledge(portal.distribution, REASON.geoRestriction, 'AwsSolutions-CFR1');
  if (!settings.webAclArn) acknowledge(portal.distribution, REASON.webAcl, 'AwsSolutions-CFR2');
  if (!settings.certificateArn) acknowledge(portal.distribution, REASON.viewerTls, 'AwsSolutions-CFR4');

  const provider = bucketDeploymentProvider(stack);
  const providerRole = provider.node.findChild('ServiceRole');
  acknowledge(provider, REASON.bucketDeployment, 'AwsSolutions-L1', 'HIPAA.Security-LambdaConcurrency', 'HIPAA.Security-LambdaDLQ', 'HIPAA.Security-LambdaInsideVPC');
  acknowledge(providerRole, REASON.bucketDeployment, 'AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AWSLambdaBasicExecutionRole]');
  acknowledge(
    providerRole.node.findChild('DefaultPolicy'),
    REASON.bucketDeployment,
    ...['s3:GetObject*', 's3:GetBucket*', 's3:List*', 's3:DeleteObject*', 's3:Abort*'].map((a) => `AwsSolutions-IAM5[Action::${a}]`),
    `AwsSolutions-IAM5[Resource::${assetBucketObjects(stack)}]`,
    `AwsSolutions-IAM5[Resource::<${logicalId(portal.bucket)}.Arn>/*]`,
    'AwsSolutions-IAM5[Resource::*]',
    'HIPAA.Security-IAMNoInlinePolicy',
  );
}

/** How cdk-nag names a reference to the resource: its logical id. */
function logicalId(bucket: s3.Bucket): string {
  return Stack.of(bucket).getLogicalId(bucket.node.defaultChild as s3.CfnBucket);
}

/** The bootstrap asset bucket's objects as cdk-nag renders them (account and region literal when the environment is known). */
function assetBucketObjects(stack: Stack): string {
  const qualifier = (stack.node.tryGetContext('@aws-cdk/core:bootstrapQualifier') as string | undefined) ?? DefaultStackSynthesizer.DEFAULT_QUALIFIER;
  const account = Token.isUnresolved(stack.account) ? '<AWS::AccountId>' : stack.account;
  const region = Token.isUnresolved(stack.region) ? '<AWS::Region>' : stack.region;
  return `arn:<AWS::Partition>:s3:::cdk-${qualifier}-assets-${account}-${region}/*`;
}

/** CDK creates the BucketDeployment's function once per stack, at the stack's root. */
function bucketDeploymentProvider(stack: Stack): IConstruct {
  const provider = stack.node.children.find((c) => c.node.id.startsWith('Custom::CDKBucketDeployment'));
  if (!provider) throw new Error('The BucketDeployment provider was not found at the stack root: CDK changed where it puts it; update lib/nag.ts.');
  return provider;
}
