/** An operator command called wrongly: its message is the command's usage text (the CLI exits 2). */
export class UsageError extends Error {
  constructor(usage: string) {
    super(usage);
    this.name = 'UsageError';
  }
}
