/**
 * Load, in a short form (the longer one is `npm run bench -- load`): 100 devices upload batches of
 * readings and retry (half of the retries re-send batches already stored, half follow a lost answer,
 * posted while the first post may still be in flight) while apps search, against the gateway in a
 * process of its own; then the store is counted. Whatever the answers were (under load a request
 * may outlast the 29 s budget and answer 500 while its work goes on: a lost answer, which the
 * device retries), the store holds exactly the readings the devices were told are stored, once
 * each, under the id they were told.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeFleet, type Fleet } from '../support/load-fleet';
import { startLoadGateway, type LoadGateway } from '../support/load-gateway';
import { runLoad, type LoadReport } from '../support/load-run';
import { allTraffic, answers, failureSamples, isClientError, summaryLine } from '../support/load-report';
import { storedRows } from '../support/observations';

const DEVICES = 100;
/** The mixed phase alone: uploads, retries and searches at once. */
const SHORT = { phases: ['mixed'], batches: 1, readings: 10, retryConnections: 10, searchConnections: 10, searches: 100, phaseSeconds: 60 } as const;

let fleet: Fleet;
let gateway: LoadGateway;
let report: LoadReport;
beforeAll(async () => {
  [fleet, gateway] = await Promise.all([makeFleet(DEVICES), startLoadGateway()]);
  report = await runLoad(gateway, fleet, SHORT);
  console.log(summaryLine(report));
}, 300_000);
afterAll(async () => {
  await gateway?.stop();
});

describe(`${DEVICES} devices uploading and retrying while apps search`, () => {
  it('the store holds exactly the readings acknowledged, each under the one id it was answered with', () => {
    expect(report.count.lost).toEqual([]);
    expect(report.count.unacknowledged).toEqual([]);
    expect(report.count.duplicates).toEqual([]);
    expect(report.count.stored).toBe(report.count.acknowledged);
    expect(report.settle.left).toEqual([]);
  });

  it('every device has its readings stored', async () => {
    const empty = [];
    for (const patient of fleet.patients) if ((await storedRows(patient.id)).length === 0) empty.push(patient.id);
    expect(empty).toEqual([]);
  });

  it('no request is refused as invalid or unauthorized (429 and 5xx are retried by the devices)', () => {
    const refused = answers([...allTraffic(report), { statuses: report.settle.statuses }], isClientError);
    expect(refused, failureSamples(report).join('\n')).toBe(0);
  });

  it('the searches are answered', () => {
    const searches = allTraffic(report).filter((t) => t.kind === 'searches');
    expect(searches.map((t) => t.statuses['200'] ?? 0).every((n) => n > 0)).toBe(true);
  });
});
