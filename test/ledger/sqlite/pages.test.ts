/**
 * Which b-trees each SQLite operation writes. With synchronous=FULL every
 * commit appends its dirty pages to the WAL and fsyncs it, so every page an
 * operation writes costs it time; these are the pages the schema was shaped
 * to avoid (sqlite_sequence, a second index for reminders, an index over the
 * history, the holder index when the holder does not change).
 *
 * The board (migration 14) adds, to a tenure that begins or ends, its
 * expiry-ordered entry (leases_board), its holder's entry by login
 * (leases_board_holder) and the holder's count (holder_counts and its
 * top-holders index; a holder's first lease ever also adds their row to
 * holder_counts_login); an ending also writes history_ended. A renewal
 * moves only the expiry-ordered entry.
 *
 * Lease events (migration 19) add, to each change of a lease, the event's
 * row (EVENT) and nothing else: no index entry (migration 20), no counter
 * (the next position and seq are read from the last rows); a refusal, a
 * note or a reminder writes none of them.
 *
 * Read from the WAL itself: each frame names the page it carries, and dbstat
 * names the table or index that page belongs to. The database is small, so
 * each b-tree is one page and no page splits.
 */
import { mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { SqliteLedger } from "../../../src/ledger/sqlite/sqlite-ledger.js";
import type { Holder, IssueKey } from "../../../src/ledger/leases/lease-types.js";

const HOUR = 3_600_000;
const T0 = 1_700_000_000_000;
const key = (issue: number): IssueKey => ({ repoId: 500, repo: "octo/pages", issue });
const alice: Holder = { id: 1, login: "alice" };
const bob: Holder = { id: 2, login: "bob" };
const WAL_HEADER = 32;
/** What a tenure beginning or ending writes, sorted. */
const TENURE_CHANGE = ["history", "holder_counts", "holder_counts_top", "leases", "leases_board", "leases_board_holder", "leases_by_due", "leases_held"];
const FRAME_HEADER = 24;
/** What a lease event writes. */
const EVENT = ["events"];
const withEvent = (pages: string[]) => [...pages, ...EVENT].sort();

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

  it("a new tenure: the lease row, its index entries, the holder's count, the history row", async () => {
    // alice's first lease ever: her count's row is new.
    expect(await written(() => ledger.acquire(key(1), alice, HOUR, T0, { maxPerHolder: 5, remindBefore: HOUR / 4 }))).toEqual(
      withEvent(["holder_counts_login", ...TENURE_CHANGE]),
    );
    expect(await written(() => ledger.acquire(key(2), alice, HOUR, T0, { maxPerHolder: 5, remindBefore: HOUR / 4 }))).toEqual(withEvent(TENURE_CHANGE));
  });

  it("the same tenure carrying on (renew, idempotent acquire) leaves the holder index alone", async () => {
    await ledger.acquire(key(1), alice, HOUR, T0, { remindBefore: HOUR / 4 });
    const same = ["history", "leases", "leases_board", "leases_by_due"];
    expect(await written(() => ledger.renew(key(1), alice, 2 * HOUR, T0 + 1, { remindBefore: HOUR / 4 }))).toEqual(withEvent(same));
    // A new login for the holder (a renamed account) is written to their count too.
    expect(await written(() => ledger.acquire(key(1), { ...alice, login: "alice2" }, HOUR, T0 + 2, { maxPerHolder: 5 }))).toEqual(
      withEvent(["holder_counts", "holder_counts_login", ...same]),
    );
    // A reminder changes no expiry: the board's index is left alone.
    expect(await written(() => ledger.markReminded(key(1), { token: 1, expiresAt: T0 + 2 + HOUR }, T0 + HOUR))).toEqual(["history", "leases", "leases_by_due"]);
  });

  it("ending a tenure, and operations that change no lease", async () => {
    await ledger.acquire(key(1), alice, HOUR, T0, { remindBefore: HOUR / 4 });
    expect(await written(() => ledger.acquire(key(1), bob, HOUR, T0 + 1))).toEqual(["history", "leases"]);
    expect(await written(() => ledger.renew(key(1), bob, HOUR, T0 + 2))).toEqual(["history", "leases"]);
    expect(await written(() => ledger.release(key(1), alice, T0 + 3))).toEqual(withEvent(["history_ended", ...TENURE_CHANGE]));
    // An issue never held has no lease row: its latest history row is kept beside.
    expect(await written(() => ledger.note(key(2), bob, T0 + 4, { outcome: "invalid" }))).toEqual(["history", "history_heads"]);
    expect(await written(() => ledger.release(key(2), bob, T0 + 5))).toEqual(["history", "history_heads"]);
  });

  it("expiring a tenure", async () => {
    await ledger.acquire(key(1), alice, HOUR, T0);
    expect(await written(() => ledger.markExpired(key(1), 1, T0 + HOUR))).toEqual(withEvent(["history_ended", ...TENURE_CHANGE]));
  });
});
