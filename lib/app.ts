/**
 * The CDK app: bundles the four handlers and builds the portal site with the local esbuild, then
 * defines the stack from the context settings (lib/settings.ts). Every synth runs cdk-nag's AWS
 * Solutions and HIPAA Security packs (lib/nag.ts): a finding neither fixed nor acknowledged stops it.
 */
import { App, type Environment } from 'aws-cdk-lib';
import { BUNDLE_ROOT, bundleAll } from '../scripts/bundle';
import { buildPortalSite } from '../scripts/portal-site';
import { checkCompliance } from './nag';
import { ServiceStack } from './service-stack';
import { readSettings } from './settings';

export interface BuiltArtifacts {
  /** Folder holding `<family>/index.mjs` bundles. */
  bundleRoot: string;
  /** Folder of the built static site. */
  siteDir: string;
}

/**
 * The stack around already built bundles and site, with the compliance checks registered on the
 * app. The environment is the CLI's (the credentials' account and region) unless given.
 */
export function defineService(
  app: App,
  artifacts: BuiltArtifacts,
  env: Environment = { account: process.env.CDK_DEFAULT_ACCOUNT, region: process.env.CDK_DEFAULT_REGION },
): ServiceStack {
  checkCompliance(app);
  const settings = readSettings(app.node);
  return new ServiceStack(app, settings.stackName, { ...artifacts, settings, env });
}

export function buildApp(app = new App()): { app: App; stack: ServiceStack } {
  bundleAll(BUNDLE_ROOT);
  const stack = defineService(app, { bundleRoot: BUNDLE_ROOT, siteDir: buildPortalSite() });
  return { app, stack };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  buildApp().app.synth();
}
