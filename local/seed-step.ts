/** One capability's part of the demo data set; in its own module so the steps and `seed.ts`, which runs them, do not import each other. */

export interface SeedContext {
  /** Lines for the start banner (accounts, ids worth knowing). */
  notes: string[];
}

export type SeedStep = { name: string; run: (ctx: SeedContext) => Promise<void> };
