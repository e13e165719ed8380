/**
 * The portal bucket behind CloudFront (origin access control), with the API paths sent to the
 * HTTP API so the portal is same-origin. Both behaviours carry the security headers; the pages
 * also get the Content-Security-Policy built from the configured SMART server (the API's own
 * pages set theirs). Both run the viewer-request functions the local gateway mirrors. The
 * portal's launch configuration is deployed next to its pages as `clients/portal/config.json`.
 *
 * Viewers get TLS 1.2 at least when the distribution has its own domain and certificate: on the
 * default `*.cloudfront.net` name CloudFront fixes the security policy (TLSv1) and no setting
 * changes it. Requests are logged to the access-log bucket.
 */
import { Duration, Fn, RemovalPolicy, Stack } from 'aws-cdk-lib';
import * as acm from 'aws-cdk-lib/aws-certificatemanager';
import * as cloudfront from 'aws-cdk-lib/aws-cloudfront';
import * as origins from 'aws-cdk-lib/aws-cloudfront-origins';
import type * as apigwv2 from 'aws-cdk-lib/aws-apigatewayv2';
import * as s3 from 'aws-cdk-lib/aws-s3';
import * as s3deploy from 'aws-cdk-lib/aws-s3-deployment';
import { Construct } from 'constructs';
import { ACCESS_LOG_PREFIX } from './access-log-bucket';
import { cloudFrontApiPatterns } from '../../shared/http/families';
import { contentSecurityPolicy, SECURITY_HEADERS, VIEWER_REQUEST_FUNCTION } from '../../shared/http/static-site';
import { connectSources, PORTAL_CONFIG_FILE, type PortalConfig } from '../../shared/portal/config';

/** CloudFront replaces Host with the origin's; the service needs the viewer's for its links. */
const FORWARD_HOST_FUNCTION = `function handler(event) {
  var request = event.request;
  request.headers['x-forwarded-host'] = { value: request.headers.host.value };
  return request;
}`;

export interface PortalProps {
  api: apigwv2.HttpApi;
  siteDir: string;
  config: PortalConfig;
  /** Receives the bucket's server access logs and the distribution's standard logs. */
  accessLogs: s3.IBucket;
  /** The public host name and its ACM certificate (us-east-1); unset: the CloudFront domain. */
  domain?: { name: string; certificateArn: string };
  /** A WAF web ACL (scope CLOUDFRONT) to attach. */
  webAclArn?: string;
}

export class Portal extends Construct {
  readonly distribution: cloudfront.Distribution;
  readonly bucket: s3.Bucket;

  constructor(scope: Construct, id: string, props: PortalProps) {
    super(scope, id);
    this.bucket = new s3.Bucket(this, 'site', {
      blockPublicAccess: s3.BlockPublicAccess.BLOCK_ALL,
      encryption: s3.BucketEncryption.S3_MANAGED,
      enforceSSL: true,
      // A deployment that breaks the pages can be rolled back object by object for a week.
      versioned: true,
      lifecycleRules: [{ noncurrentVersionExpiration: Duration.days(7), abortIncompleteMultipartUploadAfter: Duration.days(1) }],
      serverAccessLogsBucket: props.accessLogs,
      serverAccessLogsPrefix: ACCESS_LOG_PREFIX.portalSite,
      removalPolicy: RemovalPolicy.DESTROY,
      autoDeleteObjects: false,
    });
    const common: cloudfront.ResponseSecurityHeadersBehavior = {
      strictTransportSecurity: { accessControlMaxAge: Duration.days(730), includeSubdomains: true, override: true },
      contentTypeOptions: { override: true },
      frameOptions: { frameOption: cloudfront.HeadersFrameOption.DENY, override: true },
      referrerPolicy: { referrerPolicy: cloudfront.HeadersReferrerPolicy.NO_REFERRER, override: true },
    };
    const headers = new cloudfront.ResponseHeadersPolicy(this, 'headers', {
      securityHeadersBehavior: common,
      comment: `Same headers as the local gateway: ${Object.keys(SECURITY_HEADERS).join(', ')}`,
    });
    const pageHeaders = new cloudfront.ResponseHeadersPolicy(this, 'page-headers', {
      securityHeadersBehavior: {
        ...common,
        contentSecurityPolicy: { contentSecurityPolicy: contentSecurityPolicy(connectSources(props.config)), override: true },
      },
      comment: 'Static pages: the local gateway headers and the Content-Security-Policy',
    });
    const staticRewrite = new cloudfront.Function(this, 'static-rewrite', {
      code: cloudfront.FunctionCode.fromInline(VIEWER_REQUEST_FUNCTION),
      runtime: cloudfront.FunctionRuntime.JS_2_0,
    });
    const forwardHost = new cloudfront.Function(this, 'forward-host', {
      code: cloudfront.FunctionCode.fromInline(FORWARD_HOST_FUNCTION),
      runtime: cloudfront.FunctionRuntime.JS_2_0,
    });
    const apiDomain = Fn.select(2, Fn.split('/', props.api.apiEndpoint));
    const apiBehavior: cloudfront.BehaviorOptions = {
      origin: new origins.HttpOrigin(apiDomain, { protocolPolicy: cloudfront.OriginProtocolPolicy.HTTPS_ONLY }),
      viewerProtocolPolicy: cloudfront.ViewerProtocolPolicy.REDIRECT_TO_HTTPS,
      allowedMethods: cloudfront.AllowedMethods.ALLOW_ALL,
      cachePolicy: cloudfront.CachePolicy.CACHING_DISABLED,
      originRequestPolicy: cloudfront.OriginRequestPolicy.ALL_VIEWER_EXCEPT_HOST_HEADER,
      responseHeadersPolicy: headers,
      functionAssociations: [{ function: forwardHost, eventType: cloudfront.FunctionEventType.VIEWER_REQUEST }],
    };
    this.distribution = new cloudfront.Distribution(this, 'distribution', {
      comment: `Clinical data exchange portal and API (${Stack.of(this).stackName})`,
      defaultRootObject: 'index.html',
      defaultBehavior: {
        origin: origins.S3BucketOrigin.withOriginAccessControl(this.bucket),
        viewerProtocolPolicy: cloudfront.ViewerProtocolPolicy.REDIRECT_TO_HTTPS,
        responseHeadersPolicy: pageHeaders,
        functionAssociations: [{ function: staticRewrite, eventType: cloudfront.FunctionEventType.VIEWER_REQUEST }],
      },
      additionalBehaviors: Object.fromEntries(cloudFrontApiPatterns().map((p) => [p, apiBehavior])),
      enableLogging: true,
      logBucket: props.accessLogs,
      logFilePrefix: ACCESS_LOG_PREFIX.cloudFront,
      ...(props.domain
        ? {
            domainNames: [props.domain.name],
            certificate: acm.Certificate.fromCertificateArn(this, 'certificate', props.domain.certificateArn),
            minimumProtocolVersion: cloudfront.SecurityPolicyProtocol.TLS_V1_2_2021,
          }
        : {}),
      ...(props.webAclArn ? { webAclId: props.webAclArn } : {}),
    });
    new s3deploy.BucketDeployment(this, 'deploy', {
      sources: [s3deploy.Source.asset(props.siteDir), s3deploy.Source.jsonData(PORTAL_CONFIG_FILE, props.config)],
      destinationBucket: this.bucket,
      distribution: this.distribution,
      prune: true,
    });
  }
}
