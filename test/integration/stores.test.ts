/**
 * Stores are injected where a family's handler is built: `buildHandler(stores)` (through
 * `loadHandlers(stores)`) serves from the set it was given, and another set given later is what
 * the next handler serves from, with nothing of the first. Runs on the twins (no engine).
 */
import { afterAll, describe, expect, it } from 'vitest';
import { loadHandlers } from '../../local/handlers';
import { memoryStores } from '../../shared/memory-stores';
import { useStores } from '../../shared/stores';
import { makeOrganization, makePractitioner } from '../support/directory';
import { call } from '../support/invoke';
import { twinsInUse } from '../support/store';

// The set the file started on (the setup's twins), put back at the end.
const installed = twinsInUse()!;
afterAll(() => void useStores(installed));

describe('a family handler built with a set of stores', () => {
  it('serves from that set, and a handler built with another set sees none of it', async () => {
    const first = memoryStores();
    const onFirst = await loadHandlers(first);
    const organization = await makeOrganization({ name: 'Built on the first set' });
    const doctor = await makePractitioner({ organizations: [organization] });
    expect(await first.directory.organizations.get(organization.id)).toMatchObject({ name: 'Built on the first set' });

    const seen = await call('GET', `/api/v1/organizations/${organization.id}`, { token: doctor.token, handlers: onFirst });
    expect(seen.status).toBe(200);
    expect(seen.json).toMatchObject({ id: organization.id, name: 'Built on the first set' });
    const asFhir = await call('GET', `/FHIR/R5/Organization/${organization.id}`, { token: doctor.token, handlers: onFirst });
    expect(asFhir).toMatchObject({ status: 200, json: { resourceType: 'Organization', name: 'Built on the first set' } });

    const second = memoryStores();
    const onSecond = await loadHandlers(second);
    expect(await second.directory.organizations.get(organization.id)).toBeUndefined();
    // The token is still validly signed, but its practitioner is in no store of the second set.
    expect((await call('GET', `/api/v1/organizations/${organization.id}`, { token: doctor.token, handlers: onSecond })).status).toBe(401);
    expect(await first.directory.organizations.get(organization.id)).toMatchObject({ name: 'Built on the first set' });
  });
});
