/**
 * The adapter of one store port that this process uses: the service's own (DynamoDB) unless the
 * code that builds a handler, or a test, installs another, such as an in-memory twin. One holder
 * per port, so no module path needs mocking to swap a store.
 */
export interface Installed<T> {
  /** The adapter in use. */
  current(): T;
  /** Installs `next` for this process; returns the one it replaced (to put it back). */
  use(next: T): T;
}

export function installed<T>(initial: T): Installed<T> {
  let current = initial;
  return {
    current: () => current,
    use(next) {
      const previous = current;
      current = next;
      return previous;
    },
  };
}
