/** The auxiliary store port on the auxiliary table and the bodies bucket (the service's adapter). */
import { bodies } from './s3-bodies';
import { pending } from './dynamo-pending';
import { rows } from './dynamo-rows';
import type { AuxiliaryStore } from './port';

export const dynamoAuxiliaryStore: AuxiliaryStore = { rows, pending, bodies };
