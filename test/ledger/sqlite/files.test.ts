/**
 * The modes of the files a SQLite ledger is kept in: a ledger holds logins,
 * private repositories' names and replies waiting to be posted, so what the
 * app creates is its owner's only; what exists already keeps its mode.
 */
import { chmodSync, mkdtempSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { SqliteLedger } from "../../../src/ledger/sqlite/sqlite-ledger.js";

const T0 = 1_700_000_000_000;
const key = { repoId: 100, repo: "octo/alpha", issue: 1 };
const mode = (path: string) => statSync(path).mode & 0o777;

describe("the ledger's files", () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), "issue-leases-modes-"));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it("are created readable by their owner only: the folder, the file, its -wal, -shm and .serving", async () => {
    const file = join(dir, "data", "leases.db");
    const ledger = new SqliteLedger(file, { serve: true });
    try {
      // A write, so that SQLite has made its -wal and -shm.
      await ledger.acquire(key, { id: 1, login: "alice" }, 60_000, T0);
      expect({
        folder: mode(join(dir, "data")),
        file: mode(file),
        wal: mode(`${file}-wal`),
        shm: mode(`${file}-shm`),
        serving: mode(`${file}.serving`),
      }).toEqual({ folder: 0o700, file: 0o600, wal: 0o600, shm: 0o600, serving: 0o600 });
    } finally {
      await ledger.close();
    }
  });

  it("keep the mode they have when they exist already", async () => {
    const file = join(dir, "leases.db");
    writeFileSync(file, "");
    chmodSync(file, 0o640);
    const ledger = new SqliteLedger(file);
    try {
      await ledger.acquire(key, { id: 1, login: "alice" }, 60_000, T0);
      expect([mode(file), mode(`${file}-wal`)]).toEqual([0o640, 0o640]);
    } finally {
      await ledger.close();
    }
  });
});
