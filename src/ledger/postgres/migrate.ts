/**
 * Runs postgres/migrations.ts's list on a schema, and reads how far a
 * schema has come: `PostgresLedger.migrate`, `schemaVersion` and
 * `openPostgres` (postgres-ledger.ts), which refuses a schema left behind.
 */
import pg from "pg";
import { errorCode } from "./connection.js";
import { POSTGRES_MIGRATIONS } from "./migrations.js";
import type { SchemaVersion } from "../admin/admin-roles.js";

/** Key for `pg_advisory_xact_lock(int, int)` held while migrating one schema; any constant, "lease" in hex-speak. */
const MIGRATION_LOCK = 0x1ea5e;

/** Applies the migrations the schema has not seen yet, each in its own transaction; returns the schema's version. */
export async function migratePostgres(pool: pg.Pool, schema: string, upTo = POSTGRES_MIGRATIONS.length): Promise<number> {
  const s = pg.escapeIdentifier(schema);
  for (;;) {
    const client = await pool.connect();
    // A socket error between statements surfaces as the next statement's error;
    // unlistened, it would crash the process.
    const ignore = (): void => undefined;
    client.on("error", ignore);
    let failed: unknown;
    try {
      await client.query("BEGIN");
      // Replicas starting at once queue here, so each migration runs once. The
      // lock is per schema: tests migrating their own schemas do not wait on each other.
      await client.query("SELECT pg_advisory_xact_lock($1, hashtext($2))", [MIGRATION_LOCK, schema]);
      const exists = await client.query("SELECT 1 FROM pg_namespace WHERE nspname = $1", [schema]);
      // Checked first: a role allowed to use an existing schema may not be allowed to create one.
      if (exists.rowCount === 0) await client.query(`CREATE SCHEMA ${s}`);
      await client.query(
        `CREATE TABLE IF NOT EXISTS ${s}.schema_version (version integer PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())`,
      );
      const { rows } = await client.query<{ version: number }>(`SELECT COALESCE(MAX(version), 0) AS version FROM ${s}.schema_version`);
      const version = rows[0]!.version;
      if (version >= upTo) {
        await client.query("COMMIT");
        return version;
      }
      try {
        await client.query(POSTGRES_MIGRATIONS[version]!(s));
      } catch (err) {
        throw new Error(`migration ${version + 1} of schema ${s} failed: ${(err as Error).message}`, { cause: err });
      }
      await client.query(`INSERT INTO ${s}.schema_version (version) VALUES ($1)`, [version + 1]);
      await client.query("COMMIT");
    } catch (err) {
      failed = err;
      await client.query("ROLLBACK").catch(() => undefined);
      throw err;
    } finally {
      client.removeListener("error", ignore);
      client.release(failed !== undefined);
    }
  }
}

/** The version of the ledger's schema `schema`: 0 for one never migrated. */
export async function postgresSchemaVersion(pool: pg.Pool, schema: string): Promise<SchemaVersion> {
  try {
    const { rows } = await pool.query<{ version: number }>(
      `SELECT COALESCE(MAX(version), 0) AS version FROM ${pg.escapeIdentifier(schema)}.schema_version`,
    );
    return { current: rows[0]!.version, latest: POSTGRES_MIGRATIONS.length };
  } catch (err) {
    // 42P01, undefined_table: a schema never migrated is at version 0.
    if (errorCode(err) === "42P01") return { current: 0, latest: POSTGRES_MIGRATIONS.length };
    throw err;
  }
}
