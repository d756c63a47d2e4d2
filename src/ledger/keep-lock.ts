/**
 * Keeps a named lock of the ledger while its holder works: the lock's time
 * to live can then be short, so that a process that dies holding it stops
 * nobody for long, whatever the work's duration. The lock is extended every
 * third of its time to live; when an extension is refused (another process
 * took the lock after it expired) or the ledger has not answered until it
 * would have expired, `onLost` is called once and the holder must stop.
 */
import type { Ledger } from "./types.js";

export interface KeptLock {
  /** Stops extending the lock and lets go of it. */
  release(): Promise<void>;
}

export function keepLock(o: {
  ledger: Ledger;
  name: string;
  owner: string;
  clock: () => number;
  ttlMs: number;
  onLost: (reason: string) => void;
}): KeptLock {
  const { ledger, name, owner, clock, ttlMs } = o;
  let until = clock() + ttlMs;
  let lost = false;
  let extending: Promise<unknown> | null = null;
  const lose = (reason: string) => {
    if (lost) return;
    lost = true;
    clearInterval(timer);
    o.onLost(reason);
  };
  const timer = setInterval(() => {
    if (extending || lost) return;
    const at = clock();
    extending = ledger
      .tryLock(name, owner, at, ttlMs)
      .then(
        (kept) => (kept ? (until = at + ttlMs) : lose(`the lock ${name} was taken by another process`)),
        // A blip: the lock is still ours until it expires; the next tick tries again.
        () => (clock() >= until ? lose(`the lock ${name} could not be extended before it expired`) : undefined),
      )
      .finally(() => (extending = null));
  }, Math.max(5, Math.floor(ttlMs / 3)));
  timer.unref();
  return {
    async release() {
      clearInterval(timer);
      // An extension in flight would take the lock again after the unlock.
      await extending;
      if (!lost) await ledger.unlock(name, owner);
    },
  };
}
