import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  closedIssues,
  closingReferences,
  evaluateLeaseCheck,
  fitSummary,
  leaseTokens,
  SUMMARY_LIMIT,
} from "../../src/checks/lease-check.js";
import type { Lease } from "../../src/ledger/leases/lease-types.js";

const REPO = "Codertocat/Hello-World";

describe("closingReferences", () => {
  it.each([
    ["Fixes #12", [12]],
    ["fixes #12 and closes #13", [12, 13]],
    ["Resolved: #7", [7]],
    ["This closes Codertocat/Hello-World#5", [5]],
    ["This closes codertocat/hello-world#5", [5]],
    ["Fixes https://github.com/Codertocat/Hello-World/issues/9", [9]],
    ["Fixes other/repo#5", []],
    ["Fixes https://github.com/other/repo/issues/9", []],
    ["See #12", []],
    ["prefixes #12", []],
    ["Fixes #12, fixes #12", [12]],
    ["Fix #1\nClose #2\nResolve #3\nFixed #4\nClosed #5\nResolves #6", [1, 2, 3, 4, 5, 6]],
    ["Fixes #12abc", []],
    ["", []],
  ])("%j closes %j", (body, expected) => {
    expect(closingReferences(body, REPO)).toEqual(expected);
  });

  it("never throws on any body", () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 2000 }), (body) => {
        expect(Array.isArray(closingReferences(body, REPO))).toBe(true);
      }),
    );
    expect(closingReferences(`${"fixes ".repeat(10_000)}#1`, REPO)).toEqual([1]);
  });
});

describe("leaseTokens", () => {
  it("reads a token for all issues and per issue", () => {
    const t = leaseTokens("Fixes #3\n\nLease-Token: 7\nlease-token: 9 #4\nLease-Token: 2 for #5\nnot Lease-Token: 8");
    expect(t.all).toBe(7);
    expect([...t.byIssue]).toEqual([
      [4, 9],
      [5, 2],
    ]);
  });
  it("finds nothing when absent", () => {
    expect(leaseTokens("Fixes #3").all).toBeNull();
  });
});

const lease = (issue: number, login: string, id: number, token: number): Lease => ({
  repoId: 1,
  repo: REPO,
  issue,
  holder: { id, login },
  token,
  acquiredAt: 0,
  expiresAt: Date.parse("2026-12-08T12:00:00Z"),
  heldBy: { kind: "time" },
});
const alice = { id: 1, login: "alice" };
const none = { all: null, byIssue: new Map<number, number>() };

describe("evaluateLeaseCheck", () => {
  it("succeeds when the author holds every lease", () => {
    const r = evaluateLeaseCheck({ author: alice, leases: [{ issue: 3, lease: lease(3, "alice", 1, 2), latestToken: 2 }], tokens: none, requireLease: false });
    expect(r.conclusion).toBe("success");
  });
  it("fails naming the holder, token and expiry when someone else holds it", () => {
    const r = evaluateLeaseCheck({ author: alice, leases: [{ issue: 3, lease: lease(3, "bob", 2, 4), latestToken: 4 }], tokens: none, requireLease: false });
    expect(r.conclusion).toBe("failure");
    expect(r.summary).toContain("**bob**");
    expect(r.summary).toContain("**4**");
    expect(r.summary).toContain("2026-12-08T12:00:00Z");
  });
  it("fences off a stale token and an unknown one", () => {
    const held = [{ issue: 3, lease: lease(3, "alice", 1, 5), latestToken: 5 }];
    const stale = evaluateLeaseCheck({ author: alice, leases: held, tokens: { all: 4, byIssue: new Map() }, requireLease: false });
    expect(stale.conclusion).toBe("failure");
    expect(stale.summary).toContain("stale");
    const future = evaluateLeaseCheck({ author: alice, leases: held, tokens: { all: 6, byIssue: new Map() }, requireLease: false });
    expect(future.conclusion).toBe("failure");
    const current = evaluateLeaseCheck({ author: alice, leases: held, tokens: { all: null, byIssue: new Map([[3, 5]]) }, requireLease: false });
    expect(current.conclusion).toBe("success");
  });
  it("is neutral with no lease involved, and a failure when leases are required", () => {
    expect(evaluateLeaseCheck({ author: alice, leases: [], tokens: none, requireLease: false }).conclusion).toBe("neutral");
    expect(evaluateLeaseCheck({ author: alice, leases: [{ issue: 3, lease: null, latestToken: null }], tokens: none, requireLease: false }).conclusion).toBe("neutral");
    expect(evaluateLeaseCheck({ author: alice, leases: [], tokens: none, requireLease: true }).conclusion).toBe("failure");
    expect(evaluateLeaseCheck({ author: alice, leases: [{ issue: 3, lease: null, latestToken: null }], tokens: none, requireLease: true }).conclusion).toBe("failure");
  });
  it("fails any Lease-Token given for a free issue: stale when lower than or equal to its latest tenure's", () => {
    const free = (latestToken: number | null) => [{ issue: 3, lease: null, latestToken }];
    const stale = evaluateLeaseCheck({ author: alice, leases: free(5), tokens: { all: 4, byIssue: new Map() }, requireLease: false });
    expect(stale).toMatchObject({ conclusion: "failure", title: "Lease not held" });
    expect(stale.summary).toContain("stale tenure");
    expect(stale.summary).toContain("token **5**");
    const ended = evaluateLeaseCheck({ author: alice, leases: free(5), tokens: { all: null, byIssue: new Map([[3, 5]]) }, requireLease: false });
    expect(ended.summary).toContain("has ended");
    const never = evaluateLeaseCheck({ author: alice, leases: free(null), tokens: { all: 1, byIssue: new Map() }, requireLease: false });
    expect(never.conclusion).toBe("failure");
    expect(never.summary).toContain("never issued");
  });
  it("cuts a huge summary to GitHub's limit, saying how many lines were left out", () => {
    const leases = Array.from({ length: 3000 }, (_, i) => ({ issue: i + 1, lease: lease(i + 1, "b".repeat(39), 2, i + 1), latestToken: i + 1 }));
    const r = evaluateLeaseCheck({ author: alice, leases, tokens: none, requireLease: false });
    expect(r.conclusion).toBe("failure");
    expect(r.summary.length).toBeLessThanOrEqual(SUMMARY_LIMIT);
    const lines = r.summary.split("\n");
    const kept = lines.length - 1;
    expect(lines.at(-1)).toBe(`… and ${3000 - kept} more lines left out: a check summary holds at most 65535 characters.`);
    expect(lines[kept - 1]).toContain(`#${kept} is held by`);
    // A summary that fits is left whole.
    expect(fitSummary(["a", "b"])).toBe("- a\n- b");
    expect(fitSummary(["x".repeat(60), "y".repeat(60)], 130)).toBe("- " + "x".repeat(60) + "\n- " + "y".repeat(60));
  });
});

describe("closedIssues", () => {
  const repo = { id: 1, fullName: REPO };
  it("joins GitHub's links of this repository with keywords in the title and commit messages, without repeats", () => {
    const linked = [
      { number: 4, repoId: 1 },
      { number: 9, repoId: 2 },
    ];
    const texts = ["Fix #5: parser", "wip", "Closes #4\n\nAlso resolves other/repo#6 and fixes #7"];
    expect(closedIssues({ linked, linkedTotal: 2, texts }, repo)).toEqual({ issues: [4, 5, 7], tooMany: false });
  });
  it("stops past 50, whether GitHub links them or the messages name them", () => {
    const many = Array.from({ length: 51 }, (_, i) => ({ number: i + 1, repoId: 1 }));
    expect(closedIssues({ linked: many, linkedTotal: 60, texts: [] }, repo)).toEqual({ issues: [], tooMany: true });
    const fifty = many.slice(0, 50);
    expect(closedIssues({ linked: fifty, linkedTotal: 50, texts: [] }, repo).issues).toHaveLength(50);
    expect(closedIssues({ linked: fifty, linkedTotal: 50, texts: ["fixes #51"] }, repo)).toEqual({ issues: [], tooMany: true });
    const body = Array.from({ length: 5553 }, (_, i) => `fixes #${i + 1}`).join(" ");
    expect(closedIssues({ linked: [], linkedTotal: 0, texts: [body] }, repo)).toEqual({ issues: [], tooMany: true });
  });
});
