/**
 * Issue events that end or restore a lease without a command: closing,
 * transferring, and people removing the app's labels by hand.
 */
import { describe, expect, it } from "vitest";
import { parseMarker } from "../../src/github/reply-marker.js";
import { claimFor, mentionsIn, releaseRoutes, useApp } from "../support/app-harness.js";
import { alice, bob, commentPayload, issuesPayload, maintainer, pullRequestPayload, REPO, type UserSpec } from "../support/payloads.js";

const key = (issue: number) => ({ repoId: REPO.id, repo: `${REPO.owner}/${REPO.name}`, issue });
const triager: UserSpec = { login: "triager", id: 1005, association: "CONTRIBUTOR" };
const appBot: UserSpec = { login: "issue-leases[bot]", id: 5000, type: "Bot" };

describe("issues.closed", () => {
  const t = useApp();

  it("releases a live lease, takes its labels off and says the issue was closed", async () => {
    const { h, gh } = t;
    await claimFor(h, gh, alice, { first: true });

    const before = gh.mark();
    // Closed in the second the lease began: GitHub is asked whether it still is.
    gh.issue(1, "closed");
    await h.receive("issues", issuesPayload("closed", { at: h.now(), sender: maintainer, labels: ["claimed", "claimed-by: alice", "lease #1"] }));
    gh.release(1, "alice", 1);
    await h.drain();

    expect(gh.routes(before)).toEqual(["GET /issues/1", ...releaseRoutes(1, "alice", 1)]);
    const reply = gh.lastComment();
    // Nobody "released" it: the headline says the lease ended, the reason why.
    expect(reply).toContain("**alice**'s lease (token **1**) ended. The issue is free.");
    expect(reply).toContain("The issue was closed, so its lease ended.");
    expect(reply).not.toContain("released the lease");
    expect(parseMarker(reply)).toMatchObject({ op: "release", outcome: "released", holder: "alice", token: 1 });
    expect(await h.ledger.current(key(1), h.now())).toBeNull();
  });

  it("makes no HTTP call when the issue had no lease", async () => {
    const { h, gh } = t;
    await h.receive("issues", issuesPayload("closed", { at: h.now(), sender: maintainer }));
    await h.drain();
    expect(gh.calls).toEqual([]);
    expect(await h.ledger.history(key(1))).toEqual([]);
  });
});

describe("pull_request.closed", () => {
  const t = useApp();

  it.each([
    [true, "The pull request was merged, so its lease ended."],
    [false, "The issue was closed, so its lease ended."],
  ])("releases the lease of a pull request closed (merged: %s), with a reply saying why", async (merged, reason) => {
    const { h, gh } = t;
    gh.config(null);
    await h.receive("issue_comment", commentPayload({ body: "/claim", author: alice, issue: 2, pullRequest: true }));
    gh.claim(2, "alice", { createClaimed: true, token: 1 });
    await h.drain();

    const before = gh.mark();
    // Closed in the second the lease began: GitHub is asked whether it still is (a pull request is an issue there).
    gh.issue(2, "closed");
    await h.receive("pull_request", pullRequestPayload("closed", { at: h.now(), number: 2, author: alice, sender: maintainer, merged }));
    gh.release(2, "alice", 1);
    await h.drain();
    expect(gh.routes(before)).toEqual(["GET /issues/2", ...releaseRoutes(2, "alice", 1)]);
    const reply = gh.lastComment();
    expect(reply).toContain(reason);
    expect(parseMarker(reply)).toMatchObject({ op: "release", outcome: "released", issue: 2, holder: "alice", token: 1 });
    expect(await h.ledger.current(key(2), h.now())).toBeNull();
  });

  it("makes no HTTP call for a pull request closed without a lease", async () => {
    const { h, gh } = t;
    await h.receive("pull_request", pullRequestPayload("closed", { at: h.now(), number: 2, author: alice, merged: true }));
    await h.drain();
    expect(gh.calls).toEqual([]);
  });
});

describe("issues.transferred", () => {
  const t = useApp();

  it("releases the lease in the ledger, posts nothing, and deletes its labels from the repository", async () => {
    const { h, gh } = t;
    await claimFor(h, gh, alice, { first: true });

    const before = gh.mark();
    await h.receive("issues", issuesPayload("transferred", { sender: maintainer }));
    // Nothing on the issue, which is no longer here; `claimed` stays, the
    // repository's own label.
    gh.deleteLabel("claimed-by: alice").deleteLabel("lease #1");
    await h.drain();
    expect(gh.routes(before)).toEqual(["DELETE /labels/claimed-by: alice", "DELETE /labels/lease #1"]);
    expect(await h.ledger.current(key(1), h.now())).toBeNull();
    expect((await h.ledger.history(key(1))).pop()).toMatchObject({ op: "force_release", outcome: "released", actor: { login: "maint" } });
  });
});

describe("issues.deleted", () => {
  const t = useApp();

  it("keeps the labels another live lease still uses, and makes no call then", async () => {
    const { h, gh } = t;
    await claimFor(h, gh, alice, { first: true, issue: 1 });
    await claimFor(h, gh, alice, { issue: 2 });

    const before = gh.mark();
    await h.receive("issues", issuesPayload("deleted", { sender: maintainer, issue: 1 }));
    await h.drain();
    expect(gh.calls.slice(before)).toEqual([]);
    expect(await h.ledger.current(key(1), h.now())).toBeNull();
    expect(await h.ledger.current(key(2), h.now())).toMatchObject({ holder: { login: "alice" }, token: 1 });
  });

  it("a redelivered deletion changes nothing more", async () => {
    const { h, gh } = t;
    await claimFor(h, gh, alice, { first: true });

    const before = gh.mark();
    const payload = issuesPayload("deleted", { sender: maintainer });
    await h.receive("issues", payload, "gone-1");
    gh.deleteLabel("claimed-by: alice").deleteLabel("lease #1");
    await h.drain();
    await h.receive("issues", payload, "gone-1");
    await h.drain();
    expect(gh.routes(before)).toEqual(["DELETE /labels/claimed-by: alice", "DELETE /labels/lease #1"]);
    expect((await h.ledger.history(key(1))).map((e) => e.op)).toEqual(["acquire", "force_release"]);
  });
});

describe("removing the app's labels by hand (issues.unlabeled)", () => {
  const t = useApp();

  it("releases the lease when a maintainer with write permission removes `claimed`, with a reply", async () => {
    const { h, gh } = t;
    await claimFor(h, gh, alice, { first: true });

    const before = gh.mark();
    gh.permission("maint", "write");
    await h.receive("issues", issuesPayload("unlabeled", { at: h.now(), sender: maintainer, label: "claimed", labels: ["claimed-by: alice", "lease #1"] }));
    // `claimed` is gone already: GitHub answers 404, which is fine.
    gh.removeLabel(1, "claimed", 404).deleteLabel("claimed-by: alice").deleteLabel("lease #1").unassign(1).comment(1);
    await h.drain();

    expect(gh.routes(before)).toEqual([
      "GET /collaborators/maint/permission",
      "DELETE /issues/1/labels/claimed",
      "DELETE /labels/claimed-by: alice",
      "DELETE /labels/lease #1",
      "DELETE /issues/1/assignees",
      "POST /issues/1/comments",
    ]);
    const reply = gh.lastComment();
    expect(reply).toContain("**maint** released @alice's lease (token **1**).");
    expect(reply).toContain("Removing the lease's label by hand ended the lease.");
    expect(parseMarker(reply)).toMatchObject({ op: "release", outcome: "released", holder: "alice", token: 1 });
    expect(await h.ledger.current(key(1), h.now())).toBeNull();
  });

  it("releases the lease, without asking GitHub for permission, when the holder removes their own label", async () => {
    const { h, gh } = t;
    await claimFor(h, gh, alice, { first: true });

    const before = gh.mark();
    await h.receive("issues", issuesPayload("unlabeled", { at: h.now(), sender: alice, label: "lease #1" }));
    gh.removeLabel(1, "claimed").deleteLabel("claimed-by: alice").deleteLabel("lease #1").unassign(1).comment(1);
    await h.drain();
    expect(gh.reads(before)).toEqual([]);
    const reply = gh.lastComment();
    expect(reply).toContain("**alice** released the lease (token **1**).");
    expect(mentionsIn(reply)).toEqual([]);
    expect(await h.ledger.current(key(1), h.now())).toBeNull();
  });

  it("puts the labels back, with a `forbidden` reply, when a triage user removes `claimed`", async () => {
    const { h, gh } = t;
    await claimFor(h, gh, alice, { first: true });

    const before = gh.mark();
    gh.permission("triager", "triage");
    await h.receive("issues", issuesPayload("unlabeled", { at: h.now(), sender: triager, label: "claimed" }));
    gh.addLabels(1).comment(1);
    await h.drain();

    expect(gh.routes(before)).toEqual(["GET /collaborators/triager/permission", "POST /issues/1/labels", "POST /issues/1/comments"]);
    expect(gh.calls[before + 1]!.body).toEqual({ labels: ["claimed"] });
    const reply = gh.lastComment();
    expect(reply).toContain("That command is not allowed here, so nothing changed.");
    expect(reply).toContain("The lease's labels were put back");
    expect(parseMarker(reply)).toMatchObject({ outcome: "forbidden", holder: "alice", token: 1 });
    expect(await h.ledger.current(key(1), h.now())).toMatchObject({ holder: { login: "alice" }, token: 1 });

    // The put-back label is remembered: the holder's release takes all three off again.
    const next = gh.mark();
    await h.receive("issues", issuesPayload("unlabeled", { at: h.now(), sender: alice, label: "claimed-by: alice" }));
    gh.removeLabel(1, "claimed").deleteLabel("claimed-by: alice").deleteLabel("lease #1").unassign(1).comment(1);
    await h.drain();
    expect(gh.writes(next)).toHaveLength(5);
  });

  it("ignores the app's own unlabel events (sender is a Bot)", async () => {
    const { h, gh } = t;
    await claimFor(h, gh, alice, { first: true });

    const before = gh.mark();
    await h.receive("issues", issuesPayload("unlabeled", { at: h.now(), sender: appBot, label: "claimed" }));
    await h.drain();
    expect(gh.calls.slice(before)).toEqual([]);
    expect(await h.ledger.current(key(1), h.now())).toMatchObject({ holder: { login: "alice" } });
  });

  it("ignores the removal of a label that is not the app's, or of an issue without a lease", async () => {
    const { h, gh } = t;
    await claimFor(h, gh, alice, { first: true });

    const before = gh.mark();
    await h.receive("issues", issuesPayload("unlabeled", { at: h.now(), sender: bob, label: "bug" }));
    await h.receive("issues", issuesPayload("unlabeled", { at: h.now(), sender: bob, label: "claimed", issue: 2 }));
    await h.drain();
    expect(gh.calls.slice(before)).toEqual([]);
    expect(await h.ledger.current(key(1), h.now())).toMatchObject({ holder: { login: "alice" } });
  });
});
