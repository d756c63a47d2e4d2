/**
 * Group commit for the SQLite ledger: the operations asked for while the
 * event loop was busy commit together, each in a savepoint of one
 * `BEGIN IMMEDIATE` transaction, so that one fsync covers them all.
 *
 * What a caller sees does not change. Its operation runs alone against the
 * state the ones before it left (one connection, one at a time); one that
 * throws is rolled back to its savepoint and rejects, the others go on; its
 * promise settles only once the COMMIT has returned, so an answer is never
 * given for what a crash could still undo. A COMMIT that fails (or an error
 * after which SQLite rolled the whole transaction back) rejects every
 * operation of the group, none of which then happened.
 *
 * Why: with `synchronous = FULL` the fsync of a commit costs about twice
 * the statements of a claim, and the app's server runs one transaction per
 * request on one thread. Requests that arrive together (a burst of
 * webhooks, many agents heartbeating) would each wait for their own fsync.
 * Operations are taken up when the event loop has handled the I/O it had
 * (`setImmediate`), so one asked for alone waits for nothing but that.
 */
import type Database from "better-sqlite3";

interface Asked {
  work: () => unknown;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
}

type Outcome = { ok: true; value: unknown } | { ok: false; error: unknown };

export class GroupCommit {
  private queue: Asked[] = [];
  /** Runs its argument as one transaction (BEGIN IMMEDIATE when called `.immediate`); nested, a savepoint. */
  private readonly tx: Database.Transaction<(f: () => unknown) => unknown>;
  private readonly group: Database.Transaction<(batch: Asked[]) => Outcome[]>;

  constructor(private readonly db: Database.Database) {
    this.tx = db.transaction((f: () => unknown) => f());
    this.group = db.transaction((batch: Asked[]) =>
      batch.map((asked): Outcome => {
        try {
          return { ok: true, value: this.tx(asked.work) };
        } catch (error) {
          // A savepoint rolled back leaves the others' work in place; an
          // error that made SQLite roll back the whole transaction does not,
          // and nothing after it may run outside one.
          if (!this.db.inTransaction) throw error;
          return { ok: false, error };
        }
      }),
    );
  }

  /** Runs `work` in the next group; settles once the group has committed (or failed). */
  run<T>(work: () => T): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      if (this.queue.length === 0) setImmediate(() => this.flush());
      this.queue.push({ work, resolve: resolve as (value: unknown) => void, reject });
    });
  }

  /** Operations asked for and not yet committed. */
  get waiting(): number {
    return this.queue.length;
  }

  /** Commits what is waiting now, as close() must before the connection goes. */
  flush(): void {
    const batch = this.queue;
    this.queue = [];
    if (batch.length === 0) return;
    if (!this.db.open) {
      const closed = new TypeError("The database connection is not open");
      for (const asked of batch) asked.reject(closed);
      return;
    }
    if (batch.length === 1) {
      // Alone: its own transaction, no savepoint.
      const [only] = batch as [Asked];
      let value: unknown;
      try {
        value = this.tx.immediate(only.work);
      } catch (error) {
        only.reject(error);
        return;
      }
      only.resolve(value);
      return;
    }
    let outcomes: Outcome[];
    try {
      outcomes = this.group.immediate(batch);
    } catch (error) {
      for (const asked of batch) asked.reject(error);
      return;
    }
    outcomes.forEach((outcome, i) => (outcome.ok ? batch[i]!.resolve(outcome.value) : batch[i]!.reject(outcome.error)));
  }
}
