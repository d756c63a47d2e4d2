/**
 * The reads of leases that follow the work search indexes, as the ledger's
 * other reads do (sqlite-plans.test.ts), and a lease its work holds is out
 * of the sweeps' index: its row has no due time.
 */
import type { Statement } from "better-sqlite3";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { SqliteLedger } from "../../../src/ledger/sqlite/sqlite-ledger.js";

const NAMED = { repoId: 1, issue: 1, holderId: 1, now: 0, limit: 10 };
const T0 = 1_700_000_000_000;
const HOUR = 3_600_000;

describe("sqlite: leases that follow the work", () => {
  let ledger: SqliteLedger;
  let work: { st: Record<string, Statement> };

  beforeEach(() => {
    ledger = new SqliteLedger(":memory:");
    work = { st: (ledger as unknown as { plans: { work: Record<string, Statement> } }).plans.work };
  });
  afterEach(async () => {
    await ledger.close();
  });

  function plan(statement: Statement | undefined, positional: unknown[] = []): string[] {
    if (!statement) throw new Error("no such statement");
    const explain = ledger.db.prepare<unknown[], { detail: string }>(`EXPLAIN QUERY PLAN ${statement.source}`);
    return (positional.length > 0 ? explain.all(...positional) : explain.all(NAMED)).map((r) => r.detail);
  }

  it("the check on every comment that is no command probes the actor's held leases and the pull request's links only", () => {
    const lines = plan(work.st.mayRenew);
    expect(lines[0]).toMatch(/^SEARCH leases USING INDEX leases_held \(repo_id=\? AND holder_id=\?\)/);
    expect(lines.join("\n")).toMatch(/SEARCH pull_links USING PRIMARY KEY \(repo_id=\? AND pull=\?\)/);
    expect(lines.filter((l) => /^SCAN /.test(l))).toEqual([]);
  });

  it.each([
    ["linksOf", [1, 1, 1], /^SEARCH pull_links USING (COVERING )?INDEX pull_links_by_issue \(repo_id=\? AND issue=\? AND author_id=\?\)/],
    ["closedBy", [1, 1], /^SEARCH pull_links USING PRIMARY KEY \(repo_id=\? AND pull=\?\)/],
  ])("%s searches an index", (name, args, search) => {
    expect(plan(work.st[name], args)[0]).toMatch(search);
  });

  it("a lease held by a pull request or an exempt label has no due time, so the sweeps' index leaves it out; resumed, it has one again", async () => {
    const key = (issue: number) => ({ repoId: 1, repo: "o/r", issue });
    const holder = { id: 1, login: "alice" };
    await ledger.acquire(key(1), holder, 2 * HOUR, T0, { remindBefore: HOUR });
    await ledger.acquire(key(2), holder, 2 * HOUR, T0, { remindBefore: HOUR, exempt: true });
    await ledger.linkPull(key(3), holder, [1], T0, { resume: { ttl: 2 * HOUR, remindBefore: HOUR } });
    const dueAt = () => ledger.db.prepare("SELECT issue, due_at, pulls, exempt FROM leases ORDER BY issue").all();
    expect(dueAt()).toEqual([
      { issue: 1, due_at: null, pulls: "[3]", exempt: 0 },
      { issue: 2, due_at: null, pulls: null, exempt: 1 },
    ]);
    const indexed = ledger.db.prepare("SELECT count(*) FROM leases INDEXED BY leases_by_due WHERE due_at IS NOT NULL").pluck();
    expect(indexed.get()).toBe(0);
    await ledger.linkPull(key(3), holder, [], T0 + HOUR, { resume: { ttl: 2 * HOUR, remindBefore: HOUR } });
    expect(dueAt()[0]).toEqual({ issue: 1, due_at: T0 + 2 * HOUR, pulls: null, exempt: 0 });
    expect(indexed.get()).toBe(1);
  });
});
