/**
 * Invitations on the directory table: the invitation under its token's hash (a patient's on `gsi2`,
 * by issue time), a pointer from its number, and per patient and app a pointer to the current one.
 * Expired invitations stay `RETAIN_SECONDS` (answering 410, listed) before DynamoDB TTL removes them.
 */
import { concurrentChange, getItem, put, putNew, queryAll, transact, type Item, type Write } from '../../store/directory-table';
import { entityStore } from '../../store/directory-entity';
import { newId } from '../../directory/ids';
import { indexes, keys } from '../../store/directory-keys';
import { notFound } from '../../http/errors';
import { newCodeWrite } from './dynamo-items';
import { invitationCollision, invitationNumberCollision, type Invitation, type InvitationChange, type InvitationRecords, type SeenInvitation } from './port';

const RETAIN_SECONDS = 30 * 24 * 3600;

function toInvitation(item: Item): Invitation {
  const { pk: _pk, sk: _sk, gsi2pk: _a, gsi2sk: _b, version: _v, expiresAt: _e, ...rest } = item;
  return rest as unknown as Invitation;
}

const seen = (item: Item): SeenInvitation => ({ invitation: toInvitation(item), version: item.version as number });

const invitations = entityStore<Invitation, string>({
  key: keys.invitation,
  toEntity: toInvitation,
  toItem: (invitation) => ({
    ...keys.invitation(invitation.tokenHash),
    ...indexes.invitationOfPatient(invitation.patientId, invitation.createdAt),
    ...invitation,
    expiresAt: Math.floor(Date.parse(invitation.expires) / 1000) + RETAIN_SECONDS,
  }),
  // Reads here answer undefined for a missing invitation; the domain words its own 404.
  notFound: () => notFound('Invitation not found.'),
});

const changeWrite = ({ invitation, version }: SeenInvitation, fields: InvitationChange): Write => invitations.setFields(invitation.tokenHash, fields, version);

export const invitationRecords: InvitationRecords = {
  newId: () => newId('invitation'),
  get: async (tokenHash) => {
    const item = await getItem(keys.invitation(tokenHash));
    return item && seen(item);
  },
  getById: async (id) => {
    const pointer = await getItem(keys.invitationNumber(id));
    const item = pointer ? await getItem(keys.invitation(pointer.tokenHash as string)) : undefined;
    return item && seen(item);
  },
  listOfPatient: async (patientId) => {
    const index = indexes.invitationsOfPatient(patientId);
    return (await queryAll({ index: index.name, pk: index.pk })).map(toInvitation);
  },
  issue: async (invitation, retire) => {
    const { tokenHash } = invitation;
    const currentKey = keys.currentInvitation(invitation.patientId, invitation.clientNumber);
    const current = await getItem(currentKey);
    const previous = current ? await getItem(keys.invitation(current.tokenHash as string)) : undefined;
    const writes: Write[] = [
      invitations.create(invitation, invitationCollision),
      putNew({ ...keys.invitationNumber(invitation.id), tokenHash }, invitationNumberCollision),
      put(
        { ...currentKey, tokenHash },
        current
          ? { condition: '#hash = :previous', names: { '#hash': 'tokenHash' }, values: { ':previous': current.tokenHash } }
          : { condition: 'attribute_not_exists(pk)' },
        concurrentChange,
      ),
    ];
    const replaced = previous && seen(previous);
    const retired = replaced && retire(replaced.invitation);
    if (replaced && retired) writes.push(changeWrite(replaced, retired));
    await transact(writes);
  },
  change: (read, fields) => transact([changeWrite(read, fields)]),
  redeem: (read, fields, code) => transact([newCodeWrite(code), changeWrite(read, fields)]),
};
