/**
 * What a test stack opened, undone last first. Every step runs even when one before it failed, so
 * a half-opened stack (a start that threw part way) lets go of all it had; the failures are thrown
 * together at the end, so a leak is never silent.
 */
export class Teardown {
  private readonly steps: Array<() => Promise<void> | void> = [];
  private done = false;

  /** Registers the undo of something just opened. */
  add(step: () => Promise<void> | void): void {
    this.steps.push(step);
  }

  /** Runs every step once, newest first; a second call does nothing. */
  async run(): Promise<void> {
    if (this.done) return;
    this.done = true;
    const errors: unknown[] = [];
    for (const step of this.steps.reverse()) {
      try {
        await step();
      } catch (err) {
        errors.push(err);
      }
    }
    if (errors.length === 1) throw errors[0];
    if (errors.length > 1) throw new AggregateError(errors, `${errors.length} parts of the test stack did not close`);
  }
}
