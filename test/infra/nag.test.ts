/** The compliance check itself: a finding nobody fixed or acknowledged stops the synth. */
import { App, Stack } from 'aws-cdk-lib';
import * as s3 from 'aws-cdk-lib/aws-s3';
import { describe, expect, it } from 'vitest';
import { checkCompliance } from '../../lib/nag';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

describe('checkCompliance', () => {
  it('fails the synth of a stack with an unacknowledged finding, naming the rule', () => {
    const outdir = mkdtempSync(join(tmpdir(), 'cdx-nag-'));
    try {
      const app = new App({ outdir });
      checkCompliance(app);
      // A bucket with none of the stack's protections: no access logs, no KMS, no TLS-only policy.
      new s3.Bucket(new Stack(app, 'Careless'), 'bucket');
      expect(() => app.synth()).toThrow(/AwsSolutions-S1[\s\S]*HIPAA\.Security-S3DefaultEncryptionKMS|HIPAA\.Security-S3DefaultEncryptionKMS[\s\S]*AwsSolutions-S1/);
    } finally {
      rmSync(outdir, { recursive: true, force: true });
    }
  });
});
