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
 * The pragmas are run through `db.pragma()` at each call, never prepared
 * once: SQLite compiles a PRAGMA's effect into its statement, so preparing
 * `PRAGMA synchronous = NORMAL` sets the connection to NORMAL there and then
 * (for every commit after, leases included), and a prepared
 * `PRAGMA synchronous` read answers the level it was prepared at
 * (test/ledger/sqlite/unsynced-commit.test.ts).
 */
import type Database from "better-sqlite3";

export class UnsyncedCommit {
  constructor(private readonly db: Database.Database) {}

  /** Runs `write` (one statement, or a transaction it opens) with its commit unsynced; inside a transaction, as it is. */
  run<T>(write: () => T): T {
    // The level of a transaction is its COMMIT's: one already open commits as it would have.
    if (this.db.inTransaction) return write();
    const sync = this.db.pragma("synchronous", { simple: true }) as number;
    if (sync <= 1) return write();
    this.db.pragma("synchronous = NORMAL");
    try {
      return write();
    } finally {
      this.db.pragma(`synchronous = ${sync}`);
    }
  }
}
