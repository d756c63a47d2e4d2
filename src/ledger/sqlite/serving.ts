/**
 * One app process per SQLite file. SQLite keeps one file consistent across
 * processes, but the outbox's and the sweeper's locks assume that every
 * holder of a lock is alive or has expired: a second app on the same file
 * would apply the same effects, and one that died would hold its locks until
 * they expire. So the serving process holds an exclusive lock on a small
 * companion file (`<file>.serving`) for as long as it lives. The operating
 * system lets go of it when the process dies, even by `kill -9`, so the next
 * process knows at once that the locks it finds in the ledger are a dead
 * process's, and takes them over. The operator CLI reads the ledger itself
 * and leaves this file alone, except `issue-leases restore`, which takes the
 * lock so that no app serves the file while it is replaced.
 */
import Database from "better-sqlite3";
import { prepareSqliteFile } from "./files.js";

export class AlreadyServedError extends Error {
  constructor(readonly file: string) {
    super(
      `another issue-leases process is already serving ${file}: one app process per SQLite file. ` +
        "Stop the other process first, or use PostgreSQL (DATABASE_URL=postgres://...) to run several replicas.",
    );
    this.name = "AlreadyServedError";
  }
}

/** Takes the serving lock of `file`, or throws AlreadyServedError; close the handle returned to let go of it. */
export function claimServing(file: string): Database.Database {
  // Taken before the ledger is opened, so this is where a new folder is made.
  prepareSqliteFile(`${file}.serving`);
  const guard = new Database(`${file}.serving`);
  try {
    // Never wait: the other process holds the lock for as long as it lives.
    guard.pragma("busy_timeout = 0");
    // In exclusive mode the lock taken by the first write is kept until the connection closes.
    guard.pragma("locking_mode = EXCLUSIVE");
    guard.exec("CREATE TABLE IF NOT EXISTS serving (pid INTEGER NOT NULL, since INTEGER NOT NULL)");
    guard.exec(`BEGIN EXCLUSIVE; DELETE FROM serving; INSERT INTO serving VALUES (${process.pid}, ${Date.now()}); COMMIT`);
    return guard;
  } catch (error) {
    guard.close();
    if ((error as { code?: string }).code?.startsWith("SQLITE_BUSY") || (error as { code?: string }).code === "SQLITE_LOCKED") {
      throw new AlreadyServedError(file);
    }
    throw error;
  }
}
