/**
 * `issue-leases backup FILE`: a consistent copy of a SQLite ledger, taken
 * while the app runs. SQLite's online backup API reads one snapshot in a
 * read transaction, which in WAL mode never blocks the app's writers; the
 * CLI opens the file as a plain reader and never takes the app's `.serving`
 * lock. The copy is written under a temporary name and renamed once checked,
 * so FILE is either absent or a whole backup. PostgreSQL has `pg_dump`.
 */
import { closeSync, existsSync, fsyncSync, openSync, realpathSync, renameSync, rmSync } from "node:fs";
import { basename, dirname, resolve } from "node:path";
import Database from "better-sqlite3";
import { createPrivateFile, makeFolderFor } from "../ledger/sqlite/files.js";
import { CliError, EXIT, usageError } from "./cli-error.js";

export const BACKUP_HELP = `Usage: issue-leases backup FILE [--force]

Copies the SQLite ledger to FILE, safely while the app runs and applies
deliveries: one consistent snapshot (SQLite's online backup API), checked,
then renamed into place, so FILE is never half written; its folder is made
when missing. FILE is a single
self-contained SQLite file (no -wal beside it). Restore it with
\`issue-leases restore FILE\`.

  --force  replace FILE if it exists (refused otherwise: exit 1); never the
           database itself or its -wal, -shm, .serving files (exit 2)

PostgreSQL: nothing is copied; the \`pg_dump\` command to use instead is
printed, and the exit code is 2.

Database: --database URL, else $DATABASE_URL (also read from ./.env), else
./data/leases.db, as for the other commands.`;

/** What a backup holds, for the operator to check against what they expect. */
export interface LedgerSummary {
  schemaVersion: number;
  leases: number;
  highestToken: number;
}

/** Reads the summary of a ledger file; throws CliError when it is not one. */
export function summarize(db: Database.Database, what: string): LedgerSummary {
  const check = db.pragma("quick_check", { simple: true });
  if (check !== "ok") throw new CliError(`${what} is damaged (SQLite quick_check: ${String(check)})`, EXIT.failure);
  const schemaVersion = db.pragma("user_version", { simple: true }) as number;
  const hasLeases = db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'leases'").get();
  if (schemaVersion < 1 || !hasLeases) throw new CliError(`${what} is not an issue-leases ledger (no leases table)`, EXIT.failure);
  const { leases, top } = db.prepare("SELECT count(*) AS leases, coalesce(max(token), 0) AS top FROM leases").get() as {
    leases: number;
    top: number;
  };
  // The history keeps the tokens of ended tenures: on a row that was never rewritten they are the same, but read both.
  const inHistory = db.prepare("SELECT coalesce(max(token), 0) FROM history").pluck().get() as number;
  return { schemaVersion, leases, highestToken: Math.max(top, inHistory) };
}

/** Flushes a file or directory to disk: a rename is durable only once its directory is. */
export function fsyncPath(path: string): void {
  const fd = openSync(path, "r");
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

export async function backupSqlite(source: string, target: string, force: boolean): Promise<LedgerSummary> {
  const dest = resolve(target);
  // With --force the copy would be renamed over the live file (or its -wal): the app would go on writing to the unlinked one.
  const own = [source, `${source}-wal`, `${source}-shm`, `${source}-journal`, `${source}.serving`].map((f) => resolve(f));
  if (own.includes(dest) || (existsSync(dest) && existsSync(source) && realpathSync(dest) === realpathSync(source))) {
    throw usageError(`${dest} is the database itself (or one of its files): back it up to another file`);
  }
  if (existsSync(dest) && !force) {
    throw new CliError(`${dest} exists: choose another name, or add --force to replace it`, EXIT.failure);
  }
  if (!existsSync(source)) {
    throw new CliError(`no database at ${source}: check DATABASE_URL or --database`, EXIT.failure);
  }
  const tmp = `${dest}.tmp-${process.pid}`;
  try {
    // `backup backups/leases-$(date +%F).db` on a fresh clone: no backups/ yet.
    makeFolderFor(tmp);
  } catch (err) {
    const { code, message } = err as NodeJS.ErrnoException;
    const why = code === "EEXIST" || code === "ENOTDIR" ? `a file is in the way: ${code}` : (code ?? message);
    throw new CliError(`cannot make the folder ${dirname(dest)} to write ${basename(dest)} in (${why})`, EXIT.failure);
  }
  const clean = () => {
    for (const f of [tmp, `${tmp}-wal`, `${tmp}-shm`, `${tmp}-journal`]) rmSync(f, { force: true });
  };
  clean();
  try {
    // The copy holds what the ledger holds: owner only, as the ledger (SQLite would make it 0644).
    createPrivateFile(tmp);
    const db = new Database(source, { fileMustExist: true });
    try {
      db.pragma("busy_timeout = 60000");
      // All pages in one step: one read transaction, one snapshot. Copied in
      // slices, a backup restarts whenever the app commits between two of
      // them, and under steady deliveries might never finish.
      await db.backup(tmp, { progress: () => 0x7fffffff });
    } finally {
      db.close();
    }
    const copy = new Database(tmp, { fileMustExist: true });
    let summary: LedgerSummary;
    try {
      // A backup is one file to copy elsewhere: no -wal to forget beside it.
      copy.pragma("journal_mode = DELETE");
      summary = summarize(copy, `the copy of ${source}`);
    } finally {
      copy.close();
    }
    fsyncPath(tmp);
    renameSync(tmp, dest);
    fsyncPath(dirname(dest));
    return summary;
  } catch (err) {
    clean();
    throw err;
  }
}

/** The connection string without its password or query string (which may carry one), for a command line. */
export function urlWithoutPassword(url: string): string {
  try {
    const u = new URL(url);
    return `${u.protocol}//${u.username ? `${u.username}@` : ""}${u.host}${u.pathname}`;
  } catch {
    return "postgres://USER@HOST:PORT/DATABASE";
  }
}

/** What an operator runs to back up the PostgreSQL ledger: the schema holding its tables, in pg_dump's custom format. */
export function pgDumpCommand(url: string, schema: string, file: string): string {
  return `pg_dump --format=custom --schema=${schema} --file=${shellWord(file)} ${shellWord(urlWithoutPassword(url))}`;
}

export function shellWord(text: string): string {
  return /^[\w@%+=:,./-]+$/.test(text) ? text : `'${text.replace(/'/g, `'\\''`)}'`;
}
