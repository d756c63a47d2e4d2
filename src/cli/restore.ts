/**
 * `issue-leases restore BACKUP`: puts a backup in place of the SQLite ledger,
 * without ever handing out a fencing token twice.
 *
 * The backup knows fewer tokens than GitHub saw: the tenures begun after it
 * are in labels, replies and pull requests, not in the backup. So the restore
 * records a token floor above every token that can have been handed out, and
 * every new tenure, on any issue (even one the backup never saw), gets a
 * token above it (`decide.acquire`). The floor is the highest of: the
 * backup's highest token plus a gap (--token-gap, default 1000: more
 * tenures than any issue sees between two backups), the highest token of
 * the database being replaced when it can still be read, or exactly
 * --token-floor N when the operator knows better (the highest token seen on
 * GitHub). Leases live in the backup stay as they were: their holders hold
 * those tokens already.
 *
 * The whole restore is done on a copy under a temporary name, which is
 * renamed over the database only when complete: a crash leaves the old
 * database or the restored one, never a half-restored one.
 */
import { existsSync, renameSync, rmSync, statSync } from "node:fs";
import { basename, dirname, resolve } from "node:path";
import Database from "better-sqlite3";
import { SQLITE_MIGRATIONS } from "../ledger/sqlite/migrations.js";
import { openSqlite } from "../ledger/sqlite/open.js";
import { createPrivateFile, makeFolderFor } from "../ledger/sqlite/files.js";
import { readTokenFloor, recordTokenFloor } from "../ledger/sqlite/token-floor.js";
import { AlreadyServedError, claimServing } from "../ledger/sqlite/serving.js";
import { fsyncPath, type LedgerSummary, summarize } from "./backup.js";
import { CliError, EXIT, usageError } from "./cli-error.js";
import { OPERATOR } from "./operator-release.js";

export const DEFAULT_TOKEN_GAP = 1000;

export const RESTORE_HELP = `Usage: issue-leases restore BACKUP [--token-gap N | --token-floor N]

Replaces the SQLite ledger with BACKUP (made by \`issue-leases backup\`).
Stop the app first: a restore is refused while an app serves the database.
The database replaced is kept beside it, as <file>.before-restore-<time>.

A token is never handed out twice, even though the backup does not know the
tokens handed out after it was made: the restore records a token floor, and
the next tenure of every issue gets a token above it. The floor is the
backup's highest token plus the gap, or the highest token of the database
replaced if that is higher; every issue's history records the restore.

  --token-gap N    tenures any one issue may have had since the backup (default ${DEFAULT_TOKEN_GAP})
  --token-floor N  the floor itself, e.g. the highest token seen on GitHub; at
                   least the backup's highest token

PostgreSQL: nothing is restored; two commands are printed, exit 2: the
\`pg_restore\` to run (app stopped), then \`issue-leases token-floor\` with
the same --token-gap or --token-floor (as --gap or --floor), before the app
starts again.

Database: --database URL, else $DATABASE_URL (also read from ./.env), else
./data/leases.db, as for the other commands.`;

export interface RestoreOptions {
  backup: string;
  target: string;
  /** The floor itself, or null to compute it from the gap. */
  floor: number | null;
  gap: number;
  now: number;
}

export interface RestoreSummary {
  backup: LedgerSummary;
  /** The schema version of the backup as it was (the copy is migrated to the latest). */
  migratedFrom: number;
  /** Where the database replaced was kept, or null when there was none. */
  aside: string | null;
  floor: number;
  /** The issues whose history records the restore. */
  issues: number;
}

/** A non-negative integer option, or a usage error naming it. */
export function integerOption(name: string, text: string | undefined, min: number): number | null {
  if (text === undefined) return null;
  if (!/^\d{1,15}$/.test(text) || Number(text) < min) {
    throw usageError(`--${name} needs an integer of at least ${min}, not ${JSON.stringify(text)}`);
  }
  return Number(text);
}

function stamp(now: number): string {
  return new Date(now).toISOString().replace(/[:.]/g, "-");
}

/**
 * Copies the database being replaced aside (through SQLite: what its -wal
 * holds is included) and returns its highest token, or throws when another
 * process still has it open: renaming the restored file over it then would
 * leave its -wal beside a database it does not belong to.
 */
async function keepAside(target: string, now: number): Promise<{ aside: string; highestToken: number | null }> {
  const aside = `${target}.before-restore-${stamp(now)}`;
  let highestToken: number | null = null;
  let db: Database.Database;
  try {
    db = new Database(target, { fileMustExist: true });
  } catch (err) {
    throw new CliError(
      `cannot read the database being replaced, ${target} (${(err as Error).message}): ` +
        "move it aside yourself (with its -wal and -shm files) and run restore again",
      EXIT.failure,
    );
  }
  try {
    createPrivateFile(aside);
    await db.backup(aside, { progress: () => 0x7fffffff });
    try {
      highestToken = summarize(db, target).highestToken;
    } catch {
      // Damaged (the reason to restore, perhaps): the floor then rests on the backup and the gap.
    }
  } finally {
    db.close();
  }
  const wal = `${target}-wal`;
  if (existsSync(wal) && statSync(wal).size > 0) {
    throw new CliError(
      `another process still has ${target} open (its -wal file remains): stop it (an issue-leases command?) and run restore again`,
      EXIT.failure,
    );
  }
  return { aside, highestToken };
}

export async function restoreSqlite(opts: RestoreOptions): Promise<RestoreSummary> {
  const backup = resolve(opts.backup);
  const target = resolve(opts.target);
  if (!existsSync(backup)) throw new CliError(`no backup at ${backup}`, EXIT.failure);
  if (backup === target) throw usageError(`${backup} is the database itself: name a backup made by \`issue-leases backup\``);
  makeFolderFor(target);

  // Held to the end: no app may start on the file while it is replaced.
  let guard: Database.Database;
  try {
    guard = claimServing(target);
  } catch (err) {
    if (!(err instanceof AlreadyServedError)) throw err;
    throw new CliError(`an app is serving ${target}: stop it first, then restore, then start it again`, EXIT.failure);
  }
  const tmp = `${target}.restore-${process.pid}.tmp`;
  const clean = () => {
    for (const f of [tmp, `${tmp}-wal`, `${tmp}-shm`, `${tmp}-journal`]) rmSync(f, { force: true });
  };
  try {
    clean();
    const source = new Database(backup, { fileMustExist: true });
    let before: LedgerSummary;
    try {
      before = summarize(source, backup);
      if (before.schemaVersion > SQLITE_MIGRATIONS.length) {
        throw new CliError(
          `${backup} is at schema version ${before.schemaVersion}, newer than this issue-leases knows (${SQLITE_MIGRATIONS.length}): restore it with the version that made it`,
          EXIT.failure,
        );
      }
      if (opts.floor !== null && opts.floor < before.highestToken) {
        throw usageError(`--token-floor ${opts.floor} is below the backup's highest token, ${before.highestToken}`);
      }
      // Owner only, as the app makes the ledger (the backup API would make it 0644).
      createPrivateFile(tmp);
      await source.backup(tmp, { progress: () => 0x7fffffff });
    } finally {
      source.close();
    }

    const replaced = existsSync(target) ? await keepAside(target, opts.now) : null;
    let floor = Math.max(opts.floor ?? before.highestToken + opts.gap, replaced?.highestToken ?? 0);

    // No app serves the copy (and the file it replaces is ours): migrating it here is safe.
    const db = openSqlite(tmp, { migrate: true });
    let issues: number;
    try {
      // A backup taken after an earlier restore carries that restore's floor: never lower it.
      floor = Math.max(floor, readTokenFloor(db));
      issues = db.transaction(() => recordTokenFloor(db, floor, basename(backup), "restored", OPERATOR, opts.now)).immediate();
      db.pragma("wal_checkpoint(TRUNCATE)");
    } finally {
      db.close();
    }
    fsyncPath(tmp);
    renameSync(tmp, target);
    fsyncPath(dirname(target));
    return { backup: before, migratedFrom: before.schemaVersion, aside: replaced?.aside ?? null, floor, issues };
  } catch (err) {
    clean();
    throw err;
  } finally {
    guard.close();
  }
}
