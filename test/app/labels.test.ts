/**
 * The labels that mirror a lease: their names (templates, GitHub's 50
 * character limit), and clean-up, so that a repository does not fill up with
 * stale `claimed-by:` and `lease #` labels.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { SqliteLedger } from "../../src/ledger/sqlite/sqlite-ledger.js";
import { MAX_LABEL_LENGTH } from "../../src/github/labels.js";
import { parseMarker } from "../../src/github/reply-marker.js";
import { claimFor, GitHubMock, type Harness, releaseRoutes, startApp, strictNock, useApp } from "../support/app-harness.js";
import { alice, bob, commentPayload, REPO, type UserSpec } from "../support/payloads.js";
import { sleep, waitFor } from "../support/server-process.js";

const key = (issue: number) => ({ repoId: REPO.id, repo: `${REPO.owner}/${REPO.name}`, issue });

describe("label names", () => {
  const t = useApp();

  it("fits a 39-character login in a holder label of at most 50 characters, unique for two logins sharing a prefix", async () => {
    const { h, gh } = t;
    const prefix = "a-very-long-github-login-shared-by-";
    const one: UserSpec = { login: `${prefix}0001`, id: 2001, association: "CONTRIBUTOR" };
    const two: UserSpec = { login: `${prefix}0002`, id: 2002, association: "CONTRIBUTOR" };
    expect([one.login.length, two.login.length]).toEqual([39, 39]);

    await claimFor(h, gh, one, { first: true, issue: 1 });
    const first = gh.calls.find((c) => c.path.endsWith("/issues/1/labels"))!.body.labels as string[];
    await claimFor(h, gh, two, { issue: 2 });
    const second = gh.calls.find((c) => c.path.endsWith("/issues/2/labels"))!.body.labels as string[];

    const holderOne = first[1]!;
    const holderTwo = second[1]!;
    expect(first).toEqual(["claimed", holderOne, "lease #1"]);
    expect(second).toEqual(["claimed", holderTwo, "lease #1"]);
    for (const name of [holderOne, holderTwo]) {
      expect(Array.from(name).length).toBeLessThanOrEqual(MAX_LABEL_LENGTH);
      expect(name.startsWith("claimed-by: a-very-long")).toBe(true);
    }
    expect(holderOne).not.toBe(holderTwo);
    // The reply shows the login in full.
    expect(parseMarker(gh.lastComment())).toMatchObject({ holder: two.login });

    // Releasing recognises the shortened label as the holder's, and deletes it from the repository.
    const before = gh.mark();
    await h.receive("issue_comment", commentPayload({ body: "/release", author: one, issue: 1 }));
    gh.removeLabel(1, "claimed").deleteLabel(holderOne).removeLabel(1, "lease #1").unassign(1).comment(1);
    await h.drain();
    expect(gh.routes(before)).toEqual([
      "DELETE /issues/1/labels/claimed",
      `DELETE /labels/${holderOne}`,
      "DELETE /issues/1/labels/lease #1",
      "DELETE /issues/1/assignees",
      "POST /issues/1/comments",
    ]);
  });

  it("uses only the labels of custom templates (`claimed: false`, `wip: {holder}`, `tok-{token}`)", async () => {
    const { h, gh } = t;
    gh.config('labels:\n  claimed: false\n  holder: "wip: {holder}"\n  token: "tok-{token}"\n');
    await h.receive("issue_comment", commentPayload({ body: "/claim", author: alice }));
    gh.lookups("wip: alice", "tok-1").addLabels(1).assign(1, "alice").comment(1);
    await h.drain();
    expect(gh.routes()).toEqual([
      "GET /contents/.github/issue-leases.yml",
      "GET /repos/Codertocat/.github/contents/.github/issue-leases.yml",
      "GET /labels/wip: alice",
      "GET /labels/tok-1",
      "POST /issues/1/labels",
      "POST /issues/1/assignees",
      "POST /issues/1/comments",
    ]);
    expect(gh.calls[4]!.body).toEqual({ labels: ["wip: alice", "tok-1"] });

    const before = gh.mark();
    await h.receive("issue_comment", commentPayload({ body: "/release", author: alice }));
    gh.deleteLabel("wip: alice").deleteLabel("tok-1").unassign(1).comment(1);
    await h.drain();
    expect(gh.routes(before)).toEqual(["DELETE /labels/wip: alice", "DELETE /labels/tok-1", "DELETE /issues/1/assignees", "POST /issues/1/comments"]);
  });

  it.each([
    ["holder", "{holder}", "bug"],
    ["token", "v{token}", "v2"],
  ])("refuses a `%s` template that could match ordinary labels (%s), with an invalid reply naming the key, and touches no label", async (kind, template, existing) => {
    const { h, gh } = t;
    gh.config(`labels:\n  ${kind}: "${template}"\n`, "unread");
    await h.receive("issue_comment", commentPayload({ body: "/claim", author: alice, labels: [existing] }));
    gh.comment(1);
    await h.drain();
    expect(gh.routes()).toEqual(["GET /contents/.github/issue-leases.yml", "POST /issues/1/comments"]);
    const reply = gh.lastComment();
    expect(reply).toContain(`\`labels.${kind}\``);
    expect(reply).toContain("could match ordinary labels");
    expect(parseMarker(reply)).toMatchObject({ outcome: "invalid" });
    expect(await h.ledger.current(key(1), h.now())).toBeNull();
  });
});

describe("label clean-up", () => {
  const t = useApp();

  it("takes labels another live lease still uses off the issue only, and deletes them from the repository with the last lease", async () => {
    const { h, gh } = t;
    await claimFor(h, gh, alice, { first: true, issue: 1 });
    await claimFor(h, gh, alice, { issue: 2 });

    let before = gh.mark();
    await h.receive("issue_comment", commentPayload({ body: "/release", author: alice, issue: 1 }));
    gh.removeLabel(1, "claimed").removeLabel(1, "claimed-by: alice").removeLabel(1, "lease #1").unassign(1).comment(1);
    await h.drain();
    expect(gh.routes(before)).toEqual([
      "DELETE /issues/1/labels/claimed",
      "DELETE /issues/1/labels/claimed-by: alice",
      "DELETE /issues/1/labels/lease #1",
      "DELETE /issues/1/assignees",
      "POST /issues/1/comments",
    ]);

    before = gh.mark();
    await h.receive("issue_comment", commentPayload({ body: "/release", author: alice, issue: 2 }));
    gh.release(2, "alice", 1);
    await h.drain();
    expect(gh.routes(before)).toEqual(releaseRoutes(2, "alice", 1));
    expect(await h.ledger.list(REPO.id, h.now())).toEqual([]);
  });

  it("never deletes from the repository a label that another effect is putting on an issue", async () => {
    const { h, gh } = t;
    await claimFor(h, gh, alice, { first: true, issue: 1 });
    gh.claim(2, "alice");
    const routes = await releaseWhileClaiming(gh, h.ledger, h, h);

    // The labels go from the repository, then come back with issue 2's lease (GitHub creates them again).
    expect(routes.indexOf("POST /issues/2/labels")).toBeGreaterThan(routes.indexOf("DELETE /labels/claimed-by: alice"));
    expect(routes.indexOf("POST /issues/2/labels")).toBeGreaterThan(routes.indexOf("DELETE /labels/lease #1"));
    expect(gh.calls.find((c) => c.path.endsWith("/issues/2/labels"))!.body).toEqual({ labels: ["claimed", "claimed-by: alice", "lease #1"] });
  });

  it("deletes a repository label once when many leases using it end together, and again once it is back", async () => {
    const { h, gh } = t;
    await claimFor(h, gh, alice, { first: true, issue: 1, body: "/claim 1h" });
    await claimFor(h, gh, bob, { issue: 2, body: "/claim 1h" });

    // Both first tenures (token 1) expire: the first expiry deletes `lease #1`
    // from the repository, which takes it off issue 2 as well.
    h.advance(2 * 60 * 60_000);
    let before = gh.mark();
    await h.runtime.sweeper.sweep();
    gh.removeLabel(1, "claimed").deleteLabel("claimed-by: alice").deleteLabel("lease #1").unassign(1).comment(1);
    gh.removeLabel(2, "claimed").deleteLabel("claimed-by: bob").unassign(2).comment(2);
    await h.drain();
    expect(gh.routes(before).filter((r) => r.includes("lease #1"))).toEqual(["DELETE /labels/lease #1"]);

    // A new first tenure brings `lease #1` back; when it ends, it is deleted again.
    await claimFor(h, gh, alice, { issue: 3 });
    before = gh.mark();
    await h.receive("issue_comment", commentPayload({ body: "/release", author: alice, issue: 3 }));
    gh.release(3, "alice", 1);
    await h.drain();
    expect(gh.routes(before)).toContain("DELETE /labels/lease #1");
  });

  it("adds only what an issue lacks when it already carries some of the labels, and leaves other labels alone", async () => {
    const { h, gh } = t;
    gh.config(null);
    // A `claimed` label left over from before the app (or put there by hand), and a label of the maintainers'.
    await h.receive("issue_comment", commentPayload({ body: "/claim", author: bob, labels: ["claimed", "bug"] }));
    gh.lookups("claimed-by: bob", "lease #1").addLabels(1).assign(1, "bob").comment(1);
    await h.drain();
    expect(gh.routes()).toEqual([
      "GET /contents/.github/issue-leases.yml",
      "GET /repos/Codertocat/.github/contents/.github/issue-leases.yml",
      "GET /labels/claimed-by: bob",
      "GET /labels/lease #1",
      "POST /issues/1/labels",
      "POST /issues/1/assignees",
      "POST /issues/1/comments",
    ]);
    expect(gh.calls[4]!.body).toEqual({ labels: ["claimed-by: bob", "lease #1"] });
    expect(await h.ledger.current(key(1), h.now())).toMatchObject({ holder: { login: "bob" } });

    // The app did not put `claimed` there: when the lease ends, it stays.
    const before = gh.mark();
    await h.receive("issue_comment", commentPayload({ body: "/release", author: bob }));
    gh.deleteLabel("claimed-by: bob").deleteLabel("lease #1").unassign(1).comment(1);
    await h.drain();
    expect(gh.routes(before)).toEqual(["DELETE /labels/claimed-by: bob", "DELETE /labels/lease #1", "DELETE /issues/1/assignees", "POST /issues/1/comments"]);
  });

  it("never deletes from the repository a holder or token label that existed before the app first used it: it only comes off the issue", async () => {
    const { h, gh } = t;
    gh.config(null);
    // The maintainers had made `claimed-by: bob` and `lease #1` themselves, on no issue of this one.
    await h.receive("issue_comment", commentPayload({ body: "/claim", author: bob }));
    gh.createLabel().lookup("claimed-by: bob", true).lookup("lease #1", true).addLabels(1).assign(1, "bob").comment(1);
    await h.drain();
    expect(gh.calls.find((c) => c.path.endsWith("/issues/1/labels"))!.body).toEqual({ labels: ["claimed", "claimed-by: bob", "lease #1"] });

    const before = gh.mark();
    await h.receive("issue_comment", commentPayload({ body: "/release", author: bob }));
    gh.removeLabel(1, "claimed").removeLabel(1, "claimed-by: bob").removeLabel(1, "lease #1").unassign(1).comment(1);
    await h.drain();
    expect(gh.routes(before)).toEqual([
      "DELETE /issues/1/labels/claimed",
      "DELETE /issues/1/labels/claimed-by: bob",
      "DELETE /issues/1/labels/lease #1",
      "DELETE /issues/1/assignees",
      "POST /issues/1/comments",
    ]);

    // Known now: the next use of the names asks nothing, and still deletes nothing from the repository.
    await h.receive("issue_comment", commentPayload({ body: "/claim", author: bob, issue: 2 }));
    gh.addLabels(2).assign(2, "bob").comment(2);
    await h.drain();
    const again = gh.mark();
    await h.receive("issue_comment", commentPayload({ body: "/release", author: bob, issue: 2 }));
    gh.removeLabel(2, "claimed").removeLabel(2, "claimed-by: bob").removeLabel(2, "lease #1").unassign(2).comment(2);
    await h.drain();
    expect(gh.routes(again).filter((r) => r.startsWith("DELETE /labels/"))).toEqual([]);
  });
});

/**
 * alice, holding issue 1, releases it through `releaser`; while the release's
 * first call is held, she claims issue 2 through `claimer` (the same app, or
 * another replica on the same ledger), whose effect goes as far as it can
 * before the release goes on. Her `claimed-by:` and `lease #1` labels, which
 * the release deletes from the repository, are the ones issue 2 now needs.
 * The claim's calls must be mocked by the caller. Returns the routes called
 * from the release on, once both effects are applied.
 */
async function releaseWhileClaiming(gh: GitHubMock, ledger: SqliteLedger, releaser: Harness, claimer: Harness): Promise<string[]> {
  const before = gh.mark();
  await releaser.receive("issue_comment", commentPayload({ body: "/release", author: alice, issue: 1 }));
  const first = gh.gated("DELETE", "/issues/1/labels/claimed");
  gh.deleteLabel("claimed-by: alice").deleteLabel("lease #1").unassign(1).comment(1);
  releaser.runtime.drainer.start();
  await first.reached;
  await claimer.receive("issue_comment", commentPayload({ body: "/claim", author: alice, issue: 2 }));
  claimer.runtime.drainer.start();
  const attempts = ledger.db.prepare<[], number>("SELECT attempts FROM outbox WHERE issue = 2").pluck();
  await waitFor("issue 2's effect taken", () => (attempts.get() ?? 0) > 0, 10_000, 2);
  for (let i = 0; i < 50 && !gh.routes(before).includes("POST /issues/2/labels"); i++) await sleep(5);
  first.open();
  await waitFor("both effects applied", async () => (await ledger.outboxStats()).pending === 0, 10_000, 5);
  for (const app of new Set([releaser, claimer])) await app.runtime.drainer.stop();
  return gh.routes(before);
}

/** The SQLite ledger saying what PostgreSQL's does: other processes share it. */
class SharedSqliteLedger extends SqliteLedger {
  override readonly sharedByProcesses = true;
}

describe("label clean-up across replicas sharing a ledger", () => {
  let mock: ReturnType<typeof strictNock>;
  let dir: string;
  let apps: Harness[] = [];
  beforeEach(() => {
    mock = strictNock();
    dir = mkdtempSync(join(tmpdir(), "issue-leases-replicas-"));
  });
  afterEach(async () => {
    for (const h of apps) await h.close();
    apps = [];
    rmSync(dir, { recursive: true, force: true });
    mock.verify();
  });

  it("never deletes from the repository a label that another replica is putting on an issue", async () => {
    // Two apps on one ledger: each drainer's turns are its own, and only the
    // ledger's label lock keeps the two replicas' turns apart.
    const gh = new GitHubMock();
    const ledger = new SharedSqliteLedger(join(dir, "leases.db"));
    const [a, b] = (apps = [await startApp({ ledger }), await startApp({ ledger })]) as [Harness, Harness];
    await claimFor(a, gh, alice, { first: true, issue: 1 });
    // Replica b sees its first command in the repository: it reads the config.
    gh.config(null).claim(2, "alice");
    const routes = await releaseWhileClaiming(gh, ledger, a, b);

    expect(routes.indexOf("POST /issues/2/labels")).toBeGreaterThan(routes.indexOf("DELETE /labels/claimed-by: alice"));
    expect(routes.indexOf("POST /issues/2/labels")).toBeGreaterThan(routes.indexOf("DELETE /labels/lease #1"));
    // No lock is left behind.
    expect(ledger.db.prepare("SELECT name FROM locks WHERE name LIKE 'labels/%'").all()).toEqual([]);
  });
});
