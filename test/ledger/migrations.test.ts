/**
 * Every older schema version, with data in it, migrates to the latest and the
 * ledger carries on from it: tokens continue, history and deliveries survive.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { migrateSqlite } from "../../src/ledger/sqlite/open.js";
import { SqliteLedger } from "../../src/ledger/sqlite/sqlite-ledger.js";
import { SQLITE_MIGRATIONS } from "../../src/ledger/sqlite/migrations.js";
import { always } from "../../src/ledger/leases/effect-cases.js";

const LATEST = SQLITE_MIGRATIONS.length;
const HOUR = 3_600_000;
const T0 = 1_600_000_000_000;
const REPO = { repoId: 11, repo: "old/repo" };
const key = (issue: number) => ({ ...REPO, issue });
const alice = { id: 1, login: "alice" };
const bob = { id: 2, login: "bob" };

function tables(db: Database.Database): Set<string> {
  return new Set(db.prepare<[], { name: string }>("SELECT name FROM sqlite_master WHERE type = 'table'").all().map((r) => r.name));
}

function schema(db: Database.Database): Array<{ type: string; name: string; sql: string | null }> {
  return db.prepare<[], { type: string; name: string; sql: string | null }>("SELECT type, name, sql FROM sqlite_master ORDER BY type, name").all();
}

/** Rows an older ledger could have written, in the columns that version had. */
const OLD = {
  leases: [
    // Held open-ended by alice in her third tenure.
    { repo_id: REPO.repoId, issue: 1, repo: REPO.repo, holder_id: 1, holder_login: "alice", token: 3, acquired_at: T0, expires_at: null, updated_at: T0 },
    // Free after five tenures.
    { repo_id: REPO.repoId, issue: 2, repo: REPO.repo, holder_id: null, holder_login: null, token: 5, acquired_at: T0, expires_at: null, updated_at: T0 },
    // Held by bob, expired and not yet swept.
    { repo_id: REPO.repoId, issue: 3, repo: REPO.repo, holder_id: 2, holder_login: "bob", token: 1, acquired_at: T0, expires_at: T0 + HOUR, updated_at: T0 },
  ],
  history: [
    { id: 1, repo_id: REPO.repoId, repo: REPO.repo, issue: 1, op: "acquire", outcome: "acquired", actor_id: 1, actor_login: "alice", holder_id: 1, holder_login: "alice", token: 3, expires_at: null, at: T0, delivery: "d-old" },
    { id: 2, repo_id: REPO.repoId, repo: REPO.repo, issue: 3, op: "acquire", outcome: "acquired", actor_id: 2, actor_login: "bob", holder_id: 2, holder_login: "bob", token: 1, expires_at: T0 + HOUR, at: T0, delivery: null },
    { id: 3, repo_id: REPO.repoId, repo: REPO.repo, issue: 1, op: "renew", outcome: "renewed", actor_id: 1, actor_login: "alice", holder_id: 1, holder_login: "alice", token: 3, expires_at: null, at: T0 + 1, delivery: null },
    // An issue never held, so without a lease row: only a note.
    { id: 4, repo_id: REPO.repoId, repo: REPO.repo, issue: 5, op: "note", outcome: "invalid", actor_id: 2, actor_login: "bob", holder_id: null, holder_login: null, token: null, expires_at: null, at: T0 + 2, delivery: null },
  ],
  deliveries: [
    {
      id: "d-old",
      result: JSON.stringify({ outcome: "acquired", newTenure: true, lease: { ...key(1), holder: alice, token: 3, acquiredAt: T0, expiresAt: null } }),
      at: T0,
    },
  ],
  outbox: [
    { id: 1, repo_id: REPO.repoId, issue: 1, installation: 9, kind: "label", payload: JSON.stringify({ add: "claimed" }), next_at: T0, created_at: T0 },
  ],
  reflections: [{ repo_id: REPO.repoId, issue: 1, state: JSON.stringify({ labels: ["claimed"] }), updated_at: T0 }],
  repos: [{ repo_id: REPO.repoId, repo: REPO.repo, installation: 9, updated_at: T0 }],
  locks: [{ name: "sweeper", owner: "old-replica", until: T0 + HOUR }],
} satisfies Record<string, Array<Record<string, unknown>>>;

/** What a version-6 ledger keeps as it writes history: each row's predecessor, and each issue's latest row. */
function linkHistory(db: Database.Database): void {
  db.exec(`
    UPDATE history SET prev = (SELECT max(p.id) FROM history p WHERE p.repo_id = history.repo_id AND p.issue = history.issue AND p.id < history.id);
    UPDATE leases SET last_history = (SELECT max(h.id) FROM history h WHERE h.repo_id = leases.repo_id AND h.issue = leases.issue);
    INSERT INTO history_heads (repo_id, issue, last)
      SELECT repo_id, issue, max(id) FROM history h
      WHERE NOT EXISTS (SELECT 1 FROM leases l WHERE l.repo_id = h.repo_id AND l.issue = h.issue)
      GROUP BY repo_id, issue;
  `);
}

function insert(db: Database.Database, table: string, row: Record<string, unknown>): void {
  const cols = Object.keys(row);
  db.prepare(`INSERT INTO ${table} (${cols.join(", ")}) VALUES (${cols.map((c) => `@${c}`).join(", ")})`).run(row);
}

function select(db: Database.Database, table: string, cols: string[]): unknown[] {
  return db.prepare(`SELECT ${cols.join(", ")} FROM ${table} ORDER BY 1, 2`).all();
}

describe("sqlite migrations", () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), "issue-leases-mig-"));
  });
  afterEach(() => {
    rmSync(dir, { recursive: true, force: true });
  });

  it("a fresh database migrates to the latest version", () => {
    const db = new Database(join(dir, "fresh.db"));
    try {
      expect(migrateSqlite(db)).toBe(LATEST);
      expect(db.pragma("user_version", { simple: true })).toBe(LATEST);
      expect([...tables(db)]).toEqual(expect.arrayContaining(["leases", "history", "deliveries", "outbox"]));
    } finally {
      db.close();
    }
  });

  it.each(Array.from({ length: LATEST }, (_, v) => v))("from version %i, with its data, to the latest", async (v) => {
    const file = join(dir, `v${v}.db`);
    const db = new Database(file);
    expect(migrateSqlite(db, v)).toBe(v);
    expect(db.pragma("user_version", { simple: true })).toBe(v);
    const present = tables(db);
    const written = Object.entries(OLD).filter(([table]) => present.has(table));
    db.transaction(() => {
      for (const [table, rows] of written) for (const row of rows) insert(db, table, row);
      // From version 6 a ledger links each history row to the issue's previous
      // one as it writes it; rows inserted here by hand are linked the same way.
      if (present.has("history_heads")) linkHistory(db);
    })();

    expect(migrateSqlite(db)).toBe(LATEST);
    expect(db.pragma("user_version", { simple: true })).toBe(LATEST);
    // The same schema as a database created at the latest version.
    const fresh = new Database(":memory:");
    migrateSqlite(fresh);
    expect(schema(db)).toEqual(schema(fresh));
    fresh.close();
    // Every row survived, column for column.
    for (const [table, rows] of written) {
      const cols = Object.keys(rows[0]!);
      expect(select(db, table, cols), table).toEqual(rows);
    }
    if (present.has("leases")) {
      // Columns added later take their defaults on old rows.
      expect(db.prepare("SELECT DISTINCT reminded, remind_at FROM leases").all()).toEqual([{ reminded: 0, remind_at: null }]);
    }
    db.close();

    // The ledger carries on from the old data.
    const ledger = new SqliteLedger(file);
    try {
      const now = T0 + 2 * HOUR;
      if (present.has("leases")) {
        expect(await ledger.current(key(1), now)).toEqual({ ...key(1), holder: alice, token: 3, acquiredAt: T0, expiresAt: null, heldBy: { kind: "time" } });
        expect(await ledger.acquire(key(1), bob, HOUR, now)).toMatchObject({ outcome: "held", lease: { token: 3 } });
        expect(await ledger.acquire(key(2), bob, HOUR, now)).toMatchObject({ outcome: "acquired", newTenure: true, lease: { token: 6 } });
        expect(await ledger.expiredSince(now)).toMatchObject([{ issue: 3, token: 1, holder: bob }]);
        expect(await ledger.markExpired(key(3), 1, now)).toMatchObject({ outcome: "expired" });
        expect(await ledger.acquire(key(3), alice, HOUR, now)).toMatchObject({ outcome: "acquired", lease: { token: 2 } });
        expect(await ledger.list(REPO.repoId, now)).toHaveLength(3);
      } else {
        expect(await ledger.acquire(key(2), bob, HOUR, now)).toMatchObject({ outcome: "acquired", lease: { token: 1 } });
      }
      if (present.has("history")) {
        const history = await ledger.history(key(1));
        expect(history.slice(0, 2)).toMatchObject([
          { id: 1, op: "acquire", outcome: "acquired", holder: alice, token: 3, delivery: "d-old" },
          { id: 3, op: "renew", outcome: "renewed" },
        ]);
        // New rows come after the old ones.
        expect(history.at(-1)).toMatchObject({ op: "acquire", outcome: "held", actor: bob });
        expect(history.at(-1)!.id).toBeGreaterThan(Math.max(...OLD.history.map((h) => h.id)));
        expect(await ledger.history(key(1), 2)).toEqual(history.slice(-2));
        expect(await ledger.history(key(3))).toMatchObject([{ id: 2 }, { op: "expire" }, { op: "acquire", outcome: "acquired" }]);
        // The issue never held carries on its history, through its first tenure.
        expect(await ledger.history(key(5))).toMatchObject([{ id: 4, op: "note", outcome: "invalid", actor: bob }]);
        await ledger.note(key(5), alice, now, { outcome: "invalid" });
        await ledger.acquire(key(5), alice, HOUR, now);
        await ledger.renew(key(5), alice, HOUR, now);
        expect((await ledger.history(key(5))).map((h) => `${h.op}:${h.outcome}`)).toEqual([
          "note:invalid",
          "note:invalid",
          "acquire:acquired",
          "renew:renewed",
        ]);
      }
      if (present.has("deliveries")) {
        // A redelivery of a webhook applied before the upgrade is still recognised.
        expect(await ledger.acquire(key(1), alice, HOUR, now, { delivery: "d-old" })).toMatchObject({
          outcome: "acquired",
          duplicate: true,
          lease: { token: 3 },
        });
      }
      if (present.has("outbox")) {
        expect(await ledger.takeEffects(now, 10, 1000)).toMatchObject([{ id: 1, kind: "label", payload: { add: "claimed" } }]);
      }
      if (present.has("reflections")) {
        expect(await ledger.getReflection(REPO.repoId, 1)).toEqual({ labels: ["claimed"] });
      }
      if (present.has("repos")) {
        expect(await ledger.repoInfo(REPO.repoId)).toEqual({ ...REPO, installation: 9 });
      }
      if (present.has("locks")) {
        expect(await ledger.tryLock("sweeper", "new-replica", T0, HOUR)).toBe(false);
      }
      // The ledger's own writes work on every table.
      await ledger.acquire(key(4), alice, HOUR, now, { delivery: "d-new", remindBefore: 1000, effects: always({ installation: 9, kind: "k", payload: 1 }) });
      expect(await ledger.acquire(key(4), alice, HOUR, now, { delivery: "d-new" })).toMatchObject({ duplicate: true });
      expect(await ledger.dueReminders(now + HOUR - 1000)).toMatchObject([{ issue: 4 }]);
      await ledger.putReflection(REPO.repoId, 4, { labels: [] }, now);
      expect(await ledger.getReflection(REPO.repoId, 4)).toEqual({ labels: [] });
      expect(await ledger.tryLock("sweeper", "new-replica", now, HOUR)).toBe(true);
      expect(await ledger.schemaVersion()).toEqual({ current: LATEST, latest: LATEST });
      await ledger.rememberRepo({ ...REPO, installation: 10 }, now);
      expect(await ledger.repoInfo(REPO.repoId)).toEqual({ ...REPO, installation: 10 });
    } finally {
      await ledger.close();
    }
  });

  it("opening an up-to-date database again is a no-op", async () => {
    const file = join(dir, "twice.db");
    const first = new SqliteLedger(file);
    await first.acquire(key(1), alice, null, T0);
    const before = { schema: schema(first.db), version: first.db.pragma("user_version", { simple: true }) };
    await first.close();

    const second = new SqliteLedger(file);
    try {
      expect({ schema: schema(second.db), version: second.db.pragma("user_version", { simple: true }) }).toEqual(before);
      expect(before.version).toBe(LATEST);
      expect(migrateSqlite(second.db)).toBe(LATEST);
      // Asking for an older version never undoes anything.
      expect(migrateSqlite(second.db, 1)).toBe(LATEST);
      expect(schema(second.db)).toEqual(before.schema);
      expect(await second.current(key(1), T0 + 1)).toMatchObject({ holder: alice, token: 1 });
      expect(await second.history(key(1))).toHaveLength(1);
      // Two ledgers open on it at once: still a no-op.
      const third = new SqliteLedger(file);
      expect(schema(third.db)).toEqual(before.schema);
      await third.close();
    } finally {
      await second.close();
    }
  });
});
