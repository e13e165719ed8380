/**
 * The CDK app: bundles the four handlers and builds the portal site with the local esbuild, then
 * defines the stack. Settings: `-c stackName=...`, `-c siteUrl=https://...`, `-c namePrefix=...`,
 * and the portal's launch configuration `-c smartIss=... -c smartClientId=... -c smartScopes='...'`.
 */
import { App } from 'aws-cdk-lib';
import { BUNDLE_ROOT, bundleAll } from '../scripts/bundle';
import { buildPortalSite } from '../scripts/portal-site';
import { portalConfig } from '../shared/portal/config';
import { ServiceStack } from './service-stack';

export function buildApp(app = new App()): { app: App; stack: ServiceStack } {
  bundleAll(BUNDLE_ROOT);
  const stackName = (app.node.tryGetContext('stackName') as string | undefined) ?? 'ClinicalDataExchange';
  const siteUrl = app.node.tryGetContext('siteUrl') as string | undefined;
  const namePrefix = app.node.tryGetContext('namePrefix') as string | undefined;
  const context = (key: string) => app.node.tryGetContext(key) as string | undefined;
  const stack = new ServiceStack(app, stackName, {
    bundleRoot: BUNDLE_ROOT,
    siteDir: buildPortalSite(),
    portal: portalConfig({ iss: context('smartIss'), clientId: context('smartClientId'), scopes: context('smartScopes') }),
    ...(siteUrl ? { siteUrl } : {}),
    ...(namePrefix ? { namePrefix } : {}),
    env: { account: process.env.CDK_DEFAULT_ACCOUNT, region: process.env.CDK_DEFAULT_REGION },
  });
  return { app, stack };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  buildApp().app.synth();
}
