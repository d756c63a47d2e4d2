/**
 * The EventLog role on every backend: positions and per-installation
 * sequences, the reads, pruning that keeps both counting, the cursors'
 * compare-and-set, watching (across two PostgreSQL replicas too), the
 * switch that turns events off, and on PostgreSQL that positions follow the
 * order of commits: a reader that has seen N never finds an event below N.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { eventChannel } from "../../src/ledger/postgres/events.js";
import { openPostgres } from "../../src/ledger/postgres/postgres-ledger.js";
import type { Ledger } from "../../src/ledger/ledger.js";
import { SqliteLedger } from "../../src/ledger/sqlite/sqlite-ledger.js";
import type { Holder, IssueKey } from "../../src/ledger/leases/lease-types.js";
import type { NewEffect } from "../../src/ledger/outbox/outbox-types.js";
import { freshSchema, skipPostgres, withClient } from "../support/pg-schema.js";
import { backends, useBackend } from "./backends.js";

const MIN = 60_000;
const HOUR = 60 * MIN;
const DAY = 24 * HOUR;
const T0 = 1_700_000_000_000;

const alpha = { repoId: 100, repo: "octo/alpha" };
const beta = { repoId: 200, repo: "octo/beta" };
const gamma = { repoId: 300, repo: "other/gamma" };
const key = (r: { repoId: number; repo: string }, issue: number): IssueKey => ({ ...r, issue });
const alice: Holder = { id: 1, login: "alice" };
const effect = (kind: string): NewEffect => ({ installation: 7, kind, payload: {} });

/** Resolves once `check()` holds, polling; fails the test after `ms`. */
async function until(check: () => boolean | Promise<boolean>, ms = 10_000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error("timed out waiting");
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe.each(backends)("event log: $name", (backend) => {
  const { ledger, store } = useBackend(backend);

  it("positions in one order, seq going up per installation (the repository's, or the caller's), 0 when unknown", async () => {
    await ledger.rememberRepo({ ...alpha, installation: 7 }, T0);
    await ledger.rememberRepo({ ...beta, installation: 9 }, T0);
    await ledger.acquire(key(alpha, 1), alice, HOUR, T0);
    await ledger.acquire(key(beta, 1), alice, HOUR, T0 + 1);
    await ledger.acquire(key(alpha, 2), alice, HOUR, T0 + 2);
    await ledger.acquire(key(gamma, 1), alice, HOUR, T0 + 3);
    await ledger.acquire(key(gamma, 2), alice, HOUR, T0 + 4, { installation: 9 });
    const all = await ledger.eventsAfter(0);
    expect(all.map((e) => [e.repoId, e.installation, e.event.seq])).toEqual([
      [100, 7, 1],
      [200, 9, 1],
      [100, 7, 2],
      [300, 0, 1],
      [300, 9, 2],
    ]);
    const positions = all.map((e) => e.pos);
    expect(positions).toEqual([...positions].sort((a, b) => a - b));
    expect(new Set(positions).size).toBe(5);
    expect(all.every((e) => e.event.id === String(e.pos))).toBe(true);
    expect(await ledger.lastEventPos()).toBe(positions[4]);
  });

  it("eventsAfter: from a position, at most `limit`, only of `repoIds` when given; eventsSince by time", async () => {
    expect(await ledger.lastEventPos()).toBe(0);
    expect(await ledger.eventsAfter(0)).toEqual([]);
    for (let i = 1; i <= 3; i++) {
      await ledger.acquire(key(alpha, i), alice, HOUR, T0 + i * MIN);
      await ledger.acquire(key(beta, i), alice, HOUR, T0 + i * MIN);
    }
    const all = await ledger.eventsAfter(0);
    expect(all).toHaveLength(6);
    expect(await ledger.eventsAfter(all[1]!.pos, { limit: 2 })).toEqual(all.slice(2, 4));
    const betas = await ledger.eventsAfter(all[1]!.pos, { repoIds: [beta.repoId] });
    expect(betas.map((e) => [e.repoId, e.event.issue])).toEqual([
      [200, 2],
      [200, 3],
    ]);
    expect(await ledger.eventsAfter(0, { repoIds: [] })).toEqual([]);
    expect(await ledger.eventsAfter(all[5]!.pos)).toEqual([]);
    expect((await ledger.eventsSince(T0 + 2 * MIN)).map((e) => e.event.issue)).toEqual([2, 2, 3, 3]);
    expect(await ledger.eventsSince(T0 + 2 * MIN, 1)).toEqual([all[2]]);
  });

  it("pruning deletes events made before a time; positions and each installation's seq carry on after even every event is gone", async () => {
    await ledger.rememberRepo({ ...alpha, installation: 7 }, T0);
    await ledger.acquire(key(alpha, 1), alice, HOUR, T0);
    await ledger.acquire(key(alpha, 2), alice, HOUR, T0 + DAY);
    const [first, second] = await ledger.eventsAfter(0);
    expect(await ledger.pruneEvents(T0 + DAY)).toBe(1);
    expect(await ledger.eventsAfter(0)).toEqual([second]);
    expect(await ledger.pruneEvents(T0 + 2 * DAY)).toBe(1);
    expect(await ledger.eventsAfter(0)).toEqual([]);
    expect(await ledger.lastEventPos()).toBe(second!.pos);
    await ledger.acquire(key(alpha, 3), alice, HOUR, T0 + 2 * DAY);
    const [third] = await ledger.eventsAfter(0);
    expect(third!.pos).toBeGreaterThan(second!.pos);
    expect([first!.event.seq, second!.event.seq, third!.event.seq]).toEqual([1, 2, 3]);
  });

  it("advanceEventCursor: moves only from where it stands, and queues its effects with the move; a lost race writes nothing", async () => {
    expect(await ledger.eventCursor("hooks")).toBe(0);
    expect(await ledger.advanceEventCursor("hooks", 0, 5, [{ repoId: 100, issue: 1, effect: effect("first") }], T0)).toBe(true);
    expect(await ledger.eventCursor("hooks")).toBe(5);
    // Another replica that read 0 (or anything but 5) lost: nothing moves, nothing is queued.
    expect(await ledger.advanceEventCursor("hooks", 0, 9, [{ repoId: 100, issue: 1, effect: effect("lost") }], T0)).toBe(false);
    expect(await ledger.advanceEventCursor("hooks", 4, 9, [{ repoId: 100, issue: 1, effect: effect("lost") }], T0)).toBe(false);
    // A cursor that does not exist moves only from 0.
    expect(await ledger.advanceEventCursor("other", 3, 9, [], T0)).toBe(false);
    expect(await ledger.eventCursor("other")).toBe(0);
    expect(await ledger.advanceEventCursor("hooks", 5, 9, [{ repoId: 100, issue: 2, effect: effect("second") }], T0)).toBe(true);
    const queued = await ledger.takeEffects(T0, 10, MIN);
    expect(queued.map((e) => [e.kind, e.issue]).sort()).toEqual([
      ["first", 1],
      ["second", 2],
    ]);
  });

  it("two racers from the same position (two connections): one wins, the other writes nothing", async () => {
    const other = await store().another!();
    for (const from of [0, 3]) {
      const racers = [ledger, other].map((l, i) =>
        l.advanceEventCursor("race", from, from + 3, [{ repoId: 100, issue: 1, effect: effect(`from-${from}-${i}`) }], T0),
      );
      const won = await Promise.all(racers);
      expect(won.filter(Boolean)).toHaveLength(1);
      expect(await ledger.eventCursor("race")).toBe(from + 3);
    }
    expect(await ledger.takeEffects(T0, 10, MIN)).toHaveLength(1);
  });

  it("watchEvents: the listener is called after a commit that wrote events, not for one that wrote none, and no more once unsubscribed", async () => {
    let calls = 0;
    const stop = ledger.watchEvents(() => calls++);
    // PostgreSQL calls listeners once it listens (a notice may have been missed before): wait for that.
    if (backend.name === "postgres") await until(() => calls === 1);
    const base = calls;
    await ledger.acquire(key(alpha, 1), alice, HOUR, T0);
    await until(() => calls > base);
    const after = calls;
    await ledger.note(key(alpha, 1), alice, T0 + 1);
    await ledger.markReminded(key(alpha, 1), { token: 1, expiresAt: T0 + HOUR }, T0 + 2);
    await new Promise((r) => setTimeout(r, 300));
    expect(calls).toBe(after);
    stop();
    await ledger.release(key(alpha, 1), alice, T0 + 3);
    await new Promise((r) => setTimeout(r, 300));
    expect(calls).toBe(after);
  });
});

describe("SQLite: the next position and seq, remembered by the process that wrote last", () => {
  async function withTwo(f: (a: SqliteLedger, b: SqliteLedger) => Promise<void>): Promise<void> {
    const dir = await mkdtemp(join(tmpdir(), "issue-leases-event-seqs-"));
    const a = new SqliteLedger(join(dir, "ledger.db"));
    const b = new SqliteLedger(join(dir, "ledger.db"));
    try {
      await f(a, b);
    } finally {
      await a.close();
      await b.close();
      await rm(dir, { recursive: true, force: true });
    }
  }
  const numbers = async (ledger: SqliteLedger) => (await ledger.eventsAfter(0)).map((e) => [e.pos, e.installation, e.event.seq]);

  it("another connection's events between this one's (the CLI's): no number given twice or skipped", async () => {
    await withTwo(async (a, b) => {
      await a.rememberRepo({ ...alpha, installation: 7 }, T0);
      await a.rememberRepo({ ...beta, installation: 9 }, T0);
      await a.acquire(key(alpha, 1), alice, HOUR, T0);
      await b.acquire(key(alpha, 2), alice, HOUR, T0 + 1);
      await b.acquire(key(beta, 1), alice, HOUR, T0 + 2);
      await a.acquire(key(alpha, 3), alice, HOUR, T0 + 3);
      await a.acquire(key(beta, 2), alice, HOUR, T0 + 4);
      await b.acquire(key(alpha, 4), alice, HOUR, T0 + 5);
      expect(await numbers(a)).toEqual([
        [1, 7, 1],
        [2, 7, 2],
        [3, 9, 1],
        [4, 7, 3],
        [5, 9, 2],
        [6, 7, 4],
      ]);
    });
  });

  it("another connection's commit calls this one's listeners (the CLI's force-release reaching the streams), without a commit of its own", async () => {
    await withTwo(async (a, b) => {
      let calls = 0;
      const stop = a.watchEvents(() => calls++);
      await b.acquire(key(alpha, 1), alice, HOUR, T0);
      await until(() => calls > 0, 5_000);
      stop();
      const after = calls;
      await b.acquire(key(alpha, 2), alice, HOUR, T0 + 1);
      await new Promise((r) => setTimeout(r, 600));
      expect(calls).toBe(after);
    });
  });

  it("a filtered read over many positions: the repository's events across windows, in order, the process served between windows", async () => {
    await withTwo(async (a) => {
      const insert = a.db.prepare(
        `INSERT INTO events (pos, installation, seq, repo_id, repo, issue, type, at, holder_id, holder_login, token, cause)
         VALUES (?, 7, ?, ?, ?, 1, 'lease.acquired', ?, 1, 'alice', 1, 'command')`,
      );
      const rare = new Set([5, 20_005, 40_005, 49_999]);
      a.db.transaction(() => {
        for (let pos = 1; pos <= 50_000; pos++) {
          const r = rare.has(pos) ? beta : alpha;
          insert.run(pos, pos, r.repoId, r.repo, T0 + pos);
        }
      })();
      let served = false;
      setImmediate(() => (served = true));
      const found = await a.eventsAfter(0, { repoIds: [beta.repoId] });
      expect(served).toBe(true);
      expect(found.map((e) => e.pos)).toEqual([...rare]);
      expect((await a.eventsAfter(0, { repoIds: [beta.repoId], limit: 2 })).map((e) => e.pos)).toEqual([5, 20_005]);
      expect((await a.eventsAfter(20_005, { repoIds: [beta.repoId] })).map((e) => e.pos)).toEqual([40_005, 49_999]);
      expect(await a.eventsAfter(49_999, { repoIds: [beta.repoId] })).toEqual([]);
    });
  });

  it("an operation that failed after its event was numbered: the next takes the same numbers; so does one after another connection's prune", async () => {
    await withTwo(async (a, b) => {
      await a.rememberRepo({ ...alpha, installation: 7 }, T0);
      await a.acquire(key(alpha, 1), alice, HOUR, T0);
      a.db.exec("CREATE TRIGGER refuse AFTER INSERT ON events WHEN NEW.issue = 99 BEGIN SELECT RAISE(ABORT, 'refused'); END");
      await expect(a.acquire(key(alpha, 99), alice, HOUR, T0 + 1)).rejects.toThrow("refused");
      await a.acquire(key(alpha, 2), alice, HOUR, T0 + 2);
      expect(await numbers(a)).toEqual([
        [1, 7, 1],
        [2, 7, 2],
      ]);
      // Every event pruned by the other connection: the numbers carry on from what pruning kept.
      expect(await b.pruneEvents(T0 + DAY)).toBe(2);
      await a.acquire(key(alpha, 3), alice, HOUR, T0 + DAY);
      expect(await numbers(a)).toEqual([[3, 7, 3]]);
    });
  });
});

describe("events turned off (`events: false`, for the benchmark)", () => {
  it("SQLite: operations run as before and write no event", async () => {
    const dir = await mkdtemp(join(tmpdir(), "issue-leases-events-off-"));
    const ledger = new SqliteLedger(join(dir, "ledger.db"), { events: false });
    try {
      expect(await ledger.acquire(key(alpha, 1), alice, HOUR, T0)).toMatchObject({ outcome: "acquired" });
      expect(await ledger.release(key(alpha, 1), alice, T0 + 1)).toMatchObject({ outcome: "released" });
      expect(await ledger.eventsAfter(0)).toEqual([]);
      expect(await ledger.lastEventPos()).toBe(0);
    } finally {
      await ledger.close();
      await rm(dir, { recursive: true, force: true });
    }
  });

  it.skipIf(skipPostgres)("PostgreSQL: operations run as before and write no event", async () => {
    const fresh = await freshSchema();
    const ledger = await openPostgres({ connectionString: fresh.connectionString, schema: fresh.schema, clock: "caller", events: false });
    try {
      expect(await ledger.acquire(key(alpha, 1), alice, HOUR, T0)).toMatchObject({ outcome: "acquired" });
      expect(await ledger.release(key(alpha, 1), alice, T0 + 1)).toMatchObject({ outcome: "released" });
      expect(await ledger.eventsAfter(0)).toEqual([]);
    } finally {
      await ledger.close();
      await fresh.drop();
    }
  });
});

describe.skipIf(skipPostgres)("event log on PostgreSQL replicas", () => {
  async function replicas(): Promise<{ a: Ledger; b: Ledger; cleanup: () => Promise<void> }> {
    const fresh = await freshSchema();
    const open = () => openPostgres({ connectionString: fresh.connectionString, schema: fresh.schema, clock: "caller", poolSize: 6 });
    const a = await open();
    const b = await open();
    return {
      a,
      b,
      cleanup: async () => {
        await a.close();
        await b.close();
        await fresh.drop();
      },
    };
  }

  it("a change on one replica calls the listeners of the other (LISTEN/NOTIFY), which then read it", async () => {
    const { a, b, cleanup } = await replicas();
    try {
      const seen: string[] = [];
      let reading = Promise.resolve();
      let at = 0;
      const stop = b.watchEvents(() => {
        reading = reading.then(async () => {
          for (const e of await b.eventsAfter(at)) {
            seen.push(`${e.event.type} ${e.event.issue}`);
            at = e.pos;
          }
        });
      });
      await new Promise((r) => setTimeout(r, 200));
      await a.acquire(key(alpha, 1), alice, HOUR, T0);
      await a.release(key(alpha, 1), alice, T0 + 1);
      await until(() => seen.length === 2);
      expect(seen).toEqual(["lease.acquired 1", "lease.released 1"]);
      stop();
    } finally {
      await cleanup();
    }
  });

  it("the LISTEN connection cut by the server: listened again, the listeners called on reconnect, changes heard after; close() ends it", async () => {
    const fresh = await freshSchema();
    const open = () => openPostgres({ connectionString: fresh.connectionString, schema: fresh.schema, clock: "caller", log: () => undefined });
    const a = await open();
    const b = await open();
    const listening = `LISTEN "${eventChannel(fresh.schema)}"`;
    const sessions = () =>
      withClient(async (c) => (await c.query<{ pid: number }>("SELECT pid FROM pg_stat_activity WHERE query = $1", [listening])).rows.map((r) => r.pid));
    try {
      let calls = 0;
      b.watchEvents(() => calls++);
      await until(() => calls === 1);
      const [pid] = await sessions();
      expect(pid).toBeDefined();
      await withClient((c) => c.query("SELECT pg_terminate_backend($1)", [pid]));
      // Listening again, on a new session: the listeners are called, as a notice may have been missed.
      await until(() => calls === 2);
      await until(async () => (await sessions()).some((p) => p !== pid));
      await a.acquire(key(alpha, 1), alice, HOUR, T0);
      await until(() => calls === 3);
      await b.close();
      await until(async () => (await sessions()).length === 0);
    } finally {
      await a.close();
      await b.close();
      await fresh.drop();
    }
  });

  it("positions follow the order of commits: a reader following eventsAfter from the highest it saw, while two replicas write, misses none", async () => {
    const { a, b, cleanup } = await replicas();
    try {
      const N = 120;
      let done = false;
      const read: number[] = [];
      const reader = (async () => {
        let at = 0;
        while (!done || (await a.lastEventPos()) > at) {
          for (const e of await a.eventsAfter(at)) {
            read.push(e.pos);
            at = e.pos;
          }
        }
      })();
      await Promise.all(
        // Each of its own installation: no sequence's row lock orders them.
        Array.from({ length: N }, (_, i) => (i % 2 === 0 ? a : b).acquire(key(i % 3 === 0 ? alpha : beta, i + 1), alice, HOUR, T0 + i, { installation: i + 1 })),
      );
      done = true;
      await reader;
      const written = (await a.eventsAfter(0, { limit: 1000 })).map((e) => e.pos);
      expect(written).toHaveLength(N);
      // Every event written was read, each once, in order: none committed below a position the reader had passed.
      expect(read).toEqual(written);
      expect(written).toEqual(Array.from({ length: N }, (_, i) => i + 1));
    } finally {
      await cleanup();
    }
  });
});
