/**
 * Where each part of the AGP report sits on its one page, and its colours
 * (docs/cgm.md#the-report). Boxes are in points from the page's top-left corner, y downwards, as
 * the parts draw them (canvas.ts turns them into PDF's bottom-left coordinates); the tests read
 * the rendered image at these boxes.
 *
 * The page is US Letter (612 x 792 pt) with margins of half an inch, so the content is 540 x 720
 * pt. Letter rather than A4 because a Letter page prints whole at actual size on either paper: it
 * is 17 pt wider than A4, which the half-inch margins absorb (at least 27 pt on A4 when centred),
 * and 50 pt shorter; an A4 page printed on Letter loses 50 pt of its height unless shrunk.
 */

export interface Box {
  x: number;
  y: number;
  width: number;
  height: number;
}

export const PAGE = { width: 612, height: 792 } as const;
const MARGIN = 36;
const CONTENT_WIDTH = PAGE.width - 2 * MARGIN;

const box = (x: number, y: number, width: number, height: number): Box => ({ x, y, width, height });

/** The parts, top to bottom. */
export const LAYOUT = {
  header: box(MARGIN, MARGIN, CONTENT_WIDTH, 58),
  /** The data sufficiency line, under the header. */
  sufficiency: box(MARGIN, 98, CONTENT_WIDTH, 16),
  metrics: box(MARGIN, 124, 338, 170),
  rangesBar: box(396, 124, PAGE.width - MARGIN - 396, 170),
  agp: box(MARGIN, 304, CONTENT_WIDTH, 236),
  daily: box(MARGIN, 552, CONTENT_WIDTH, 190),
  footer: box(MARGIN, PAGE.height - MARGIN - 10, CONTENT_WIDTH, 10),
} as const;

/** Font sizes: nothing under 7 pt, so a printed page stays legible. */
export const TYPE = { title: 15, section: 10.5, body: 9.5, small: 8, tick: 7.5, tiny: 7 } as const;

/** Colours as `#rrggbb`: the time-in-range colours of the consensus's AGP, blues for the profile. */
export const COLOURS = {
  text: '#222222',
  muted: '#666666',
  rule: '#bbbbbb',
  grid: '#dddddd',
  veryLow: '#8b1a1a',
  low: '#e03131',
  target: '#2f9e44',
  high: '#f2c230',
  veryHigh: '#e8590c',
  /** The 70-180 mg/dL band behind the curves. */
  targetBand: '#dcefdc',
  outer: '#c2d6ee',
  inner: '#6f9bd1',
  median: '#173a7a',
  met: '#2b7a3b',
  notMet: '#c92a2a',
  notice: '#b35c00',
} as const;

export type ColourName = keyof typeof COLOURS;
