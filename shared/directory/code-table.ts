/** The mobile-health code table: rows unique per (system, code), listed in id order. */
import { directoryStore } from './store/current';
import type { CodeSeed } from './codes';
import { assertKeyText } from './fields';
import type { Code, Id } from './model';

export async function createCode(input: CodeSeed): Promise<Code> {
  assertKeyText('system', input.system);
  assertKeyText('code', input.code);
  const { codes } = directoryStore();
  const code: Code = { id: await codes.newId(), system: input.system, code: input.code, display: input.display };
  await codes.insert(code);
  return code;
}

export const getCode = (id: Id) => directoryStore().codes.get(id);

/** Codes for ids, in the order given; unknown ids are skipped. */
export const getCodes = (ids: readonly Id[]) => directoryStore().codes.getMany(ids);

/** The code with this system and code, if the table has it. */
export async function findCode(system: string, code: string): Promise<Code | undefined> {
  if (!system || !code) return undefined;
  return directoryStore().codes.findByCoding(system, code);
}

/** The whole code table in id order (it is small: tens of rows). */
export const listCodes = () => directoryStore().codes.list();

/** Adds the rows that are missing (matched on system and code); returns every row of `seeds`. */
export async function ensureCodes(seeds: readonly CodeSeed[]): Promise<Code[]> {
  const out: Code[] = [];
  for (const seed of seeds) {
    const existing = await findCode(seed.system, seed.code);
    if (existing) {
      out.push(existing);
      continue;
    }
    try {
      out.push(await createCode(seed));
    } catch (e) {
      // Another process added it in the meantime.
      const raced = await findCode(seed.system, seed.code);
      if (!raced) throw e;
      out.push(raced);
    }
  }
  return out;
}
