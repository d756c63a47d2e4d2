/**
 * Which b-trees each SQLite operation writes. With synchronous=FULL every
 * commit appends its dirty pages to the WAL and fsyncs it, so every page an
 * operation writes costs it time; these are the pages the schema was shaped
 * to avoid (sqlite_sequence, a second index for reminders, an index over the
 * history, the holder index when the holder does not change).
 *
 * Read from the WAL itself: each frame names the page it carries, and dbstat
 * names the table or index that page belongs to. The database is small, so
 * each b-tree is one page and no page splits.
 */
import { mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { SqliteLedger } from "../../src/ledger/sqlite.js";
import type { Holder, IssueKey } from "../../src/ledger/types.js";

const HOUR = 3_600_000;
const T0 = 1_700_000_000_000;
const key = (issue: number): IssueKey => ({ repoId: 500, repo: "octo/pages", issue });
const alice: Holder = { id: 1, login: "alice" };
const bob: Holder = { id: 2, login: "bob" };
const WAL_HEADER = 32;
const FRAME_HEADER = 24;

describe("sqlite: pages written per operation", () => {
  let dir: string;
  let ledger: SqliteLedger;
  let wal: string;
  let pageSize: number;

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), "issue-leases-pages-"));
    const file = join(dir, "ledger.db");
    ledger = new SqliteLedger(file);
    // Keep every frame in the WAL, so that each operation's can be read.
    ledger.db.pragma("wal_autocheckpoint = 0");
    wal = `${file}-wal`;
    pageSize = ledger.db.pragma("page_size", { simple: true }) as number;
    // Some rows in every table an operation touches, as in a database in use.
    for (let i = 100; i < 110; i++) {
      await ledger.acquire(key(i), { id: i, login: `user${i}` }, HOUR, T0, { remindBefore: HOUR / 4 });
      await ledger.note(key(i + 100), bob, T0);
    }
  });
  afterEach(async () => {
    await ledger.close();
    rmSync(dir, { recursive: true, force: true });
  });

  /** The b-trees whose pages `op` wrote, one name per page, sorted. */
  async function written(op: () => Promise<unknown>): Promise<string[]> {
    const before = statSync(wal).size;
    await op();
    const bytes = readFileSync(wal).subarray(Math.max(before, WAL_HEADER));
    const owner = new Map(
      ledger.db
        .prepare<[], { name: string; pageno: number }>("SELECT name, pageno FROM dbstat")
        .all()
        .map((r) => [r.pageno, r.name]),
    );
    const names: string[] = [];
    for (let at = 0; at + FRAME_HEADER + pageSize <= bytes.length; at += FRAME_HEADER + pageSize) {
      const page = bytes.readUInt32BE(at);
      names.push(owner.get(page) ?? `page ${page}`);
    }
    return names.sort();
  }

  it("a new tenure: the lease row, its two index entries, the history row", async () => {
    expect(await written(() => ledger.acquire(key(1), alice, HOUR, T0, { maxPerHolder: 5, remindBefore: HOUR / 4 }))).toEqual([
      "history",
      "leases",
      "leases_by_due",
      "leases_held",
    ]);
  });

  it("the same tenure carrying on (renew, idempotent acquire) leaves the holder index alone", async () => {
    await ledger.acquire(key(1), alice, HOUR, T0, { remindBefore: HOUR / 4 });
    const same = ["history", "leases", "leases_by_due"];
    expect(await written(() => ledger.renew(key(1), alice, 2 * HOUR, T0 + 1, { remindBefore: HOUR / 4 }))).toEqual(same);
    expect(await written(() => ledger.acquire(key(1), { ...alice, login: "alice2" }, HOUR, T0 + 2, { maxPerHolder: 5 }))).toEqual(same);
    expect(await written(() => ledger.markReminded(key(1), { token: 1, expiresAt: T0 + 2 + HOUR }, T0 + HOUR))).toEqual(same);
  });

  it("ending a tenure, and operations that change no lease", async () => {
    await ledger.acquire(key(1), alice, HOUR, T0, { remindBefore: HOUR / 4 });
    expect(await written(() => ledger.acquire(key(1), bob, HOUR, T0 + 1))).toEqual(["history", "leases"]);
    expect(await written(() => ledger.renew(key(1), bob, HOUR, T0 + 2))).toEqual(["history", "leases"]);
    expect(await written(() => ledger.release(key(1), alice, T0 + 3))).toEqual([
      "history",
      "leases",
      "leases_by_due",
      "leases_held",
    ]);
    // An issue never held has no lease row: its latest history row is kept beside.
    expect(await written(() => ledger.note(key(2), bob, T0 + 4, { outcome: "invalid" }))).toEqual(["history", "history_heads"]);
    expect(await written(() => ledger.release(key(2), bob, T0 + 5))).toEqual(["history", "history_heads"]);
  });

  it("expiring a tenure", async () => {
    await ledger.acquire(key(1), alice, HOUR, T0);
    expect(await written(() => ledger.markExpired(key(1), 1, T0 + HOUR))).toEqual([
      "history",
      "leases",
      "leases_by_due",
      "leases_held",
    ]);
  });
});
