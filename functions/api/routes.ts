import { config } from '../../shared/config';
import { json } from '../../shared/http/response';
import type { Route } from '../../shared/http/router';
import { brandRoutes } from './brands';
import { dataSourceRoutes } from './data-sources';
import { fhirSourceRoutes } from './fhir-sources';
import { invitationRoutes } from './invitations';
import { organizationRoutes } from './organizations';
import { patientRoutes } from './patients';
import { practitionerClientRoutes } from './practitioner-clients';
import { practitionerRoutes } from './practitioners';
import { studyRoutes } from './studies';
import { userRoutes } from './users';

export function apiRoutes(): Route[] {
  return [
    {
      method: 'GET',
      path: '/health',
      auth: 'none',
      handler: async () => json(200, { status: 'ok', version: config().release }, { 'Cache-Control': 'no-store' }),
    },
    ...patientRoutes,
    ...studyRoutes,
    ...organizationRoutes,
    ...practitionerRoutes,
    ...dataSourceRoutes,
    ...fhirSourceRoutes,
    ...userRoutes,
    ...brandRoutes,
    ...invitationRoutes(),
    ...practitionerClientRoutes(),
  ];
}
