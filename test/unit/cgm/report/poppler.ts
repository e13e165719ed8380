/**
 * Poppler's command-line tools (Debian's poppler-utils) for the report's tests: `pdftotext` reads
 * the text a PDF shows, `pdftoppm` renders a page to PNG as a viewer would. They are not npm
 * packages: `.ci/run` installs them when missing. Where they are not on PATH the tests that need
 * them are skipped with a message, except under `CI=true`, where a missing tool fails them instead.
 */
import { execFileSync } from 'node:child_process';
import { accessSync, constants, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { PNG } from 'pngjs';

function onPath(name: string): string | undefined {
  for (const dir of (process.env.PATH ?? '').split(delimiter).filter(Boolean)) {
    const candidate = join(dir, name);
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not in this directory
    }
  }
  return undefined;
}

export const popplerFound = (): boolean => onPath('pdftoppm') !== undefined && onPath('pdftotext') !== undefined;
export const popplerRequired = (): boolean => process.env.CI === 'true';

/** Runs a poppler tool on the PDF in a scratch folder and returns the file it wrote. */
function withPdf<T>(pdf: Uint8Array, run: (pdfPath: string, dir: string) => T): T {
  const dir = mkdtempSync(join(tmpdir(), 'agp-report-'));
  try {
    const pdfPath = join(dir, 'report.pdf');
    writeFileSync(pdfPath, pdf);
    return run(pdfPath, dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The text of the PDF's pages, laid out as on the page. */
export const pdfText = (pdf: Uint8Array): string =>
  withPdf(pdf, (path) => execFileSync(onPath('pdftotext')!, ['-layout', '-enc', 'UTF-8', path, '-'], { encoding: 'utf8' }));

export interface Image {
  width: number;
  height: number;
  /** Pixels per PDF point. */
  scale: number;
  /** RGBA, row by row. */
  data: Buffer;
}

/** The first page rendered at `dpi`. */
export const pdfImage = (pdf: Uint8Array, dpi: number): Image =>
  withPdf(pdf, (path, dir) => {
    execFileSync(onPath('pdftoppm')!, ['-png', '-r', String(dpi), '-singlefile', '-f', '1', '-l', '1', path, join(dir, 'page')]);
    const png = PNG.sync.read(readFileSync(join(dir, 'page.png')));
    return { width: png.width, height: png.height, scale: dpi / 72, data: png.data };
  });
