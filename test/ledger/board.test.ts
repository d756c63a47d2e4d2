/**
 * Ledger contract, both backends: the board's reads (issue 12). A page of
 * live leases in expiry order, what a viewer may see of private
 * repositories, the filters, issue cards remembered from webhooks, and the
 * side panels (who holds the most, what expires soon, what ended and how),
 * with the per-holder counts kept right through tenures, renames, sweeps
 * and repositories changing visibility.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import pg from "pg";
import { describe, expect, it } from "vitest";
import { POSTGRES_MIGRATIONS } from "../../src/ledger/postgres/migrations.js";
import { PostgresLedger } from "../../src/ledger/postgres/postgres-ledger.js";
import { migrateSqlite } from "../../src/ledger/sqlite/open.js";
import { SqliteLedger } from "../../src/ledger/sqlite/sqlite-ledger.js";
import { SQLITE_MIGRATIONS } from "../../src/ledger/sqlite/migrations.js";
import type { Holder, IssueKey } from "../../src/ledger/leases/lease-types.js";
import type { Ledger } from "../../src/ledger/ledger.js";
import type { BoardPanelsQuery, BoardQuery } from "../../src/ledger/board/board-types.js";
import { freshSchema, skipPostgres } from "../support/pg-schema.js";
import { backends, useBackend } from "./backends.js";

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const T0 = 1_700_000_000_000;
const pub = { repoId: 100, repo: "octo/public" };
const priv = { repoId: 200, repo: "octo/secret" };
const unseen = { repoId: 300, repo: "octo/unseen" };
const key = (issue: number, r = pub): IssueKey => ({ ...r, issue });
const alice: Holder = { id: 1, login: "alice" };
const bob: Holder = { id: 2, login: "bob" };
const carol: Holder = { id: 3, login: "Carol" };
const maint: Holder = { id: 9, login: "maint" };

const page = (over: Partial<BoardQuery> = {}): BoardQuery => ({ visible: [], page: 0, pageSize: 100, ...over });
const panels = (over: Partial<BoardPanelsQuery> = {}): BoardPanelsQuery => ({
  visible: [],
  top: 10,
  soonMs: DAY,
  endedWithinMs: 7 * DAY,
  countCap: 100,
  ...over,
});
const rows = async (ledger: Ledger, q: Partial<BoardQuery> = {}, now = T0 + 1) =>
  (await ledger.boardLeases(page(q), now)).leases.map((l) => `${l.repo}#${l.issue} ${l.holder.login}`);

async function seen(ledger: Ledger) {
  await ledger.rememberVisibility({ ...pub, installation: 1, private: false }, T0);
  await ledger.rememberVisibility({ ...priv, installation: 1, private: true }, T0);
}

describe.each(backends)("board: $name", (backend) => {
  const { ledger } = useBackend(backend);

  it("lists live leases by expiry, open-ended last, without free, expired or unswept rows; pages with `more`", async () => {
    await seen(ledger);
    await ledger.acquire(key(1), alice, 3 * HOUR, T0);
    await ledger.acquire(key(2), bob, null, T0);
    await ledger.acquire(key(3), carol, HOUR, T0);
    await ledger.acquire(key(4), alice, 2 * HOUR, T0);
    await ledger.acquire(key(5), bob, HOUR / 2, T0 - HOUR); // expired, not swept
    await ledger.acquire(key(6), carol, HOUR, T0);
    await ledger.release(key(6), carol, T0);

    expect(await rows(ledger)).toEqual(["octo/public#3 Carol", "octo/public#4 alice", "octo/public#1 alice", "octo/public#2 bob"]);
    const first = await ledger.boardLeases(page({ pageSize: 3 }), T0 + 1);
    expect(first.more).toBe(true);
    expect(first.leases[0]).toMatchObject({ repoId: 100, issue: 3, holder: carol, token: 1, acquiredAt: T0, expiresAt: T0 + HOUR, heldBy: { kind: "time" } });
    const second = await ledger.boardLeases(page({ pageSize: 3, page: 1 }), T0 + 1);
    expect(second).toMatchObject({ more: false, leases: [{ issue: 2, expiresAt: null }] });
  });

  it("says how each lease is held: by time, while its holder's pull request is open, or by an exempt label", async () => {
    await seen(ledger);
    const resume = { ttl: HOUR, remindBefore: null };
    await ledger.acquire(key(1), alice, HOUR, T0);
    await ledger.acquire(key(2), alice, HOUR, T0);
    await ledger.linkPull(key(7), alice, [2], T0, { resume });
    await ledger.acquire(key(3), bob, HOUR, T0, { exempt: true });
    const held = (await ledger.boardLeases(page(), T0 + 1)).leases.map((l) => [l.issue, l.heldBy, l.expiresAt]);
    expect(held).toEqual([
      [1, { kind: "time" }, T0 + HOUR],
      [2, { kind: "pull", pulls: [7] }, null],
      [3, { kind: "exempt", pulls: [] }, null],
    ]);
  });

  it("shows a private repository's leases only to viewers given its id, and one never seen in a webhook to nobody else", async () => {
    await seen(ledger);
    await ledger.acquire(key(1), alice, HOUR, T0);
    await ledger.acquire(key(1, priv), bob, HOUR, T0);
    await ledger.acquire(key(1, unseen), carol, HOUR, T0);
    expect(await rows(ledger)).toEqual(["octo/public#1 alice"]);
    expect(await rows(ledger, { visible: [priv.repoId] })).toEqual(["octo/public#1 alice", "octo/secret#1 bob"]);
    expect(await rows(ledger, { visible: [unseen.repoId] })).toEqual(["octo/public#1 alice", "octo/unseen#1 Carol"]);

    // Made private: gone for anonymous viewers; made public: shown to all.
    expect(await ledger.rememberVisibility({ ...pub, installation: 1, private: true }, T0 + 1)).toBe(true);
    expect(await rows(ledger)).toEqual([]);
    expect(await ledger.rememberVisibility({ ...priv, installation: 1, private: false }, T0 + 2)).toBe(true);
    expect(await rows(ledger)).toEqual(["octo/secret#1 bob"]);
    expect(await ledger.rememberVisibility({ ...priv, installation: 1, private: false }, T0 + 3)).toBe(false);
  });

  it("filters by repository, by holder (any case; an id narrows it to one account) and by label (any case)", async () => {
    await seen(ledger);
    await ledger.acquire(key(1), alice, HOUR, T0);
    await ledger.acquire(key(2), bob, 2 * HOUR, T0);
    await ledger.acquire(key(3), carol, 3 * HOUR, T0);
    await ledger.acquire(key(1, priv), alice, 4 * HOUR, T0);
    await ledger.rememberCard({ repoId: pub.repoId, issue: 1, title: "One", labels: ["bug", "Good First Issue"] }, T0, true);
    await ledger.rememberCard({ repoId: pub.repoId, issue: 3, title: "Three", labels: ["good first issue"] }, T0, true);
    await ledger.rememberCard({ repoId: priv.repoId, issue: 1, title: "Secret", labels: ["bug"] }, T0, true);

    expect(await rows(ledger, { repoId: pub.repoId })).toEqual(["octo/public#1 alice", "octo/public#2 bob", "octo/public#3 Carol"]);
    expect(await rows(ledger, { repoId: priv.repoId })).toEqual([]);
    expect(await rows(ledger, { repoId: priv.repoId, visible: [priv.repoId] })).toEqual(["octo/secret#1 alice"]);
    expect(await rows(ledger, { holder: { login: "ALICE" } })).toEqual(["octo/public#1 alice"]);
    expect(await rows(ledger, { holder: { login: "alice" }, visible: [priv.repoId] })).toEqual(["octo/public#1 alice", "octo/secret#1 alice"]);
    expect(await rows(ledger, { holder: { login: "carol" } })).toEqual(["octo/public#3 Carol"]);
    expect(await rows(ledger, { holder: { login: "alice", id: alice.id } })).toEqual(["octo/public#1 alice"]);
    expect(await rows(ledger, { holder: { login: "alice", id: bob.id } })).toEqual([]);
    expect(await rows(ledger, { holder: { login: "nobody" } })).toEqual([]);
    expect(await rows(ledger, { label: "GOOD first ISSUE" })).toEqual(["octo/public#1 alice", "octo/public#3 Carol"]);
    expect(await rows(ledger, { label: "bug" })).toEqual(["octo/public#1 alice"]);
    expect(await rows(ledger, { label: "bug", visible: [priv.repoId] })).toEqual(["octo/public#1 alice", "octo/secret#1 alice"]);
    expect(await rows(ledger, { label: "bug", holder: { login: "bob" } })).toEqual([]);

    // Labels change with the next webhook: the old one no longer matches.
    await ledger.rememberCard({ repoId: pub.repoId, issue: 1, title: "One", labels: ["wontfix"] }, T0 + 1, false);
    expect(await rows(ledger, { label: "bug" })).toEqual([]);
    expect(await rows(ledger, { label: "wontfix" })).toEqual(["octo/public#1 alice"]);
  });

  it("remembers a card for an issue with a lease row or when told to create it, and nothing for other issues", async () => {
    await seen(ledger);
    expect(await ledger.rememberCard({ repoId: pub.repoId, issue: 7, title: "Never leased", labels: ["x"] }, T0, false)).toBe(false);
    await ledger.acquire(key(7), alice, HOUR, T0);
    expect((await ledger.boardLeases(page(), T0 + 1)).leases[0]).toMatchObject({ issue: 7, title: null, labels: [] });

    expect(await ledger.rememberCard({ repoId: pub.repoId, issue: 7, title: "Fix <the> parser", labels: ["bug", "p1"] }, T0 + 1, false)).toBe(true);
    // The same again changes nothing, and says the card is there.
    expect(await ledger.rememberCard({ repoId: pub.repoId, issue: 7, title: "Fix <the> parser", labels: ["bug", "p1"] }, T0 + 1, false)).toBe(true);
    expect((await ledger.boardLeases(page(), T0 + 2)).leases[0]).toMatchObject({ title: "Fix <the> parser", labels: ["bug", "p1"] });
    // A comment with a command may come before its lease: the card is kept for it.
    await ledger.rememberCard({ repoId: pub.repoId, issue: 8, title: "Claimed next", labels: [] }, T0 + 2, true);
    await ledger.acquire(key(8), bob, 2 * HOUR, T0 + 3);
    expect((await ledger.boardLeases(page(), T0 + 4)).leases.map((l) => l.title)).toEqual(["Fix <the> parser", "Claimed next"]);
  });

  it("counts leases per holder among what the viewer may see, through releases, expiries not yet swept, renames and visibility changes", async () => {
    await seen(ledger);
    await ledger.acquire(key(1), alice, HOUR, T0);
    await ledger.acquire(key(2), alice, HOUR, T0);
    await ledger.acquire(key(3), bob, HOUR, T0);
    await ledger.acquire(key(4), carol, HOUR / 2, T0);
    await ledger.acquire(key(1, priv), bob, HOUR, T0);
    await ledger.acquire(key(2, priv), bob, HOUR, T0);
    await ledger.acquire(key(3, priv), bob, HOUR, T0);
    await ledger.acquire(key(1, unseen), carol, HOUR, T0);
    const who = async (over: Partial<BoardPanelsQuery> = {}, now = T0 + 1) =>
      (await ledger.boardPanels(panels(over), now)).holders.map((h) => `${h.holder.login}:${h.leases}`);

    expect(await who()).toEqual(["alice:2", "bob:1", "Carol:1"]);
    expect(await who({ visible: [priv.repoId] })).toEqual(["bob:4", "alice:2", "Carol:1"]);
    expect(await who({ visible: [priv.repoId, unseen.repoId] })).toEqual(["bob:4", "alice:2", "Carol:2"]);
    expect(await who({ top: 1, visible: [priv.repoId] })).toEqual(["bob:4"]);

    // carol's public lease has expired and is not swept yet: not counted; once swept, still not.
    expect(await who({}, T0 + HOUR / 2 + 1)).toEqual(["alice:2", "bob:1"]);
    await ledger.markExpired(key(4), 1, T0 + HOUR / 2 + 1);
    expect(await who({}, T0 + HOUR / 2 + 2)).toEqual(["alice:2", "bob:1"]);

    // A new holder on an issue moves its count; a rename follows the holder.
    await ledger.release(key(2), alice, T0 + 2);
    await ledger.acquire(key(2), bob, HOUR, T0 + 3);
    expect(await who({}, T0 + 4)).toEqual(["bob:2", "alice:1"]);
    await ledger.renameHolder(pub.repoId, { id: bob.id, login: "robert" }, T0 + 5);
    expect(await who({}, T0 + 6)).toEqual(["robert:2", "alice:1"]);
    expect(await rows(ledger, { holder: { login: "robert" } }, T0 + 6)).toEqual(["octo/public#3 robert", "octo/public#2 robert"]);

    // The secret repository made public: its leases count for everyone; made private again: not.
    await ledger.rememberVisibility({ ...priv, installation: 1, private: false }, T0 + 7);
    expect(await who({}, T0 + 8)).toEqual(["robert:5", "alice:1"]);
    await ledger.rememberVisibility({ ...priv, installation: 1, private: true }, T0 + 9);
    expect(await who({}, T0 + 10)).toEqual(["robert:2", "alice:1"]);
    expect(await who({ visible: [priv.repoId] }, T0 + 10)).toEqual(["robert:5", "alice:1"]);
  });

  it("lists what expires within a day (counted up to a cap) and the tenures that ended within a week, and how, among what the viewer may see", async () => {
    await seen(ledger);
    await ledger.rememberCard({ repoId: pub.repoId, issue: 1, title: "First", labels: [] }, T0, true);
    await ledger.acquire(key(1), alice, 2 * HOUR, T0);
    await ledger.acquire(key(2), bob, 30 * HOUR, T0);
    await ledger.acquire(key(3), carol, HOUR, T0);
    await ledger.acquire(key(4), alice, null, T0);
    await ledger.acquire(key(1, priv), bob, 2 * HOUR, T0);
    const p = await ledger.boardPanels(panels({ top: 2, countCap: 2 }), T0 + 1);
    expect(p.expiring.map((l) => l.issue)).toEqual([3, 1]);
    expect(p.expiringCount).toBe(2);
    const all = await ledger.boardPanels(panels({ visible: [priv.repoId] }), T0 + 1);
    expect(all.expiring.map((l) => `${l.repo}#${l.issue}`)).toEqual(["octo/public#3", "octo/public#1", "octo/secret#1"]);
    expect(all.expiringCount).toBe(3);
    expect(all.ended).toEqual([]);

    // Ended: released by its holder, expired, ended by a maintainer; an old ending is left out.
    await ledger.acquire(key(9), bob, HOUR, T0 - 8 * DAY);
    await ledger.release(key(9), bob, T0 - 8 * DAY + 1);
    await ledger.release(key(1), alice, T0 + 2);
    await ledger.markExpired(key(3), 1, T0 + HOUR);
    await ledger.forceRelease(key(2), maint, T0 + HOUR + 1);
    await ledger.forceRelease(key(1, priv), maint, T0 + HOUR + 2);
    await ledger.release(key(5), carol, T0 + HOUR + 3); // nothing held: no tenure ended
    const ended = await ledger.boardPanels(panels(), T0 + 2 * HOUR);
    expect(ended.ended.map((e) => [e.repo, e.issue, e.holder.login, e.token, e.how, e.by?.login ?? null, e.title])).toEqual([
      ["octo/public", 2, "bob", 1, "ended", "maint", null],
      ["octo/public", 3, "Carol", 1, "expired", null, null],
      ["octo/public", 1, "alice", 1, "released", null, "First"],
    ]);
    const withSecret = await ledger.boardPanels(panels({ visible: [priv.repoId], top: 1 }), T0 + 2 * HOUR);
    expect(withSecret.ended.map((e) => [e.repo, e.issue])).toEqual([["octo/secret", 1]]);
  });

  it("finds a repository by name in any case, with its private flag (null until a webhook shows it)", async () => {
    await seen(ledger);
    await ledger.rememberRepo({ ...unseen, installation: 1 }, T0);
    expect(await ledger.boardRepo("OCTO/Secret")).toEqual({ ...priv, installation: 1, private: true });
    expect(await ledger.boardRepo("octo/public")).toEqual({ ...pub, installation: 1, private: false });
    expect(await ledger.boardRepo("octo/unseen")).toEqual({ ...unseen, installation: 1, private: null });
    expect(await ledger.boardRepo("octo/none")).toBeNull();
  });
});

/** Leases written before the board's migration, as an older version left them: counted once it runs. */
const OLD_LEASES = [
  [pub.repoId, 1, pub.repo, alice.id, alice.login, T0 + HOUR],
  [pub.repoId, 2, pub.repo, alice.id, alice.login, null],
  [pub.repoId, 3, pub.repo, bob.id, bob.login, T0 + 2 * HOUR],
  [priv.repoId, 1, priv.repo, bob.id, bob.login, T0 + HOUR],
] as const;
const INSERT_OLD = (table: string, p: (n: number) => string) =>
  `INSERT INTO ${table} (repo_id, issue, repo, holder_id, holder_login, token, acquired_at, expires_at, updated_at)
   VALUES (${p(1)}, ${p(2)}, ${p(3)}, ${p(4)}, ${p(5)}, 1, ${T0}, ${p(6)}, ${T0})`;
const boardMigration = (all: readonly unknown[]) => all.findIndex((m) => String(m).includes("holder_counts"));

async function expectOldLeasesCounted(ledger: Ledger) {
  await seen(ledger);
  const p = await ledger.boardPanels(panels(), T0 + 1);
  expect(p.holders.map((h) => `${h.holder.login}:${h.leases}`)).toEqual(["alice:2", "bob:1"]);
  const withSecret = await ledger.boardPanels(panels({ visible: [priv.repoId] }), T0 + 1);
  expect(withSecret.holders.map((h) => `${h.holder.login}:${h.leases}`)).toEqual(["alice:2", "bob:2"]);
  expect(await rows(ledger)).toEqual(["octo/public#1 alice", "octo/public#3 bob", "octo/public#2 alice"]);
}

describe("board migration", () => {
  it("sqlite: counts the leases an older schema holds", async () => {
    const dir = mkdtempSync(join(tmpdir(), "issue-leases-board-"));
    const db = new Database(join(dir, "ledger.db"));
    try {
      expect(migrateSqlite(db, boardMigration(SQLITE_MIGRATIONS))).toBe(boardMigration(SQLITE_MIGRATIONS));
      const insert = db.prepare(INSERT_OLD("leases", () => "?"));
      for (const row of OLD_LEASES) insert.run(...row);
      migrateSqlite(db);
      await expectOldLeasesCounted(new SqliteLedger(db));
    } finally {
      db.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it.skipIf(skipPostgres)("postgres: counts the leases an older schema holds", async () => {
    const fresh = await freshSchema();
    const ledger = new PostgresLedger({ connectionString: fresh.connectionString, schema: fresh.schema, clock: "caller" });
    try {
      const before = boardMigration(POSTGRES_MIGRATIONS.map((m) => m("s")));
      expect(await ledger.migrate(before)).toBe(before);
      for (const row of OLD_LEASES) await ledger.pool.query(INSERT_OLD(`${pg.escapeIdentifier(fresh.schema)}.leases`, (n) => `$${n}`), [...row]);
      await ledger.migrate();
      await expectOldLeasesCounted(ledger);
    } finally {
      await ledger.close();
      await fresh.drop();
    }
  });
});
