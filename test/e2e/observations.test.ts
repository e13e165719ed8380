import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Gateway } from '../../local/gateway';
import { startTestGateway } from '../support/gateway';
import { batchOf, observation, observationWorld, type ObservationWorld } from '../support/observations';

let gateway: Gateway;
let world: ObservationWorld;
beforeAll(async () => {
  gateway = await startTestGateway({ asSite: true });
  world = await observationWorld({ codes: ['omh:heart-rate:2.0'] });
});
afterAll(() => gateway.close());

const auth = (token: string) => ({ authorization: `Bearer ${token}`, 'content-type': 'application/fhir+json' });

describe('observations over HTTP', () => {
  it('a device uploads a batch, reads it back at once, and a client follows the absolute links to the end', async () => {
    const readings = Array.from({ length: 7 }, (_, i) => observation(world, { at: Date.UTC(2025, 7, 1, i), form: 'date_time' }));
    const uploaded = await fetch(`${gateway.url}/FHIR/R5/`, { method: 'POST', headers: auth(world.patient.token), body: JSON.stringify(batchOf(readings)) });
    expect(uploaded.status).toBe(200);
    const batch = await uploaded.json();
    expect(batch.entry.map((e: any) => e.response.status)).toEqual(readings.map(() => '201 Created'));
    expect(batch.entry[0].response.location).toBe(`${gateway.url}/FHIR/R5/Observation/${batch.entry[0].resource.id}`);

    const read = await fetch(batch.entry[0].response.location, { headers: auth(world.patient.token) });
    expect(read.status).toBe(200);
    expect(read.headers.get('etag')).toBe('W/"1"');

    let url: string | undefined = `${gateway.url}/FHIR/R5/Observation?_count=3&_sort=date`;
    const seen: string[] = [];
    while (url) {
      expect(url.startsWith(gateway.url)).toBe(true);
      const page = await (await fetch(url, { headers: auth(world.practitioner.token) })).json();
      seen.push(...page.entry.map((e: any) => e.resource.effectiveDateTime));
      url = page.link.find((l: any) => l.relation === 'next')?.url;
    }
    expect(seen).toEqual(readings.map((_, i) => new Date(Date.UTC(2025, 7, 1, i)).toISOString().replace('.000Z', 'Z')));
  });
});
