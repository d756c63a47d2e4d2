/**
 * Passes of a background worker (the drainer, the events' dispatcher) that
 * never overlap within one process: a pass asked for while one runs waits
 * for it, then runs its own. Each pass answers how much it did; `all` runs
 * passes until one does nothing (for tests and shutdown).
 */
export class SerialPasses {
  private inFlight: Promise<number> | null = null;

  constructor(private readonly pass: () => Promise<number>) {}

  async once(): Promise<number> {
    while (this.inFlight) await this.inFlight;
    this.inFlight = this.pass();
    try {
      return await this.inFlight;
    } finally {
      this.inFlight = null;
    }
  }

  async all(maxPasses = 10_000): Promise<void> {
    for (let i = 0; i < maxPasses; i++) if ((await this.once()) === 0) return;
  }
}
