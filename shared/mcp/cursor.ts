/**
 * The opaque `nextCursor` of the tools whose answers continue: the tool's name, a digest of the
 * other arguments, and a position (a page number, an offset, or the search's own cursor text). A
 * cursor carries no rights: every page runs the caller's scoping again, so an edited cursor can at
 * most move within what the caller may see. One that does not parse, or that belongs to another
 * tool or other arguments, is a refusal that says what to do.
 */
import { createHash } from 'node:crypto';
import { objectOfBase64Url } from '../json';
import { ToolRefusal } from './tool';

export type Position = string | number;

/**
 * The arguments a cursor is bound to: every argument but the cursor and the page size (a page of
 * another size continues as well), in name order. Only the keys the tool's schema declares reach
 * here (zod strips the rest), each a number, a text, or a list of texts.
 */
function argumentsDigest(tool: string, args: Readonly<Record<string, unknown>>): string {
  const names = Object.keys(args)
    .filter((name) => name !== 'cursor' && name !== 'pageSize' && args[name] !== undefined)
    .sort();
  const text = JSON.stringify([tool, names.map((name) => [name, args[name]])]);
  return createHash('sha256').update(text).digest('base64url').slice(0, 16);
}

export function encodeToolCursor(tool: string, args: Readonly<Record<string, unknown>>, at: Position): string {
  return Buffer.from(JSON.stringify({ t: tool, s: argumentsDigest(tool, args), at }), 'utf8').toString('base64url');
}

const invalid = () => new ToolRefusal('This cursor is not valid: pass the nextCursor of the previous answer as it was given.');
const foreign = () => new ToolRefusal('This cursor belongs to another question: continue with the same tool and the same arguments as the answer that gave it, or leave cursor out to start again.');

/** The position a cursor holds, or undefined without one; refused when it is not this question's. */
export function toolCursorPosition(tool: string, args: Readonly<Record<string, unknown>>, text: string | undefined): Position | undefined {
  if (text === undefined) return undefined;
  const json = objectOfBase64Url(text);
  if (json === undefined) throw invalid();
  const { t, s, at } = json;
  if (typeof t !== 'string' || typeof s !== 'string') throw invalid();
  if (t !== tool || s !== argumentsDigest(tool, args)) throw foreign();
  if (typeof at === 'string' && at.length > 0 && at.length <= 512) return at;
  if (typeof at === 'number' && Number.isSafeInteger(at) && at >= 0) return at;
  throw invalid();
}

/** A cursor's position that must be a count (a page number or an offset). */
export function countPosition(position: Position | undefined, fallback: number): number {
  if (position === undefined) return fallback;
  if (typeof position !== 'number') throw invalid();
  return position;
}

/** A cursor's position that must be a text (a search's own cursor). */
export function textPosition(position: Position | undefined): string | undefined {
  if (position === undefined || typeof position === 'string') return position;
  throw invalid();
}
