/**
 * The all-or-nothing writes of a row on the auxiliary table: its resource item, its index item, its
 * upstream claim and the pending-body entries of the objects it takes or leaves, in one
 * transaction, with conditions on the FHIR Source and the patient in the directory table, so
 * nothing lands for a source or patient deleted meanwhile.
 */
import { TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { config } from '../../config';
import { check } from '../../store/directory-table';
import { keys as directoryKeys } from '../../store/directory-keys';
import { isHttpError } from '../../http/errors';
import { atVersion, transact, writesOn, type Write } from '../../store/transact';
import { auxiliaryKeys } from './dynamo-keys';
import type { ResourceRow } from '../rows';
import { claimKeyOf, indexItem, indexKeyOf, resourceItem } from './dynamo-items';
import { pendingBodyItem } from './dynamo-pending';
import { idTaken, ownerGone, UpstreamIdTaken, type ResourceRows } from './port';

const aux = writesOn(() => config().auxTable);

/** The owner must still exist when the row is written: a deleted source or patient gets no new rows. */
function ownerChecks(row: ResourceRow): Write[] {
  const gone = () => ownerGone(row);
  return [
    check(directoryKeys.fhirSource(row.sourceId), 'attribute_exists(pk)', {}, gone),
    check(directoryKeys.patient(row.patientId), 'attribute_exists(pk)', {}, gone),
  ];
}

/** The row now points at its new object: it is no longer pending. */
function bodyTaken(row: ResourceRow): Write[] {
  return row.bodyKey === undefined ? [] : [aux.remove(auxiliaryKeys.pendingBody(row.patientId, row.bodyKey))];
}

/** The row no longer points at this object: it is listed for deletion. */
function bodyLeft(row: ResourceRow): Write[] {
  return row.bodyKey === undefined ? [] : [aux.put(pendingBodyItem(row.patientId, row.bodyKey, 'discarded'))];
}

export const commits: Pick<ResourceRows, 'create' | 'update' | 'remove' | 'refused'> = {
  create: async (row, index) => {
    const claim = claimKeyOf(row);
    await transact([
      aux.putNew(resourceItem(row), () => idTaken(row.id)),
      aux.put(indexItem(row, index)),
      ...(claim ? [aux.putNew({ ...claim, id: row.id }, () => new UpstreamIdTaken())] : []),
      ...bodyTaken(row),
      ...ownerChecks(row),
    ]);
  },

  update: async (previous, next, index, onConflict) => {
    const oldIndex = indexKeyOf(previous);
    const moved = oldIndex.sk !== indexKeyOf(next).sk;
    await transact([
      aux.put(resourceItem(next), atVersion(previous.version), onConflict),
      ...(moved ? [aux.remove(oldIndex)] : []),
      aux.put(indexItem(next, index)),
      ...bodyTaken(next),
      ...bodyLeft(previous),
      ...ownerChecks(next),
    ]);
  },

  remove: async (row, onConflict) => {
    const claim = claimKeyOf(row);
    await transact([
      aux.remove(auxiliaryKeys.resource(row.id), atVersion(row.version), onConflict),
      aux.remove(indexKeyOf(row)),
      ...(claim ? [aux.remove(claim)] : []),
      ...bodyLeft(row),
    ]);
  },

  refused: (error) => {
    const status = (error as { $metadata?: { httpStatusCode?: number } })?.$metadata?.httpStatusCode ?? 0;
    return isHttpError(error) || error instanceof TransactionCanceledException || (status >= 400 && status < 500);
  },
};
