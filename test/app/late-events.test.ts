/**
 * Trust boundaries of events: an event that ends a lease ends only the tenure
 * it was about (late and redelivered events change nothing), a label removed
 * on a pull request counts as on an issue, a closed issue cannot be claimed,
 * and an edit runs a command only when its author made it.
 */
import { describe, expect, it } from "vitest";
import { parseMarker } from "../../src/github/reply-marker.js";
import { claimFor, releaseRoutes, useApp } from "../support/app-harness.js";
import { alice, bob, commentPayload, issuesPayload, maintainer, pullRequestPayload, REPO } from "../support/payloads.js";

const key = (issue: number) => ({ repoId: REPO.id, repo: `${REPO.owner}/${REPO.name}`, issue });
const MIN = 60_000;

describe("events about an earlier tenure", () => {
  const t = useApp();

  it("a redelivered close of alice's tenure leaves bob's later lease alone, and posts nothing", async () => {
    const { h, gh } = t;
    await claimFor(h, gh, alice, { first: true });
    h.advance(MIN);
    const close = issuesPayload("closed", { at: h.now(), sender: maintainer });
    await h.receive("issues", close, "close-1");
    gh.release(1, "alice", 1);
    await h.drain();

    // Reopened (the app does nothing on it), then bob claims: token 2.
    h.advance(MIN);
    await h.receive("issues", issuesPayload("reopened", { at: h.now(), sender: maintainer }));
    h.advance(MIN);
    await claimFor(h, gh, bob);
    expect(await h.ledger.current(key(1), h.now())).toMatchObject({ holder: { login: "bob" }, token: 2 });

    // GitHub redelivers the first close: a new delivery id, the old payload (closed_at before bob's claim).
    h.advance(MIN);
    const before = gh.mark();
    await h.receive("issues", close, "close-1-redelivered");
    await h.drain();
    expect(gh.calls.slice(before)).toEqual([]);
    expect(await h.ledger.current(key(1), h.now())).toMatchObject({ holder: { login: "bob" }, token: 2 });
    expect((await h.ledger.history(key(1))).pop()).toMatchObject({ op: "force_release", outcome: "stale", holder: { login: "bob" }, token: 2 });
  });

  it("a close held back while the issue was reopened and claimed again in its second leaves the new lease alone, and posts nothing", async () => {
    const { h, gh } = t;
    await claimFor(h, gh, alice, { first: true });
    h.advance(MIN);
    // Within one second, as bots act: closed, reopened, alice releases, bob claims. The close's delivery is held back.
    const close = issuesPayload("closed", { at: h.now(), sender: maintainer });
    h.advance(150);
    await h.receive("issues", issuesPayload("reopened", { at: h.now(), sender: maintainer }));
    h.advance(150);
    await h.receive("issue_comment", commentPayload({ body: "/release", author: alice }));
    gh.release(1, "alice", 1);
    await h.drain();
    h.advance(150);
    await claimFor(h, gh, bob);
    expect(await h.ledger.current(key(1), h.now())).toMatchObject({ holder: { login: "bob" }, token: 2 });

    // The close comes now, stamped in the second bob's lease began: its stamp cannot say which came first, GitHub can.
    h.advance(MIN);
    const before = gh.mark();
    gh.issue(1, "open");
    await h.receive("issues", close);
    await h.drain();
    expect(await h.ledger.current(key(1), h.now())).toMatchObject({ holder: { login: "bob" }, token: 2 });
    expect((await h.ledger.history(key(1))).pop()).toMatchObject({ op: "force_release", outcome: "stale", holder: { login: "bob" }, token: 2 });
    expect(gh.routes(before)).toEqual(["GET /issues/1"]);
  });

  it("a close in the second a lease began ends it when GitHub shows the issue closed", async () => {
    const { h, gh } = t;
    await claimFor(h, gh, alice, { first: true });
    h.advance(400);

    const before = gh.mark();
    gh.issue(1, "closed");
    await h.receive("issues", issuesPayload("closed", { at: h.now(), sender: maintainer }));
    gh.release(1, "alice", 1);
    await h.drain();
    expect(gh.routes(before)).toEqual(["GET /issues/1", ...releaseRoutes(1, "alice", 1)]);
    expect(await h.ledger.current(key(1), h.now())).toBeNull();
    expect((await h.ledger.history(key(1))).pop()).toMatchObject({ op: "force_release", outcome: "released", holder: { login: "alice" }, token: 1 });
  });

  it("a late pull_request.closed from the second the lease began, of a pull request reopened since, leaves the lease alone", async () => {
    const { h, gh } = t;
    gh.config(null);
    const close = pullRequestPayload("closed", { at: h.now(), number: 2, author: alice, sender: maintainer });
    h.advance(300);
    await h.receive("issue_comment", commentPayload({ body: "/claim", author: alice, issue: 2, pullRequest: true }));
    gh.claim(2, "alice", { createClaimed: true, token: 1 });
    await h.drain();

    const before = gh.mark();
    gh.issue(2, "open");
    await h.receive("pull_request", close);
    await h.drain();
    expect(await h.ledger.current(key(2), h.now())).toMatchObject({ holder: { login: "alice" }, token: 1 });
    expect(gh.routes(before)).toEqual(["GET /issues/2"]);
  });

  it("a late pull_request.closed of an earlier tenure leaves the live lease alone", async () => {
    const { h, gh } = t;
    gh.config(null);
    await h.receive("issue_comment", commentPayload({ body: "/claim", author: alice, issue: 2, pullRequest: true }));
    gh.claim(2, "alice", { createClaimed: true, token: 1 });
    await h.drain();

    // Closed a minute before alice claimed, delivered only now.
    const before = gh.mark();
    await h.receive("pull_request", pullRequestPayload("closed", { at: h.now() - MIN, number: 2, author: alice, sender: maintainer }));
    await h.drain();
    expect(gh.calls.slice(before)).toEqual([]);
    expect(await h.ledger.current(key(2), h.now())).toMatchObject({ holder: { login: "alice" }, token: 1 });
  });

  it("removing `lease #3` when the live token is 4 changes nothing", async () => {
    const { h, gh } = t;
    // Three earlier tenures, straight in the ledger.
    for (let i = 0; i < 3; i++) {
      await h.ledger.acquire(key(1), { id: bob.id, login: bob.login }, MIN, h.now());
      await h.ledger.release(key(1), { id: bob.id, login: bob.login }, h.now());
    }
    await claimFor(h, gh, alice, { first: true });
    expect(await h.ledger.current(key(1), h.now())).toMatchObject({ token: 4 });
    const rows = (await h.ledger.history(key(1))).length;

    const before = gh.mark();
    await h.receive("issues", issuesPayload("unlabeled", { at: h.now(), sender: maintainer, label: "lease #3" }));
    await h.drain();
    expect(gh.calls.slice(before)).toEqual([]);
    expect(await h.ledger.current(key(1), h.now())).toMatchObject({ holder: { login: "alice" }, token: 4 });
    expect(await h.ledger.history(key(1))).toHaveLength(rows);
  });

  it("a redelivered removal of `claimed` from before the live tenure changes nothing", async () => {
    const { h, gh } = t;
    await claimFor(h, gh, alice, { first: true });
    h.advance(MIN);
    const removal = issuesPayload("unlabeled", { at: h.now(), sender: alice, label: "claimed" });
    await h.receive("issues", removal);
    gh.removeLabel(1, "claimed", 404).deleteLabel("claimed-by: alice").deleteLabel("lease #1").unassign(1).comment(1);
    await h.drain();
    h.advance(MIN);
    await claimFor(h, gh, bob);

    const before = gh.mark();
    await h.receive("issues", removal);
    await h.drain();
    expect(gh.calls.slice(before)).toEqual([]);
    expect(await h.ledger.current(key(1), h.now())).toMatchObject({ holder: { login: "bob" }, token: 2 });
  });
});

describe("removing the app's label by hand on a pull request (pull_request.unlabeled)", () => {
  const t = useApp();

  it("ends the lease as on an issue when a maintainer with write permission removes the holder label", async () => {
    const { h, gh } = t;
    gh.config(null);
    await h.receive("issue_comment", commentPayload({ body: "/claim", author: alice, issue: 2, pullRequest: true }));
    gh.claim(2, "alice", { createClaimed: true, token: 1 });
    await h.drain();

    const before = gh.mark();
    gh.permission("maint", "write");
    await h.receive("pull_request", pullRequestPayload("unlabeled", { at: h.now(), number: 2, author: alice, sender: maintainer, label: "claimed-by: alice" }));
    gh.removeLabel(2, "claimed").deleteLabel("claimed-by: alice").deleteLabel("lease #1").unassign(2).comment(2);
    await h.drain();
    expect(gh.routes(before)).toEqual([
      "GET /collaborators/maint/permission",
      "DELETE /issues/2/labels/claimed",
      "DELETE /labels/claimed-by: alice",
      "DELETE /labels/lease #1",
      "DELETE /issues/2/assignees",
      "POST /issues/2/comments",
    ]);
    expect(gh.lastComment()).toContain("Removing the lease's label by hand ended the lease.");
    expect(parseMarker(gh.lastComment())).toMatchObject({ op: "release", outcome: "released", issue: 2, holder: "alice" });
    expect(await h.ledger.current(key(2), h.now())).toBeNull();
  });
});

describe("comments the app must not act on as written", () => {
  const t = useApp();

  it("refuses /claim on a closed issue with a reply, and changes no lease", async () => {
    const { h, gh } = t;
    gh.config(null);
    await h.receive("issue_comment", commentPayload({ body: "/claim", author: alice, state: "closed" }));
    gh.comment(1);
    await h.drain();
    expect(gh.routes()).toEqual(["GET /contents/.github/issue-leases.yml", "GET /repos/Codertocat/.github/contents/.github/issue-leases.yml", "POST /issues/1/comments"]);
    expect(gh.lastComment()).toContain("This issue is closed, so it cannot be claimed.");
    expect(parseMarker(gh.lastComment())).toMatchObject({ op: "claim", outcome: "forbidden", holder: null });
    expect(await h.ledger.current(key(1), h.now())).toBeNull();
    expect((await h.ledger.history(key(1))).map((e) => [e.op, e.outcome])).toEqual([["note", "forbidden"]]);
  });

  it("ignores a maintainer's edit of a user's comment: no command runs, no reply", async () => {
    const { h, gh } = t;
    await h.receive("issue_comment", commentPayload({ body: "/claim", previousBody: "I could look at this", author: alice, sender: maintainer }));
    await h.receive("issue_comment", commentPayload({ body: "/release @bob", previousBody: "thanks", author: bob, sender: maintainer }));
    await h.drain();
    expect(gh.calls).toEqual([]);
    expect(await h.ledger.history(key(1))).toEqual([]);
  });

  it("runs an edit its author made", async () => {
    const { h, gh } = t;
    gh.config(null);
    await h.receive("issue_comment", commentPayload({ body: "/claim", previousBody: "I could look at this", author: alice, sender: alice }));
    gh.claim(1, "alice", { createClaimed: true, token: 1 });
    await h.drain();
    expect(await h.ledger.current(key(1), h.now())).toMatchObject({ holder: { login: "alice" } });
  });
});
