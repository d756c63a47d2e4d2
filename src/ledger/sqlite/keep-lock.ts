/**
 * A named lock kept in the ledger's own rows while its holder works (SQLite,
 * whose file one process serves): the lock's time to live can then be short,
 * so that a holder that stops extending it stops nobody for long, whatever
 * the work's duration. The lock is extended every third of its time to live;
 * when an extension is refused (another owner took the lock after it expired)
 * or the ledger has not answered until it would have expired, the lock's
 * signal is aborted and the holder must stop.
 *
 * PostgreSQL's named locks are not rows but session advisory locks, which end
 * with their holder's connection (postgres/session-locks.ts).
 */
import type { HeldLock } from "../admin/admin-roles.js";

/** The row locks of a ledger that has them: take or extend, and let go. */
export interface RowLocks {
  tryLock(name: string, owner: string, now: number, ttlMs: number): Promise<boolean>;
  unlock(name: string, owner: string): Promise<void>;
}

/** Takes the row lock `name` for `owner` if it is free (or expired), and keeps it until released; null if another owner has it. */
export async function holdRowLock(
  locks: RowLocks,
  name: string,
  owner: string,
  clock: () => number,
  ttlMs: number,
): Promise<HeldLock | null> {
  if (!(await locks.tryLock(name, owner, clock(), ttlMs))) return null;
  return keepLock({ locks, name, owner, clock, ttlMs });
}

/** Keeps a row lock just taken by `owner`, extending it until released. */
export function keepLock(o: { locks: RowLocks; name: string; owner: string; clock: () => number; ttlMs: number }): HeldLock {
  const { locks, name, owner, clock, ttlMs } = o;
  const lost = new AbortController();
  let until = clock() + ttlMs;
  let extending: Promise<unknown> | null = null;
  const lose = (reason: string) => {
    if (lost.signal.aborted) return;
    clearInterval(timer);
    lost.abort(new Error(reason));
  };
  const timer = setInterval(() => {
    if (extending || lost.signal.aborted) return;
    const at = clock();
    extending = locks
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
    signal: lost.signal,
    async release() {
      clearInterval(timer);
      // An extension in flight would take the lock again after the unlock.
      await extending;
      if (!lost.signal.aborted) await locks.unlock(name, owner);
    },
  };
}
