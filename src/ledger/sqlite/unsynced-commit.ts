/**
 * Commits that do not wait for the disk: `synchronous = NORMAL` for one
 * write, then back to the connection's level (FULL for a ledger).
 *
 * In WAL mode such a commit survives the process dying; only an OS crash or
 * a power cut can lose it, and then only together with every commit after
 * it (the WAL is replayed in order, and the next synced commit syncs the
 * frames before it too). So it is for writes whose loss repeats work that is
 * safe to repeat, never for a lease: a board card (the next event brings the
 * title again), and the outbox's record of an attempt it applied (what it
 * applied, that it is done), whose loss has the effect applied again, as if
 * the process had died before recording it.
 *
 * The pragmas are prepared once: `db.pragma()` prepares its statement at
 * each call, which cost more than the write it wrapped.
 */
import type Database from "better-sqlite3";

export class UnsyncedCommit {
  private readonly level: Database.Statement<[], number>;
  private readonly normal: Database.Statement;
  private readonly back = new Map<number, Database.Statement>();

  constructor(private readonly db: Database.Database) {
    this.level = db.prepare<[], number>("PRAGMA synchronous").pluck();
    this.normal = db.prepare("PRAGMA synchronous = NORMAL");
  }

  /** Runs `write` (one statement, or a transaction it opens) with its commit unsynced; inside a transaction, as it is. */
  run<T>(write: () => T): T {
    // The level of a transaction is its COMMIT's: one already open commits as it would have.
    if (this.db.inTransaction) return write();
    const sync = this.level.get()!;
    if (sync <= 1) return write();
    this.normal.run();
    try {
      return write();
    } finally {
      this.restore(sync).run();
    }
  }

  private restore(sync: number): Database.Statement {
    let st = this.back.get(sync);
    if (!st) this.back.set(sync, (st = this.db.prepare(`PRAGMA synchronous = ${sync}`)));
    return st;
  }
}
