/**
 * `.github/issue-leases.yml` end to end: how it is read and cached, what a
 * broken one does, and the policies it sets (who may claim, how many
 * leases, assignment).
 */
import { describe, expect, it } from "vitest";
import { parseMarker } from "../../src/github/reply-marker.js";
import { type GitHubMock, type Harness, useApp } from "../support/app-harness.js";
import { expectConfigCheck, expectFileAt } from "../support/config-check-mocks.js";
import { alice, bob, commentPayload, pushPayload, REPO, robot, type UserSpec } from "../support/payloads.js";

const key = (issue: number) => ({ repoId: REPO.id, repo: `${REPO.owner}/${REPO.name}`, issue });

/** The first command of the repository, with `yaml` as its config: one read, then the claim's writes. */
async function claimWithConfig(h: Harness, gh: GitHubMock, yaml: string, author: UserSpec, issue = 1, org: string | null | "unread" = null): Promise<void> {
  gh.config(yaml, org);
  await h.receive("issue_comment", commentPayload({ body: "/claim", author, issue }));
}

describe("a broken config", () => {
  const t = useApp();

  it.each([
    ["an unknown key", "default_tll: 2d\n", ["`default_tll`: unknown key; did you mean `default_ttl`?"]],
    ["a bad duration", "max_ttl: forever\n", ["`max_ttl`: `forever` is not a duration"]],
    ["a duration without a unit", "default_ttl: 7\n", ["`default_ttl`: `7` has no unit"]],
    ["broken YAML", "claimers: [anyone\nbots: true\n", ["could not be read as YAML: line 2, column 1: `Flow sequence in block collection", "; fix its syntax"]],
  ])("with %s: one `invalid` reply naming the file and the key, and nothing applied", async (_, yaml, expected) => {
    const { h, gh } = t;
    // A broken file of the repository's own: the organisation's is not read.
    await claimWithConfig(h, gh, yaml, alice, 1, "unread");
    gh.comment(1);
    await h.drain();

    expect(gh.routes()).toEqual(["GET /contents/.github/issue-leases.yml", "POST /issues/1/comments"]);
    const reply = gh.lastComment();
    expect(reply).toContain("That command was not understood, so nothing changed.");
    expect(reply).toContain("`.github/issue-leases.yml`");
    for (const text of expected) expect(reply).toContain(text);
    expect(parseMarker(reply)).toMatchObject({ op: "claim", outcome: "invalid", holder: null, token: null });
    expect(await h.ledger.current(key(1), h.now())).toBeNull();
    expect((await h.ledger.history(key(1))).map((e) => [e.op, e.outcome])).toEqual([["note", "invalid"]]);
  });
});

describe("the config cache", () => {
  const t = useApp();

  it("is invalidated by a push to the default branch touching `.github/issue-leases.yml`: the next command reads the file again", async () => {
    const { h, gh } = t;
    await claimWithConfig(h, gh, "default_tll: 2d\n", alice, 1, "unread");
    gh.comment(1);
    await h.drain();
    expect(parseMarker(gh.lastComment())).toMatchObject({ outcome: "invalid" });

    // Cached, broken config: a second command reads nothing and is refused the same way.
    let before = gh.mark();
    await h.receive("issue_comment", commentPayload({ body: "/claim", author: alice }));
    gh.comment(1);
    await h.drain();
    expect(gh.routes(before)).toEqual(["POST /issues/1/comments"]);
    expect(parseMarker(gh.lastComment())).toMatchObject({ outcome: "invalid" });

    // The fix is pushed to the default branch: the cache is emptied with no call of its own (the push's
    // config check reads the file at the pushed commit, and its check run is posted with the outbox).
    before = gh.mark();
    const push = pushPayload({ modified: [".github/issue-leases.yml", "README.md"] });
    expectFileAt(push.after, "default_ttl: 2d\n");
    const checks = expectConfigCheck();
    await h.receive("push", push);
    expect(gh.calls.slice(before)).toEqual([]);

    gh.config("default_ttl: 2d\n");
    await h.receive("issue_comment", commentPayload({ body: "/claim", author: alice }));
    gh.claim(1, "alice", { createClaimed: true, token: 1 });
    await h.drain();
    expect(gh.routes(before)).toEqual([
      "GET /contents/.github/issue-leases.yml",
      "GET /repos/Codertocat/.github/contents/.github/issue-leases.yml",
      "POST /labels",
      "GET /labels/claimed-by: alice",
      "GET /labels/lease #1",
      "POST /issues/1/labels",
      "POST /issues/1/assignees",
      "POST /issues/1/comments",
    ]);
    expect(parseMarker(gh.lastComment())).toMatchObject({ outcome: "acquired", expires_at: "2026-12-03T12:00:00Z" });
    expect(checks.map((c) => c.conclusion)).toEqual(["success"]);
  });

  it.each([
    ["to another branch touching the file", { ref: "refs/heads/feature", modified: [".github/issue-leases.yml"] }],
    ["to the default branch not touching the file", { modified: ["README.md"] }],
  ])("is kept by a push %s: the next command reads nothing", async (_, spec) => {
    const { h, gh } = t;
    await claimWithConfig(h, gh, "default_ttl: 2d\n", alice);
    gh.claim(1, "alice", { createClaimed: true, token: 1 });
    await h.drain();

    const before = gh.mark();
    const push = pushPayload(spec);
    // A push touching the file gets its config check (the file at the pushed commit), whatever the branch.
    if (spec.modified.includes(".github/issue-leases.yml")) {
      expectFileAt(push.after, "default_ttl: 3d\n");
      expectConfigCheck();
    }
    await h.receive("push", push);
    await h.receive("issue_comment", commentPayload({ body: "/claim", author: bob, issue: 2 }));
    gh.claim(2, "bob", { token: 1 });
    await h.drain();
    // No read of the config: only whether bob's label, new to the app, exists.
    expect(gh.routes(before)).toEqual(["GET /labels/claimed-by: bob", "POST /issues/2/labels", "POST /issues/2/assignees", "POST /issues/2/comments"]);
  });
});

describe("who may claim", () => {
  const t = useApp();

  it("refuses a bot with `bots: false`", async () => {
    const { h, gh } = t;
    await claimWithConfig(h, gh, "bots: false\n", robot);
    gh.comment(1);
    await h.drain();
    expect(gh.writes()).toHaveLength(1);
    const reply = gh.lastComment();
    expect(reply).toContain("Bots may not claim issues in this repository (`bots: false` in `.github/issue-leases.yml`).");
    expect(parseMarker(reply)).toMatchObject({ op: "claim", outcome: "forbidden", holder: null });
    expect(await h.ledger.current(key(1), h.now())).toBeNull();
  });

  it("refuses a CONTRIBUTOR with `claimers: collaborators`", async () => {
    const { h, gh } = t;
    await claimWithConfig(h, gh, "claimers: collaborators\n", { ...alice, association: "CONTRIBUTOR" });
    gh.comment(1);
    await h.drain();
    const reply = gh.lastComment();
    expect(reply).toContain("Only collaborators of this repository can claim issues here (`claimers: collaborators`).");
    expect(parseMarker(reply)).toMatchObject({ outcome: "forbidden" });
    expect(await h.ledger.current(key(1), h.now())).toBeNull();
  });

  it.each(["MEMBER", "OWNER", "COLLABORATOR"])("accepts a %s with `claimers: collaborators`", async (association) => {
    const { h, gh } = t;
    await claimWithConfig(h, gh, "claimers: collaborators\n", { ...alice, association });
    gh.claim(1, "alice", { createClaimed: true, token: 1 });
    await h.drain();
    expect(parseMarker(gh.lastComment())).toMatchObject({ outcome: "acquired", holder: "alice" });
  });

  it("refuses a second lease with `max_leases_per_holder: 1`, naming the issue held", async () => {
    const { h, gh } = t;
    await claimWithConfig(h, gh, "max_leases_per_holder: 1\n", alice, 1);
    gh.claim(1, "alice", { createClaimed: true, token: 1 });
    await h.drain();

    const before = gh.mark();
    await h.receive("issue_comment", commentPayload({ body: "/claim", author: alice, issue: 2 }));
    gh.comment(2);
    await h.drain();
    expect(gh.routes(before)).toEqual(["POST /issues/2/comments"]);
    const reply = gh.lastComment();
    expect(reply).toContain("You already hold 1 lease in this repository (#1); the limit is 1.");
    expect(parseMarker(reply)).toMatchObject({ op: "claim", outcome: "forbidden", issue: 2, holder: null });
    expect(await h.ledger.current(key(2), h.now())).toBeNull();

    // Another person is not limited by alice's lease.
    await h.receive("issue_comment", commentPayload({ body: "/claim", author: bob, issue: 2 }));
    gh.claim(2, "bob", { token: 1 });
    await h.drain();
    expect(parseMarker(gh.lastComment())).toMatchObject({ outcome: "acquired", holder: "bob" });
  });
});

describe("assignment", () => {
  const t = useApp();

  it("with `assign: false`, a claim costs exactly 2 writes (labels, reply) once `claimed` exists, and a release does not unassign", async () => {
    const { h, gh } = t;
    await claimWithConfig(h, gh, "assign: false\n", alice, 1);
    gh.claim(1, "alice", { createClaimed: true, assign: false, token: 1 });
    await h.drain();
    expect(gh.routes()).toEqual([
      "GET /contents/.github/issue-leases.yml",
      "GET /repos/Codertocat/.github/contents/.github/issue-leases.yml",
      "POST /labels",
      "GET /labels/claimed-by: alice",
      "GET /labels/lease #1",
      "POST /issues/1/labels",
      "POST /issues/1/comments",
    ]);

    let before = gh.mark();
    await h.receive("issue_comment", commentPayload({ body: "/claim", author: bob, issue: 2 }));
    gh.claim(2, "bob", { assign: false, token: 1 });
    await h.drain();
    expect(gh.writes(before).map((c) => c.method + " " + c.path.replace(/^\/repos\/[^/]+\/[^/]+/, ""))).toEqual(["POST /issues/2/labels", "POST /issues/2/comments"]);
    expect(gh.routes(before)).toEqual(["GET /labels/claimed-by: bob", "POST /issues/2/labels", "POST /issues/2/comments"]);

    before = gh.mark();
    await h.receive("issue_comment", commentPayload({ body: "/release", author: bob, issue: 2 }));
    // `claimed-by: bob` is no one else's; `lease #1` is still alice's on issue 1, so it only comes off issue 2.
    gh.removeLabel(2, "claimed").deleteLabel("claimed-by: bob").removeLabel(2, "lease #1").comment(2);
    await h.drain();
    expect(gh.routes(before)).toEqual([
      "DELETE /issues/2/labels/claimed",
      "DELETE /labels/claimed-by: bob",
      "DELETE /issues/2/labels/lease #1",
      "POST /issues/2/comments",
    ]);
  });

  it("keeps the lease when GitHub refuses the assignee, and the reply says GitHub did not assign", async () => {
    const { h, gh } = t;
    gh.config(null);
    await h.receive("issue_comment", commentPayload({ body: "/claim", author: alice }));
    gh.createLabel().lookups("claimed-by: alice", "lease #1").addLabels(1).assign(1, "alice", false).comment(1);
    await h.drain();

    const reply = gh.lastComment();
    expect(reply).toContain("**alice** now holds this issue with lease token **1**");
    expect(reply).toContain("GitHub did not assign **alice**");
    expect(reply).toContain("The lease stands; the labels show it.");
    expect(parseMarker(reply)).toMatchObject({ outcome: "acquired", holder: "alice", token: 1 });
    expect(await h.ledger.current(key(1), h.now())).toMatchObject({ holder: { login: "alice" }, token: 1 });

    // The refusal is remembered: renewing does not ask GitHub again, and releasing has no one to unassign.
    let before = gh.mark();
    await h.receive("issue_comment", commentPayload({ body: "/renew", author: alice }));
    gh.comment(1);
    await h.drain();
    expect(gh.routes(before)).toEqual(["POST /issues/1/comments"]);

    before = gh.mark();
    await h.receive("issue_comment", commentPayload({ body: "/release", author: alice }));
    gh.removeLabel(1, "claimed").deleteLabel("claimed-by: alice").deleteLabel("lease #1").comment(1);
    await h.drain();
    expect(gh.routes(before)).toEqual([
      "DELETE /issues/1/labels/claimed",
      "DELETE /labels/claimed-by: alice",
      "DELETE /labels/lease #1",
      "POST /issues/1/comments",
    ]);
  });
});
