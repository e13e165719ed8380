/** The observation store port on the observations table (the service's adapter). */
import { deletePatient } from './dynamo-delete';
import { findReadings, patientRows, readById, readByIds } from './dynamo-reads';
import { raiseSpan, spans } from './dynamo-spans';
import { insert, makeReadableById, newIds } from './dynamo-write';
import type { ObservationStore } from './port';

export const dynamoObservationStore: ObservationStore = {
  newIds,
  findReadings,
  insert,
  makeReadableById,
  readById,
  readByIds,
  patientRows,
  raiseSpan,
  spans,
  deletePatient,
};
