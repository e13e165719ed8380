/**
 * The CDK app: bundles the four handlers with the local esbuild, then defines the stack.
 * Settings: `-c stackName=...`, `-c siteUrl=https://...`, `-c namePrefix=...`.
 */
import { App } from 'aws-cdk-lib';
import { join } from 'node:path';
import { BUNDLE_ROOT, bundleAll, REPO_ROOT } from '../scripts/bundle';
import { ServiceStack } from './service-stack';

export function buildApp(app = new App()): { app: App; stack: ServiceStack } {
  bundleAll(BUNDLE_ROOT);
  const stackName = (app.node.tryGetContext('stackName') as string | undefined) ?? 'ClinicalDataExchange';
  const siteUrl = app.node.tryGetContext('siteUrl') as string | undefined;
  const namePrefix = app.node.tryGetContext('namePrefix') as string | undefined;
  const stack = new ServiceStack(app, stackName, {
    bundleRoot: BUNDLE_ROOT,
    siteDir: join(REPO_ROOT, 'portal-site'),
    ...(siteUrl ? { siteUrl } : {}),
    ...(namePrefix ? { namePrefix } : {}),
    env: { account: process.env.CDK_DEFAULT_ACCOUNT, region: process.env.CDK_DEFAULT_REGION },
  });
  return { app, stack };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  buildApp().app.synth();
}
