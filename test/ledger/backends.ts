/**
 * The ledger backends the contract and property suites run against. Each
 * `open()` gives a fresh, empty ledger; adding an entry here runs every suite
 * that does `describe.each(backends)` on it.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openPostgres, type PostgresLedger } from "../../src/ledger/postgres/postgres-ledger.js";
import { SqliteLedger } from "../../src/ledger/sqlite/sqlite-ledger.js";
import type { Ledger } from "../../src/ledger/ledger.js";
import { afterEach, beforeEach } from "vitest";
import { freshSchema, skipPostgres } from "../support/pg-schema.js";

export interface OpenedBackend {
  ledger: Ledger;
  /** Closes every ledger opened on this store and removes the store. */
  cleanup(): Promise<void>;
  /**
   * Opens another, independent ledger on the same store (another connection,
   * as a second process would have), for tests of concurrent writers.
   * Closed by `cleanup`.
   */
  another?(): Promise<Ledger>;
}

export interface Backend {
  name: string;
  open(): Promise<OpenedBackend>;
}

/**
 * Where SQLite test databases go. A real file (WAL, fsync on every commit) as
 * in production; `LEDGER_TEST_DIR=/dev/shm` trades that realism for speed.
 */
const sqliteRoot = process.env.LEDGER_TEST_DIR ?? tmpdir();

export const sqlite: Backend = {
  name: "sqlite",
  async open() {
    const dir = await mkdtemp(join(sqliteRoot, "issue-leases-test-"));
    const file = join(dir, "ledger.db");
    const opened: SqliteLedger[] = [new SqliteLedger(file)];
    return {
      ledger: opened[0]!,
      async another() {
        const ledger = new SqliteLedger(file);
        opened.push(ledger);
        return ledger;
      },
      async cleanup() {
        for (const ledger of opened) await ledger.close();
        await rm(dir, { recursive: true, force: true });
      },
    };
  },
};

/**
 * PostgreSQL, each test in a fresh schema, with the caller's clock so that
 * tests drive time. `another()` is a second pool: another replica.
 */
export const postgres: Backend = {
  name: "postgres",
  async open() {
    const fresh = await freshSchema();
    const connect = () => openPostgres({ connectionString: fresh.connectionString, schema: fresh.schema, clock: "caller", poolSize: 4 });
    const opened: PostgresLedger[] = [await connect()];
    return {
      ledger: opened[0]!,
      async another() {
        const ledger = await connect();
        opened.push(ledger);
        return ledger;
      },
      async cleanup() {
        for (const ledger of opened) await ledger.close();
        await fresh.drop();
      },
    };
  },
};

/** CI always runs both; developers without PostgreSQL set SKIP_POSTGRES=1. */
export const backends: Backend[] = skipPostgres ? [sqlite] : [sqlite, postgres];

/**
 * Registers a fresh store of `backend` for each test (opened before, cleaned
 * up after) and returns its ledger: a stand-in that forwards every call to
 * the current test's ledger, so a suite writes `ledger.acquire(...)` as if it
 * held the ledger itself.
 */
export function useBackend(backend: Backend): { ledger: Ledger; store(): OpenedBackend } {
  let opened: OpenedBackend | undefined;
  beforeEach(async () => {
    opened = await backend.open();
  });
  afterEach(async () => {
    await opened?.cleanup();
    opened = undefined;
  });
  const store = () => {
    if (!opened) throw new Error("no store outside a test");
    return opened;
  };
  const ledger = new Proxy({} as Ledger, {
    get(_, prop) {
      const current = store().ledger as unknown as Record<PropertyKey, unknown>;
      const value = current[prop];
      return typeof value === "function" ? (value as (...a: unknown[]) => unknown).bind(current) : value;
    },
  });
  return { ledger, store };
}
