/**
 * PostgreSQL migration 16 (SQLite's 6): a schema at 15, with history written
 * as the ledger then wrote it (no chain, read through history_by_issue),
 * links its rows into each issue's chain, keeping every row and token, and
 * history() reads the same entries through the chain. Then new operations,
 * replicas racing on one issue and a token floor raise keep the chain whole.
 */
import pg from "pg";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { POSTGRES_MIGRATIONS } from "../../../src/ledger/postgres/migrations.js";
import { openPostgres, PostgresLedger } from "../../../src/ledger/postgres/postgres-ledger.js";
import type { HistoryEntry, Holder, IssueKey } from "../../../src/ledger/leases/lease-types.js";
import { freshSchema, skipPostgres, withClient, type FreshSchema } from "../../support/pg-schema.js";

const HOUR = 3_600_000;
const T0 = 1_700_000_000_000;
const alpha = { repoId: 100, repo: "octo/alpha" };
const beta = { repoId: 200, repo: "octo/beta" };
const alice: Holder = { id: 1, login: "alice" };
const bob: Holder = { id: 2, login: "bob" };
const at = (repo: typeof alpha, issue: number): IssueKey => ({ ...repo, issue });

/** Lease rows a version-15 ledger could hold: held, free, held and expired; same issue numbers in two repositories. */
const OLD_LEASES: Array<[number, number, string, number | null, string | null, number, number | null]> = [
  // repo_id, issue, repo, holder_id, holder_login, token, expires_at
  [alpha.repoId, 1, alpha.repo, 1, "alice", 3, null],
  [alpha.repoId, 2, alpha.repo, null, null, 5, null],
  [alpha.repoId, 3, alpha.repo, 2, "bob", 1, T0 + HOUR],
  [beta.repoId, 1, beta.repo, 2, "bob", 7, T0 + HOUR],
  // A row locked before any tenure: token 0, history of notes only.
  [beta.repoId, 4, beta.repo, null, null, 0, null],
];

/** History rows, interleaved across issues as they came; alpha#5 and beta#9 have no lease row. */
const OLD_HISTORY: Array<[typeof alpha, number, string, string, Holder | null, Holder | null, number | null]> = [
  // repo, issue, op, outcome, actor, holder, token
  [alpha, 1, "acquire", "acquired", alice, alice, 1],
  [beta, 1, "acquire", "acquired", bob, bob, 7],
  [alpha, 2, "acquire", "acquired", bob, bob, 5],
  [alpha, 5, "note", "invalid", bob, null, null],
  [alpha, 1, "renew", "renewed", alice, alice, 1],
  [alpha, 2, "release", "released", bob, bob, 5],
  [beta, 4, "note", "invalid", alice, null, null],
  [alpha, 3, "acquire", "acquired", bob, bob, 1],
  [beta, 9, "note", "invalid", alice, null, null],
  [alpha, 1, "acquire", "acquired", alice, alice, 3],
  [alpha, 5, "note", "invalid", alice, null, null],
  [beta, 1, "renew", "renewed", bob, bob, 7],
];

/** What history() answered for an issue before the chain: its rows in id order. */
const byIssue = (all: HistoryEntry[], key: { repoId: number; issue: number }) =>
  all.filter((h) => h.repoId === key.repoId && h.issue === key.issue);

describe.skipIf(skipPostgres)("PostgreSQL history chain (migration 16)", () => {
  let fresh: FreshSchema;
  let opened: PostgresLedger[];
  let s: string;

  beforeEach(async () => {
    opened = [];
    fresh = await freshSchema();
    s = pg.escapeIdentifier(fresh.schema);
  });

  afterEach(async () => {
    for (const ledger of opened) await ledger.close();
    await fresh?.drop();
  });

  const sql = <R extends pg.QueryResultRow>(text: string, values: unknown[] = []) =>
    withClient(async (c) => (await c.query<R>(text.replaceAll("$S", s), values)).rows);

  async function ledger(): Promise<PostgresLedger> {
    const opened1 = await openPostgres({ connectionString: fresh.connectionString, schema: fresh.schema, clock: "caller", poolSize: 4 });
    opened.push(opened1);
    return opened1;
  }

  /** Every issue's chain is its rows in id order, headed by its lease row or (without one) by history_heads, never both. */
  async function expectChainIntact(): Promise<void> {
    const [broken] = await sql<{ links: number; heads: number; both: number; dangling: number }>(`
      SELECT
        (SELECT count(*)::int FROM (SELECT prev, lag(id) OVER (PARTITION BY repo_id, issue ORDER BY id) AS want FROM $S.history) x
          WHERE prev IS DISTINCT FROM want) AS links,
        (SELECT count(*)::int FROM (SELECT repo_id, issue, max(id) AS last FROM $S.history GROUP BY repo_id, issue) m
          LEFT JOIN $S.leases l USING (repo_id, issue) LEFT JOIN $S.history_heads hh USING (repo_id, issue)
          WHERE coalesce(l.last_history, hh.last) IS DISTINCT FROM m.last) AS heads,
        (SELECT count(*)::int FROM $S.history_heads hh JOIN $S.leases l USING (repo_id, issue)) AS both,
        (SELECT count(*)::int FROM $S.leases l WHERE last_history IS NOT NULL
          AND NOT EXISTS (SELECT 1 FROM $S.history h WHERE h.id = l.last_history AND h.repo_id = l.repo_id AND h.issue = l.issue)) AS dangling`);
    expect(broken).toEqual({ links: 0, heads: 0, both: 0, dangling: 0 });
  }

  /** Every history row read the old way (by issue, id order), as entries, through a ledger's mapping. */
  async function allHistory(l: PostgresLedger): Promise<HistoryEntry[]> {
    const issues = await sql<{ repo_id: number; issue: number }>("SELECT DISTINCT repo_id::int, issue::int FROM $S.history ORDER BY 1, 2");
    const all: HistoryEntry[] = [];
    for (const k of issues) all.push(...(await l.history({ repoId: k.repo_id, issue: k.issue })));
    return all.sort((a, b) => a.id - b.id);
  }

  it("links the rows of a version-15 schema into chains, keeping every row and token, and history() reads the same entries", async () => {
    const old = new PostgresLedger({ connectionString: fresh.connectionString, schema: fresh.schema, clock: "caller" });
    opened.push(old);
    expect(await old.migrate(15)).toBe(15);
    // Written as a version-15 ledger wrote them: plain inserts, ids from the identity.
    for (const [repoId, issue, repo, holderId, login, token, expires] of OLD_LEASES) {
      await sql(
        `INSERT INTO $S.leases (repo_id, issue, repo, holder_id, holder_login, token, acquired_at, expires_at, updated_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
        [repoId, issue, repo, holderId, login, token, holderId === null ? null : T0, expires, T0],
      );
    }
    for (const [i, [repo, issue, op, outcome, actor, holder, token]] of OLD_HISTORY.entries()) {
      await sql(
        `INSERT INTO $S.history (repo_id, repo, issue, op, outcome, actor_id, actor_login, holder_id, holder_login, token, expires_at, at, delivery)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, NULL, $11, $12)`,
        [repo.repoId, repo.repo, issue, op, outcome, actor?.id, actor?.login, holder?.id, holder?.login, token, T0 + i, i === 0 ? "d-old" : null],
      );
    }
    const leasesBefore = await sql("SELECT * FROM $S.leases ORDER BY repo_id, issue");
    const historyBefore = await sql("SELECT * FROM $S.history ORDER BY id");
    // What history() read before: the index history_by_issue, by issue, in id order (the old query, as it was).
    const oldReads = new Map<string, unknown[]>();
    for (const k of await sql<{ repo_id: number; issue: number }>("SELECT DISTINCT repo_id, issue FROM $S.history")) {
      const rows = await sql(
        `SELECT id::int, op, outcome, token::int, actor_login, holder_login, delivery FROM $S.history
         WHERE repo_id = $1 AND issue = $2 ORDER BY id DESC LIMIT $3`,
        [k.repo_id, k.issue, 1000],
      );
      oldReads.set(`${k.repo_id}/${k.issue}`, rows.reverse());
    }

    expect(await old.migrate()).toBe(POSTGRES_MIGRATIONS.length);
    // Migration 16 is the one under test; the later ones (17: the inventory, 18: the wait list) keep every row too.
    expect(POSTGRES_MIGRATIONS.length).toBeGreaterThanOrEqual(16);
    // Every row and token as it was; only the new columns are new.
    const strip = (rows: Array<Record<string, unknown>>, col: string) => rows.map(({ [col]: _, ...rest }) => rest);
    expect(strip(await sql("SELECT * FROM $S.leases ORDER BY repo_id, issue"), "last_history")).toEqual(leasesBefore);
    expect(strip(await sql("SELECT * FROM $S.history ORDER BY id"), "prev")).toEqual(historyBefore);
    await expectChainIntact();
    expect(await sql("SELECT repo_id::int, issue::int FROM $S.history_heads ORDER BY 1, 2")).toEqual([
      { repo_id: alpha.repoId, issue: 5 },
      { repo_id: beta.repoId, issue: 9 },
    ]);
    expect(await sql("SELECT 1 FROM pg_indexes WHERE schemaname = $1 AND indexname = 'history_by_issue'", [fresh.schema])).toEqual([]);

    // history() through the chain: the same rows, in the same order, as the old read.
    const l = await ledger();
    for (const [name, rows] of oldReads) {
      const [repoId, issue] = name.split("/").map(Number) as [number, number];
      const entries = await l.history({ repoId, issue });
      expect(entries.map((e) => e.id), name).toEqual(rows.map((r) => (r as { id: number }).id));
      expect(entries.map((e) => [e.op, e.outcome, e.token, e.actor?.login ?? null, e.holder?.login ?? null, e.delivery])).toEqual(
        rows.map((r) => {
          const h = r as Record<string, unknown>;
          return [h.op, h.outcome, h.token, h.actor_login, h.holder_login, h.delivery];
        }),
      );
      // A limit keeps the latest rows, oldest first.
      expect(await l.history({ repoId, issue }, 2)).toEqual(entries.slice(-2));
    }
    expect(await l.history(at(alpha, 1))).toMatchObject([{ op: "acquire", delivery: "d-old", token: 1 }, { op: "renew" }, { op: "acquire", token: 3 }]);
    expect(await l.history(at(alpha, 99))).toEqual([]);
  });

  it("keeps the chain through new operations, an issue whose head was in history_heads, replicas racing on one issue, and a token floor raise", async () => {
    const old = new PostgresLedger({ connectionString: fresh.connectionString, schema: fresh.schema, clock: "caller" });
    opened.push(old);
    await old.migrate(15);
    await sql(`INSERT INTO $S.history (repo_id, repo, issue, op, outcome, actor_id, actor_login, at) VALUES ($1, $2, 5, 'note', 'invalid', 2, 'bob', $3)`, [
      alpha.repoId,
      alpha.repo,
      T0,
    ]);
    await old.migrate();
    const [one, two] = [await ledger(), await ledger()];
    let now = T0 + HOUR;

    // The issue known only by its history: its first operation makes its row, which takes the head over.
    await one.note(at(alpha, 5), alice, now++, { outcome: "invalid" });
    expect(await sql("SELECT * FROM $S.history_heads")).toEqual([]);
    await one.acquire(at(alpha, 5), alice, HOUR, now++);
    await one.renew(at(alpha, 5), alice, HOUR, now++);
    await one.markReminded(at(alpha, 5), { token: 1, expiresAt: now - 1 + HOUR }, now++);
    await one.release(at(alpha, 5), alice, now++);
    expect((await one.history(at(alpha, 5))).map((h) => `${h.op}:${h.outcome}`)).toEqual([
      "note:invalid",
      "note:invalid",
      "acquire:acquired",
      "renew:renewed",
      "remind:reminded",
      "release:released",
    ]);
    await expectChainIntact();

    // Two replicas, each operation on one of two issues, all at once.
    const ops: Array<Promise<unknown>> = [];
    for (let i = 0; i < 24; i++) {
      const l = i % 2 === 0 ? one : two;
      const key = at(beta, 1 + (i % 3 === 0 ? 1 : 0));
      const who = i % 4 < 2 ? alice : bob;
      ops.push(i % 5 === 4 ? l.release(key, who, now + i) : l.acquire(key, who, HOUR, now + i));
    }
    await Promise.all(ops);
    now += 100;
    await expectChainIntact();
    expect((await one.history(at(beta, 1))).length + (await one.history(at(beta, 2))).length).toBe(24);

    // Work that follows the lease: the rows step locks several issues and appends to those it changes.
    await one.acquire(at(alpha, 7), alice, HOUR, now++);
    await one.linkPull(at(alpha, 70), alice, [7, 8], now++, { resume: { ttl: HOUR, remindBefore: null } });
    await one.setExempt(at(alpha, 7), alice, true, now++, { resume: { ttl: HOUR, remindBefore: null } });
    await one.markExpired(at(alpha, 5), 1, now++);
    await expectChainIntact();

    // The token floor writes a row for every issue, each following the issue's latest.
    const before = await allHistory(one);
    const raised = await one.raiseTokenFloor({ gap: 100 }, { id: 0, login: "operator" }, "test", now++);
    expect(raised.raised).toBe(true);
    await expectChainIntact();
    const after = await allHistory(one);
    const issues = new Set(before.map((h) => `${h.repoId}/${h.issue}`));
    expect(after).toHaveLength(before.length + issues.size);
    for (const name of issues) {
      const [repoId, issue] = name.split("/").map(Number) as [number, number];
      const entries = byIssue(after, { repoId, issue });
      expect(entries.slice(0, -1)).toEqual(byIssue(before, { repoId, issue }));
      expect(entries.at(-1)).toMatchObject({ op: "restore", outcome: "floor_raised" });
    }
    // And carries on.
    expect(await one.acquire(at(alpha, 5), bob, HOUR, now++)).toMatchObject({ outcome: "acquired", lease: { token: raised.floor + 1 } });
    await expectChainIntact();
  });
});
