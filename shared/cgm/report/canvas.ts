/**
 * A page of the report as the parts draw on it: coordinates from the top-left corner, y downwards
 * (layout.ts), colours by name, text in the standard PDF fonts. pdf-lib measures from the
 * bottom-left, so every call here turns the y round once.
 *
 * The standard fonts need no font file (pdf-lib carries their metrics), but they hold only the
 * WinAnsi characters (Western European letters and common signs). A character outside them is
 * drawn from the Symbol font when it has it (`≤`, `≥`, Greek), else as its base letter when it has
 * one (`ő` as `o`, `ł` as `l`), else as `?`: a name in another script needs an embedded font.
 */
import { PDFDocument, rgb, StandardFonts, type Color, type PDFFont, type PDFPage } from 'pdf-lib';
import { COLOURS, PAGE, type ColourName } from './layout';

export type Weight = 'regular' | 'bold';

export interface TextStyle {
  size: number;
  weight?: Weight;
  colour?: ColourName;
  /** Where `x` is: the text's start (the default), middle or end. */
  align?: 'start' | 'middle' | 'end';
}

export interface StrokeStyle {
  colour: ColourName;
  width: number;
  dash?: number[];
}

export interface Canvas {
  /** Text with its baseline at `y`. */
  text(text: string, x: number, y: number, style: TextStyle): void;
  /** The width of text in a style (points). */
  widthOf(text: string, style: TextStyle): number;
  rect(x: number, y: number, width: number, height: number, fill: ColourName): void;
  line(x1: number, y1: number, x2: number, y2: number, stroke: StrokeStyle): void;
  /** An SVG path (d3-shape's output) whose coordinates start at (x, y): filled, stroked or both. */
  path(d: string, x: number, y: number, paint: { fill?: ColourName; stroke?: StrokeStyle }): void;
}

const colourOf = (name: ColourName): Color => {
  const hex = COLOURS[name];
  return rgb(parseInt(hex.slice(1, 3), 16) / 255, parseInt(hex.slice(3, 5), 16) / 255, parseInt(hex.slice(5, 7), 16) / 255);
};

interface Face {
  font: PDFFont;
  has: ReadonlySet<number>;
}

/** A run of text in one font. */
interface Run {
  face: Face;
  text: string;
}

/** The one-page document and its canvas. */
export async function newPage(): Promise<{ document: PDFDocument; canvas: Canvas }> {
  // No metadata of pdf-lib's own (it would stamp the time of the call): render.ts sets it from the options.
  const document = await PDFDocument.create({ updateMetadata: false });
  const page = document.addPage([PAGE.width, PAGE.height]);
  const face = async (name: StandardFonts): Promise<Face> => {
    const font = await document.embedFont(name);
    return { font, has: new Set(font.getCharacterSet()) };
  };
  const faces = { regular: await face(StandardFonts.Helvetica), bold: await face(StandardFonts.HelveticaBold), symbol: await face(StandardFonts.Symbol) };
  return { document, canvas: canvasOf(page, faces) };
}

function canvasOf(page: PDFPage, faces: Record<Weight | 'symbol', Face>): Canvas {
  const flip = (y: number) => PAGE.height - y;
  const runsOf = (text: string, weight: Weight): Run[] => {
    const runs: Run[] = [];
    for (const char of text.normalize('NFC')) {
      const [face, shown] = placed(char, faces[weight], faces.symbol);
      const last = runs.at(-1);
      if (last?.face === face) last.text += shown;
      else runs.push({ face, text: shown });
    }
    return runs;
  };
  const widthOfRuns = (runs: Run[], size: number) => runs.reduce((w, r) => w + r.face.font.widthOfTextAtSize(r.text, size), 0);
  return {
    text(text, x, y, style) {
      const runs = runsOf(text, style.weight ?? 'regular');
      const width = widthOfRuns(runs, style.size);
      let at = style.align === 'middle' ? x - width / 2 : style.align === 'end' ? x - width : x;
      for (const run of runs) {
        page.drawText(run.text, { x: at, y: flip(y), size: style.size, font: run.face.font, color: colourOf(style.colour ?? 'text') });
        at += run.face.font.widthOfTextAtSize(run.text, style.size);
      }
    },
    widthOf: (text, style) => widthOfRuns(runsOf(text, style.weight ?? 'regular'), style.size),
    rect(x, y, width, height, fill) {
      page.drawRectangle({ x, y: flip(y + height), width, height, color: colourOf(fill) });
    },
    line(x1, y1, x2, y2, stroke) {
      page.drawLine({ start: { x: x1, y: flip(y1) }, end: { x: x2, y: flip(y2) }, thickness: stroke.width, color: colourOf(stroke.colour), ...(stroke.dash ? { dashArray: stroke.dash } : {}) });
    },
    path(d, x, y, paint) {
      if (d === '') return;
      page.drawSvgPath(d, {
        x,
        y: flip(y),
        ...(paint.fill ? { color: colourOf(paint.fill) } : {}),
        ...(paint.stroke ? { borderColor: colourOf(paint.stroke.colour), borderWidth: paint.stroke.width, ...(paint.stroke.dash ? { borderDashArray: paint.stroke.dash } : {}) } : {}),
      });
    },
  };
}

/** The face a character is drawn in, and the character drawn. */
function placed(char: string, text: Face, symbol: Face): [Face, string] {
  const code = char.codePointAt(0)!;
  if (text.has.has(code)) return [text, char];
  if (symbol.has.has(code)) return [symbol, char];
  // A letter with marks the font does not have whole: its base letter (NFD puts the base first).
  const base = STROKED.get(char) ?? char.normalize('NFD')[0]!;
  return text.has.has(base.codePointAt(0)!) ? [text, base] : [text, '?'];
}

/** Letters with a stroke, which Unicode does not decompose into a base letter and a mark. */
const STROKED = new Map([
  ['Ł', 'L'],
  ['ł', 'l'],
  ['Đ', 'D'],
  ['đ', 'd'],
  ['Ħ', 'H'],
  ['ħ', 'h'],
  ['ı', 'i'],
]);
