/** Timers for latency and delay faults that closing the emulator can cut short all at once. */
export class Sleeper {
  private readonly pending = new Set<() => void>();

  sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const wake = () => {
        clearTimeout(timer);
        this.pending.delete(wake);
        resolve();
      };
      const timer = setTimeout(wake, ms);
      this.pending.add(wake);
    });
  }

  /** Ends every sleep now (on close, so no handler keeps the process waiting). */
  wakeAll(): void {
    for (const wake of [...this.pending]) wake();
  }
}
