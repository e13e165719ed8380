import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FAMILIES, familyForPath } from '../../shared/http/families';
import { invoke } from '../../local/invoke';
import { REPO_ROOT } from '../../local/runtime';

const EVENTS = join(REPO_ROOT, 'test', 'events');
const files = readdirSync(EVENTS).filter((f) => f.endsWith('.json'));

describe('npm run invoke', () => {
  it('has a sample event for every family', () => {
    const covered = new Set(files.map((f) => familyForPath(JSON.parse(readFileSync(join(EVENTS, f), 'utf8')).rawPath)));
    expect([...covered].sort()).toEqual([...FAMILIES].sort());
  });

  it.each(files)('runs %s through its family handler', async (file) => {
    const event = JSON.parse(readFileSync(join(EVENTS, file), 'utf8'));
    const result = (await invoke(familyForPath(event.rawPath), event, mkdtempSync(join(tmpdir(), 'cdx-invoke-')))) as any;
    expect(result.statusCode).toBeLessThan(500);
    expect(result.headers['X-Request-Id']).toBe(event.requestContext.requestId);
  });

  it('prints the handler result from the command line', () => {
    const out = spawnSync(process.execPath, ['--import', 'tsx', 'local/invoke.ts', 'fhir', 'test/events/fhir-metadata.json'], {
      cwd: REPO_ROOT,
      encoding: 'utf8',
      env: { ...process.env, DATA_DIR: mkdtempSync(join(tmpdir(), 'cdx-invoke-cli-')) },
    });
    expect(out.status).toBe(0);
    const printed = JSON.parse(out.stdout);
    expect(printed.statusCode).toBe(200);
    expect(printed.body.resourceType).toBe('CapabilityStatement');
  });
});
