/**
 * Opens the ledger named by `DATABASE_URL`: a `postgres://` URL selects
 * PostgreSQL (for several replicas); anything else is a SQLite file path
 * (optionally written `sqlite:PATH` or `file:PATH`), `./data/leases.db` by
 * default.
 */
import { DatabaseConfigError } from "./admin/database-config-error.js";
import type { Ledger } from "./ledger.js";

export const DEFAULT_DATABASE_URL = "./data/leases.db";

export function isPostgresUrl(url: string): boolean {
  return /^postgres(ql)?:\/\//i.test(url);
}

export function sqlitePath(url: string): string {
  return url.replace(/^(sqlite|file):(\/\/)?/i, "");
}

/**
 * Which backend `url` names. Any other scheme (mysql://, redis://, a typo) is
 * refused: taken as a path it would quietly create a SQLite file named
 * `./mysql:/...`, and the operator would think their database was in use.
 */
export function databaseKind(url: string): "postgres" | "sqlite" {
  if (isPostgresUrl(url)) return "postgres";
  const scheme = /^([a-z][a-z0-9+.-]*):\/\//i.exec(url)?.[1];
  if (scheme && !/^(sqlite|file)$/i.test(scheme)) {
    throw new DatabaseConfigError(`DATABASE_URL uses ${scheme}://, which issue-leases does not support: set it to a SQLite file path or a postgres:// URL`);
  }
  return "sqlite";
}

/** The database for a log line, without credentials: host:port/db and schema for PostgreSQL, the file for SQLite. */
export function describeDatabase(url: string, schema = "public"): string {
  if (databaseKind(url) === "sqlite") return `SQLite ${sqlitePath(url)}`;
  try {
    const u = new URL(url);
    return `PostgreSQL ${u.hostname}:${u.port || "5432"}${u.pathname} schema ${schema}`;
  } catch {
    return "PostgreSQL (DATABASE_URL is not a valid URL)";
  }
}

/**
 * Opens the ledger, applying the migrations it lacks; with `migrate: false`,
 * throws SchemaBehindError instead of changing a schema that is behind.
 */
export async function openLedger(
  url: string = DEFAULT_DATABASE_URL,
  opts: {
    migrate?: boolean;
    /** The app serving a SQLite file (one process per file). */
    serve?: boolean;
    /** PostgreSQL: told of each transaction rolled back for a deadlock or serialization failure and run again. */
    onConflict?: (sqlstate: string) => void;
    /** PostgreSQL: the schema (DATABASE_SCHEMA); default public. */
    schema?: string;
    /** PostgreSQL: the most connections of the pool (DATABASE_POOL_SIZE); default the store's. */
    poolSize?: number;
  } = {},
): Promise<Ledger> {
  const migrate = opts.migrate ?? true;
  if (databaseKind(url) === "postgres") {
    const { openPostgres } = await import("./postgres/postgres-ledger.js");
    return openPostgres({ connectionString: url, schema: opts.schema || undefined, poolSize: opts.poolSize, migrate, onConflict: opts.onConflict });
  }
  const { SqliteLedger } = await import("./sqlite/sqlite-ledger.js");
  const file = sqlitePath(url);
  try {
    return new SqliteLedger(file, { migrate, serve: opts.serve });
  } catch (error) {
    // Refusals that already say what to do (imported by name: better-sqlite3 loads only for SQLite).
    if (["AlreadyServedError", "SchemaBehindError"].includes((error as Error).name)) throw error;
    // mkdir or open failed (ENOTDIR, EACCES, SQLITE_CANTOPEN, not a database): the path is what to fix.
    const { code, message } = error as { code?: string; message: string };
    throw new DatabaseConfigError(`cannot open database at ${file} (${code ? `${code}: ` : ""}${message.split("\n")[0]}): check DATABASE_URL`, { cause: error });
  }
}
