/**
 * The `backup` and `restore` commands: arguments, the database named by
 * --database / DATABASE_URL, and what is printed. The work is in backup.ts
 * and restore.ts.
 */
import { resolve } from "node:path";
import { isPostgresUrl, sqlitePath } from "../ledger/open-ledger.js";
import { backupSqlite, pgDumpCommand, shellWord, urlWithoutPassword } from "./backup.js";
import { EXIT, usageError } from "./cli-error.js";
import { DEFAULT_TOKEN_GAP, integerOption, restoreSqlite } from "./restore.js";
import type { CliIo } from "./cli-io.js";
import { tokenFloorCommand } from "./token-floor.js";

type Values = Record<string, string | boolean | undefined>;

function fileArg(positionals: string[], command: "backup" | "restore"): string {
  const [file, ...extra] = positionals;
  const what = command === "backup" ? "FILE to write" : "BACKUP file to restore";
  if (file === undefined) throw usageError(`${command} needs the ${what}; see \`issue-leases ${command} --help\``);
  if (extra.length > 0) throw usageError(`unexpected argument ${extra[0]}; see \`issue-leases ${command} --help\``);
  return file;
}

function sqliteFile(url: string): string {
  const file = sqlitePath(url);
  if (file === ":memory:") throw usageError("an in-memory database has nothing to back up or restore");
  return resolve(file);
}

/**
 * PostgreSQL has its own tools, which copy a live database consistently: the
 * command is printed (stdout, to copy) and the exit code is 2, so that a
 * script expecting a backup file does not carry on.
 */
function postgresAdvice(io: CliIo, line: string, note: string): number {
  io.err(`issue-leases: ${note}`);
  io.out(line);
  return EXIT.usage;
}

export async function runBackup(url: string, positionals: string[], values: Values, io: CliIo): Promise<number> {
  const file = fileArg(positionals, "backup");
  if (isPostgresUrl(url)) {
    const schema = io.env.DATABASE_SCHEMA || "public";
    return postgresAdvice(
      io,
      pgDumpCommand(url, schema, file),
      "the ledger is in PostgreSQL: back it up with pg_dump (password from PGPASSWORD or ~/.pgpass):",
    );
  }
  const source = sqliteFile(url);
  const s = await backupSqlite(source, file, values.force === true);
  io.out(
    `backed up ${source} to ${resolve(file)}: schema version ${s.schemaVersion}, ${s.leases} issue rows, highest token ${s.highestToken}`,
  );
  return EXIT.ok;
}

export async function runRestore(url: string, positionals: string[], values: Values, io: CliIo): Promise<number> {
  const file = fileArg(positionals, "restore");
  const floor = integerOption("token-floor", values["token-floor"] as string | undefined, 1);
  const gap = integerOption("token-gap", values["token-gap"] as string | undefined, 1);
  if (floor !== null && gap !== null) throw usageError("give --token-floor or --token-gap, not both");
  if (isPostgresUrl(url)) {
    const schema = io.env.DATABASE_SCHEMA || "public";
    const raise = floor !== null ? { floor } : { gap: gap ?? DEFAULT_TOKEN_GAP };
    return postgresAdvice(
      io,
      `pg_restore --clean --if-exists --schema=${schema} --dbname=${shellWord(urlWithoutPassword(url))} ${shellWord(file)}\n` +
        tokenFloorCommand(raise),
      "the ledger is in PostgreSQL: with the app stopped, restore it with pg_restore (password from PGPASSWORD or ~/.pgpass), " +
        "then raise the token floor (same DATABASE_URL or --database) so that tokens handed out after the dump are never " +
        "handed out again, then start the app:",
    );
  }
  const target = sqliteFile(url);
  const r = await restoreSqlite({ backup: file, target, floor, gap: gap ?? DEFAULT_TOKEN_GAP, now: io.clock() });
  io.out(
    `restored ${resolve(file)} (schema version ${r.migratedFrom}, highest token ${r.backup.highestToken}) into ${target}.`,
  );
  io.out(r.aside ? `The database it replaced is kept at ${r.aside}.` : "There was no database to replace.");
  io.out(
    `Token floor ${r.floor}: the next tenure of every issue gets a token above it; ` +
      `the history of ${r.issues} issue${r.issues === 1 ? "" : "s"} records the restore. Start the app.`,
  );
  return EXIT.ok;
}
