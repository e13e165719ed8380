/**
 * Synthesizes the service for template assertions. `stack.test.ts` builds the real bundles once
 * (`buildApp`); the other files synthesize around placeholder bundles and pages, which the template
 * only names as assets, so they neither wait for esbuild nor race it over `dist/`. Every synth runs
 * cdk-nag (registered by `defineService`): a variant with an unacknowledged finding throws.
 */
import { App, type Environment } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { defineService } from '../../lib/app';
import type { ServiceStack } from '../../lib/service-stack';
import { BUNDLES } from '../../scripts/bundle';

/** The context every synth needs besides the SMART settings. */
export const NAMESPACE = 'https://fhir.test.example/ns';

export const SMART = { smartIss: 'https://ehr.example.org/api/FHIR/R4', smartClientId: 'portal-app-1', smartScopes: 'openid launch/patient patient/Observation.read' };

export type Resource = { Type: string; Properties: Record<string, any>; Metadata?: Record<string, any>; DependsOn?: string[] };

export interface Synthesized {
  stack: ServiceStack;
  template: Template;
  outdir: string;
  /** The template's resources of one type, by logical id. */
  resources(type: string): Array<[string, Resource]>;
  cleanup(): void;
}

export function synthesized(stack: ServiceStack, outdir: string, cleanup: () => void): Synthesized {
  const template = Template.fromStack(stack);
  return {
    stack,
    template,
    outdir,
    resources: (type) => Object.entries(template.findResources(type)) as Array<[string, Resource]>,
    cleanup,
  };
}

/** The service around placeholder bundles, with these context settings (and SMART's) and environment. */
export function synthesize(context: Record<string, string> = {}, env?: Environment): Synthesized {
  const root = mkdtempSync(join(tmpdir(), 'cdx-infra-'));
  const bundleRoot = join(root, 'functions');
  for (const family of BUNDLES) {
    mkdirSync(join(bundleRoot, family), { recursive: true });
    writeFileSync(join(bundleRoot, family, 'index.mjs'), 'export const handler = async () => ({ statusCode: 204 });\n');
  }
  const siteDir = join(root, 'site');
  mkdirSync(siteDir);
  writeFileSync(join(siteDir, 'index.html'), '<!doctype html><title>placeholder</title>\n');
  const outdir = join(root, 'cdk.out');
  const app = new App({ outdir, context: { ...SMART, namespace: NAMESPACE, ...context } });
  const stack = defineService(app, { bundleRoot, siteDir }, env);
  return synthesized(stack, outdir, () => rmSync(root, { recursive: true, force: true }));
}
