/**
 * What a process remembers of what its clients send (verified tokens, fetched documents, rate-limit
 * windows, unit lookups): at most `max` entries, so no stream of new keys grows its memory. A key
 * set again becomes the newest; a new key set into a full map first drops the least recently set
 * quarter, so each set costs O(1) amortised (never a scan of the whole map per request).
 */
export class BoundedMap<K, V> extends Map<K, V> {
  constructor(private readonly max: number) {
    super();
    if (!Number.isInteger(max) || max < 1) throw new RangeError(`a BoundedMap holds at least one entry (not ${max})`);
  }

  override set(key: K, value: V): this {
    if (!super.delete(key) && this.size >= this.max) {
      let drop = Math.max(1, Math.floor(this.max / 4));
      for (const old of this.keys()) {
        if (drop-- <= 0) break;
        super.delete(old);
      }
    }
    return super.set(key, value);
  }
}
