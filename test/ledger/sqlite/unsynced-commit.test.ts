/**
 * The SQLite ledger's connection commits lease operations with
 * synchronous = FULL, from its opening on: only the writes that
 * unsynced-commit.ts wraps (the outbox's record of an applied attempt, board
 * cards) commit under NORMAL, and the level is FULL again after each.
 * A prepared `PRAGMA synchronous = NORMAL` sets the level when it is
 * prepared; this pins that nothing does so.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { SqliteLedger } from "../../../src/ledger/sqlite/sqlite-ledger.js";
import { UnsyncedCommit } from "../../../src/ledger/sqlite/unsynced-commit.js";
import { always } from "../../../src/ledger/leases/effect-cases.js";

const FULL = 2;
const NORMAL = 1;

describe("sqlite: synchronous level", () => {
  let dir: string;
  let ledger: SqliteLedger;
  const level = (): number => ledger.db.pragma("synchronous", { simple: true }) as number;

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), "issue-leases-sync-"));
    ledger = new SqliteLedger(join(dir, "ledger.db"));
  });

  afterEach(async () => {
    await ledger.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("is FULL once the ledger is open, and after every unsynced write", async () => {
    expect(level()).toBe(FULL);
    const key = { repoId: 1, repo: "o/r", issue: 7 };
    const effects = always({ installation: 1, kind: "reflect", payload: {} });
    await ledger.acquire(key, { id: 1, login: "a" }, 60_000, 1_000, { effects });
    expect(level()).toBe(FULL);
    const [taken] = await ledger.takeEffects(2_000, 10, 20_000);
    await ledger.putReflection(1, 7, { labels: [] }, 2_000);
    expect(level()).toBe(FULL);
    expect(await ledger.completeEffect({ id: taken!.id, attempt: taken!.attempts }, 2_000)).toBe(true);
    expect(level()).toBe(FULL);
    await ledger.rememberCard({ repoId: 1, issue: 7, title: "t", labels: [] }, 2_000, true);
    expect(level()).toBe(FULL);
  });

  it("commits what it wraps under NORMAL, and leaves a level it found at NORMAL or lower alone", () => {
    const unsynced = new UnsyncedCommit(ledger.db);
    expect(level()).toBe(FULL);
    expect(unsynced.run(() => level())).toBe(NORMAL);
    expect(level()).toBe(FULL);
    ledger.db.pragma("synchronous = OFF");
    expect(unsynced.run(() => level())).toBe(0);
    expect(level()).toBe(0);
  });
});
