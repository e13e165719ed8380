import { config } from '../../shared/config';
import { json } from '../../shared/http/response';
import type { Route } from '../../shared/http/router';
import { invitationRoutes } from './invitations';
import { practitionerClientRoutes } from './practitioner-clients';

export function apiRoutes(): Route[] {
  return [
    {
      method: 'GET',
      path: '/health',
      handler: async () => json(200, { status: 'ok', version: config().release }, { 'Cache-Control': 'no-store' }),
    },
    ...invitationRoutes(),
    ...practitionerClientRoutes(),
  ];
}
