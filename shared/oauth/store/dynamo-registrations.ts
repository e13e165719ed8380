/** Client registrations counted on the directory table: a fixed-window counter of the platform per scope (`shared/store/directory-windows.ts`). */
import { keys } from '../../store/directory-keys';
import { takeWindowSlot } from '../../store/directory-windows';
import type { RegistrationCountRecords } from './port';

export const registrations: RegistrationCountRecords = {
  take: (scope, windowStart, limit, expiresAt) => takeWindowSlot(keys.registrations(scope, windowStart), 'registrations', limit, expiresAt),
};
