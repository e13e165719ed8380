/**
 * The customer-managed key that encrypts what the service keeps at rest outside DynamoDB: the log
 * groups (request, audit and access lines name patients and paths), the auxiliary bodies, the
 * access-log bucket and the alarm topic. One key, so one key policy says who may read all of it;
 * disabling it cuts every copy off at once. Its policy grants each AWS service that writes with it
 * only what that service's documentation asks. CloudWatch Logs' use is scoped to this account's
 * log groups by the encryption context it sends; the delivery services and CloudWatch alarms get no
 * condition, because they do not document the context keys they send to KMS, and a condition that
 * never matches would stop the logs or the alarm e-mails without an error anyone sees.
 */
import { ArnFormat, RemovalPolicy, Stack } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as kms from 'aws-cdk-lib/aws-kms';
import { Construct } from 'constructs';

export class DataKey extends Construct {
  readonly key: kms.Key;

  constructor(scope: Construct, id: string) {
    super(scope, id);
    const stack = Stack.of(this);
    this.key = new kms.Key(this, 'key', {
      description: `Encrypts the logs, stored bodies, access logs and alarm topic of ${stack.stackName}`,
      enableKeyRotation: true,
      // Deleting the key would make every log line and body it encrypted unreadable, backups included.
      removalPolicy: RemovalPolicy.RETAIN,
    });
    // CloudWatch Logs encrypts each log group's events; the context names the group.
    this.key.addToResourcePolicy(
      new iam.PolicyStatement({
        principals: [new iam.ServicePrincipal(`logs.${stack.region}.amazonaws.com`)],
        actions: ['kms:Encrypt*', 'kms:Decrypt*', 'kms:ReEncrypt*', 'kms:GenerateDataKey*', 'kms:Describe*'],
        resources: ['*'],
        conditions: { ArnLike: { 'kms:EncryptionContext:aws:logs:arn': stack.formatArn({ service: 'logs', resource: 'log-group', resourceName: '*', arnFormat: ArnFormat.COLON_RESOURCE_NAME }) } },
      }),
    );
    // S3 server access logs and CloudFront standard logs are written into the access-log bucket by
    // these delivery services, which need a data key to write SSE-KMS objects.
    this.key.addToResourcePolicy(
      new iam.PolicyStatement({
        principals: [new iam.ServicePrincipal('logging.s3.amazonaws.com'), new iam.ServicePrincipal('delivery.logs.amazonaws.com')],
        actions: ['kms:GenerateDataKey*', 'kms:Decrypt'],
        resources: ['*'],
      }),
    );
    // CloudWatch alarms publish to the encrypted topic.
    this.key.addToResourcePolicy(
      new iam.PolicyStatement({
        principals: [new iam.ServicePrincipal('cloudwatch.amazonaws.com')],
        actions: ['kms:GenerateDataKey*', 'kms:Decrypt'],
        resources: ['*'],
      }),
    );
  }
}
