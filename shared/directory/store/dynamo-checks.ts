/** Conditions a directory transaction puts on an item it does not write: the entity it links to exists. */
import type { HttpError } from '../../http/errors';
import { check, type Write } from '../db';
import { keys, type Key } from '../keys';
import type { Id } from '../model';
import { organizationNotFound, studyNotFound } from './port';

export const mustExist = (key: Key, refusal: () => HttpError): Write => check(key, 'attribute_exists(pk)', {}, refusal);

export const organizationMustExist = (orgId: Id): Write => mustExist(keys.organization(orgId), () => organizationNotFound(orgId));

export const studyMustExist = (studyId: Id): Write => mustExist(keys.study(studyId), () => studyNotFound(studyId));
