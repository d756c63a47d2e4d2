/**
 * Opens the ledger named by `DATABASE_URL`: a `postgres://` URL selects
 * PostgreSQL (for several replicas); anything else is a SQLite file path
 * (optionally written `sqlite:PATH` or `file:PATH`), `./data/leases.db` by
 * default.
 */
import { SchemaBehindError } from "./schema-behind-error.js";
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
export async function openLedger(url: string = DEFAULT_DATABASE_URL, opts: { migrate?: boolean } = {}): Promise<Ledger> {
  const migrate = opts.migrate ?? true;
  if (isPostgresUrl(url)) {
    const { openPostgres } = await import("./postgres.js");
    return openPostgres({ connectionString: url, schema: process.env.DATABASE_SCHEMA || undefined, migrate });
  }
  const file = sqlitePath(url);
  if (!migrate) {
    // Read before opening: the ledger's statements need the latest schema.
    const [{ default: Database }, { SQLITE_MIGRATIONS }] = await Promise.all([import("better-sqlite3"), import("./sqlite-migrations.js")]);
    const db = new Database(file, { readonly: true, fileMustExist: true });
    try {
      const version = { current: db.pragma("user_version", { simple: true }) as number, latest: SQLITE_MIGRATIONS.length };
      if (version.current < version.latest) throw new SchemaBehindError(version);
    } finally {
      db.close();
    }
  }
  const { SqliteLedger } = await import("./sqlite.js");
  return new SqliteLedger(file);
}
