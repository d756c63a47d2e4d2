/**
 * One app process per SQLite file: the serving process holds `<file>.serving`
 * for as long as it lives, a second one is refused, and one that starts after
 * the first died takes over the dead one's locks at once.
 */
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { SqliteLedger } from "../../../src/ledger/sqlite/sqlite-ledger.js";
import { AlreadyServedError } from "../../../src/ledger/sqlite/serving.js";
import { always } from "../../../src/ledger/leases/effect-cases.js";

const T0 = 1_700_000_000_000;
const key = { repoId: 100, repo: "octo/alpha", issue: 1 };

describe("serving a SQLite file", () => {
  let dir: string;
  let file: string;
  const opened: SqliteLedger[] = [];
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), "issue-leases-serving-"));
    file = join(dir, "leases.db");
  });
  afterEach(async () => {
    for (const l of opened.splice(0)) await l.close();
    rmSync(dir, { recursive: true, force: true });
  });
  const open = (serve: boolean) => {
    const l = new SqliteLedger(file, { serve });
    opened.push(l);
    return l;
  };

  it("refuses a second serving process with a message saying why and what to do, and leaves the file as it was", async () => {
    const first = open(true);
    await first.acquire(key, { id: 1, login: "alice" }, 60_000, T0);
    expect(() => open(true)).toThrow(AlreadyServedError);
    expect(() => new SqliteLedger(file, { serve: true })).toThrow(/already serving .*one app process per SQLite file.*PostgreSQL/s);
    // The operator CLI (not serving) reads beside it, as before.
    expect(await open(false).current(key, T0)).toMatchObject({ holder: { login: "alice" } });
    expect(await first.current(key, T0)).toMatchObject({ holder: { login: "alice" }, token: 1 });
  });

  it("takes over a dead process's locks at once: the sweep lock, the label locks and the outbox's", async () => {
    const dead = open(true);
    await dead.acquire(key, { id: 1, login: "alice" }, 60_000, T0, {
      effects: always({ installation: 1, kind: "reflect", payload: {} }),
    });
    expect(await dead.tryLock("sweep", "dead", T0, 20_000)).toBe(true);
    expect(await dead.tryLock("labels/100", "dead", T0, 20_000)).toBe(true);
    expect(await dead.takeEffects(T0, 10, 20_000)).toHaveLength(1);
    // The process dies: its locks stay in the file, its hold on `.serving` goes with it.
    await dead.close();

    const next = open(true);
    expect(await next.tryLock("sweep", "next", T0 + 1, 20_000)).toBe(true);
    expect(await next.tryLock("labels/100", "next", T0 + 1, 20_000)).toBe(true);
    expect(await next.takeEffects(T0 + 1, 10, 20_000)).toMatchObject([{ issue: 1, attempts: 2 }]);
  });

  it("a process that does not serve the file takes over nothing", async () => {
    const live = open(true);
    expect(await live.tryLock("sweep", "live", T0, 20_000)).toBe(true);
    const reader = open(false);
    expect(await reader.tryLock("sweep", "other", T0 + 1, 20_000)).toBe(false);
  });

  it("serves a file in folders that do not exist yet, making them first (the default ./data/leases.db on a fresh clone)", async () => {
    file = join(dir, "data", "new", "leases.db");
    const ledger = open(true);
    expect((await ledger.acquire(key, { id: 1, login: "alice" }, 60_000, T0)).outcome).toBe("acquired");
    expect(existsSync(file)).toBe(true);
    expect(existsSync(`${file}.serving`)).toBe(true);
  });
});
