/**
 * The ledger methods the operator CLI added (`listAll`, `findRepo`,
 * `schemaVersion`), on SQLite and on PostgreSQL.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { openPostgres } from "../../src/ledger/postgres/postgres-ledger.js";
import { POSTGRES_MIGRATIONS } from "../../src/ledger/postgres/migrations.js";
import { SQLITE_MIGRATIONS } from "../../src/ledger/sqlite/migrations.js";
import { SqliteLedger } from "../../src/ledger/sqlite/sqlite-ledger.js";
import type { Ledger } from "../../src/ledger/ledger.js";
import { freshSchema, skipPostgres } from "../support/pg-schema.js";

interface Opened {
  ledger: Ledger;
  latest: number;
  cleanup(): Promise<void>;
}

const backends: Array<{ name: string; skip: boolean; open(): Promise<Opened> }> = [
  {
    name: "sqlite",
    skip: false,
    async open() {
      const dir = await mkdtemp(join(tmpdir(), "issue-leases-cli-ledger-"));
      const ledger = new SqliteLedger(join(dir, "ledger.db"));
      return {
        ledger,
        latest: SQLITE_MIGRATIONS.length,
        async cleanup() {
          await ledger.close();
          await rm(dir, { recursive: true, force: true });
        },
      };
    },
  },
  {
    name: "postgres",
    skip: skipPostgres,
    async open() {
      const pg = await freshSchema();
      const ledger = await openPostgres({ connectionString: pg.connectionString, schema: pg.schema, clock: "caller" });
      return {
        ledger,
        latest: POSTGRES_MIGRATIONS.length,
        async cleanup() {
          await ledger.close();
          await pg.drop();
        },
      };
    },
  },
];

describe.each(backends.filter((b) => !b.skip))("$name", (backend) => {
  let opened: Opened | undefined;
  const open = async () => (opened = await backend.open()).ledger;

  afterEach(async () => {
    await opened?.cleanup();
    opened = undefined;
  });

  it("findRepo finds a remembered repository by name, case-insensitively, the latest seen first", async () => {
    const ledger = await open();
    expect(await ledger.findRepo("octo-org/widgets")).toBeNull();
    await ledger.rememberRepo({ repoId: 1, repo: "Octo-Org/Widgets", installation: 5 }, 1000);
    await ledger.rememberRepo({ repoId: 2, repo: "acme/tools", installation: 6 }, 1000);
    expect(await ledger.findRepo("OCTO-ORG/widgets")).toEqual({ repoId: 1, repo: "Octo-Org/Widgets", installation: 5 });
    expect(await ledger.findRepo("octo-org/widget")).toBeNull();
    // The name was deleted and created again: a new id, seen later.
    await ledger.rememberRepo({ repoId: 3, repo: "octo-org/widgets", installation: 5 }, 2000);
    expect(await ledger.findRepo("Octo-Org/Widgets")).toMatchObject({ repoId: 3 });
    // Renamed: the old name no longer finds it.
    await ledger.rememberRepo({ repoId: 2, repo: "acme/hammers", installation: 6 }, 3000);
    expect(await ledger.findRepo("acme/tools")).toBeNull();
    expect(await ledger.findRepo("acme/hammers")).toMatchObject({ repoId: 2 });
  });

  it("listAll lists every live lease, by repository then issue, without expired or released ones", async () => {
    const ledger = await open();
    const now = 1_000_000;
    const a = { repoId: 9, repo: "b-org/repo" };
    const b = { repoId: 4, repo: "A-org/repo" };
    await ledger.acquire({ ...a, issue: 10 }, { id: 1, login: "x" }, null, now);
    await ledger.acquire({ ...a, issue: 2 }, { id: 2, login: "y" }, 60_000, now);
    await ledger.acquire({ ...b, issue: 7 }, { id: 1, login: "x" }, 60_000, now);
    await ledger.acquire({ ...b, issue: 8 }, { id: 3, login: "z" }, 1_000, now);
    await ledger.acquire({ ...b, issue: 9 }, { id: 3, login: "z" }, null, now);
    await ledger.release({ ...b, issue: 9 }, { id: 3, login: "z" }, now);
    const live = await ledger.listAll(now + 5_000);
    expect(live.map((l) => `${l.repo}#${l.issue}:${l.holder.login}:${l.token}`)).toEqual([
      "A-org/repo#7:x:1",
      "b-org/repo#2:y:1",
      "b-org/repo#10:x:1",
    ]);
    expect(await ledger.listAll(now + 120_000)).toHaveLength(1);
  });

  it("schemaVersion says the database is at the latest migration", async () => {
    const ledger = await open();
    expect(await ledger.schemaVersion()).toEqual({ current: opened!.latest, latest: opened!.latest });
  });
});
