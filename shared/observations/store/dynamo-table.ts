/** The observations table every request of the DynamoDB adapter goes to (its name depends on the deployment). */
import { config } from '../../config';

export const table = () => config().observationsTable;
