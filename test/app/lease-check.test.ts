/**
 * The lease check on pull requests, through probot.receive with real
 * payloads, strict nock and a real SQLite ledger.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { configFile, type Harness, startApp, strictNock } from "../support/app-harness.js";
import { expectCheck, expectClosing, expectComment } from "../support/check-mocks.js";
import { expectPullFilesWithoutConfig } from "../support/config-check-mocks.js";
import { alice, bob, commentPayload, pullRequestPayload } from "../support/payloads.js";

// No labels and no assignee, so that a command costs exactly its reply.
const QUIET = "assign: false\nlabels:\n  claimed: false\n  holder: false\n  token: false\n  in_review: false\n";

describe("the lease check on pull requests", () => {
  let h: Harness;
  let mock: ReturnType<typeof strictNock>;

  beforeEach(async () => {
    mock = strictNock();
    h = await startApp();
  });
  afterEach(async () => {
    await h.close();
    mock.verify();
  });

  async function claim(config = QUIET, by = alice, issue = 1): Promise<void> {
    configFile(config);
    expectComment(issue, "acquired");
    await h.receive("issue_comment", commentPayload({ body: "/claim", author: by, issue }));
    await h.drain();
  }

  it("succeeds for a pull request by the holder", async () => {
    await claim();
    const checks = expectCheck();
    expectClosing(2, { linked: [1] });
    expectPullFilesWithoutConfig(2);
    await h.receive("pull_request", pullRequestPayload("opened", { number: 2, body: "Fixes #1", author: alice, headSha: "b".repeat(40) }));
    await h.drain();
    expect(checks).toHaveLength(1);
    expect(checks[0]).toMatchObject({ name: "issue-leases", head_sha: "b".repeat(40), status: "completed", conclusion: "success" });
  });

  it("fails for a pull request by someone else, naming the holder", async () => {
    await claim();
    const checks = expectCheck();
    expectClosing(2, { linked: [1] });
    expectPullFilesWithoutConfig(2);
    await h.receive("pull_request", pullRequestPayload("opened", { number: 2, body: "closes #1", author: bob }));
    await h.drain();
    expect(checks[0]?.conclusion).toBe("failure");
    expect(checks[0]?.output.summary).toContain("**alice**");
    expect(checks[0]?.output.summary).toContain("token **1**");
  });

  it("fails a stale Lease-Token: a holder of an earlier tenure is fenced off", async () => {
    await claim();
    expectComment(1, "released");
    await h.receive("issue_comment", commentPayload({ body: "/release", author: alice }));
    await h.drain();
    expectComment(1, "acquired");
    await h.receive("issue_comment", commentPayload({ body: "/claim", author: alice }));
    await h.drain();
    expect((await h.ledger.current({ repoId: 186853002, repo: "Codertocat/Hello-World", issue: 1 }, h.now()))?.token).toBe(2);

    const checks = expectCheck();
    expectClosing(2, { linked: [1] });
    expectPullFilesWithoutConfig(2);
    await h.receive("pull_request", pullRequestPayload("opened", { number: 2, body: "Fixes #1\n\nLease-Token: 1", author: alice }));
    await h.drain();
    expect(checks[0]?.conclusion).toBe("failure");
    expect(checks[0]?.output.summary).toContain("Lease-Token: 1");
    expect(checks[0]?.output.summary).toContain("stale");

    const current = expectCheck();
    expectClosing(2, { linked: [1] });
    await h.receive("pull_request", pullRequestPayload("edited", { number: 2, body: "Fixes #1\n\nLease-Token: 2", author: alice }));
    await h.drain();
    expect(current[0]?.conclusion).toBe("success");
  });

  it("is neutral for a pull request that closes no issue", async () => {
    configFile(QUIET);
    const checks = expectCheck();
    expectClosing(2);
    expectPullFilesWithoutConfig(2);
    await h.receive("pull_request", pullRequestPayload("opened", { number: 2, body: "Just a typo fix, see #1", author: bob }));
    await h.drain();
    expect(checks[0]?.conclusion).toBe("neutral");
  });

  it("fails when the repository requires a lease and the issue has none", async () => {
    configFile(`${QUIET}require_lease_for_pull_requests: true\n`);
    const checks = expectCheck();
    expectClosing(2, { linked: [1] });
    expectPullFilesWithoutConfig(2);
    await h.receive("pull_request", pullRequestPayload("opened", { number: 2, body: "Fixes #1", author: bob }));
    await h.drain();
    expect(checks[0]?.conclusion).toBe("failure");
    expect(checks[0]?.output.summary).toContain("/claim");
  });

  it("re-checks open pull requests when the lease changes", async () => {
    await claim();
    const first = expectCheck();
    expectClosing(2, { linked: [1] });
    expectPullFilesWithoutConfig(2);
    await h.receive("pull_request", pullRequestPayload("opened", { number: 2, body: "Fixes #1", author: alice }));
    await h.drain();
    expect(first[0]?.conclusion).toBe("success");

    // bob's pull request for the same issue fails while alice holds it...
    const bobs = expectCheck();
    expectClosing(3, { linked: [1] });
    expectPullFilesWithoutConfig(3);
    await h.receive("pull_request", pullRequestPayload("opened", { number: 3, body: "Fixes #1", author: bob, headSha: "c".repeat(40) }));
    await h.drain();
    expect(bobs[0]?.conclusion).toBe("failure");

    // ...and when alice releases, both are checked again: no lease is involved any more.
    expectComment(1, "released");
    const again = [expectCheck(), expectCheck()];
    expectClosing(2, { linked: [1] });
    expectClosing(3, { linked: [1] });
    await h.receive("issue_comment", commentPayload({ body: "/release", author: alice }));
    await h.drain();
    const rechecked = again.flat().map((c) => [c.head_sha[0], c.conclusion]);
    expect(rechecked.sort()).toEqual([
      ["a", "neutral"],
      ["c", "neutral"],
    ]);
  });

  it("stops checking a pull request once it is closed", async () => {
    await claim();
    expectCheck();
    expectClosing(2, { linked: [1] });
    expectPullFilesWithoutConfig(2);
    await h.receive("pull_request", pullRequestPayload("opened", { number: 2, body: "Fixes #1", author: alice }));
    await h.drain();
    const closed = pullRequestPayload("closed", { at: h.now(), number: 2, body: "Fixes #1", author: alice });
    closed.pull_request.state = "closed";
    await h.receive("pull_request", closed);
    await h.drain();
    expectComment(1, "released");
    await h.receive("issue_comment", commentPayload({ body: "/release", author: alice }));
    await h.drain(); // no check run: strict nock fails on any unexpected request
  });
});
