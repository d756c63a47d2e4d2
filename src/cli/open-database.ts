/**
 * Opening the ledger for an operator command: without migrating, and with
 * an error that says which database was meant and what to check.
 */
import { existsSync } from "node:fs";
import { resolve } from "node:path";
import { isPostgresUrl, openLedger, sqlitePath } from "../ledger/open-ledger.js";
import { databaseOptions } from "../settings/database-settings.js";
import { rawValue } from "../settings/settings-table.js";
import { SchemaBehindError } from "../ledger/admin/schema-behind-error.js";
import type { Ledger } from "../ledger/ledger.js";
import { CliError, EXIT } from "./cli-error.js";
import { schemaBehind } from "./doctor-checks.js";

/** Where the database is, as it may be shown: no password (nor query string, which may carry one). */
export function describeDatabase(url: string, env: NodeJS.ProcessEnv): string {
  if (!isPostgresUrl(url)) {
    // Absolute: the operator sees which file was read, whatever directory the CLI ran in.
    const file = sqlitePath(url);
    return file === ":memory:" ? file : resolve(file);
  }
  try {
    const u = new URL(url);
    const given = rawValue(env, "DATABASE_SCHEMA");
    const schema = given ? ` schema ${given}` : "";
    return `${u.protocol}//${u.username ? `${u.username}@` : ""}${u.host}${u.pathname}${schema}`;
  } catch {
    return "the PostgreSQL server in DATABASE_URL";
  }
}

export function oneLine(text: string): string {
  return text.replace(/\s+/g, " ").trim();
}

/** A database whose schema is behind this CLI's: a failure, with what to do about it. */
export class SchemaBehindCliError extends CliError {
  constructor(
    where: string,
    readonly behind: SchemaBehindError,
  ) {
    super(`the database at ${where} is ${schemaBehind(behind.version)}`, EXIT.failure);
  }
}

export async function openDatabase(url: string, env: NodeJS.ProcessEnv): Promise<Ledger> {
  const where = describeDatabase(url, env);
  if (!isPostgresUrl(url)) {
    const file = sqlitePath(url);
    // Opening a missing file would create an empty ledger and answer "no leases": a typo must not look like that.
    if (file !== ":memory:" && !existsSync(file)) {
      throw new CliError(
        `no database at ${file}: check DATABASE_URL or --database (the app creates the file when it first starts)`,
        EXIT.failure,
      );
    }
  }
  try {
    // Not migrating: an older app may be serving this database, and a
    // migration could drop what its statements use.
    return await openLedger(url, { ...databaseOptions(env), migrate: false });
  } catch (err) {
    if (err instanceof SchemaBehindError) throw new SchemaBehindCliError(where, err);
    const message = oneLine(err instanceof Error ? err.message : String(err));
    // openPostgres already says what to check when the server cannot be reached.
    if (/check DATABASE_URL/.test(message)) throw new CliError(message, EXIT.failure);
    throw new CliError(`cannot open database at ${where} (${message}): check DATABASE_URL or --database`, EXIT.failure);
  }
}
