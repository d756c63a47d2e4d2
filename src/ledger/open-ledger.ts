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

export async function openLedger(url: string = DEFAULT_DATABASE_URL): Promise<Ledger> {
  if (isPostgresUrl(url)) {
    const { openPostgres } = await import("./postgres.js");
    return openPostgres({ connectionString: url, schema: process.env.DATABASE_SCHEMA || undefined });
  }
  const { SqliteLedger } = await import("./sqlite.js");
  return new SqliteLedger(sqlitePath(url));
}
