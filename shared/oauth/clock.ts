/**
 * The OAuth server's clock. Every expiry decision (authorization codes, refresh tokens, invitations,
 * sign-in lockouts) reads time here, so tests move time by installing another clock instead of
 * sleeping.
 */

let current: () => number = () => Date.now();

/** Now, in epoch milliseconds. */
export function nowMs(): number {
  return current();
}

/** Now, in whole epoch seconds (the unit of DynamoDB TTL and JWT claims). */
export function nowSeconds(): number {
  return Math.floor(current() / 1000);
}

/** Installs a clock (tests); `resetClock` puts the real one back. */
export function useClock(clock: () => number): void {
  current = clock;
}

export function resetClock(): void {
  current = () => Date.now();
}
