/**
 * A slow store on the in-memory twins: a port whose named methods answer only after a delay, as a
 * loaded DynamoDB or a throttled table would. The delay may depend on the call's number (from 1),
 * so a test can slow one call down more than the others. Everything else passes through.
 */
export function slowed<T extends object>(store: T, methods: ReadonlyArray<keyof T>, delayMs: (call: number) => number): T {
  let calls = 0;
  const wrapped = Object.create(store) as T;
  for (const name of methods) {
    const method = store[name] as unknown as (...args: unknown[]) => Promise<unknown>;
    (wrapped as Record<keyof T, unknown>)[name] = async (...args: unknown[]) => {
      calls += 1;
      await new Promise((resolve) => setTimeout(resolve, delayMs(calls)));
      return method.apply(store, args);
    };
  }
  return wrapped;
}

/**
 * A store that serves the named methods one call at a time, each taking `serviceMs`: its answers
 * come later the more calls wait, as a saturated store's do, and its throughput is fixed.
 */
export function saturated<T extends object>(store: T, methods: ReadonlyArray<keyof T>, serviceMs: number): T {
  let last: Promise<unknown> = Promise.resolve();
  const wrapped = Object.create(store) as T;
  for (const name of methods) {
    const method = store[name] as unknown as (...args: unknown[]) => Promise<unknown>;
    (wrapped as Record<keyof T, unknown>)[name] = (...args: unknown[]) => {
      const turn = last.then(() => new Promise((resolve) => setTimeout(resolve, serviceMs))).then(() => method.apply(store, args));
      last = turn.catch(() => undefined);
      return turn;
    };
  }
  return wrapped;
}
