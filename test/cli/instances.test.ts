/**
 * Two workers of one bot account are two holders (their instances): `list`
 * and `history` show which worker holds what, as a table and as JSON with
 * the API's field names, on SQLite and PostgreSQL.
 */
import { execFileSync } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openPostgres } from "../../src/ledger/postgres/postgres-ledger.js";
import { SqliteLedger } from "../../src/ledger/sqlite/sqlite-ledger.js";
import type { Holder } from "../../src/ledger/leases/lease-types.js";
import type { Ledger } from "../../src/ledger/ledger.js";
import { freshSchema, type FreshSchema, skipPostgres } from "../support/pg-schema.js";
import { ROOT, runBuiltCli } from "../support/cli-process.js";

const HOUR = 3_600_000;
const worker = (instance: string): Holder => ({ id: 41898282, login: "deploy-bot[bot]", instance });
const alice: Holder = { id: 11, login: "alice" };
const repo = { repoId: 101, repo: "octo-org/widgets", installation: 7 };
const iso = (ms: number) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, "Z");

/** worker-1 holds #1, worker-2 took #2 over from worker-1, alice holds #3. */
async function seed(ledger: Ledger, now: number): Promise<void> {
  await ledger.rememberRepo(repo, now - HOUR);
  const key = (issue: number) => ({ repoId: repo.repoId, repo: repo.repo, issue });
  await ledger.acquire(key(1), worker("worker-1"), HOUR, now - 30 * 60_000);
  await ledger.acquire(key(2), worker("worker-1"), HOUR, now - 30 * 60_000);
  await ledger.release(key(2), worker("worker-1"), now - 20 * 60_000);
  await ledger.acquire(key(2), worker("worker-2"), HOUR, now - 10 * 60_000);
  await ledger.acquire(key(3), alice, HOUR, now - 10 * 60_000);
}

async function expectInstances(run: (...args: string[]) => Promise<{ code: number; stdout: string; stderr: string }>, now: number): Promise<void> {
  const table = await run("list");
  expect(table.stderr).toBe("");
  const rows = table.stdout.trimEnd().split("\n").map((l) => l.split(/\s{2,}/));
  expect(rows.map((r) => r.slice(0, 5))).toEqual([
    ["REPO", "ISSUE", "HOLDER", "INSTANCE", "TOKEN"],
    ["octo-org/widgets", "#1", "deploy-bot[bot]", "worker-1", "1"],
    ["octo-org/widgets", "#2", "deploy-bot[bot]", "worker-2", "2"],
    ["octo-org/widgets", "#3", "alice", "-", "1"],
  ]);

  const json = JSON.parse((await run("list", "--json")).stdout) as Array<Record<string, unknown>>;
  expect(json[1]).toEqual({
    repo: "octo-org/widgets",
    repo_id: 101,
    issue: 2,
    holder: { login: "deploy-bot[bot]", id: 41898282, instance: "worker-2" },
    token: 2,
    expires_at: iso(now - 10 * 60_000 + HOUR),
    held_by: "time",
    acquired_at: iso(now - 10 * 60_000),
  });
  expect(json.map((l) => (l.holder as { instance: string | null }).instance)).toEqual(["worker-1", "worker-2", null]);

  const history = JSON.parse((await run("history", "octo-org/widgets#2", "--json")).stdout) as Array<Record<string, any>>;
  expect(history.map((h) => [h.op, h.actor?.instance, h.holder?.instance, h.token])).toEqual([
    ["acquire", "worker-1", "worker-1", 1],
    ["release", "worker-1", "worker-1", 1],
    ["acquire", "worker-2", "worker-2", 2],
  ]);
  expect(history[2]).toMatchObject({ expires_at: iso(now - 10 * 60_000 + HOUR) });
  expect(Object.keys(history[2]!)).not.toContain("expiresAt");

  const lines = (await run("history", "octo-org/widgets#2")).stdout.trimEnd().split("\n");
  expect(lines[0]).toMatch(/^TIME\s+OP\s+OUTCOME\s+ACTOR\s+HOLDER\s+INSTANCE\s+TOKEN\s+EXPIRES\s+DELIVERY$/);
  expect(lines.slice(1).map((l) => l.split(/\s{2,}/).slice(1, 7))).toEqual([
    ["acquire", "acquired", "deploy-bot[bot]", "deploy-bot[bot]", "worker-1", "1"],
    ["release", "released", "deploy-bot[bot]", "deploy-bot[bot]", "worker-1", "1"],
    ["acquire", "acquired", "deploy-bot[bot]", "deploy-bot[bot]", "worker-2", "2"],
  ]);
}

let dir: string;
beforeAll(async () => {
  execFileSync(process.execPath, ["scripts/build-if-needed.mjs"], { cwd: ROOT, stdio: "pipe" });
  dir = await mkdtemp(join(tmpdir(), "issue-leases-instances-"));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe("list and history name the instance", () => {
  const now = Date.now();

  it("on SQLite", async () => {
    const file = join(dir, "instances.db");
    const ledger = new SqliteLedger(file);
    try {
      await seed(ledger, now);
    } finally {
      await ledger.close();
    }
    await expectInstances((...args) => runBuiltCli(args, dir, { DATABASE_URL: file }), now);
  });

  describe.skipIf(skipPostgres)("on PostgreSQL", () => {
    let pg: FreshSchema;
    beforeAll(async () => {
      pg = await freshSchema();
    });
    afterAll(async () => {
      await pg?.drop();
    });

    it("the same", async () => {
      // The caller's clock, so that the seed's times are as given.
      const ledger = await openPostgres({ connectionString: pg.connectionString, schema: pg.schema, clock: "caller" });
      try {
        await seed(ledger, now);
      } finally {
        await ledger.close();
      }
      const env = { DATABASE_URL: pg.connectionString, DATABASE_SCHEMA: pg.schema };
      await expectInstances((...args) => runBuiltCli(args, dir, env), now);
    });
  });
});
