/**
 * What the API remembers of a repository: its installation, and whether
 * GitHub showed it private, so that the lease events of a repository only
 * ever used through the API reach who may see them; never making public a
 * repository a webhook showed private.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { SqliteLedger } from "../../src/ledger/sqlite/sqlite-ledger.js";
import { rememberRepos } from "../../src/leasing/remember-repos.js";

describe("rememberRepos", () => {
  let dir: string;
  let ledger: SqliteLedger;
  let now = 1_000_000;
  const clock = () => now;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), "remember-repos-"));
    ledger = new SqliteLedger(join(dir, "leases.db"));
  });
  afterEach(async () => {
    await ledger.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("remembers the flag the API saw when no webhook showed one, and counts a repository with none as unknown", async () => {
    const remember = rememberRepos(ledger, clock);
    await remember(7, "octo/public", 42, false);
    await remember(8, "octo/secret", 42, true);
    await remember(9, "octo/unsaid", 42);
    expect(await ledger.boardRepo("octo/public")).toMatchObject({ repoId: 7, installation: 42, private: false });
    expect(await ledger.boardRepo("octo/secret")).toMatchObject({ repoId: 8, private: true });
    expect(await ledger.boardRepo("octo/unsaid")).toMatchObject({ repoId: 9, private: null });
  });

  it("never makes public a repository a webhook showed private", async () => {
    await ledger.rememberVisibility({ repoId: 7, repo: "octo/app", installation: 42, private: true, updatedAt: now - 10 }, now);
    now += 1_000;
    await rememberRepos(ledger, clock)(7, "octo/app", 42, false);
    expect(await ledger.boardRepo("octo/app")).toMatchObject({ private: true });
  });
});
