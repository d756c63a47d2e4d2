/**
 * `count_in_review` and `exempt_labels`, each allowed and refused, through
 * probot.receive with real payloads, strict mocks and an injected clock.
 */
import { describe, expect, it } from "vitest";
import { parseMarker } from "../../src/github/reply-marker.js";
import { type GitHubMock, type Harness, T0, useApp } from "../support/app-harness.js";
import { expectCheck, expectClosing } from "../support/check-mocks.js";
import { expectPullFilesWithoutConfig } from "../support/config-check-mocks.js";
import { alice, commentPayload, issuesPayload, maintainer, pullRequestPayload, REPO } from "../support/payloads.js";

const MIN = 60_000;
const HOUR = 60 * MIN;
const key = (issue: number) => ({ repoId: REPO.id, repo: `${REPO.owner}/${REPO.name}`, issue });

async function sweepAt(h: Harness, at: number) {
  h.advance(T0 + at - h.now());
  const r = await h.runtime.sweeper.sweep();
  expect(r).not.toBeNull();
  return r!;
}

describe("count_in_review", () => {
  const t = useApp();

  /** alice holds issue 1 (limit 1) and her open pull request 2 closes it: that lease is in review. */
  async function inReview(h: Harness, gh: GitHubMock, config: string): Promise<void> {
    gh.config(config);
    await h.receive("issue_comment", commentPayload({ body: "/claim", author: alice }));
    gh.claim(1, "alice", { createClaimed: true, token: 1 });
    await h.drain();
    const checks = expectCheck();
    expectClosing(2, { linked: [1] });
    gh.addLabels(1);
    expectPullFilesWithoutConfig(2);
    await h.receive("pull_request", pullRequestPayload("opened", { number: 2, body: "Fixes #1", author: alice }));
    await h.drain();
    expect(checks[0]?.conclusion).toBe("success");
  }

  it("false (the default): a contributor whose lease is in review can take new work within `max_leases_per_holder`", async () => {
    const { h, gh } = t;
    await inReview(h, gh, "max_leases_per_holder: 1\n");
    await h.receive("issue_comment", commentPayload({ body: "/claim", author: alice, issue: 5 }));
    gh.lookups("lease #1").addLabels(5).assign(5, "alice").comment(5);
    await h.drain();
    expect(parseMarker(gh.lastComment())).toMatchObject({ outcome: "acquired", issue: 5, holder: "alice", token: 1 });
    // The new lease is not in review: it counts, and a third claim is refused.
    gh.comment(6);
    await h.receive("issue_comment", commentPayload({ body: "/claim", author: alice, issue: 6 }));
    await h.drain();
    expect(gh.lastComment()).toContain("You already hold 1 lease in this repository (#5); the limit is 1.");
  });

  it("true: the lease in review counts, and the refusal lists it", async () => {
    const { h, gh } = t;
    await inReview(h, gh, "max_leases_per_holder: 1\ncount_in_review: true\n");
    gh.comment(5);
    await h.receive("issue_comment", commentPayload({ body: "/claim", author: alice, issue: 5 }));
    await h.drain();
    expect(parseMarker(gh.lastComment())).toMatchObject({ op: "claim", outcome: "forbidden" });
    expect(gh.lastComment()).toContain("You already hold 1 lease in this repository (#1); the limit is 1.");
    expect(await h.ledger.current(key(5), h.now())).toBeNull();
  });
});

describe("exempt_labels", () => {
  const t = useApp();
  const CONFIG = "exempt_labels: [pinned]\ndefault_ttl: 3h\nreminder_before: 1h\n";

  async function claim(h: Harness, gh: GitHubMock, labels: string[]): Promise<void> {
    gh.config(CONFIG);
    await h.receive("issue_comment", commentPayload({ body: "/claim 2h", author: alice, labels }));
    gh.claim(1, "alice", { createClaimed: true, token: 1 });
    await h.drain();
  }

  it("a lease on an issue carrying one does not expire; `/lease` says why; when the label goes, it gets default_ttl from then", async () => {
    const { h, gh } = t;
    await claim(h, gh, ["Pinned"]);
    expect(parseMarker(gh.lastComment())).toMatchObject({ outcome: "acquired", expires_at: null, held_by: { kind: "exempt", pulls: [] } });
    expect(gh.lastComment()).toContain("it does not expire while the issue carries an exempt label.");

    const before = gh.mark();
    expect(await sweepAt(h, 30 * HOUR)).toMatchObject({ expired: 0, reminded: 0 });
    await h.drain();
    expect(gh.calls.slice(before)).toEqual([]);

    // A maintainer takes the label off at 30h: nothing is posted, and the lease now ends 3h later.
    await h.receive("issues", issuesPayload("unlabeled", { issue: 1, label: "pinned", labels: [], sender: maintainer, at: h.now() }));
    await h.drain();
    expect(gh.calls.slice(before)).toEqual([]);
    expect(await h.ledger.current(key(1), h.now())).toMatchObject({ expiresAt: T0 + 33 * HOUR, heldBy: { kind: "time" } });
    // A reminder as usual, an hour before.
    gh.comment(1);
    expect(await sweepAt(h, 33 * HOUR - MIN)).toMatchObject({ expired: 0, reminded: 1 });
    await h.drain();
    expect(parseMarker(gh.lastComment())).toMatchObject({ op: "remind", expires_at: "2026-12-02T21:00:00Z" });
    gh.release(1, "alice", 1);
    expect(await sweepAt(h, 33 * HOUR + MIN)).toMatchObject({ expired: 1 });
    await h.drain();
    expect(parseMarker(gh.lastComment())).toMatchObject({ op: "expire", holder: "alice" });
  });

  it("without one the lease expires as usual; labelled during the lease, it stops expiring", async () => {
    const { h, gh } = t;
    await claim(h, gh, ["bug"]);
    expect(await h.ledger.current(key(1), h.now())).toMatchObject({ expiresAt: T0 + 2 * HOUR, heldBy: { kind: "time" } });

    // Another label changes nothing.
    h.advance(30 * MIN);
    await h.receive("issues", issuesPayload("labeled", { issue: 1, label: "help wanted", labels: ["bug", "help wanted"], sender: maintainer }));
    expect(await h.ledger.current(key(1), h.now())).toMatchObject({ expiresAt: T0 + 2 * HOUR });

    await h.receive("issues", issuesPayload("labeled", { issue: 1, label: "pinned", labels: ["bug", "pinned"], sender: maintainer }));
    const before = gh.mark();
    expect(await sweepAt(h, 5 * HOUR)).toMatchObject({ expired: 0, reminded: 0 });
    await h.drain();
    expect(gh.calls.slice(before)).toEqual([]);
    expect(await h.ledger.current(key(1), h.now())).toMatchObject({ expiresAt: null, heldBy: { kind: "exempt", pulls: [] } });
  });

  it("with no `exempt_labels` set, a label of the same name holds nothing", async () => {
    const { h, gh } = t;
    gh.config("default_ttl: 3h\n");
    await h.receive("issue_comment", commentPayload({ body: "/claim 2h", author: alice, labels: ["pinned"] }));
    gh.claim(1, "alice", { createClaimed: true, token: 1 });
    await h.drain();
    expect(await h.ledger.current(key(1), h.now())).toMatchObject({ expiresAt: T0 + 2 * HOUR, heldBy: { kind: "time" } });
    gh.release(1, "alice", 1);
    expect(await sweepAt(h, 2 * HOUR + MIN)).toMatchObject({ expired: 1 });
    await h.drain();
  });
});
