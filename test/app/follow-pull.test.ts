/**
 * A linked pull request keeps the lease: through probot.receive with real
 * payloads, strict mocks and an injected clock. An open pull request by the
 * holder that closes the issue holds the lease (no expiry, no reminder, the
 * in-review label, `/lease` says so); closed unmerged, the lease gets
 * `default_ttl` from then; merged, the issue closes and the lease ends as
 * before; someone else's pull request changes nothing.
 */
import { describe, expect, it } from "vitest";
import { parseMarker } from "../../src/github/reply-marker.js";
import { claimFor, type GitHubMock, type Harness, T0, useApp } from "../support/app-harness.js";
import { type CheckBody, expectCheck, expectClosing } from "../support/check-mocks.js";
import { expectPullFilesWithoutConfig } from "../support/config-check-mocks.js";
import { alice, bob, commentPayload, issuesPayload, pullRequestPayload, REPO } from "../support/payloads.js";

const MIN = 60_000;
const HOUR = 60 * MIN;
const key = (issue: number) => ({ repoId: REPO.id, repo: `${REPO.owner}/${REPO.name}`, issue });
const CONFIG = "default_ttl: 3h\nreminder_before: 1h\n";
const IN_REVIEW = "claimed: in review";

/** Moves the clock to T0 + `at` and sweeps once. */
async function sweepAt(h: Harness, at: number) {
  h.advance(T0 + at - h.now());
  const r = await h.runtime.sweeper.sweep();
  expect(r).not.toBeNull();
  return r!;
}

/** alice claims issue 1 for 2h at T0, the repository's first command (its config is read, `claimed` created). */
async function aliceClaims(h: Harness, gh: GitHubMock, config = CONFIG): Promise<void> {
  gh.config(config);
  await h.receive("issue_comment", commentPayload({ body: "/claim 2h", author: alice }));
  gh.claim(1, "alice", { createClaimed: true, token: 1 });
  await h.drain();
}

/** A pull request opened that closes `issues`, its check run returned. */
async function openPull(h: Harness, number: number, author: typeof alice, issues: number[]): Promise<CheckBody | undefined> {
  const checks = expectCheck();
  expectClosing(number, { linked: issues });
  const body = issues.map((i) => `Fixes #${i}`).join("\n");
  expectPullFilesWithoutConfig(number);
  await h.receive("pull_request", pullRequestPayload("opened", { number, body, author, headSha: "b".repeat(40) }));
  await h.drain();
  return checks[0];
}

describe("a pull request by the holder keeps the lease", () => {
  const t = useApp();

  it("a lease that would expire while the pull request is open does not; closed unmerged, it expires default_ttl after", async () => {
    const { h, gh } = t;
    await aliceClaims(h, gh);

    h.advance(10 * MIN);
    let before = gh.mark();
    gh.addLabels(1);
    const check = await openPull(h, 2, alice, [1]);
    expect(check?.conclusion).toBe("success");
    expect(check?.output.summary).toContain("#1 is held by **alice** with token **1**, held while #2 is open.");
    // The in-review label, and no other write on the issue: no reply, no assignee change.
    expect(gh.routes(before)).toEqual(["POST /issues/1/labels"]);
    expect(gh.calls[before]!.body).toEqual({ labels: [IN_REVIEW] });
    expect(await h.ledger.current(key(1), h.now())).toMatchObject({ expiresAt: null, heldBy: { kind: "pull", pulls: [2] } });

    // Long past the 2h and its reminder: nothing to sweep, nothing posted.
    before = gh.mark();
    expect(await sweepAt(h, 5 * HOUR)).toMatchObject({ expired: 0, reminded: 0 });
    await h.drain();
    expect(gh.calls.slice(before)).toEqual([]);

    // `/lease` says what holds it.
    gh.comment(1);
    await h.receive("issue_comment", commentPayload({ body: "/lease", author: bob }));
    await h.drain();
    expect(gh.lastComment()).toContain("This issue is held by **alice** with lease token **1**");
    expect(gh.lastComment()).toContain("it is held while #2 is open.");
    expect(parseMarker(gh.lastComment())).toMatchObject({ holder: "alice", token: 1, expires_at: null, held_by: { kind: "pull", pulls: [2] } });

    // Closed without merging at 5h: 3h from then, the in-review label off.
    before = gh.mark();
    gh.removeLabel(1, IN_REVIEW);
    await h.receive("pull_request", pullRequestPayload("closed", { number: 2, body: "Fixes #1", author: alice, at: h.now() }));
    await h.drain();
    expect(gh.routes(before)).toEqual([`DELETE /issues/1/labels/${IN_REVIEW}`]);
    expect(await h.ledger.current(key(1), h.now())).toMatchObject({ expiresAt: T0 + 8 * HOUR, heldBy: { kind: "time" } });

    // A reminder as usual, an hour before; then the expiry.
    expect(await sweepAt(h, 7 * HOUR - MIN)).toMatchObject({ expired: 0, reminded: 0 });
    gh.comment(1);
    expect(await sweepAt(h, 7 * HOUR + MIN)).toMatchObject({ reminded: 1 });
    await h.drain();
    expect(parseMarker(gh.lastComment())).toMatchObject({ op: "remind", expires_at: "2026-12-01T20:00:00Z" });
    expect(await sweepAt(h, 8 * HOUR - MIN)).toMatchObject({ expired: 0 });
    gh.release(1, "alice", 1);
    expect(await sweepAt(h, 8 * HOUR + MIN)).toMatchObject({ expired: 1 });
    await h.drain();
    expect(parseMarker(gh.lastComment())).toMatchObject({ op: "expire", outcome: "expired", holder: "alice", token: 1 });
  });

  it("merged: the issue closes and the lease is released as before", async () => {
    const { h, gh } = t;
    await aliceClaims(h, gh);
    gh.addLabels(1);
    await openPull(h, 2, alice, [1]);

    h.advance(HOUR);
    const before = gh.mark();
    await h.receive("pull_request", pullRequestPayload("closed", { number: 2, body: "Fixes #1", author: alice, at: h.now(), merged: true }));
    await h.receive("issues", issuesPayload("closed", { issue: 1, sender: alice, at: h.now() }));
    gh.release(1, "alice", 1).removeLabel(1, IN_REVIEW);
    await h.drain();
    expect(gh.writes(before)).toHaveLength(6);
    expect(gh.lastComment()).toContain("The issue was closed, so its lease ended.");
    expect(await h.ledger.current(key(1), h.now())).toBeNull();
  });

  it("a claim by the author of an open pull request that closes the issue is held by it at once, within the claim's writes", async () => {
    const { h, gh } = t;
    await claimFor(h, gh, bob, { issue: 7, first: true });
    // Opened before the claim: the issue is free, the check neutral.
    expect((await openPull(h, 2, alice, [1]))?.conclusion).toBe("neutral");

    const before = gh.mark();
    await h.receive("issue_comment", commentPayload({ body: "/claim", author: alice }));
    gh.lookups("claimed-by: alice", "lease #1").addLabels(1).assign(1, "alice").comment(1);
    // The lease changed: the pull request is checked again (as for any claim).
    const recheck = expectCheck();
    expectClosing(2, { linked: [1] });
    await h.drain();
    expect(recheck[0]?.conclusion).toBe("success");
    const issueWrites = gh.writes(before).filter((c) => /\/(issues|labels)\b/.test(c.path));
    expect(issueWrites).toHaveLength(3);
    expect(issueWrites[0]!.body).toEqual({ labels: ["claimed", "claimed-by: alice", "lease #1", IN_REVIEW] });
    expect(gh.lastComment()).toContain("**alice** now holds this issue with lease token **1**; it is held while #2 is open.");
    expect(parseMarker(gh.lastComment())).toMatchObject({ outcome: "acquired", expires_at: null, held_by: { kind: "pull", pulls: [2] } });
  });

  it("taking the in-review label off by hand ends nothing: it comes back while the pull request is open", async () => {
    const { h, gh } = t;
    await aliceClaims(h, gh);
    gh.addLabels(1);
    await openPull(h, 2, alice, [1]);
    const before = gh.mark();
    gh.addLabels(1);
    await h.receive("issues", issuesPayload("unlabeled", { issue: 1, sender: alice, label: IN_REVIEW, at: h.now() }));
    await h.drain();
    expect(gh.routes(before)).toEqual(["POST /issues/1/labels"]);
    expect(gh.calls[before]!.body).toEqual({ labels: [IN_REVIEW] });
    expect(await h.ledger.current(key(1), h.now())).toMatchObject({ holder: { login: "alice" }, heldBy: { kind: "pull", pulls: [2] } });
  });
});

describe("a pull request by someone else", () => {
  const t = useApp();

  it("changes nothing: its check fails, and the lease expires on time", async () => {
    const { h, gh } = t;
    await aliceClaims(h, gh);
    const before = gh.mark();
    expect((await openPull(h, 3, bob, [1]))?.conclusion).toBe("failure");
    expect(gh.calls.slice(before)).toEqual([]);
    expect(await h.ledger.current(key(1), h.now())).toMatchObject({ expiresAt: T0 + 2 * HOUR, heldBy: { kind: "time" } });
    gh.comment(1);
    expect(await sweepAt(h, HOUR + MIN)).toMatchObject({ reminded: 1 });
    await h.drain();
    gh.release(1, "alice", 1);
    // The lease ended: bob's pull request is checked again, as for any lease change.
    const recheck = expectCheck();
    expectClosing(3, { linked: [1] });
    expect(await sweepAt(h, 2 * HOUR + MIN)).toMatchObject({ expired: 1 });
    await h.drain();
    expect(recheck[0]?.conclusion).toBe("neutral");
    expect(parseMarker(gh.comments().at(-1)!)).toMatchObject({ op: "expire", holder: "alice" });
  });
});
