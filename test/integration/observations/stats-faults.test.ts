/**
 * The day summaries on DynamoDB Local under faults: a summary write that keeps failing after the
 * rows landed answers those readings 503 (send again), and the re-send puts the statistic right;
 * a re-post of a complete upload writes nothing (no summary either); the summaries live in the
 * patient's partition and go with the patient.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { deletePatientObservations } from '../../../shared/observations/delete';
import { injectFault, recordCommands, throttling } from '../../support/faults';
import { observationWorld, statusesOf, storedRows, upload, type ObservationWorld } from '../../support/observations';
import { stats, statisticsOf, valued } from '../../support/stats';

const HOUR = 3_600_000;
const D1 = Date.UTC(2025, 5, 1);
const HR = '8867-4';

let world: ObservationWorld;
beforeAll(async () => {
  world = await observationWorld();
});

const daySummaryPut = (input: Record<string, any>) => typeof input.Item?.sk === 'string' && input.Item.sk.startsWith('#DAY#');

describe('day summaries under faults', () => {
  it('a summary write that keeps failing answers its readings 503; the re-send puts the statistic right', async () => {
    const sent = [valued(world, { at: D1 + HOUR, value: 60 }), valued(world, { at: D1 + 2 * HOUR, value: 70 }), valued(world, { at: D1 + 30 * HOUR, value: 80 })];
    const remove = injectFault(async (command, send) => {
      // Day 1's summary never lands; day 2's does.
      if (command.name === 'PutCommand' || command.name === 'PutItemCommand') {
        if (daySummaryPut(command.input) && String(command.input.Item.sk).endsWith('2025-06-01')) throw throttling();
      }
      return send();
    });
    let first;
    try {
      first = await upload(world.patient.token, sent);
    } finally {
      remove();
    }
    expect(statusesOf(first)).toEqual(['503 Service Unavailable', '503 Service Unavailable', '201 Created']);
    expect(await storedRows(world.patient.id)).toHaveLength(3);
    const q = `subject=Patient/${world.patient.id}&code=omh:heart-rate:2.0&period=2025-06-01/2025-06-02&statistic=count,average`;
    expect(statisticsOf(await stats(world.practitioner.token, q))[0]!.values.get(`${HR} count`)).toBe(1);

    const again = await upload(world.patient.token, sent);
    expect(statusesOf(again)).toEqual(['200 OK', '200 OK', '200 OK']);
    expect(statisticsOf(await stats(world.practitioner.token, q))[0]!.values).toEqual(new Map([[`${HR} count`, 3], [`${HR} average`, 70]]));

    // Now complete: a third post writes nothing at all.
    const recording = recordCommands();
    try {
      expect(statusesOf(await upload(world.patient.token, sent))).toEqual(['200 OK', '200 OK', '200 OK']);
    } finally {
      recording.stop();
    }
    expect(recording.commands.filter((c) => /Put|Update|Delete|BatchWrite|TransactWrite/.test(c.name)).map((c) => c.name)).toEqual([]);

    await deletePatientObservations(world.patient.id);
    expect(statisticsOf(await stats(world.practitioner.token, q))[0]!.values).toEqual(new Map([[`${HR} count`, 0]]));
  });
});
