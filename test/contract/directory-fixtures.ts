/**
 * What the directory store contract's parts share: unique texts (the DynamoDB adapter's table is
 * shared by a file's tests), an id no store holds, and records made in a line through the domain
 * functions, so the contract drives the port the way the service does.
 */
import { randomBytes } from 'node:crypto';
import { createCode } from '../../shared/directory/code-table';
import { createDataSource } from '../../shared/directory/data-sources';
import type { Code, Id, Identifier, OrgRole } from '../../shared/directory/model';
import { createOrganization } from '../../shared/directory/organizations';
import { createPatient, type PatientInput } from '../../shared/directory/patients';
import { createStudy } from '../../shared/directory/studies';
import { createPractitioner } from '../../shared/directory/users';

export const unique = () => randomBytes(4).toString('hex');

/** An id no adapter has handed out. */
export const missing = 987_654_321;

export const SYSTEM = 'https://contract.test/codes';

export const newCode = (display = 'A code'): Promise<Code> => createCode({ system: SYSTEM, code: `c-${unique()}`, display });

export const newOrganization = (partOf?: Id) => createOrganization({ name: `Org ${unique()}`, type: 'prov', ...(partOf ? { partOf } : {}) });

export const newEmail = () => `user-${unique()}@contract.test`;

export const newPractitioner = (roles: ReadonlyArray<[Id, OrgRole]> = []) =>
  createPractitioner({ email: newEmail(), nameFamily: 'Doe', organizations: roles.map(([organizationId, role]) => ({ organizationId, role })) });

export const newIdentifier = (system = 'https://contract.test/mrn'): Identifier => ({ system, value: `v-${unique()}` });

export const newPatient = (input: PatientInput = {}) => createPatient({ nameFamily: `Smith ${unique()}`, ...input });

export const newStudy = (organizationId: Id) => createStudy({ organizationId, name: `Study ${unique()}` });

export const newDataSource = () => createDataSource({ name: `Device ${unique()}`, type: 'personal_device' });

/** Lets the clock move on, so a timestamp written next is later than one written before. */
export const tick = () => new Promise((resolve) => setTimeout(resolve, 5));
