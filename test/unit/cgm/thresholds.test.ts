/** The bands agree with the consensus in both units; targets judge as they say. */
import { describe, expect, it } from 'vitest';
import { BANDS, bandIndexOf, CONSENSUS_TARGETS, meets } from '../../../shared/cgm/thresholds';
import { mgdlOf } from '../../../shared/cgm/units';
import { bandInMgdl, bandInMmolL } from '../../support/cgm';

describe('the bands', () => {
  it('put every whole mg/dL value where the consensus puts it', () => {
    for (let v = 0; v <= 600; v += 1) expect(BANDS[bandIndexOf(v)], `${v} mg/dL`).toBe(bandInMgdl(v));
  });

  it('put every mmol/L value a sensor reports (0.1 steps) where the consensus puts it in mmol/L', () => {
    for (let tenths = 10; tenths <= 333; tenths += 1) {
      const mmol = tenths / 10;
      expect(BANDS[bandIndexOf(mgdlOf(mmol, 'mmol/L')!)], `${mmol} mmol/L`).toBe(bandInMmolL(mmol));
    }
  });
});

describe('targets', () => {
  it('compare as their comparator says, the edge included only for "<="', () => {
    const byMetric = new Map(CONSENSUS_TARGETS.map((t) => [t.metric, t]));
    expect(meets(byMetric.get('timeInRange')!, 70)).toBe(false);
    expect(meets(byMetric.get('timeInRange')!, 70.01)).toBe(true);
    expect(meets(byMetric.get('timeBelow70')!, 4)).toBe(false);
    expect(meets(byMetric.get('timeBelow70')!, 3.99)).toBe(true);
    expect(meets(byMetric.get('cv')!, 36)).toBe(true);
    expect(meets(byMetric.get('cv')!, 36.01)).toBe(false);
  });
});
