/**
 * Export jobs and parts in the exports table. A job's creation counts it among its owner's running
 * jobs in the same transaction (refused at the limit), and every move out of `in-progress` gives
 * the slot back in the same transaction as the move, so the count is never off. A part is recorded
 * done with its files, then counted in its job through the set of counted parts, conditionally, so a
 * part run twice counts once (two single-item updates rather than a transaction, which costs twice).
 */
import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import { batchDeleteAll, batchWriteAll } from '../../store/batch';
import { dynamo } from '../../store/clients';
import { queryAll, type Item } from '../../store/reads';
import { transact, writesOn } from '../../store/transact';
import { conflict, HttpError } from '../../http/errors';
import { ownerKey, type ExportJob, type ExportPart } from '../model';
import type { ExportJobs } from './port';
import { exportKeys, exportsTable, JOBS_PK } from './dynamo-keys';

const writes = writesOn(exportsTable);

/** A parts' TTL: far beyond any job's life; the sweep deletes them with their job long before. */
const PART_TTL_SECONDS = 40 * 24 * 3600;

/** The condition of a transaction that did not hold (not an error of the request). */
class NotHeld extends HttpError {
  constructor() {
    super(409, 'condition not held');
  }
}
const notHeld = () => new NotHeld();

/** Runs a transaction; `false` when one of its conditions did not hold. */
async function transactIf(actions: Parameters<typeof transact>[0]): Promise<boolean> {
  try {
    await transact(actions);
    return true;
  } catch (error) {
    if (error instanceof NotHeld) return false;
    throw error;
  }
}

const jobOf = (item: Item): ExportJob => {
  const { pk: _pk, sk: _sk, countedParts: _counted, ...job } = item;
  return job as unknown as ExportJob;
};

const partOf = (item: Item): ExportPart => {
  const { pk: _pk, sk: _sk, expiresAt: _ttl, ...part } = item;
  return part as unknown as ExportPart;
};

/**
 * A conditional update: whether it applied (with the item after, for `ALL_NEW`), or else the item as
 * it was (absent when there is none), so the caller can tell a missing item from a refused change.
 */
async function updateOrOld(
  key: Item,
  expression: string,
  condition: string,
  names: Record<string, string>,
  values: Record<string, unknown>,
  returnValues?: 'ALL_NEW',
): Promise<{ updated: boolean; item?: Item; old?: Item }> {
  try {
    const out = await dynamo().send(
      new UpdateCommand({
        TableName: exportsTable(),
        Key: key,
        UpdateExpression: expression,
        ConditionExpression: condition,
        ExpressionAttributeNames: names,
        ExpressionAttributeValues: values,
        ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
        ...(returnValues ? { ReturnValues: returnValues } : {}),
      }),
    );
    return { updated: true, ...(out.Attributes ? { item: out.Attributes } : {}) };
  } catch (error) {
    if (!(error instanceof ConditionalCheckFailedException)) throw error;
    return { updated: false, ...(error.Item ? { old: unmarshall(error.Item) } : {}) };
  }
}

/** An update that may not apply; `false` when its condition did not hold. */
async function updateIf(key: Item, expression: string, condition: string, names: Record<string, string>, values: Record<string, unknown>): Promise<boolean> {
  return (await updateOrOld(key, expression, condition, names, values)).updated;
}

const runningSlot = (job: Pick<ExportJob, 'owner'>, change: 1 | -1) =>
  writes.update(exportKeys.running(ownerKey(job.owner)), 'ADD #running :change', { names: { '#running': 'running' }, values: { ':change': change } });

const IN_PROGRESS = { condition: '#status = :running', names: { '#status': 'status' }, values: { ':running': 'in-progress' } };

async function getJob(id: string): Promise<ExportJob | undefined> {
  const out = await dynamo().send(new GetCommand({ TableName: exportsTable(), Key: exportKeys.job(id), ConsistentRead: true }));
  return out.Item && jobOf(out.Item);
}

async function partKeys(jobId: string): Promise<Item[]> {
  return queryAll({ table: exportsTable(), pk: exportKeys.partsPk(jobId), attributes: ['pk', 'sk'] });
}

export const jobs: ExportJobs = {
  async create(job, parts, limit) {
    const ttl = Math.floor(Date.now() / 1000) + PART_TTL_SECONDS;
    // The parts go first: without their job nothing reads them, and the job is never without them.
    const unwritten = await batchWriteAll(exportsTable(), parts.map((part) => ({ PutRequest: { Item: { ...exportKeys.part(job.id, part.index), ...part, expiresAt: ttl } } })));
    if (unwritten.length > 0) throw new Error(`could not write ${unwritten.length} parts of export job ${job.id}`);
    const created = await transactIf([
      writes.update(exportKeys.running(ownerKey(job.owner)), 'ADD #running :one', {
        condition: 'attribute_not_exists(#running) OR #running < :limit',
        names: { '#running': 'running' },
        values: { ':one': 1, ':limit': limit },
      }, notHeld),
      writes.putNew({ ...exportKeys.job(job.id), ...job }, () => conflict(`Export job ${job.id} exists.`)),
    ]);
    if (!created) await batchDeleteAll(exportsTable(), parts.map((p) => exportKeys.part(job.id, p.index)));
    return created;
  },

  get: getJob,

  async parts(jobId) {
    return (await queryAll({ table: exportsTable(), pk: exportKeys.partsPk(jobId) })).map(partOf);
  },

  async part(jobId, index) {
    const out = await dynamo().send(new GetCommand({ TableName: exportsTable(), Key: exportKeys.part(jobId, index), ConsistentRead: true }));
    return out.Item && partOf(out.Item);
  },

  async completePart(jobId, index, files, patients, now) {
    // First the part's files (kept as first recorded), then the count: a set of the counted parts on
    // the job makes the count happen once, and a part is never counted before its files are there.
    const recorded = await updateOrOld(exportKeys.part(jobId, index), 'SET #done = :true, #files = :files', 'attribute_exists(pk) AND #done = :false', { '#done': 'done', '#files': 'files' }, {
      ':true': true,
      ':false': false,
      ':files': files,
    });
    if (!recorded.updated && !recorded.old) return undefined;
    const counted = await updateOrOld(
      exportKeys.job(jobId),
      'ADD #counted :part, #partsDone :one, #patientsDone :patients SET #progressAt = :now',
      `${IN_PROGRESS.condition} AND NOT contains(#counted, :index)`,
      { ...IN_PROGRESS.names, '#counted': 'countedParts', '#partsDone': 'partsDone', '#patientsDone': 'patientsDone', '#progressAt': 'progressAt' },
      { ...IN_PROGRESS.values, ':part': new Set([index]), ':index': index, ':one': 1, ':patients': patients, ':now': now },
      'ALL_NEW',
    );
    return counted.updated && counted.item ? jobOf(counted.item) : undefined;
  },

  async touch(jobId, now) {
    await updateIf(exportKeys.job(jobId), 'SET #progressAt = :now', `${IN_PROGRESS.condition} AND #progressAt < :now`, { ...IN_PROGRESS.names, '#progressAt': 'progressAt' }, {
      ...IN_PROGRESS.values,
      ':now': now,
    });
  },

  async finish(jobId, status, fields, owner) {
    // The update's condition decides whether the job was running; the owner only names the slot.
    let slotOwner = owner;
    if (slotOwner === undefined) {
      const job = await getJob(jobId);
      if (job?.status !== 'in-progress') return false;
      slotOwner = job.owner;
    }
    return transactIf([
      writes.update(exportKeys.job(jobId), `SET #status = :status, #expiresAt = :expiresAt${fields.failure ? ', #failure = :failure' : ''}`, {
        condition: IN_PROGRESS.condition,
        names: { ...IN_PROGRESS.names, '#expiresAt': 'expiresAt', ...(fields.failure ? { '#failure': 'failure' } : {}) },
        values: { ...IN_PROGRESS.values, ':status': status, ':expiresAt': fields.expiresAt, ...(fields.failure ? { ':failure': fields.failure } : {}) },
      }, notHeld),
      runningSlot({ owner: slotOwner }, -1),
    ]);
  },

  async cancelFinished(jobId, expiresAt) {
    return updateIf(exportKeys.job(jobId), 'SET #status = :cancelled, #expiresAt = :expiresAt', '#status IN (:complete, :failed)', { '#status': 'status', '#expiresAt': 'expiresAt' }, {
      ':cancelled': 'cancelled',
      ':complete': 'complete',
      ':failed': 'failed',
      ':expiresAt': expiresAt,
    });
  },

  async polled(jobId, now, gapMs) {
    return updateIf(exportKeys.job(jobId), 'SET #polledAt = :now', 'attribute_exists(pk) AND (attribute_not_exists(#polledAt) OR #polledAt <= :before)', { '#polledAt': 'polledAt' }, {
      ':now': now,
      ':before': now - gapMs,
    });
  },

  async remove(jobId) {
    const job = await getJob(jobId);
    if (job?.status === 'in-progress') await jobs.finish(jobId, 'cancelled', { expiresAt: job.expiresAt }, job.owner);
    await batchDeleteAll(exportsTable(), await partKeys(jobId));
    await batchDeleteAll(exportsTable(), [exportKeys.job(jobId)]);
  },

  async list() {
    const items = await queryAll({ table: exportsTable(), pk: JOBS_PK, attributes: ['id', 'status', 'progressAt', 'expiresAt'] });
    return items.map((i) => ({ id: String(i.id), status: i.status as ExportJob['status'], progressAt: Number(i.progressAt), expiresAt: Number(i.expiresAt) }));
  },
};
