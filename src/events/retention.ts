/**
 * How long the ledger keeps lease events (`EVENTS_KEEP`, read in
 * settings/work-settings.ts; default 7 days, at least a day: a stream
 * client resuming with `Last-Event-ID` after a night offline must find
 * what it missed), and the hourly prune of older ones.
 * Every replica prunes: deleting what another already deleted changes
 * nothing, and positions and sequence numbers are never given again
 * whatever is deleted (the ledger's counters).
 */
import type { EventLog } from "../ledger/events/event-roles.js";

const DAY = 24 * 3_600_000;
export const DEFAULT_EVENTS_KEEP_MS = 7 * DAY;
export const MIN_EVENTS_KEEP_MS = DAY;
/** How often old events are deleted. */
export const PRUNE_EVERY_MS = 3_600_000;

/** Deletes events older than `keepMs` now, then every hour, until stopped. */
export class EventPruner {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<unknown> | null = null;

  constructor(
    private readonly o: {
      ledger: Pick<EventLog, "pruneEvents">;
      clock: () => number;
      keepMs: number;
      everyMs?: number;
      onError: (error: unknown) => void;
    },
  ) {}

  /** One prune; answers how many events were deleted. */
  async pruneOnce(): Promise<number> {
    return this.o.ledger.pruneEvents(this.o.clock() - this.o.keepMs);
  }

  start(): void {
    if (this.timer) return;
    const tick = () => {
      if (this.running) return;
      this.running = this.pruneOnce()
        .catch(this.o.onError)
        .finally(() => (this.running = null));
    };
    tick();
    this.timer = setInterval(tick, this.o.everyMs ?? PRUNE_EVERY_MS);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.running;
  }
}
