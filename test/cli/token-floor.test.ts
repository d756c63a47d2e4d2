/**
 * `issue-leases token-floor` as an operator runs it (the built CLI in a child
 * process): after PostgreSQL is put back to an older state (a pg_restore of
 * an older dump), the next tenures get tokens above every one handed out.
 */
import { execFileSync } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pgDriver from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openPostgres, type PostgresLedger } from "../../src/ledger/postgres/postgres-ledger.js";
import { SqliteLedger } from "../../src/ledger/sqlite/sqlite-ledger.js";
import type { Holder, IssueKey } from "../../src/ledger/leases/lease-types.js";
import type { Ledger } from "../../src/ledger/ledger.js";
import { type FreshSchema, freshSchema, skipPostgres, withClient } from "../support/pg-schema.js";
import { ROOT, runBuiltCli } from "../support/cli-process.js";

const alice: Holder = { id: 11, login: "alice" };
const bob: Holder = { id: 12, login: "bob" };
const carol: Holder = { id: 13, login: "carol" };
const issue = (n: number): IssueKey => ({ repoId: 101, repo: "octo-org/widgets", issue: n });

let dir: string;

const cli = (args: string[], env: Record<string, string> = {}) => runBuiltCli(args, dir, env);

let clock = Date.parse("2026-12-01T12:00:00Z");
const tick = () => (clock += 1000);

/** One more tenure on the issue: whoever holds it releases it, and `next` claims it. Returns the new token. */
async function nextTenure(ledger: Ledger, n: number, next: Holder): Promise<number> {
  const current = await ledger.current(issue(n), clock);
  if (current) await ledger.release(issue(n), current.holder, tick());
  const r = await ledger.acquire(issue(n), next, null, tick());
  if (r.outcome !== "acquired") throw new Error(`not acquired: ${r.outcome}`);
  return r.lease.token;
}

beforeAll(async () => {
  execFileSync(process.execPath, ["scripts/build-if-needed.mjs"], { cwd: ROOT, stdio: "pipe" });
  dir = await mkdtemp(join(tmpdir(), "issue-leases-floor-"));
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe.skipIf(skipPostgres)("token-floor on PostgreSQL", () => {
  let pg: FreshSchema;
  let app: PostgresLedger;
  let env: Record<string, string>;

  beforeAll(async () => {
    pg = await freshSchema();
    app = await openPostgres({ connectionString: pg.connectionString, schema: pg.schema, clock: "caller" });
    env = { DATABASE_URL: pg.connectionString, DATABASE_SCHEMA: pg.schema };
  });

  afterAll(async () => {
    await app?.close();
    await pg?.drop();
  });

  it("restore prints pg_restore, then token-floor with the same gap or floor, and exits 2", async () => {
    const r = await cli(["restore", "leases.dump", "--token-gap", "50"], env);
    expect(r.code).toBe(2);
    expect(r.stdout.trim().split("\n")).toEqual([
      `pg_restore --clean --if-exists --schema=${pg.schema} --dbname=postgres://postgres@127.0.0.1:5432/test leases.dump`,
      "issue-leases token-floor --gap 50",
    ]);
    expect(r.stderr).toMatch(/then raise the token floor .* then start the app/);
    const byFloor = await cli(["restore", "leases.dump", "--token-floor", "7000"], env);
    expect(byFloor.stdout.trim().split("\n")[1]).toBe("issue-leases token-floor --floor 7000");
    expect((await cli(["restore", "leases.dump"], env)).stdout.trim().split("\n")[1]).toBe("issue-leases token-floor --gap 1000");
  });

  it("after the schema is put back to an older state, the next tenures get tokens above every one handed out", async () => {
    const s = pgDriver.escapeIdentifier(pg.schema);
    for (const n of [1, 2, 3]) {
      await nextTenure(app, n, alice);
      await nextTenure(app, n, bob);
    }
    // The "dump": a copy of the rows (history rows are only ever appended, so its last id will do).
    const dumpedHistory = await withClient(async (c) => {
      await c.query(`CREATE TABLE ${s}.dumped_leases AS SELECT * FROM ${s}.leases`);
      return (await c.query<{ id: string }>(`SELECT max(id) AS id FROM ${s}.history`)).rows[0]!.id;
    });

    // After the dump: more tenures, seen on GitHub, and an issue the dump never saw.
    let issued = 0;
    for (const n of [1, 2, 3, 4]) for (const h of [carol, alice, bob]) issued = Math.max(issued, await nextTenure(app, n, h));
    expect(issued).toBe(5);

    // The app stops, and the operator restores the older dump (standing in for pg_restore).
    await app.close();
    await withClient(async (c) => {
      await c.query(`TRUNCATE ${s}.leases`);
      await c.query(`INSERT INTO ${s}.leases SELECT * FROM ${s}.dumped_leases`);
      await c.query(`DELETE FROM ${s}.history WHERE id > $1`, [dumpedHistory]);
    });

    const below = await cli(["token-floor", "--floor", "1"], env);
    expect(below.code).toBe(2);
    expect(below.stderr).toContain("--floor 1 is below the ledger's highest token, 2");
    const both = await cli(["token-floor", "--floor", "10", "--gap", "5"], env);
    expect(both.code).toBe(2);

    const r = await cli(["token-floor", "--gap", "1000"], env);
    // Not empty: pg 8.23 warns (DeprecationWarning) about the pool's unawaited `SET synchronous_commit` on connect.
    expect(r.stderr).not.toContain("issue-leases:");
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("Token floor 1002 (was 0; highest token in the ledger 2)");
    expect(r.stdout).toContain("the history of 3 issues records the raise");
    // The floor is never lowered: asking for less changes nothing, and says so.
    const lower = await cli(["token-floor", "--floor", "500"], env);
    expect(lower.code).toBe(0);
    expect(lower.stdout).toContain("The token floor stays at 1002");

    // The app starts again, on two replicas.
    app = await openPostgres({ connectionString: pg.connectionString, schema: pg.schema, clock: "caller" });
    const replica = await openPostgres({ connectionString: pg.connectionString, schema: pg.schema, clock: "caller" });
    try {
      // The dump's state: bob holds issues 1-3 with token 2, and carries on with it.
      expect((await app.listAll(clock)).map((l) => [l.issue, l.holder.login, l.token])).toEqual([
        [1, "bob", 2],
        [2, "bob", 2],
        [3, "bob", 2],
      ]);
      expect(await app.acquire(issue(1), bob, null, tick())).toMatchObject({ outcome: "acquired", newTenure: false, lease: { token: 2 } });
      expect((await app.history({ repoId: 101, issue: 1 })).at(-2)).toMatchObject({
        op: "restore",
        outcome: "floor_raised",
        actor: { id: 0, login: "operator" },
      });
      for (const n of [1, 2]) expect(await nextTenure(app, n, carol), `issue ${n}`).toBeGreaterThan(issued);
      for (const n of [3, 4]) expect(await nextTenure(replica, n, carol), `issue ${n}`).toBeGreaterThan(issued);
    } finally {
      await replica.close();
    }
  });
});

describe("token-floor on SQLite", () => {
  it("raises the floor while the app serves the file, and its next acquire is above it", async () => {
    const file = join(dir, "app.db");
    const app = new SqliteLedger(file, { serve: true });
    try {
      await nextTenure(app, 1, alice);
      await nextTenure(app, 1, bob);
      const r = await cli(["token-floor", "--floor", "40", "--database", file]);
      expect(r.stderr).toBe("");
      expect(r.code).toBe(0);
      expect(r.stdout).toContain("Token floor 40 (was 0; highest token in the ledger 2)");
      expect(await nextTenure(app, 1, carol)).toBe(41);
      expect(await nextTenure(app, 9, carol)).toBe(41);
      expect((await cli(["token-floor", "--database", file])).stdout).toContain("Token floor 1041");
    } finally {
      await app.close();
    }
  });
});
