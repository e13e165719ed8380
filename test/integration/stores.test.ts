/**
 * Stores are injected where a family's handler is built: `buildHandler(stores)` (through
 * `loadHandlers(stores)`) serves from the set it was given, and another set given later is what
 * the next handler serves from, with nothing of the first. Runs on the twins (no engine).
 */
import { afterAll, describe, expect, it } from 'vitest';
import { loadHandlers } from '../../local/handlers';
import { fromResult, toEvent } from '../../local/api-gateway-event';
import { invokeLambda } from '../../local/lambda-invoke';
import type { Family } from '../../shared/http/families';
import type { LambdaHandler } from '../../shared/http/handler';
import { memoryStores } from '../../shared/memory-stores';
import { dynamoStores, useStores } from '../../shared/stores';
import { makeOrganization, makePractitioner } from '../support/directory';

// The set the file started on (the setup's twins), to put back at the end.
const installed = useStores(dynamoStores);
useStores(installed);
afterAll(() => void useStores(installed));

async function get(handlers: Record<Family, LambdaHandler>, family: Family, url: string, token: string) {
  const event = toEvent({ method: 'GET', url, headers: { host: 'localhost:8000', authorization: `Bearer ${token}` } });
  const result = fromResult(await invokeLambda(handlers[family], event, 'test', 60_000));
  return { status: result.status, json: JSON.parse(result.body.toString('utf8') || 'null') };
}

describe('a family handler built with a set of stores', () => {
  it('serves from that set, and a handler built with another set sees none of it', async () => {
    const first = memoryStores();
    const onFirst = await loadHandlers(first);
    const organization = await makeOrganization({ name: 'Built on the first set' });
    const doctor = await makePractitioner({ organizations: [organization] });
    expect(await first.directory.organizations.get(organization.id)).toMatchObject({ name: 'Built on the first set' });

    const seen = await get(onFirst, 'api', `/api/v1/organizations/${organization.id}`, doctor.token);
    expect(seen.status).toBe(200);
    expect(seen.json).toMatchObject({ id: organization.id, name: 'Built on the first set' });
    const asFhir = await get(onFirst, 'fhir', `/FHIR/R5/Organization/${organization.id}`, doctor.token);
    expect(asFhir).toMatchObject({ status: 200, json: { resourceType: 'Organization', name: 'Built on the first set' } });

    const second = memoryStores();
    const onSecond = await loadHandlers(second);
    expect(await second.directory.organizations.get(organization.id)).toBeUndefined();
    // The token is still validly signed, but its practitioner is in no store of the second set.
    expect((await get(onSecond, 'api', `/api/v1/organizations/${organization.id}`, doctor.token)).status).toBe(401);
    expect(await first.directory.organizations.get(organization.id)).toMatchObject({ name: 'Built on the first set' });
  });
});
