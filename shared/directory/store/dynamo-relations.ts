/**
 * Relations on the directory table: the condition a transaction puts on an entity it links to (it
 * exists), and the relation items in a container's partition (their ids, their deletion).
 */
import type { HttpError } from '../../http/errors';
import { check, queryAll, remove, type Write } from '../../store/directory-table';
import { idFromSortKey, keys, type Key } from '../../store/directory-keys';
import type { Id } from '../model';
import { organizationNotFound, studyNotFound } from './port';

export const mustExist = (key: Key, refusal: () => HttpError): Write => check(key, 'attribute_exists(pk)', {}, refusal);

export const organizationMustExist = (orgId: Id): Write => mustExist(keys.organization(orgId), () => organizationNotFound(orgId));

export const studyMustExist = (studyId: Id): Write => mustExist(keys.study(studyId), () => studyNotFound(studyId));

/** Ids of the relation items under `prefix` in the container's partition, ascending (strongly consistent). */
export async function relatedIds(container: Key, prefix: string): Promise<Id[]> {
  const items = await queryAll({ pk: container.pk, skPrefix: prefix, attributes: ['sk'] });
  return items.map((i) => idFromSortKey(String(i.sk)));
}

/** The deletions of every item in the container's partition (under `prefix` when given). */
export async function partitionDeletes(container: Key, prefix?: string): Promise<Write[]> {
  const items = await queryAll({ pk: container.pk, ...(prefix === undefined ? {} : { skPrefix: prefix }), attributes: ['pk', 'sk'] });
  return items.map((i) => remove({ pk: i.pk as string, sk: i.sk as string }));
}
