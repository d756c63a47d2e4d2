/**
 * Rows are never deleted, so every read the app makes while it serves must
 * search an index for the rows it wants rather than scan a table: a query
 * that reads every row a repository ever had gets slower every day. Read
 * from SQLite's own query plans for the ledger's statements.
 */
import type { Statement } from "better-sqlite3";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { SqliteLedger } from "../../../src/ledger/sqlite/sqlite-ledger.js";

/** Parameters that fill any of the ledger's statements; better-sqlite3 ignores the ones a statement does not name. */
const NAMED = { repoId: 1, issue: 1, holderId: 1, now: 0, limit: 10, login: "a", actorId: 1, since: 0, label: "x", installation: 1 };

describe("sqlite: query plans of the ledger's reads", () => {
  let ledger: SqliteLedger;
  let statements: Record<string, Statement>;
  /** The outbox's statements (sqlite/outbox.ts). */
  let outbox: Record<string, Statement>;

  beforeEach(() => {
    ledger = new SqliteLedger(":memory:");
    statements = (ledger as unknown as { st: Record<string, Statement> }).st;
    outbox = (ledger as unknown as { outbox: { st: Record<string, Statement> } }).outbox.st;
  });
  afterEach(async () => {
    await ledger.close();
  });

  /** The plan's lines (`SEARCH leases USING INDEX ...`, `SCAN ...`) for a statement of the ledger. */
  function plan(name: string, positional: unknown[] = [], from = statements): string[] {
    const source = from[name]?.source;
    if (!source) throw new Error(`no statement ${name}`);
    const explain = ledger.db.prepare<unknown[], { detail: string }>(`EXPLAIN QUERY PLAN ${source}`);
    const rows = positional.length > 0 ? explain.all(...positional) : explain.all(NAMED);
    return rows.map((r) => r.detail);
  }

  it.each([
    ["list", /^SEARCH leases USING INDEX leases_held \(repo_id=\? AND holder_id>\?\)/],
    // Every webhook's accounts: a renamed holder is looked for in the event's repository only.
    ["renamedIn", /^SEARCH leases USING INDEX leases_held \(repo_id=\? AND holder_id=\?\)/],
    // A limited person's every command: their replies of the last hour, and no other row.
    ["replies", /^SEARCH history USING (COVERING )?INDEX history_replies \(repo_id=\? AND actor_id=\? AND at>\?\)/],
    ["expired", /^SEARCH leases USING INDEX leases_by_due \(due_at<\?\)/],
    ["dueReminders", /^SEARCH leases USING INDEX leases_by_due \(due_at<\?\)/],
  ])("%s searches an index of held leases", (name, search) => {
    const lines = plan(name);
    expect(lines[0]).toMatch(search);
    expect(lines.filter((l) => /^SCAN leases\b/.test(l))).toEqual([]);
  });

  /** The plan of one of the claim limits' statements (sqlite/policies.ts). */
  type Limits = Record<string, Record<string, Statement>>;
  /** The plan of a limit's statement, counting leases in review (`counted`) or not (`notInReview`, `count_in_review: false`). */
  function policyPlan(limit: string, which: "count" | "list", variant: "counted" | "notInReview"): string[] {
    const policies = (ledger as unknown as { plans: { policies: { st: Record<typeof variant, Limits> } } }).plans.policies.st[variant];
    return ledger.db.prepare<unknown[], { detail: string }>(`EXPLAIN QUERY PLAN ${policies[limit]![which]!.source}`).all(NAMED).map((r) => r.detail);
  }

  // Every claim under a limit: the holder's leases in the repository (under a
  // label: each one's labels by primary key), and across the organisation
  // one probe per repository of the installation, never every held lease.
  it.each([
    ["repo", ["SEARCH l USING INDEX leases_held (repo_id=? AND holder_id=?)"]],
    ["label", ["SEARCH l USING INDEX leases_held (repo_id=? AND holder_id=?)", "SEARCH x EXISTS USING PRIMARY KEY (repo_id=? AND issue=? AND label=?)"]],
    ["org", ["SEARCH repos USING COVERING INDEX repos_by_installation (installation=?)", "SEARCH l USING INDEX leases_held (repo_id=? AND holder_id=?)"]],
  ])("the %s limit's count and list search indexes", (limit, searches) => {
    for (const variant of ["counted", "notInReview"] as const) {
      for (const which of ["count", "list"] as const) {
        const lines = policyPlan(limit, which, variant);
        for (const search of searches) expect(lines).toContain(search);
        expect(lines.filter((l) => /^SCAN (leases|l|repos)\b/.test(l))).toEqual([]);
      }
    }
  });

  it("an operation finds its issue's row by the primary key", () => {
    expect(plan("get", [1, 1])).toEqual([expect.stringMatching(/^SEARCH leases USING PRIMARY KEY \(repo_id=\? AND issue=\?\)/)]);
  });

  it("an issue's history follows its chain by rowid, never scanning the history", () => {
    const lines = plan("historyOf");
    expect(lines).toContain("SEARCH h USING INTEGER PRIMARY KEY (rowid=?)");
    expect(lines.filter((l) => /^SCAN (history|h)\b/.test(l))).toEqual([]);
  });

  it("the outbox reads pending effects only, in the order it serves them, leaving out what is held or skipped as it reads", () => {
    const lines = plan("heads", [{ ...NAMED, hold: "[[1, 0]]", skip: "[1, 2]" }], outbox);
    expect(lines[0]).toBe("SCAN o USING INDEX outbox_due");
    expect(lines).toContain("SEARCH p USING COVERING INDEX outbox_pending (repo_id=? AND issue=?)");
    // The rest reads the two short JSON lists, never the table.
    expect(lines.filter((l) => /^(SCAN|SEARCH) /.test(l)).slice(1).filter((l) => !l.startsWith("SEARCH p ") && !/VIRTUAL TABLE/.test(l))).toEqual([]);
  });

  it.each(["listHeldBy", "listAll"])("the operator's %s reads held rows only", (name) => {
    expect(plan(name)[0]).toBe("SCAN leases USING INDEX leases_held");
  });
});
