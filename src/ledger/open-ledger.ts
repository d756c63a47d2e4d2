/**
 * Opens the ledger named by `DATABASE_URL`: a `postgres://` URL selects
 * PostgreSQL (for several replicas); anything else is a SQLite file path
 * (optionally written `sqlite:PATH` or `file:PATH`), `./data/leases.db` by
 * default.
 */
import type { Ledger } from "./types.js";

export const DEFAULT_DATABASE_URL = "./data/leases.db";

export function isPostgresUrl(url: string): boolean {
  return /^postgres(ql)?:\/\//i.test(url);
}

export function sqlitePath(url: string): string {
  return url.replace(/^(sqlite|file):(\/\/)?/i, "");
}

/**
 * Opens the ledger, applying the migrations it lacks; with `migrate: false`,
 * throws SchemaBehindError instead of changing a schema that is behind.
 */
export async function openLedger(
  url: string = DEFAULT_DATABASE_URL,
  opts: { migrate?: boolean; /** The app serving a SQLite file (one process per file). */ serve?: boolean } = {},
): Promise<Ledger> {
  const migrate = opts.migrate ?? true;
  if (isPostgresUrl(url)) {
    const { openPostgres } = await import("./postgres.js");
    return openPostgres({ connectionString: url, schema: process.env.DATABASE_SCHEMA || undefined, migrate });
  }
  const { SqliteLedger } = await import("./sqlite.js");
  return new SqliteLedger(sqlitePath(url), { migrate, serve: opts.serve });
}
