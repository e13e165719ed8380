/**
 * `/api/v1/invitation`: practitioners issue, list and cancel a patient's invitations; anyone holding
 * an invitation token redeems it (`POST /api/v1/invitation/<token>`, no authentication, no body).
 */
import * as z from 'zod/mini';
import { assertCanReadPatient, assertCanWriteForPatient } from '../../shared/auth/scope';
import { parseId } from '../../shared/directory/ids';
import { fieldErrors, notFound } from '../../shared/http/errors';
import { json, noContent } from '../../shared/http/response';
import type { Route } from '../../shared/http/router';
import { cancelInvitation, getInvitation, invitationClient, issueInvitation, listInvitations, redeemInvitation, type Invitation } from '../../shared/oauth/invitations';
import { ensureServiceClients } from '../../shared/oauth/service-clients';
import { parseBody } from '../../shared/api/body';
import { id } from '../../shared/api/fields';
import { listOf } from '../../shared/api/list';
import { authed } from '../../shared/api/route';

const CreateInvitation = z.strictObject({
  patient_id: id(),
  client_id: id(),
  send_email: z.optional(z.boolean()),
});

function invitationView(invitation: Invitation) {
  return {
    id: invitation.id,
    patientId: invitation.patientId,
    client_id: invitation.clientNumber,
    tokenHash: invitation.tokenHash,
    status: invitation.status,
    lastUpdated: invitation.updatedAt,
    expires: invitation.expires,
  };
}

export function invitationRoutes(): Route[] {
  return [
    authed('POST', '/api/v1/invitation', { forPractitioners: async (caller, req) => {
      const body = parseBody(CreateInvitation, req.body);
      const patient = await assertCanWriteForPatient(caller, body.patient_id);
      await ensureServiceClients();
      const client = await invitationClient(body.client_id);
      const issued = await issueInvitation({ patient, client, sendEmail: body.send_email ?? false, createdBy: caller.userId });
      req.audit.touched([patient.id]);
      return json(201, { ...invitationView(issued.invitation), token: issued.token, invitationLink: issued.invitationLink });
    } }),
    authed('GET', '/api/v1/invitation', { forPractitioners: async (caller, req) => {
      const raw = req.query.get('patient_id') ?? req.query.get('patientId');
      if (raw === null) throw fieldErrors({ patientId: ['This field is required.'] });
      const patientId = parseId(raw);
      if (patientId === undefined) throw fieldErrors({ patientId: ['A valid integer is required.'] });
      await assertCanReadPatient(caller, patientId);
      req.audit.touched([patientId]);
      return json(200, listOf(req, (await listInvitations(patientId)).map(invitationView)));
    } }),
    {
      method: 'POST',
      path: '/api/v1/invitation/{ref}',
      auth: 'none',
      handler: async (req) => json(200, await redeemInvitation(req.params.ref!), { 'Cache-Control': 'no-store' }),
    },
    authed('DELETE', '/api/v1/invitation/{ref}', { forPractitioners: async (caller, req) => {
      const id = parseId(req.params.ref);
      const invitation = id === undefined ? undefined : await getInvitation(id);
      if (!invitation) throw notFound(`Invitation ${req.params.ref} not found.`);
      await assertCanReadPatient(caller, invitation.patientId);
      await assertCanWriteForPatient(caller, invitation.patientId);
      await cancelInvitation(invitation.id);
      req.audit.touched([invitation.patientId]);
      return noContent();
    } }),
  ];
}
