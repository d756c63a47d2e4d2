/**
 * A fresh PostgreSQL schema per test, in the `test` database, so that tests
 * (and test files running in parallel) never see each other's rows.
 */
import { randomBytes } from "node:crypto";
import pg from "pg";

export const TEST_DATABASE_URL = process.env.TEST_DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/test";

/** Developers without PostgreSQL set SKIP_POSTGRES=1; in CI the suites must fail, not skip, when it is down. */
export const skipPostgres = process.env.SKIP_POSTGRES === "1";

export interface FreshSchema {
  connectionString: string;
  schema: string;
  /** Drops the schema and everything in it. */
  drop(): Promise<void>;
}

/** Runs `fn` on a connection of its own to the test database, outside any ledger (to look at or interfere with it). */
export async function withClient<T>(fn: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: TEST_DATABASE_URL, connectionTimeoutMillis: 5_000 });
  // A server-side disconnect while this short-lived client is idle must not crash the test run.
  client.on("error", () => undefined);
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

/**
 * Creates a uniquely named schema (`t_<random>`). With `create: false` only the
 * name is reserved, for tests of the ledger creating its schema itself;
 * `drop()` removes it either way.
 */
export async function freshSchema(opts: { create?: boolean } = {}): Promise<FreshSchema> {
  const schema = `t_${randomBytes(6).toString("hex")}`;
  const quoted = pg.escapeIdentifier(schema);
  if (opts.create ?? true) await withClient((c) => c.query(`CREATE SCHEMA ${quoted}`));
  return {
    connectionString: TEST_DATABASE_URL,
    schema,
    drop: () => withClient((c) => c.query(`DROP SCHEMA IF EXISTS ${quoted} CASCADE`)).then(() => undefined),
  };
}

/** Whether the test database answers `SELECT 1` within a few seconds. */
export async function postgresAvailable(): Promise<boolean> {
  try {
    await withClient((c) => c.query("SELECT 1"));
    return true;
  } catch {
    return false;
  }
}
