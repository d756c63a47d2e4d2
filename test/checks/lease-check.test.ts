import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { closingReferences, evaluateLeaseCheck, leaseTokens } from "../../src/checks/lease-check.js";
import type { Lease } from "../../src/ledger/types.js";

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
});
const alice = { id: 1, login: "alice" };
const none = { all: null, byIssue: new Map<number, number>() };

describe("evaluateLeaseCheck", () => {
  it("succeeds when the author holds every lease", () => {
    const r = evaluateLeaseCheck({ author: alice, leases: [{ issue: 3, lease: lease(3, "alice", 1, 2) }], tokens: none, requireLease: false });
    expect(r.conclusion).toBe("success");
  });
  it("fails naming the holder, token and expiry when someone else holds it", () => {
    const r = evaluateLeaseCheck({ author: alice, leases: [{ issue: 3, lease: lease(3, "bob", 2, 4) }], tokens: none, requireLease: false });
    expect(r.conclusion).toBe("failure");
    expect(r.summary).toContain("**bob**");
    expect(r.summary).toContain("**4**");
    expect(r.summary).toContain("2026-12-08T12:00:00Z");
  });
  it("fences off a stale token and an unknown one", () => {
    const held = [{ issue: 3, lease: lease(3, "alice", 1, 5) }];
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
    expect(evaluateLeaseCheck({ author: alice, leases: [{ issue: 3, lease: null }], tokens: none, requireLease: false }).conclusion).toBe("neutral");
    expect(evaluateLeaseCheck({ author: alice, leases: [], tokens: none, requireLease: true }).conclusion).toBe("failure");
    expect(evaluateLeaseCheck({ author: alice, leases: [{ issue: 3, lease: null }], tokens: none, requireLease: true }).conclusion).toBe("failure");
  });
});
