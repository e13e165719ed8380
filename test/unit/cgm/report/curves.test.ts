/** The curves' paths: a day's readings as a line on the AGP's axes, broken at the sensor's gaps. */
import { describe, expect, it } from 'vitest';
import { dayPath, scalesOf } from '../../../../shared/cgm/report/curves';

describe("a day's line", () => {
  const scales = scalesOf(1440, 350);

  it('runs through the readings, y up, and breaks where they are further apart than the gap', () => {
    const path = dayPath([[0, 100], [5, 110], [10, 350], [60, 200], [65, 400]], 30, scales);
    expect(path).toBe('M0,250L5,240L10,0M60,150L65,0');
  });
});
