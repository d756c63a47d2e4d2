import { describe, expect, it } from "vitest";
import { openLedger } from "../../src/ledger/open-ledger.js";
import { databaseSettings, poolSizeFrom } from "../../src/settings/database-settings.js";
import type { PostgresLedger } from "../../src/ledger/postgres/postgres-ledger.js";
import { freshSchema, skipPostgres } from "../support/pg-schema.js";

describe("DATABASE_POOL_SIZE", () => {
  it("is a whole number of connections from 1 to 1000, or unset", () => {
    expect(poolSizeFrom(undefined)).toBeUndefined();
    expect(poolSizeFrom(" ")).toBeUndefined();
    expect(poolSizeFrom("4")).toBe(4);
    expect(poolSizeFrom(" 1000 ")).toBe(1000);
    for (const bad of ["0", "-3", "2.5", "ten", "1001", "1e9"]) {
      expect(() => poolSizeFrom(bad), bad).toThrow(/DATABASE_POOL_SIZE is .*whole number of connections from 1 to 1000/);
    }
  });

  describe.skipIf(skipPostgres)("on PostgreSQL", () => {
    it.for([
      ["3", 3],
      ["", 10],
    ] as const)("DATABASE_POOL_SIZE=%s opens a pool of at most %s connections", async ([value, max]) => {
      const db = await freshSchema();
      const settings = databaseSettings({ DATABASE_URL: db.connectionString, DATABASE_POOL_SIZE: value, DATABASE_SCHEMA: db.schema });
      try {
        const ledger = (await openLedger(settings.url, settings)) as unknown as PostgresLedger;
        try {
          expect(ledger.pool.options.max).toBe(max);
        } finally {
          await ledger.close();
        }
      } finally {
        await db.drop();
      }
    });
  });
});
