/**
 * The holder's activity renews their lease, silently: through
 * probot.receive with real payloads, strict mocks (any request to GitHub
 * not mocked fails the test) and an injected clock. Nobody else's activity
 * renews it: not another person, not another bot, not the app's own
 * comments, and never a reminder.
 */
import { createRequire } from "node:module";
import { describe, expect, it } from "vitest";
import { parseMarker } from "../../src/github/reply-marker.js";
import { APP_ID, type GitHubMock, type Harness, T0, useApp } from "../support/app-harness.js";
import { expectCheck, expectClosing } from "../support/check-mocks.js";
import { expectPullFilesWithoutConfig } from "../support/config-check-mocks.js";
import {
  alice,
  bob,
  commentPayload,
  INSTALLATION_ID,
  pullRequestPayload,
  REPO,
  robot,
  type UserSpec,
} from "../support/payloads.js";

const MIN = 60_000;
const HOUR = 60 * MIN;
const key = (issue: number) => ({ repoId: REPO.id, repo: `${REPO.owner}/${REPO.name}`, issue });

const require = createRequire(import.meta.url);
const examples = require("@octokit/webhooks-examples") as Array<{ name: string; examples: Array<Record<string, any>> }>;

/** GitHub's own example of `name.action`, for pull request `pull`, by `by`. */
function example(name: string, action: string, pull: number, by: UserSpec): Record<string, any> {
  const found = examples.find((e) => e.name === name)?.examples.find((p) => p.action === action);
  if (!found) throw new Error(`no ${name}.${action} example`);
  const p = structuredClone(found);
  const user = { login: by.login, id: by.id, node_id: `U_${by.id}`, type: by.type ?? "User" };
  p.pull_request.number = pull;
  p.sender = { ...p.sender, ...user };
  if (p.review) p.review.user = { ...p.review.user, ...user };
  if (p.comment) p.comment.user = { ...p.comment.user, ...user };
  p.installation = { id: INSTALLATION_ID, node_id: "I_1" };
  return p;
}

/** Moves the clock to T0 + `at` and sweeps once. */
async function sweepAt(h: Harness, at: number) {
  h.advance(T0 + at - h.now());
  const r = await h.runtime.sweeper.sweep();
  expect(r).not.toBeNull();
  return r!;
}

/** alice claims issue 1 for 2h at T0 (the repository's first command). */
async function aliceClaims(h: Harness, gh: GitHubMock, config: string | null = "reminder_before: 1h\n"): Promise<void> {
  gh.config(config);
  await h.receive("issue_comment", commentPayload({ body: "/claim 2h", author: alice }));
  gh.claim(1, "alice", { createClaimed: true, token: 1 });
  await h.drain();
}

const expiresAt = async (h: Harness) => (await h.ledger.current(key(1), h.now()))?.expiresAt;

describe("the holder's activity", () => {
  const t = useApp();

  it("the holder's comment renews the lease by its length from the comment, with zero requests to GitHub; it then lasts past the old expiry", async () => {
    const { h, gh } = t;
    await aliceClaims(h, gh);
    h.advance(90 * MIN);
    const before = gh.mark();
    await h.receive("issue_comment", commentPayload({ body: "Pushed a fix, testing it now.", author: alice }));
    await h.drain();
    expect(gh.calls.slice(before)).toEqual([]);
    expect(await expiresAt(h)).toBe(T0 + 90 * MIN + 2 * HOUR);
    expect((await h.ledger.history(key(1))).map((e) => [e.op, e.outcome, e.actor?.login])).toEqual([
      ["acquire", "acquired", "alice"],
      ["follow", "renewed", "alice"],
    ]);

    // The old term's reminder (at 1h) was never sent and is not: the new term's comes at 2h30.
    expect(await sweepAt(h, 2 * HOUR + MIN)).toMatchObject({ expired: 0, reminded: 0 });
    gh.comment(1);
    expect(await sweepAt(h, 2 * HOUR + 31 * MIN)).toMatchObject({ reminded: 1 });
    await h.drain();
    expect(parseMarker(gh.lastComment())).toMatchObject({ op: "remind", expires_at: "2026-12-01T15:30:00Z" });
  });

  it("a reminder decided but not yet posted when the holder's comment renews the lease is not posted: its term is over", async () => {
    const { h, gh } = t;
    await aliceClaims(h, gh);
    expect(await sweepAt(h, 61 * MIN)).toMatchObject({ reminded: 1 });
    // Before the outbox posts it, alice comments.
    h.advance(MIN);
    await h.receive("issue_comment", commentPayload({ body: "Almost done.", author: alice }));
    const before = gh.mark();
    await h.drain();
    expect(gh.calls.slice(before)).toEqual([]);
    expect(await expiresAt(h)).toBe(T0 + 62 * MIN + 2 * HOUR);
  });

  it("a stranger's comment, another bot's and the app's own do not renew it; it expires on time", async () => {
    const { h, gh } = t;
    await aliceClaims(h, gh, null);
    h.advance(HOUR);
    const before = gh.mark();
    await h.receive("issue_comment", commentPayload({ body: "Any news on this?", author: bob }));
    await h.receive("issue_comment", commentPayload({ body: "Triaged.", author: robot }));
    // The app's own comment, as GitHub delivers it back: by its bot, through its app id.
    const own = commentPayload({ body: "A note from the app", author: { login: "issue-leases[bot]", id: 9999, type: "Bot" }, performedViaAppId: APP_ID });
    await h.receive("issue_comment", own);
    await h.drain();
    expect(gh.calls.slice(before)).toEqual([]);
    expect(await expiresAt(h)).toBe(T0 + 2 * HOUR);
    expect((await h.ledger.history(key(1))).map((e) => e.op)).toEqual(["acquire"]);
    gh.release(1, "alice", 1);
    expect(await sweepAt(h, 2 * HOUR + MIN)).toMatchObject({ expired: 1 });
    await h.drain();
  });

  it("a reminder is never counted as activity: delivered back to the app, it renews nothing, and the lease expires on time", async () => {
    const { h, gh } = t;
    await aliceClaims(h, gh);
    gh.comment(1);
    expect(await sweepAt(h, 61 * MIN)).toMatchObject({ reminded: 1 });
    await h.drain();
    const reminder = gh.lastComment();
    expect(reminder).toContain("@alice, your lease on this issue");

    // GitHub sends the reminder back as issue_comment.created: through the app's id, and (another
    // installation of the app) by a bot with the marker. It mentions alice, but is not hers.
    const bot = { login: "issue-leases[bot]", id: 9999, type: "Bot" as const };
    const before = gh.mark();
    await h.receive("issue_comment", commentPayload({ body: reminder, author: bot, performedViaAppId: APP_ID }));
    await h.receive("issue_comment", commentPayload({ body: reminder, author: bot }));
    await h.drain();
    expect(gh.calls.slice(before)).toEqual([]);
    expect(await expiresAt(h)).toBe(T0 + 2 * HOUR);
    gh.release(1, "alice", 1);
    expect(await sweepAt(h, 2 * HOUR + MIN)).toMatchObject({ expired: 1 });
    await h.drain();
    expect(parseMarker(gh.lastComment())).toMatchObject({ op: "expire", holder: "alice" });
  });

  it("a comment that is a command runs as the command, not as activity too", async () => {
    const { h, gh } = t;
    await aliceClaims(h, gh);
    h.advance(90 * MIN);
    gh.comment(1);
    await h.receive("issue_comment", commentPayload({ body: "/renew 1h", author: alice }));
    await h.drain();
    expect(await expiresAt(h)).toBe(T0 + 150 * MIN);
    gh.comment(1);
    await h.receive("issue_comment", commentPayload({ body: "/lease", author: alice }));
    await h.drain();
    expect(await expiresAt(h)).toBe(T0 + 150 * MIN);
    expect((await h.ledger.history(key(1))).map((e) => e.op)).toEqual(["acquire", "renew", "note"]);
  });

  it("with `renew_on_activity: false`, the holder's comment renews nothing", async () => {
    const { h, gh } = t;
    await aliceClaims(h, gh, "renew_on_activity: false\n");
    h.advance(90 * MIN);
    await h.receive("issue_comment", commentPayload({ body: "Still on it.", author: alice }));
    expect(await expiresAt(h)).toBe(T0 + 2 * HOUR);
  });
});

describe("the holder's activity on a pull request that closes the issue", () => {
  const t = useApp();

  /** bob's pull request 3 closes issue 1, which alice holds: it holds nothing (bob is not the holder). */
  async function bobsPull(h: Harness): Promise<void> {
    const checks = expectCheck();
    expectClosing(3, { linked: [1] });
    expectPullFilesWithoutConfig(3);
    await h.receive("pull_request", pullRequestPayload("opened", { number: 3, body: "Fixes #1", author: bob }));
    await h.drain();
    expect(checks[0]?.conclusion).toBe("failure");
  }

  it("her push, review and review comment renew her lease, silently; bob's do not", async () => {
    const { h, gh } = t;
    await aliceClaims(h, gh);
    await bobsPull(h);
    const before = gh.mark();

    // alice pushes to bob's pull request: the push is checked as always, and renews her lease.
    h.advance(30 * MIN);
    const checks = expectCheck();
    expectClosing(3, { linked: [1] });
    expectPullFilesWithoutConfig(3);
    await h.receive("pull_request", pullRequestPayload("synchronize", { number: 3, body: "Fixes #1", author: bob, sender: alice }));
    await h.drain();
    expect(checks).toHaveLength(1);
    expect(await expiresAt(h)).toBe(T0 + 30 * MIN + 2 * HOUR);

    h.advance(30 * MIN);
    await h.receive("pull_request_review", example("pull_request_review", "submitted", 3, alice));
    expect(await expiresAt(h)).toBe(T0 + 60 * MIN + 2 * HOUR);

    h.advance(30 * MIN);
    await h.receive("pull_request_review_comment", example("pull_request_review_comment", "created", 3, alice));
    expect(await expiresAt(h)).toBe(T0 + 90 * MIN + 2 * HOUR);

    // A comment of hers in the pull request's conversation too.
    h.advance(10 * MIN);
    await h.receive("issue_comment", commentPayload({ body: "Rebased.", author: alice, issue: 3, pullRequest: true }));
    expect(await expiresAt(h)).toBe(T0 + 100 * MIN + 2 * HOUR);

    // bob's review and comment: nothing.
    h.advance(10 * MIN);
    await h.receive("pull_request_review", example("pull_request_review", "submitted", 3, bob));
    await h.receive("pull_request_review_comment", example("pull_request_review_comment", "created", 3, bob));
    await h.receive("issue_comment", commentPayload({ body: "LGTM", author: bob, issue: 3, pullRequest: true }));
    await h.drain();
    expect(await expiresAt(h)).toBe(T0 + 100 * MIN + 2 * HOUR);

    // No write to GitHub but the push's check run.
    expect(gh.calls.slice(before)).toEqual([]);
  });

  it("activity on a pull request that closes another issue renews nothing", async () => {
    const { h, gh } = t;
    await aliceClaims(h, gh);
    h.advance(HOUR);
    await h.receive("pull_request_review", example("pull_request_review", "submitted", 8, alice));
    expect(await expiresAt(h)).toBe(T0 + 2 * HOUR);
  });
});
