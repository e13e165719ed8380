/** Approvals on the directory table: one item per person, client and resource, in the person's partition. */
import { getItem, put, queryAll, remove, transact } from '../../store/directory-table';
import { keys, REL } from '../../store/directory-keys';
import { fieldsOf, transactUnlessRefused } from './dynamo-items';
import type { Approval, ApprovalRecords } from './port';

export const approvals: ApprovalRecords = {
  get: async (userId, clientId, resource) => {
    const item = await getItem(keys.approval(userId, resource, clientId));
    return item && fieldsOf<Approval>(item);
  },
  listOfUser: async (userId) => (await queryAll({ pk: keys.user(userId).pk, skPrefix: REL.approval })).map((item) => fieldsOf<Approval>(item)),
  put: (approval) => transact([put({ ...keys.approval(approval.userId, approval.resource, approval.clientId), ...approval })]),
  remove: (userId, clientId, resource) => transactUnlessRefused((gone) => [remove(keys.approval(userId, resource, clientId), { condition: 'attribute_exists(pk)' }, gone)]),
};
