/** What the banner and the command-line tools tell a user to type; free of imports, so any module may use it. */

/** The data folder `npm start` uses when DATA_DIR is not set. */
export const DEFAULT_DATA_DIR = '.data';

/** `npm run --silent token -- <who>` as a user of this data folder must type it (DATA_DIR when not the default). */
export function tokenCommand(who: string, dataDir = process.env.DATA_DIR): string {
  const quoted = (v: string) => (/^[\w./:-]+$/.test(v) ? v : `'${v.replace(/'/g, `'\\''`)}'`);
  const prefix = dataDir && dataDir !== DEFAULT_DATA_DIR ? `DATA_DIR=${quoted(dataDir)} ` : '';
  return `${prefix}npm run --silent token -- ${who}`;
}
