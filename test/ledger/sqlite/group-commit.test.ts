/**
 * Group commit (sqlite/group-commit.ts): operations asked for together
 * commit in one transaction, each in a savepoint of its own; each runs
 * against what the ones before it wrote; one that fails takes back only its
 * own writes; nothing settles before the COMMIT; a transaction SQLite
 * rolled back rejects the whole group. A second connection to the same file
 * shows what was committed, and when.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { SqliteLedger } from "../../../src/ledger/sqlite/sqlite-ledger.js";
import { GroupCommit } from "../../../src/ledger/sqlite/group-commit.js";

const T0 = 1_700_000_000_000;

describe("GroupCommit", () => {
  let dir: string;
  let db: Database.Database;
  let other: Database.Database;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), "issue-leases-group-"));
    db = new Database(join(dir, "g.db"));
    db.pragma("journal_mode = WAL");
    db.exec("CREATE TABLE t (k TEXT PRIMARY KEY, v INTEGER NOT NULL)");
    other = new Database(join(dir, "g.db"), { readonly: true });
  });
  afterEach(() => {
    other.close();
    if (db.open) db.close();
    rmSync(dir, { recursive: true, force: true });
  });
  const insert = (k: string, v: number) => () => db.prepare("INSERT INTO t (k, v) VALUES (?, ?)").run(k, v).changes;
  const committed = () => other.prepare("SELECT k, v FROM t ORDER BY k").all();

  it("commits operations asked for together as one transaction: none is visible to another connection until all are done", async () => {
    const group = new GroupCommit(db);
    const seenByOther: unknown[][] = [];
    const a = group.run(insert("a", 1));
    const b = group.run(() => {
      // a's row is written (this is the same transaction), not committed.
      seenByOther.push(committed());
      return db.prepare("SELECT v FROM t WHERE k = 'a'").get();
    });
    const c = group.run(insert("c", 3));
    expect(group.waiting).toBe(3);
    expect(await Promise.all([a, b, c])).toEqual([1, { v: 1 }, 1]);
    expect(seenByOther).toEqual([[]]);
    expect(committed()).toEqual([
      { k: "a", v: 1 },
      { k: "c", v: 3 },
    ]);
  });

  it("an operation asked for alone commits by itself, and each group after the last", async () => {
    const group = new GroupCommit(db);
    await group.run(insert("a", 1));
    expect(committed()).toEqual([{ k: "a", v: 1 }]);
    const seen: unknown[][] = [];
    await group.run(() => {
      seen.push(committed());
      return insert("b", 2)();
    });
    // The first group was committed before the second began.
    expect(seen).toEqual([[{ k: "a", v: 1 }]]);
  });

  it("settles nothing before the COMMIT: a promise resolved means another connection sees the write", async () => {
    const group = new GroupCommit(db);
    const order: string[] = [];
    const done = Array.from({ length: 5 }, (_, i) =>
      group.run(insert(`k${i}`, i)).then(() => order.push(`k${i}:${committed().length}`)),
    );
    await Promise.all(done);
    expect(order).toEqual(["k0:5", "k1:5", "k2:5", "k3:5", "k4:5"]);
  });

  it("takes back only the writes of an operation that throws; the others in its group commit", async () => {
    const group = new GroupCommit(db);
    const a = group.run(insert("a", 1));
    const b = group.run(() => {
      insert("b", 2)();
      throw new Error("rule broken half way");
    });
    // A constraint error of SQLite's own, after b's savepoint was rolled back.
    const dup = group.run(insert("a", 9));
    const c = group.run(insert("c", 3));
    const settled = await Promise.allSettled([a, b, dup, c]);
    expect(settled.map((s) => s.status)).toEqual(["fulfilled", "rejected", "rejected", "fulfilled"]);
    expect(String((settled[1] as PromiseRejectedResult).reason)).toMatch(/rule broken half way/);
    expect(String((settled[2] as PromiseRejectedResult).reason)).toMatch(/UNIQUE constraint failed/);
    expect(committed()).toEqual([
      { k: "a", v: 1 },
      { k: "c", v: 3 },
    ]);
  });

  it("rejects every operation of a group whose transaction SQLite rolled back, and commits none of them", async () => {
    const group = new GroupCommit(db);
    const a = group.run(insert("a", 1));
    const b = group.run(() => db.exec("ROLLBACK"));
    const c = group.run(insert("c", 3));
    const settled = await Promise.allSettled([a, b, c]);
    expect(settled.map((s) => s.status)).toEqual(["rejected", "rejected", "rejected"]);
    expect(committed()).toEqual([]);
    // The connection is usable again: the next group commits.
    expect(await group.run(insert("d", 4))).toBe(1);
    expect(committed()).toEqual([{ k: "d", v: 4 }]);
  });

  it("rejects what waits when the connection is closed under it, and flush() commits what waits at once", async () => {
    const group = new GroupCommit(db);
    const a = group.run(insert("a", 1));
    group.flush();
    expect(committed()).toEqual([{ k: "a", v: 1 }]);
    expect(await a).toBe(1);
    const b = group.run(insert("b", 2));
    db.close();
    await expect(b).rejects.toThrow(/not open/);
  });
});

describe("the SQLite ledger's operations, committed in groups", () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), "issue-leases-group-ledger-"));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it("claims of one issue asked for at once: one acquired, the rest held, one token; all committed", async () => {
    const ledger = new SqliteLedger(join(dir, "l.db"));
    const key = { repoId: 1, repo: "o/r", issue: 7 };
    const results = await Promise.all(
      Array.from({ length: 8 }, (_, i) => ledger.acquire(key, { id: 100 + i, login: `u${i}` }, 60_000, T0)),
    );
    expect(results.map((r) => r.outcome)).toEqual(["acquired", ...Array(7).fill("held")]);
    expect(new Set(results.map((r) => ("lease" in r ? r.lease?.token : null)))).toEqual(new Set([1]));
    const reader = new SqliteLedger(join(dir, "l.db"));
    expect(await reader.current(key, T0)).toMatchObject({ holder: { login: "u0" }, token: 1 });
    expect((await reader.history(key)).map((h) => h.outcome)).toEqual(["acquired", ...Array(7).fill("held")]);
    await reader.close();
    await ledger.close();
  });

  it("close() commits the operations still waiting for their group", async () => {
    const file = join(dir, "l.db");
    const ledger = new SqliteLedger(file);
    const key = { repoId: 1, repo: "o/r", issue: 8 };
    const pending = ledger.acquire(key, { id: 1, login: "alice" }, 60_000, T0);
    await ledger.close();
    expect(await pending).toMatchObject({ outcome: "acquired", lease: { token: 1 } });
    const reader = new SqliteLedger(file);
    expect(await reader.current(key, T0)).toMatchObject({ holder: { login: "alice" } });
    await reader.close();
  });
});
