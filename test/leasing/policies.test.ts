/**
 * src/leasing/policies.ts on its own: the refusal text of each limit, and what a
 * claim hands its transaction (the issue's own labels, not the app's).
 */
import { describe, expect, it } from "vitest";
import { DEFAULT_CONFIG, parseConfig } from "../../src/config/config.js";
import type { Lease } from "../../src/ledger/leases/lease-types.js";
import { decideClaim } from "../../src/leasing/policies.js";
import { limitReason } from "../../src/github/limit-reason.js";

const key = { repoId: 1, repo: "acme/here", issue: 9 };
const lease = (repoId: number, repo: string, issue: number): Lease => ({
  repoId,
  repo,
  issue,
  holder: { id: 1, login: "alice" },
  token: 1,
  acquiredAt: 0,
  expiresAt: null,
  heldBy: { kind: "time" },
});

describe("limitReason", () => {
  it("names this repository's issues and only counts the others", () => {
    const held = [lease(1, "acme/here", 3), lease(1, "acme/here", 4), lease(2, "acme/secret", 5), lease(3, "acme/other", 6)];
    const reason = limitReason(key, { limit: 4, held, scope: { kind: "org" } });
    expect(reason).toBe(
      "You already hold 4 leases across this organisation's repositories (#3, #4 and 2 in other repositories); " +
        "the limit is 4 (`max_leases_per_holder_in_org`). Release one with `/release` on its issue first.",
    );
    expect(reason).not.toContain("secret");
  });

  it("names the label in a code span, and keeps the repository's wording for max_leases_per_holder", () => {
    expect(limitReason(key, { limit: 1, held: [lease(1, "acme/here", 3)], scope: { kind: "label", label: "good `first` issue" } })).toContain(
      "on issues labelled ``good `first` issue`` in this repository (#3); the limit is 1 (`limits_by_label`).",
    );
    expect(limitReason(key, { limit: 2, held: [lease(1, "acme/here", 3), lease(1, "acme/here", 4)] })).toBe(
      "You already hold 2 leases in this repository (#3, #4); the limit is 2. Release one with `/release` on its issue first.",
    );
  });

  it("names at most 20 issues", () => {
    const held = Array.from({ length: 25 }, (_, i) => lease(1, "acme/here", i + 1));
    expect(limitReason(key, { limit: 25, held })).toContain("#20, 5 more); the limit is 25.");
  });
});

describe("decideClaim", () => {
  const never = async (): Promise<never> => {
    throw new Error("no read expected");
  };

  it("hands the transaction the issue's own labels (not the app's), the label limits and the organisation's", async () => {
    const parsed = parseConfig({ limits_by_label: { bug: 1 }, max_leases_per_holder_in_org: 3, labels: { holder: "wip: {holder}" } });
    if (!parsed.ok) throw new Error(parsed.error);
    const decision = await decideClaim(
      { installation: 42, actor: { id: 1, login: "alice" }, issue: { labels: ["bug", "claimed", "wip: bob", "lease #3", "docs"] } },
      parsed.config,
      0,
      { permission: never, account: never },
    );
    expect(decision).toEqual({
      ok: true,
      holder: { id: 1, login: "alice" },
      policies: { labels: ["bug", "docs"], byLabel: [{ label: "bug", limit: 1 }], org: { installation: 42, limit: 3 } },
    });
  });

  it("asks nothing of GitHub for a plain claim under the defaults", async () => {
    const decision = await decideClaim(
      { installation: 42, actor: { id: 1, login: "alice" }, issue: { labels: [], createdAt: 0, authorId: 2 }, target: "ALICE" },
      DEFAULT_CONFIG,
      0,
      { permission: never, account: never },
    );
    expect(decision).toMatchObject({ ok: true, holder: { id: 1, login: "alice" }, policies: { labels: [] } });
  });
});
