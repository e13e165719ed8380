/** The observation store port on the observations table (the service's adapter). */
import { deletePatient } from './dynamo-delete';
import { tooLarge } from './dynamo-items';
import { countReadings, findReadings, readById, readByIds, readings } from './dynamo-reads';
import { raiseSpan, spans } from './dynamo-spans';
import { keepValues } from './dynamo-values';
import { insert, makeReadableById, newIds } from './dynamo-write';
import type { ObservationStore } from './port';
import { canClaim } from './rounds';

export const dynamoObservationStore: ObservationStore = {
  newIds,
  findReadings,
  insert,
  makeReadableById,
  readById,
  readByIds,
  readings,
  countReadings,
  tooLarge,
  canClaim,
  raiseSpan,
  spans,
  keepValues,
  deletePatient,
};
