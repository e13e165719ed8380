/**
 * Client registrations and the invitation's password page attempts counted on the directory table:
 * fixed-window counters of the platform per scope (`shared/store/directory-windows.ts`).
 */
import { keys } from '../../store/directory-keys';
import { takeWindowSlot } from '../../store/directory-windows';
import type { RegistrationCountRecords, WindowCountRecords } from './port';

export const registrations: RegistrationCountRecords = {
  take: (scope, windowStart, limit, expiresAt) => takeWindowSlot(keys.registrations(scope, windowStart), 'registrations', limit, expiresAt),
};

export const passwordAttempts: WindowCountRecords = {
  take: (scope, windowStart, limit, expiresAt) => takeWindowSlot(keys.passwordAttempts(scope, windowStart), 'attempts', limit, expiresAt),
};
