/**
 * Opening a SQLite ledger file: the durability settings every connection to
 * it gets, and its migrations. `SqliteLedger` opens its file through these;
 * the operator CLI, the benchmarks and the tests call them directly.
 */
import Database from "better-sqlite3";
import { SchemaBehindError } from "../admin/schema-behind-error.js";
import { prepareSqliteFile } from "./files.js";
import { SQLITE_MIGRATIONS } from "./migrations.js";

export interface SqliteLedgerOptions {
  /** How long a writer waits for another process's transaction before failing; generous, since waits are short. */
  busyTimeoutMs?: number;
  /** false: throw SchemaBehindError on a schema that is behind, instead of migrating it. */
  migrate?: boolean;
  /**
   * This process serves the file as the app: refuse to open it while another
   * process serves it, and take over the locks of one that died.
   */
  serve?: boolean;
  /**
   * false: operations write no lease events (`events` stays empty), for the
   * benchmark that measures what events cost. Default true.
   */
  events?: boolean;
}

/** Opens (creating if needed) a SQLite database with the ledger's durability settings and migrates it. */
export function openSqlite(file: string, opts: SqliteLedgerOptions = {}): Database.Database {
  if (file !== ":memory:") prepareSqliteFile(file);
  const db = new Database(file);
  // A concurrent writer waits instead of surfacing SQLITE_BUSY to the caller.
  db.pragma(`busy_timeout = ${opts.busyTimeoutMs ?? 60_000}`);
  if (opts.migrate === false) {
    // Before any pragma that writes: a database refused is left as it was.
    const version = { current: db.pragma("user_version", { simple: true }) as number, latest: SQLITE_MIGRATIONS.length };
    if (version.current < version.latest) {
      db.close();
      throw new SchemaBehindError(version);
    }
  }
  db.pragma("journal_mode = WAL");
  // FULL, not NORMAL: under NORMAL a committed transaction can roll back after
  // an OS crash or power loss, and a token already handed out would be handed
  // to someone else.
  db.pragma("synchronous = FULL");
  // Checkpoint every 4,000 WAL frames, not SQLite's 1,000. A lease operation
  // writes about 8 pages (the lease row, the history row, the board's index
  // entries and counts), so at 1,000 frames the connection checkpointed every
  // ~130 operations, each time copying the ~200 distinct pages those frames
  // held back into the database file and fsyncing it: 1.5 page writes per
  // operation. Most frames rewrite the same hot pages (the history's last
  // page, the indexes' leaves), so 4 times the frames hold about 1.4 times
  // the distinct pages: 0.5 page writes per operation, and a quarter of the
  // database fsyncs. 4,000 frames (about 16 MiB of WAL) still fit the first
  // block of the WAL index (4,062 frames), so a read looks up one hash table.
  // Durability is the same: every commit is in the fsynced WAL.
  db.pragma("wal_autocheckpoint = 4000");
  db.pragma("foreign_keys = ON");
  if (opts.migrate ?? true) migrateSqlite(db);
  return db;
}

/** Applies the migrations the database has not seen yet, each in its own IMMEDIATE transaction. */
export function migrateSqlite(db: Database.Database, upTo = SQLITE_MIGRATIONS.length): number {
  for (;;) {
    const step = db.transaction(() => {
      const version = db.pragma("user_version", { simple: true }) as number;
      if (version >= upTo) return false;
      db.exec(SQLITE_MIGRATIONS[version]!);
      db.pragma(`user_version = ${version + 1}`);
      return true;
    });
    // IMMEDIATE: two processes starting at once must not both run a migration.
    if (!step.immediate()) break;
  }
  return db.pragma("user_version", { simple: true }) as number;
}
