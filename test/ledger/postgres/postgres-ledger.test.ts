/**
 * What only PostgreSQL has to show: several replicas (ledgers with their own
 * pools) on one schema, racing. The shared contract suite covers the rules.
 *
 * PostgreSQL is required: these tests fail when it is unreachable, so that CI
 * cannot pass by skipping them. Developers without it set SKIP_POSTGRES=1.
 */
import pg from "pg";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { POSTGRES_MIGRATIONS } from "../../../src/ledger/postgres/migrations.js";
import type { PostgresLedgerOptions } from "../../../src/ledger/postgres/connection.js";
import { PostgresLedger, openPostgres } from "../../../src/ledger/postgres/postgres-ledger.js";
import { advisoryKey } from "../../../src/ledger/postgres/session-locks.js";
import { type Effect, fenceOf } from "../../../src/ledger/outbox/outbox-types.js";
import { type Holder, type IssueKey } from "../../../src/ledger/leases/lease-types.js";
import { Sweeper } from "../../../src/leasing/sweeper.js";
import { startTcpProxy } from "../../support/tcp-proxy.js";
import { freshSchema, postgresAvailable, skipPostgres, TEST_DATABASE_URL, withClient, type FreshSchema } from "../../support/pg-schema.js";
import { always } from "../../../src/ledger/leases/effect-cases.js";

const MIN = 60_000;
const HOUR = 60 * MIN;
const T0 = 1_700_000_000_000;
const repo = { repoId: 100, repo: "octo/alpha" };
const key = (issue: number): IssueKey => ({ ...repo, issue });
const holder = (id: number): Holder => ({ id, login: `user${id}` });
const LATEST = POSTGRES_MIGRATIONS.length;

describe.skipIf(skipPostgres)("PostgresLedger", () => {
  let fresh: FreshSchema;
  let opened: PostgresLedger[];

  /** Another replica on the test's schema: its own pool, the caller's clock unless told. */
  async function replica(opts: Partial<PostgresLedgerOptions> = {}): Promise<PostgresLedger> {
    const ledger = await openPostgres({
      connectionString: fresh.connectionString,
      schema: fresh.schema,
      clock: "caller",
      poolSize: 4,
      ...opts,
    });
    opened.push(ledger);
    return ledger;
  }

  async function replicas(n: number, opts: Partial<PostgresLedgerOptions> = {}): Promise<PostgresLedger[]> {
    const out: PostgresLedger[] = [];
    for (let i = 0; i < n; i++) out.push(await replica(opts));
    return out;
  }

  const table = (name: string) => `${pg.escapeIdentifier(fresh.schema)}.${name}`;

  beforeEach(async () => {
    opened = [];
    fresh = await freshSchema();
  });

  afterEach(async () => {
    for (const ledger of opened) await ledger.close();
    await fresh?.drop();
  });

  it("finds PostgreSQL at TEST_DATABASE_URL (set SKIP_POSTGRES=1 to skip these tests without it)", async () => {
    expect(await postgresAvailable()).toBe(true);
  });

  it("commits synchronously on every connection, even when DATABASE_URL asks for synchronous_commit = off", async () => {
    const url = new URL(fresh.connectionString);
    url.searchParams.set("options", "-c synchronous_commit=off");
    const ledger = await replica({ connectionString: url.toString(), poolSize: 2 });
    // Two connections at once: each new connection is set, not only the first.
    const clients = await Promise.all([ledger.pool.connect(), ledger.pool.connect()]);
    try {
      for (const c of clients) expect((await c.query("SHOW synchronous_commit")).rows).toEqual([{ synchronous_commit: "on" }]);
    } finally {
      for (const c of clients) c.release();
    }
    // Without the app's setting, the URL's would win: the check above can fail.
    const plain = new pg.Client({ connectionString: url.toString() });
    await plain.connect();
    try {
      expect((await plain.query("SHOW synchronous_commit")).rows).toEqual([{ synchronous_commit: "off" }]);
    } finally {
      await plain.end();
    }
  });

  describe("concurrency between replicas", () => {
    it("50 concurrent acquires of one issue by 50 holders: exactly one wins", async () => {
      const ledgers = await replicas(5);
      const results = await Promise.all(
        Array.from({ length: 50 }, (_, i) => ledgers[i % ledgers.length]!.acquire(key(1), holder(i + 1), HOUR, T0)),
      );
      const winners = results.filter((r) => r.outcome === "acquired");
      expect(winners).toHaveLength(1);
      const winner = winners[0]!;
      if (winner.outcome !== "acquired") throw new Error("unreachable");
      expect(winner.lease.token).toBe(1);
      expect(winner.newTenure).toBe(true);
      for (const r of results) {
        if (r.outcome === "held") expect(r.lease).toEqual(winner.lease);
        else expect(r).toBe(winner);
      }
      expect(await ledgers[0]!.current(key(1), T0 + 1)).toEqual(winner.lease);
      expect(await ledgers[1]!.history(key(1))).toHaveLength(50);
    });

    it("a per-holder limit of 2 holds against 10 concurrent acquires on 10 issues", async () => {
      const ledgers = await replicas(5);
      const alice = holder(1);
      const results = await Promise.all(
        Array.from({ length: 10 }, (_, i) => ledgers[i % ledgers.length]!.acquire(key(i + 1), alice, HOUR, T0, { maxPerHolder: 2 })),
      );
      expect(results.filter((r) => r.outcome === "acquired")).toHaveLength(2);
      expect(results.filter((r) => r.outcome === "limit")).toHaveLength(8);
      expect(await ledgers[0]!.listHeldBy(alice.id, T0 + 1)).toHaveLength(2);
    });

    it("the same delivery on two replicas at once is applied once", async () => {
      const [a, b] = await replicas(2);
      for (let i = 0; i < 20; i++) {
        const opts = { delivery: `d-${i}`, effects: always({ installation: 7, kind: "reply", payload: { i } }) };
        const results = await Promise.all([
          a!.acquire(key(i), holder(1), HOUR, T0, opts),
          b!.acquire(key(i), holder(2), HOUR, T0, opts),
        ]);
        expect(results.filter((r) => !r.duplicate)).toHaveLength(1);
        const [first, second] = results[0]!.duplicate ? [results[1]!, results[0]!] : [results[0]!, results[1]!];
        expect({ ...second, duplicate: false }).toEqual(first);
        expect(await a!.history(key(i))).toHaveLength(1);
      }
      expect((await a!.outboxStats()).pending).toBe(20);
    });

    it("effects of one issue enter the outbox in the order of the decisions, across replicas", async () => {
      const ledgers = await replicas(4);
      await Promise.all(
        Array.from({ length: 40 }, (_, i) =>
          ledgers[i % ledgers.length]!.note(key(1), holder(1), T0, {
            delivery: `n-${i}`,
            effects: always({ installation: 7, kind: "reply", payload: { delivery: `n-${i}` } }),
          }),
        ),
      );
      const decided = (await ledgers[0]!.history(key(1))).map((h) => h.delivery);
      const { rows } = await ledgers[0]!.pool.query<{ payload: string }>(`SELECT payload FROM ${table("outbox")} ORDER BY id`);
      expect(rows.map((r) => (JSON.parse(r.payload) as { delivery: string }).delivery)).toEqual(decided);
    });

    it("tokens only go up and each tenure starts once under churn from 4 replicas", async () => {
      const ledgers = await replicas(4);
      const issues = [1, 2, 3];
      await Promise.all(
        ledgers.map(async (ledger, r) => {
          for (let step = 0; step < 40; step++) {
            const k = key(issues[(r + step) % issues.length]!);
            const who = holder(1 + ((r * 7 + step) % 5));
            if (step % 3 === 2) await ledger.release(k, who, T0 + step);
            else await ledger.acquire(k, who, HOUR, T0 + step);
          }
        }),
      );
      for (const issue of issues) {
        const history = await ledgers[0]!.history(key(issue));
        const tenures = history.filter((h) => h.op === "acquire" && h.outcome === "acquired").map((h) => h.token!);
        const starts = [...new Set(tenures)];
        // Tenure tokens appear in order 1, 2, 3, ... (a re-acquire by the holder repeats its token).
        expect(starts).toEqual(starts.map((_, i) => i + 1));
        expect(tenures).toEqual([...tenures].sort((x, y) => x - y));
        // Between two tenures, the first one ended: nobody held the issue twice at once.
        let holderNow: number | null = null;
        for (const h of history) {
          if (h.op === "acquire" && h.outcome === "acquired") {
            expect(holderNow === null || holderNow === h.holder!.id).toBe(true);
            holderNow = h.holder!.id;
          } else if (h.op === "release" && h.outcome === "released" && h.holder) {
            expect(h.holder.id).toBe(holderNow);
            holderNow = null;
          }
        }
      }
    });
  });

  describe("outbox", () => {
    async function enqueue(ledger: PostgresLedger, issue: number, n: number): Promise<void> {
      for (let i = 0; i < n; i++) {
        await ledger.note(key(issue), null, T0, {
          effects: always({ installation: 7 + (issue % 2), kind: "reply", payload: { issue, i } }),
        });
      }
    }

    it("3 replicas draining at once never take one effect twice, and each issue's effects apply in order", async () => {
      const ledgers = await replicas(3);
      for (let issue = 1; issue <= 8; issue++) await enqueue(ledgers[0]!, issue, 6);
      const taken = new Map<number, number>();
      const appliedPerIssue = new Map<number, number[]>();
      const inFlight = new Set<number>();
      await Promise.all(
        ledgers.map(async (ledger) => {
          let idle = 0;
          while (idle < 5) {
            const batch = await ledger.takeEffects(T0, 3, 10 * MIN);
            if (batch.length === 0) {
              idle += 1;
              await new Promise((resolve) => setTimeout(resolve, 5));
              continue;
            }
            idle = 0;
            const issues = batch.map((e) => e.issue);
            expect(new Set(issues).size).toBe(issues.length);
            for (const e of batch) {
              taken.set(e.id, (taken.get(e.id) ?? 0) + 1);
              // The previous effect of this issue finished before this one was taken.
              expect(inFlight.has(e.issue)).toBe(false);
              inFlight.add(e.issue);
              appliedPerIssue.set(e.issue, [...(appliedPerIssue.get(e.issue) ?? []), (e.payload as { i: number }).i]);
            }
            for (const e of batch) {
              inFlight.delete(e.issue);
              await ledger.completeEffect(fenceOf(e), T0);
            }
          }
        }),
      );
      expect(taken.size).toBe(48);
      expect([...taken.values()].every((n) => n === 1)).toBe(true);
      for (let issue = 1; issue <= 8; issue++) expect(appliedPerIssue.get(issue)).toEqual([0, 1, 2, 3, 4, 5]);
      expect(await ledgers[0]!.outboxStats()).toEqual({ pending: 0, parked: 0, oldestPendingAt: null });
    });

    it("an effect whose taker died is taken by another replica once its lock expires, holding back its issue until then", async () => {
      const [a, b] = await replicas(2);
      await enqueue(a!, 1, 2);
      await enqueue(a!, 2, 1);
      const first = await a!.takeEffects(T0, 1, 1_000, [{ installation: 7, fromPriority: 0 }]); // issue 2 (installation 7) skipped
      expect(first.map((e) => [e.issue, e.attempts])).toEqual([[1, 1]]);
      // a "dies". Before the lock expires, issue 1 is held back whole; issue 2 flows.
      const meanwhile = await b!.takeEffects(T0 + 500, 10, 1_000);
      expect(meanwhile.map((e) => e.issue)).toEqual([2]);
      await b!.completeEffect(fenceOf(meanwhile[0]!), T0 + 500);
      const again = await b!.takeEffects(T0 + 1_000, 10, 1_000);
      expect(again).toEqual<Effect[]>([{ ...first[0]!, attempts: 2 }]);
      await b!.completeEffect(fenceOf(again[0]!), T0 + 1_000);
      const next = await b!.takeEffects(T0 + 1_000, 10, 1_000);
      expect(next.map((e) => [e.issue, (e.payload as { i: number }).i])).toEqual([[1, 1]]);
    });
  });

  describe("outbox locks", () => {
    /** Sessions of the test database waiting for a row lock (a transactionid or tuple wait). */
    const lockWaits = () =>
      withClient(async (c) => {
        const { rows } = await c.query<{ n: number }>(
          `SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'`,
        );
        return rows[0]!.n;
      });
    async function untilLockWaits(n: number): Promise<void> {
      for (let i = 0; i < 500 && (await lockWaits()) < n; i++) await new Promise((resolve) => setTimeout(resolve, 10));
      expect(await lockWaits()).toBeGreaterThanOrEqual(n);
    }

    it("an enqueue that raises its issue's waiting effects and a take of followers lock them in one order: neither deadlocks", async () => {
      const conflicts: string[] = [];
      const [a, b] = await replicas(2, { onConflict: (code) => conflicts.push(code) });
      // A head and six label-only effects (priority 2) behind it on issue 1; the head taken by b.
      for (let i = 0; i < 7; i++) {
        await a!.note(key(1), null, T0, { effects: always({ installation: 7, kind: "reflect", payload: { i }, priority: 2 }) });
      }
      const [head] = await b!.takeEffects(T0, 1, 10 * MIN);
      const ids = (await withClient((c) => c.query<{ id: string }>(`SELECT id FROM ${table("outbox")} ORDER BY id`))).rows.map((r) => Number(r.id));
      expect(ids).toHaveLength(7);
      // Due in the reverse of their ids' order (as a coalesced group that failed leaves them: each effect its own
      // backoff), all due now: an index on (priority, next_at) reads them newest first.
      await withClient(async (c) => {
        for (const id of ids) await c.query(`UPDATE ${table("outbox")} SET next_at = $2 WHERE id = $1`, [id, T0 - id]);
      });
      // A third session holds the middle follower, so that both statements stop half-way through the rows they lock.
      const third = new pg.Client({ connectionString: TEST_DATABASE_URL });
      third.on("error", () => undefined);
      await third.connect();
      try {
        await third.query("BEGIN");
        await third.query(`SELECT id FROM ${table("outbox")} WHERE id = $1 FOR UPDATE`, [ids[4]]);
        // A reply (priority 0) queued on issue 1 brings the six waiting behind the head up to its priority.
        const raise = a!.note(key(1), null, T0 + 1, { effects: always({ installation: 7, kind: "reflect", payload: { reply: true } }) });
        await untilLockWaits(1);
        const follow = b!.takeFollowers(head!, "reflect", T0 + 1, 10, 10 * MIN);
        await untilLockWaits(2);
        await third.query("COMMIT");
        const settled = await Promise.allSettled([raise, follow]);
        expect(settled.map((r) => (r.status === "rejected" ? String(r.reason) : r.status))).toEqual(["fulfilled", "fulfilled"]);
        // No deadlock was rolled back and run again: the two took the rows in the same order.
        expect(conflicts).toEqual([]);
      } finally {
        await third.end();
      }
      const rows = await withClient((c) => c.query<{ id: string; priority: number }>(`SELECT id, priority FROM ${table("outbox")} ORDER BY id`));
      expect(rows.rows.map((r) => r.priority)).toEqual([0, 0, 0, 0, 0, 0, 0, 0]);
    });
  });

  describe("migrations", () => {
    it("3 replicas migrating a schema that does not exist yet, at once, end at the latest version", async () => {
      await fresh.drop();
      fresh = await freshSchema({ create: false });
      const ledgers = await Promise.all([replica(), replica(), replica()]);
      const { rows } = await ledgers[0]!.pool.query<{ version: number }>(`SELECT version FROM ${table("schema_version")} ORDER BY version`);
      expect(rows.map((r) => r.version)).toEqual(POSTGRES_MIGRATIONS.map((_, i) => i + 1));
      expect(await Promise.all(ledgers.map((l) => l.migrate()))).toEqual([LATEST, LATEST, LATEST]);
      expect((await ledgers[1]!.acquire(key(1), holder(1), HOUR, T0)).outcome).toBe("acquired");
    });

    it("brings an older schema forward, keeping its rows", async () => {
      const old = new PostgresLedger({ connectionString: fresh.connectionString, schema: fresh.schema, clock: "caller" });
      opened.push(old);
      expect(await old.migrate(1)).toBe(1);
      await old.pool.query(
        `INSERT INTO ${table("leases")} (repo_id, issue, repo, holder_id, holder_login, token, acquired_at, expires_at, updated_at)
         VALUES (100, 1, 'octo/alpha', 1, 'user1', 3, $1, NULL, $1)`,
        [T0],
      );
      const ledger = await replica();
      expect(await ledger.current(key(1), T0)).toEqual({ ...key(1), holder: holder(1), token: 3, acquiredAt: T0, expiresAt: null, heldBy: { kind: "time" } });
      await ledger.release(key(1), holder(1), T0);
      const next = await ledger.acquire(key(1), holder(2), null, T0);
      expect(next.outcome === "acquired" && next.lease.token).toBe(4);
    });
  });

  describe("clock", () => {
    it('"database" ignores the now passed in and uses the database clock', async () => {
      const ledger = await replica({ clock: "database" });
      const before = Date.now();
      const r = await ledger.acquire(key(1), holder(1), HOUR, 0, {
        effects: always({ installation: 7, kind: "reply", payload: {} }),
      });
      const after = Date.now();
      if (r.outcome !== "acquired") throw new Error(`expected acquired, got ${r.outcome}`);
      // Generous: the database's clock and this process's may differ a little.
      expect(r.lease.acquiredAt).toBeGreaterThan(before - 5_000);
      expect(r.lease.acquiredAt).toBeLessThan(after + 5_000);
      expect(r.lease.expiresAt).toBe(r.lease.acquiredAt + HOUR);
      // With the caller's clock these would see the lease expired or not yet acquired.
      expect(await ledger.current(key(1), 1e15)).toEqual(r.lease);
      expect(await ledger.list(repo.repoId, 1e15)).toEqual([r.lease]);
      expect(await ledger.expiredSince(1e15)).toEqual([]);
      expect((await ledger.history(key(1)))[0]!.at).toBe(r.lease.acquiredAt);
      expect(await ledger.takeEffects(0, 10, MIN)).toHaveLength(1);
    });

    it('"caller" uses the now passed in', async () => {
      const ledger = await replica({ clock: "caller" });
      const r = await ledger.acquire(key(1), holder(1), HOUR, 42);
      expect(r.outcome === "acquired" && r.lease.acquiredAt).toBe(42);
      expect(await ledger.current(key(1), 42 + HOUR)).toBeNull();
    });
  });

  describe("connections", () => {
    it("ping() is true on a live pool and false once closed", async () => {
      const ledger = await replica();
      expect(await ledger.ping()).toBe(true);
      await ledger.close();
      expect(await ledger.ping()).toBe(false);
      await ledger.close(); // twice is harmless
    });

    it("parses bigint columns to numbers on its own pool only", async () => {
      const ledger = await replica();
      const r = await ledger.acquire(key(1), holder(1), 8e15 - T0, T0);
      expect(r.outcome === "acquired" && r.lease.expiresAt).toBe(8e15);
      expect(typeof (await ledger.history(key(1)))[0]!.id).toBe("number");
      expect(pg.types.getTypeParser(20)("5")).toBe("5");
    });

    it("survives the server dropping its idle connections: the error is logged and the next operation reconnects", async () => {
      const appName = `${fresh.schema}_idle`;
      const log = vi.fn();
      const ledger = await replica({ connectionString: `${fresh.connectionString}?application_name=${appName}`, log });
      await Promise.all([1, 2, 3].map((i) => ledger.acquire(key(i), holder(i), HOUR, T0)));
      const killed = await withClient((c) =>
        c.query("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = $1", [appName]),
      );
      expect(killed.rowCount).toBeGreaterThan(0);
      await vi.waitFor(() => expect(log).toHaveBeenCalledTimes(killed.rowCount!));
      const r = await ledger.acquire(key(4), holder(4), HOUR, T0);
      expect(r.outcome).toBe("acquired");
      expect(await ledger.ping()).toBe(true);
    });

    it("retries a transaction whose connection is lost before COMMIT, applying it once", async () => {
      const appName = `${fresh.schema}_victim`;
      const log = vi.fn();
      const ledger = await replica({ connectionString: `${fresh.connectionString}?application_name=${appName}`, poolSize: 1, log });
      await ledger.note(key(1), null, T0); // the issue's row now exists
      const blocker = new pg.Client({ connectionString: TEST_DATABASE_URL });
      await blocker.connect();
      try {
        await blocker.query("BEGIN");
        await blocker.query(`SELECT * FROM ${table("leases")} WHERE repo_id = $1 AND issue = 1 FOR UPDATE`, [repo.repoId]);
        const waitingPid = () =>
          withClient(async (c) => {
            const { rows } = await c.query<{ pid: number }>(
              "SELECT pid FROM pg_stat_activity WHERE application_name = $1 AND wait_event_type = 'Lock'",
              [appName],
            );
            return rows[0]?.pid;
          });
        const pending = ledger.acquire(key(1), holder(1), HOUR, T0, { delivery: "victim" });
        let pid: number | undefined;
        await vi.waitFor(async () => expect((pid = await waitingPid())).toBeDefined(), { timeout: 10_000 });
        await withClient((c) => c.query("SELECT pg_terminate_backend($1)", [pid]));
        // The retry, on a new connection, queues on the same row lock.
        await vi.waitFor(
          async () => {
            const again = await waitingPid();
            expect(again !== undefined && again !== pid).toBe(true);
          },
          { timeout: 10_000 },
        );
        await blocker.query("COMMIT");
        const r = await pending;
        expect(r.outcome).toBe("acquired");
        expect(r.duplicate).toBe(false);
        expect(log).toHaveBeenCalled();
      } finally {
        await blocker.end();
      }
      const history = await ledger.history(key(1));
      expect(history.map((h) => h.op)).toEqual(["note", "acquire"]);
    });
  });

  describe("named locks: session advisory locks", () => {
    /** The backend holding the advisory lock `name` of the test's schema, if any. */
    async function lockHolderPid(name: string, schema = fresh.schema): Promise<number | undefined> {
      const k = BigInt.asUintN(64, advisoryKey(schema, name));
      const { rows } = await withClient((c) =>
        c.query<{ pid: number }>(
          "SELECT pid FROM pg_locks WHERE locktype = 'advisory' AND granted AND classid = $1::oid AND objid = $2::oid AND objsubid = 1",
          [String(k >> 32n), String(k & 0xffffffffn)],
        ),
      );
      return rows[0]?.pid;
    }
    const clock = () => T0;

    it("a replica closed while it holds the lock: another takes it at once, not after its time to live", async () => {
      const a = await replica();
      const b = await replica();
      const held = await a.holdLock("sweep", "a", clock, HOUR);
      expect(held).not.toBeNull();
      expect(await b.holdLock("sweep", "b", clock, HOUR)).toBeNull();
      // In the same process, a second taker waits too: a session may take an advisory lock twice.
      expect(await a.holdLock("sweep", "a2", clock, HOUR)).toBeNull();
      expect(await lockHolderPid("sweep")).toBeDefined();
      await a.close();
      expect(held!.signal.aborted).toBe(true);
      expect(await b.holdLock("sweep", "b", clock, HOUR)).not.toBeNull();
    });

    it("the holder's lock connection killed: its signal aborts, the error is logged, another replica takes the lock, and the first takes it again once free", async () => {
      const log = vi.fn();
      const a = await replica({ log });
      const b = await replica();
      const held = await a.holdLock("labels/100", "a", clock, HOUR);
      expect(held).not.toBeNull();
      const pid = await lockHolderPid("labels/100");
      expect(pid).toBeDefined();
      await withClient((c) => c.query("SELECT pg_terminate_backend($1)", [pid]));
      await vi.waitFor(() => expect(held!.signal.aborted).toBe(true), { timeout: 10_000 });
      expect(String(held!.signal.reason)).toMatch(/lock connection .*lost/);
      expect(log).toHaveBeenCalledWith(expect.stringMatching(/lost labels\/100/), expect.anything());
      const taken = await b.holdLock("labels/100", "b", clock, HOUR);
      expect(taken).not.toBeNull();
      // The first replica's pool is untouched, and its next lock is on a new connection.
      expect(await a.acquire(key(1), holder(1), HOUR, T0)).toMatchObject({ outcome: "acquired" });
      expect(await a.holdLock("labels/100", "a", clock, HOUR)).toBeNull();
      await taken!.release();
      const again = await a.holdLock("labels/100", "a", clock, HOUR);
      expect(again).not.toBeNull();
      expect(await lockHolderPid("labels/100")).not.toBe(pid);
      await again!.release();
      expect(await lockHolderPid("labels/100")).toBeUndefined();
    });

    it("two sweepers: one sweeps; when its lock connection dies the other takes over and the first stops until the lock is free", async () => {
      const log = vi.fn();
      const a = await replica({ log });
      const b = await replica();
      const sa = new Sweeper({ ledger: a, clock, intervalMs: HOUR });
      const sb = new Sweeper({ ledger: b, clock, intervalMs: HOUR });
      try {
        expect(await sa.sweep()).not.toBeNull();
        expect(await sb.sweep()).toBeNull();
        const pid = await lockHolderPid("sweep");
        await withClient((c) => c.query("SELECT pg_terminate_backend($1)", [pid]));
        // No lock of the dead session is left to expire: the other takes over at its next tick.
        await vi.waitFor(async () => expect(await sb.sweep()).not.toBeNull(), { timeout: 10_000 });
        // The first has noticed its loss: it does not sweep while the other holds the lock.
        await vi.waitFor(async () => expect(await sa.sweep()).toBeNull(), { timeout: 10_000 });
        expect(await sa.sweep()).toBeNull();
        await sb.stop();
        expect(await sa.sweep()).not.toBeNull();
        expect(log).toHaveBeenCalledWith(expect.stringMatching(/lost sweep/), expect.anything());
      } finally {
        await sa.stop();
        await sb.stop();
      }
    });

    it("the holder's lock connection stalled (a partition): the holder gives up on it within 15 s, and its session ending frees the lock", async () => {
      const url = new URL(fresh.connectionString);
      const link = await startTcpProxy({ host: url.hostname, port: Number(url.port || 5432) });
      try {
        url.port = String(link.port);
        const log = vi.fn();
        const a = await replica({ connectionString: url.toString(), log });
        const b = await replica();
        const held = await a.holdLock("sweep", "a", clock, HOUR);
        expect(held).not.toBeNull();
        link.stall();
        // Nothing is refused or closed: only the checks going unanswered tell.
        await vi.waitFor(() => expect(held!.signal.aborted).toBe(true), { timeout: 30_000, interval: 200 });
        expect(String(held!.signal.reason)).toMatch(/did not answer/);
        expect(log).toHaveBeenCalledWith(expect.stringMatching(/lost sweep/), null);
        await vi.waitFor(async () => expect(await b.holdLock("sweep", "b", clock, HOUR)).not.toBeNull(), { timeout: 10_000 });
      } finally {
        link.restore();
        await link.close();
      }
    }, 60_000);

    it("the same name in two schemas is two locks", async () => {
      const other = await freshSchema();
      try {
        const a = await replica();
        const b = await replica({ schema: other.schema });
        const mine = await a.holdLock("sweep", "a", clock, HOUR);
        const theirs = await b.holdLock("sweep", "b", clock, HOUR);
        expect(mine).not.toBeNull();
        expect(theirs).not.toBeNull();
        expect(await lockHolderPid("sweep", other.schema)).toBeDefined();
        await theirs!.release();
        await b.close();
      } finally {
        await other.drop();
      }
    });
  });
});
