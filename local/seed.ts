/**
 * The demo data set of `npm start`, written once into empty stores. Each capability adds its own
 * step; a marker row records that seeding finished, so a restart with the same data folder keeps
 * whatever the user changed.
 */
import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { config } from '../shared/config';
import { dynamo } from '../shared/store/clients';
import { demoAuxiliary } from './demo-auxiliary';
import { demoDirectory } from './demo-directory';
import { demoOAuth } from './demo-oauth';
import { demoObservations } from './demo-observations';
import { demoSecondOrganization } from './demo-second-organization';
import type { SeedContext, SeedStep } from './seed-step';

const SEED_VERSION = 1;
const MARKER = { pk: 'SEED', sk: 'SEED' };

/** Steps in the order they must run; later issues append theirs. */
export const SEED_STEPS: SeedStep[] = [];
SEED_STEPS.push(demoDirectory);
SEED_STEPS.push(demoOAuth);
SEED_STEPS.push(demoAuxiliary);
SEED_STEPS.push(demoObservations);
SEED_STEPS.push(demoSecondOrganization);

export async function seedDemoData(steps: readonly SeedStep[] = SEED_STEPS): Promise<{ seeded: boolean; notes: string[] }> {
  const table = config().directoryTable;
  const marker = await dynamo().send(new GetCommand({ TableName: table, Key: MARKER, ConsistentRead: true }));
  const notes: string[] = (marker.Item?.notes as string[] | undefined) ?? [];
  if (marker.Item) return { seeded: false, notes };
  const ctx: SeedContext = { notes: [] };
  for (const step of steps) await step.run(ctx);
  await dynamo().send(
    new PutCommand({
      TableName: table,
      Item: { ...MARKER, version: SEED_VERSION, at: new Date().toISOString(), notes: ctx.notes },
    }),
  );
  return { seeded: true, notes: ctx.notes };
}
