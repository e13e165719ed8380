/**
 * What the fault suites share: faults that count how often they fire, the check after each test
 * (the whole store against the ledger of acknowledged writes) and the one summary line a suite
 * prints for docs/security.md (faults injected, entries sent, rows lost, rows duplicated).
 */
import { injectFault, type Fault, type SentCommand } from './faults';
import { expectStoreMatches, type Ledger } from './ledger';

export class FaultSuite {
  faults = 0;
  entries = 0;
  lost = 0;
  duplicated = 0;
  private readonly removals: Array<() => void> = [];

  constructor(readonly name: string) {}

  /**
   * Installs `act` on the DynamoDB commands that `picks` chooses (given the command and how many of
   * its kind were sent so far, this one included) until the test ends; returns how often it fired.
   */
  fault(picks: (command: SentCommand, nth: number) => boolean, act: Fault): () => number {
    let fired = 0;
    const sent = new Map<string, number>();
    this.removeAfterTest(
      injectFault(async (command, send) => {
        const nth = (sent.get(command.name) ?? 0) + 1;
        sent.set(command.name, nth);
        if (!picks(command, nth)) return send();
        fired += 1;
        this.faults += 1;
        return act(command, send);
      }),
    );
    return () => fired;
  }

  removeAfterTest(remove: () => void): void {
    this.removals.push(remove);
  }

  /** Removes the faults installed so far in this test. */
  clearFaults(): void {
    this.removals.splice(0).forEach((remove) => remove());
  }

  /** Removes the test's faults, then checks the store; run after each test. */
  async settle(ledger: Ledger): Promise<void> {
    this.clearFaults();
    const found = await expectStoreMatches(ledger);
    this.lost += found.lost.length;
    this.duplicated += found.duplicated.length;
  }

  summary(): string {
    return `faults ${this.name}: ${this.faults} faults injected, ${this.entries} entries, ${this.lost} rows lost, ${this.duplicated} rows duplicated`;
  }
}
