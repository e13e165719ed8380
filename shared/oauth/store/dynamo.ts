/** The OAuth store port on the directory table (the service's adapter). */
import { clientAssertions } from './dynamo-client-assertions';
import { codes } from './dynamo-codes';
import { grants } from './dynamo-grants';
import { invitationRecords } from './dynamo-invitations';
import type { OAuthStore } from './port';
import { passwordAttempts, registrations } from './dynamo-registrations';
import { signIns } from './dynamo-sign-ins';
import { approvals } from './dynamo-approvals';
import { sessions } from './dynamo-sessions';

export const dynamoOAuthStore: OAuthStore = { codes, grants, invitations: invitationRecords, signIns, clientAssertions, registrations, passwordAttempts, sessions, approvals };
