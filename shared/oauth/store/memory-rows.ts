/** What the OAuth twin's record families share: a read hands out a copy, as a read from a table does. */
import { copy } from '../../directory/store/memory-records';

export const readCopy =
  <K, T>(rows: ReadonlyMap<K, T>) =>
  async (key: K): Promise<T | undefined> => {
    const row = rows.get(key);
    return row && copy(row);
  };
