/**
 * The lease check reads what GitHub itself will close, and is bounded: a
 * GraphQL answer (body keywords and sidebar links) joined with the title and
 * commit messages; one check and nothing per issue past 50 references; a
 * Lease-Token fenced even once the issue is free. Through probot.receive,
 * strict nock, a real SQLite ledger and an injected clock.
 */
import nock from "nock";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { API, configFile, type Harness, startApp, strictNock } from "../support/app-harness.js";
import { expectCheck, expectClosing, expectComment } from "../support/check-mocks.js";
import { expectPullFilesWithoutConfig } from "../support/config-check-mocks.js";
import { alice, bob, commentPayload, maintainer, pullRequestPayload, REPO } from "../support/payloads.js";

const QUIET = "assign: false\nlabels:\n  claimed: false\n  holder: false\n  token: false\n  in_review: false\n";
const key = (issue: number) => ({ repoId: REPO.id, repo: `${REPO.owner}/${REPO.name}`, issue });

describe("what the lease check reads, and how far", () => {
  let h: Harness;
  let mock: ReturnType<typeof strictNock>;

  beforeEach(async () => {
    mock = strictNock();
    h = await startApp();
    configFile(QUIET);
  });
  afterEach(async () => {
    await h.close();
    mock.verify();
  });

  async function command(body: string, by: typeof alice, outcome: string, issue = 1): Promise<void> {
    expectComment(issue, outcome);
    await h.receive("issue_comment", commentPayload({ body, author: by, issue }));
    await h.drain();
  }

  it("fails a pull request linked only in the Development sidebar, by someone who does not hold the issue", async () => {
    await command("/claim", alice, "acquired");
    const checks = expectCheck();
    expectClosing(2, { linked: [1] });
    expectPullFilesWithoutConfig(2);
    await h.receive("pull_request", pullRequestPayload("opened", { number: 2, body: "Improves the parser.", author: bob }));
    await h.drain();
    expect(checks).toHaveLength(1);
    expect(checks[0]).toMatchObject({ conclusion: "failure", output: { title: "Lease not held" } });
    expect(checks[0]?.output.summary).toContain("#1 is held by **alice**");

    // The link read from GitHub is remembered: alice's release re-checks the pull request.
    const again = expectCheck();
    expectClosing(2, { linked: [1] });
    await command("/release", alice, "released");
    expect(again[0]?.conclusion).toBe("neutral");
  });

  it("reads closing keywords in the title and in commit messages, past the first page of commits", async () => {
    await command("/claim", alice, "acquired");
    await command("/claim", alice, "acquired", 3);
    await command("/claim", alice, "acquired", 4);
    const commits = Array.from({ length: 150 }, (_, i) => `Step ${i + 1}`);
    commits[4] = "Parser: handle tabs\n\nFixes #3";
    commits[119] = "Lexer: resolves #4";
    const checks = expectCheck();
    expectClosing(2, { title: "Fix #1: a faster parser", commits });
    expectPullFilesWithoutConfig(2);
    await h.receive("pull_request", pullRequestPayload("opened", { number: 2, body: "No keyword here.", author: bob }));
    await h.drain();
    expect(checks[0]?.conclusion).toBe("failure");
    const lines = checks[0]?.output.summary.split("\n") ?? [];
    expect(lines.map((l) => l.match(/^- #(\d+) is held by \*\*alice\*\*/)?.[1])).toEqual(["1", "3", "4"]);
  });

  it("gives a pull request closing more than 50 issues one failing check, and remembers nothing per issue", async () => {
    const body = Array.from({ length: 5553 }, (_, i) => `fixes #${i + 1}`).join(" ").slice(0, 65_536);
    const checks = expectCheck();
    expectClosing(2, { linked: Array.from({ length: 60 }, (_, i) => i + 1) });
    expectPullFilesWithoutConfig(2);
    await h.receive("pull_request", pullRequestPayload("opened", { number: 2, body, author: bob }));
    await h.drain();
    expect(checks).toHaveLength(1);
    expect(checks[0]).toMatchObject({
      conclusion: "failure",
      output: { title: "References more than 50 issues; the lease check does not look further" },
    });
    // One transaction on the webhook path, and no link from any issue to the pull request.
    expect(await h.ledger.history({ repoId: REPO.id, issue: 2 })).toHaveLength(1);
    expect(await h.ledger.getReflection(REPO.id, -2)).toMatchObject({ pull: { refs: [] } });
    for (let issue = 1; issue <= 60; issue++) if (issue !== 2) expect(await h.ledger.getReflection(REPO.id, -issue)).toBeNull();
    // So a lease change on one of them re-checks nothing: strict nock allows the reply only.
    await command("/claim", maintainer, "acquired");
  });

  it("fails a stale Lease-Token against a free issue, and not the same pull request without one", async () => {
    await command("/claim", alice, "acquired");
    await command("/release", alice, "released");
    await command("/claim", maintainer, "acquired");
    await command("/release", maintainer, "released");
    expect(await h.ledger.current(key(1), h.now())).toBeNull();

    const stale = expectCheck();
    expectClosing(2, { linked: [1] });
    expectPullFilesWithoutConfig(2);
    await h.receive("pull_request", pullRequestPayload("opened", { number: 2, body: "Fixes #1\n\nLease-Token: 1", author: alice }));
    await h.drain();
    expect(stale[0]?.conclusion).toBe("failure");
    expect(stale[0]?.output.summary).toContain("`Lease-Token: 1`: a stale tenure, fenced off");
    expect(stale[0]?.output.summary).toContain("token **2**");

    const without = expectCheck();
    expectClosing(2, { linked: [1] });
    await h.receive("pull_request", pullRequestPayload("edited", { number: 2, body: "Fixes #1", author: alice }));
    await h.drain();
    expect(without[0]?.conclusion).toBe("neutral");
  });

  it("answers the delivery while GitHub cannot say what the pull request closes, and checks once it can", async () => {
    await command("/claim", alice, "acquired");
    nock(API).post("/graphql").reply(502, "Bad Gateway");
    expectPullFilesWithoutConfig(2);
    await h.receive("pull_request", pullRequestPayload("opened", { number: 2, body: "Fixes #1", author: bob }));
    await h.drain(); // no check run yet: strict nock would fail on one

    const checks = expectCheck();
    expectClosing(2, { linked: [1] });
    h.advance(60_000);
    await h.drain();
    expect(checks[0]?.conclusion).toBe("failure");
  });

  it("waits out GraphQL's rate limit (an error in a 200 answer) until GitHub's reset, and drops the check of a pull request gone", async () => {
    const reset = Math.ceil(h.now() / 1000) + 600;
    nock(API)
      .post("/graphql")
      .reply(200, { data: null, errors: [{ type: "RATE_LIMITED", message: "API rate limit exceeded" }] }, {
        "x-ratelimit-remaining": "0",
        "x-ratelimit-reset": String(reset),
      });
    expectPullFilesWithoutConfig(2);
    await h.receive("pull_request", pullRequestPayload("opened", { number: 2, body: "Fixes #1", author: bob }));
    await h.drain();
    h.advance(300_000);
    await h.drain(); // still paused: strict nock would fail on a second read

    const checks = expectCheck();
    expectClosing(2, { linked: [1] });
    h.advance(300_000);
    await h.drain();
    expect(checks[0]?.conclusion).toBe("neutral");

    nock(API)
      .post("/graphql")
      .reply(200, { data: { repository: { pullRequest: null } }, errors: [{ type: "NOT_FOUND", message: "Could not resolve to a PullRequest" }] });
    await h.receive("pull_request", pullRequestPayload("edited", { number: 2, body: "Fixes #1", author: bob }));
    await h.drain();
    expect(await h.ledger.outboxStats()).toMatchObject({ pending: 0, parked: 0 });
  });
});
