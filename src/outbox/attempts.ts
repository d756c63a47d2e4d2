/**
 * The effects a drainer is applying, and the locks it keeps on them. Each
 * attempt's lock is extended every third of `lockMs` while any is applied,
 * so an effect stays with this drainer however long GitHub takes; when an
 * extension is refused (another drainer took the effect after this one
 * stalled past its lock) or the ledger has not answered until the lock would
 * have expired, the attempt is aborted and makes no further call.
 */
import type { Logger } from "pino";
import type { Effect, EffectFence } from "../ledger/outbox/outbox-types.js";
import type { OutboxStore } from "../ledger/outbox/outbox-roles.js";

/** One attempt at an effect being applied: aborted when its lock is lost. */
export interface Attempt {
  effect: Effect;
  fence: EffectFence;
  abort: AbortController;
  /** Until when the lock is known to be held. */
  until: number;
}

export class Attempts {
  private readonly applying = new Map<number, Attempt>();
  private keeper: NodeJS.Timeout | null = null;
  private extending = false;

  constructor(
    private readonly o: { ledger: OutboxStore; clock: () => number; lockMs: number; log: Pick<Logger, "warn"> },
  ) {}

  /** Starts an attempt at an effect just taken (its lock runs from now). */
  begin(effect: Effect): Attempt {
    const attempt: Attempt = {
      effect,
      fence: { id: effect.id, attempt: effect.attempts },
      abort: new AbortController(),
      until: this.o.clock() + this.o.lockMs,
    };
    this.applying.set(effect.id, attempt);
    if (!this.keeper) {
      this.keeper = setInterval(() => void this.extend(), Math.max(5, Math.floor(this.o.lockMs / 3)));
      this.keeper.unref();
    }
    return attempt;
  }

  end(attempt: Attempt): void {
    if (this.applying.get(attempt.effect.id) === attempt) this.applying.delete(attempt.effect.id);
    if (this.applying.size === 0) this.stopKeeping();
  }

  /** The ids being applied: never taken again by this drainer meanwhile. */
  ids(): number[] {
    return [...this.applying.keys()];
  }

  /** Stops every attempt (they make no further call) and returns them, for handing back. */
  abortAll(reason: string): Attempt[] {
    const all = [...this.applying.values()];
    this.applying.clear();
    this.stopKeeping();
    for (const a of all) a.abort.abort(new Error(reason));
    return all;
  }

  private stopKeeping(): void {
    if (this.keeper) clearInterval(this.keeper);
    this.keeper = null;
  }

  private async extend(): Promise<void> {
    if (this.extending) return;
    this.extending = true;
    const { ledger, clock, log, lockMs } = this.o;
    const attempts = [...this.applying.values()];
    const at = clock();
    try {
      const kept = new Set(await ledger.extendEffects(attempts.map((a) => a.fence), at, lockMs));
      for (const a of attempts) {
        if (kept.has(a.effect.id)) a.until = at + lockMs;
        // Not completed meanwhile, yet not extended: another drainer has taken it.
        else if (this.applying.get(a.effect.id) === a) a.abort.abort(new Error("the effect's lock was taken by another drainer"));
      }
    } catch (error) {
      log.warn({ err: error }, "outbox: could not extend the locks of effects being applied; will try again");
      // Past its lock, an effect may be another drainer's: stop it.
      for (const a of attempts) if (clock() >= a.until) a.abort.abort(new Error("the effect's lock expired while the ledger did not answer"));
    } finally {
      this.extending = false;
    }
  }
}
