/** Lambda of the `api` family: `/api/v1/*` and `/health`. */
import { authenticate } from '../../shared/auth/authenticate';
import { createHandler, type LambdaHandler } from '../../shared/http/handler';
import { useStores, type Stores } from '../../shared/stores';
import { apiRoutes } from './routes';

/** Every route this Lambda serves (the isolation matrix checks each has a row). */
export const routes = apiRoutes();

/**
 * This family's handler. With `stores`, it runs on them (the in-memory twins, in tests), installed
 * for the whole process; without, on the stores installed (DynamoDB and S3 unless a test put others).
 */
export function buildHandler(stores?: Stores): LambdaHandler {
  if (stores) useStores(stores);
  return createHandler({ family: 'api', routes, authenticate });
}

export const handler = buildHandler();
