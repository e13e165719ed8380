/** The mobile-health code table: rows unique per (system, code), listed in id order. */
import { conflict, notFound } from '../http/errors';
import type { CodeSeed } from './codes';
import { assertKeyText, getItem, putNew, queryAll, transact, type Item } from './db';
import { entityStore } from './entity';
import { newId } from './ids';
import { indexes, keys, KIND, GSI1 } from './keys';
import type { Code, Id } from './model';

function toCode(item: Item): Code {
  return { id: item.id as number, system: item.system as string, code: item.code as string, display: item.display as string };
}

const codes = entityStore<Code, Id>({
  key: keys.code,
  toEntity: toCode,
  toItem: (code) => ({ ...keys.code(code.id), ...indexes.code(code.id), ...code }),
  notFound: (id) => notFound(`Code ${id} not found.`),
});

export async function createCode(input: CodeSeed): Promise<Code> {
  assertKeyText('system', input.system);
  assertKeyText('code', input.code);
  const id = await newId('code');
  const code: Code = { id, system: input.system, code: input.code, display: input.display };
  await transact([
    codes.create(code, () => conflict('Code id collision.')),
    putNew({ ...keys.codeCoding(code.system, code.code), codeId: id }, () =>
      conflict(`The code ${code.system}|${code.code} already exists.`, { fields: { code: ['This code already exists.'] } }),
    ),
  ]);
  return code;
}

export const getCode = codes.get;

/** Codes for ids, in the order given; unknown ids are skipped. */
export const getCodes = codes.getMany;

/** The code with this system and code, if the table has it. */
export async function findCode(system: string, code: string): Promise<Code | undefined> {
  if (!system || !code) return undefined;
  const claim = await getItem(keys.codeCoding(system, code));
  return claim ? getCode(claim.codeId as number) : undefined;
}

/** The whole code table in id order (it is small: tens of rows). */
export async function listCodes(): Promise<Code[]> {
  return (await queryAll({ index: GSI1, pk: KIND.code })).map(toCode);
}

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
