/**
 * Issue 11's claim policies end to end: real `issue_comment` payloads through
 * `probot.receive`, a real SQLite ledger, an injected clock, and GitHub
 * mocked strictly, so each test states every call a policy costs.
 */
import { describe, expect, it } from "vitest";
import { parseMarker } from "../../src/github/reply-marker.js";
import { GitHubMock, mentionsIn, T0, useApp } from "../support/app-harness.js";
import { alice, bob, commentPayload, maintainer, REPO, type UserSpec } from "../support/payloads.js";

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const key = (issue: number, repo: { id: number; name: string } = { id: REPO.id, name: REPO.name }) => ({
  repoId: repo.id,
  repo: `${REPO.owner}/${repo.name}`,
  issue,
});
const GFI = "good first issue";
const LABEL_LIMIT = `limits_by_label:\n  "${GFI}": 1\n`;
/** Repository-relative routes of the calls after `from` that are writes. */
const writes = (gh: GitHubMock, from: number) => gh.routes(from).filter((r) => !r.startsWith("GET "));

describe("limits_by_label", () => {
  const t = useApp();

  it("refuses a second `good first issue` to one person, naming the one held, and allows issues without the label, at no extra call", async () => {
    const { h, gh } = t;
    gh.config(LABEL_LIMIT);
    await h.receive("issue_comment", commentPayload({ body: "/claim", author: alice, issue: 1, labels: [GFI, "docs"] }));
    gh.claim(1, "alice", { createClaimed: true, token: 1 });
    await h.drain();
    expect(parseMarker(gh.lastComment())).toMatchObject({ outcome: "acquired", issue: 1 });

    // The label as GitHub sends it, in another case: the same label.
    let before = gh.mark();
    await h.receive("issue_comment", commentPayload({ body: "/claim", author: alice, issue: 2, labels: ["Good First Issue"] }));
    gh.comment(2);
    await h.drain();
    expect(gh.routes(before)).toEqual(["POST /issues/2/comments"]);
    const reply = gh.lastComment();
    expect(reply).toContain(
      "You already hold 1 lease on issues labelled `good first issue` in this repository (#1); the limit is 1 (`limits_by_label`).",
    );
    expect(parseMarker(reply)).toMatchObject({ op: "claim", outcome: "forbidden", issue: 2, holder: null });
    expect(await h.ledger.current(key(2), h.now())).toBeNull();

    // Without the label (the app's own labels do not count as the issue's), and for someone else: allowed.
    before = gh.mark();
    await h.receive("issue_comment", commentPayload({ body: "/claim", author: alice, issue: 3, labels: ["docs", "claimed"] }));
    gh.claim(3, "alice");
    await h.drain();
    expect(parseMarker(gh.lastComment())).toMatchObject({ outcome: "acquired", issue: 3, holder: "alice" });
    expect(writes(gh, before)).toEqual(["POST /issues/3/labels", "POST /issues/3/assignees", "POST /issues/3/comments"]);
    await h.receive("issue_comment", commentPayload({ body: "/claim", author: bob, issue: 2, labels: [GFI] }));
    gh.claim(2, "bob", { token: 1 });
    await h.drain();
    expect(parseMarker(gh.lastComment())).toMatchObject({ outcome: "acquired", issue: 2, holder: "bob" });
  });

  it("lets one of two claims racing at the limit win", async () => {
    const { h, gh } = t;
    gh.config(LABEL_LIMIT);
    await Promise.all([
      h.receive("issue_comment", commentPayload({ body: "/claim", author: alice, issue: 1, labels: [GFI] })),
      h.receive("issue_comment", commentPayload({ body: "/claim", author: alice, issue: 2, labels: [GFI] })),
    ]);
    const held = await h.ledger.list(REPO.id, h.now());
    expect(held).toHaveLength(1);
    const won = held[0]!.issue;
    const lost = won === 1 ? 2 : 1;
    gh.claim(won, "alice", { createClaimed: true, token: 1 });
    gh.comment(lost);
    await h.drain();
    const refusal = gh.comments().find((c) => parseMarker(c)?.outcome === "forbidden")!;
    expect(parseMarker(refusal)).toMatchObject({ issue: lost });
    expect(refusal).toContain(`in this repository (#${won}); the limit is 1`);
  });
});

describe("max_leases_per_holder_in_org", () => {
  const t = useApp();
  const OTHER = { id: 986_001, name: "Other-Repo" };

  it("counts a person's leases across two repositories of the installation, set in the organisation's file even where a repository has its own", async () => {
    const { h, gh } = t;
    const other = new GitHubMock(REPO.owner, OTHER.name);
    const org = "max_leases_per_holder_in_org: 1\n";

    // Hello-World has a file of its own: the organisation's is read too.
    gh.config("max_replies_per_hour: 50\n", org);
    await h.receive("issue_comment", commentPayload({ body: "/claim", author: alice, issue: 1 }));
    gh.claim(1, "alice", { createClaimed: true, token: 1 });
    await h.drain();
    expect(parseMarker(gh.lastComment())).toMatchObject({ outcome: "acquired", holder: "alice" });

    // Other-Repo has none: the organisation's file is its config (read once).
    other.config(null, org);
    await h.receive("issue_comment", commentPayload({ body: "/claim", author: alice, issue: 7, repo: OTHER }));
    other.comment(7);
    await h.drain();
    expect(other.routes()).toEqual([
      "GET /contents/.github/issue-leases.yml",
      "GET /repos/Codertocat/.github/contents/.github/issue-leases.yml",
      "POST /issues/7/comments",
    ]);
    const reply = other.lastComment();
    expect(reply).toContain(
      "You already hold 1 lease across this organisation's repositories (1 in another repository); the limit is 1 (`max_leases_per_holder_in_org`).",
    );
    expect(parseMarker(reply)).toMatchObject({ outcome: "forbidden", issue: 7, holder: null });
    expect(await h.ledger.current(key(7, OTHER), h.now())).toBeNull();

    // Someone else may; and once alice releases in Hello-World, so may she.
    await h.receive("issue_comment", commentPayload({ body: "/claim", author: bob, issue: 7, repo: OTHER }));
    other.claim(7, "bob", { createClaimed: true, token: 1 });
    await h.drain();
    await h.receive("issue_comment", commentPayload({ body: "/release", author: alice, issue: 1 }));
    gh.release(1, "alice", 1);
    await h.drain();
    await h.receive("issue_comment", commentPayload({ body: "/claim", author: alice, issue: 8, repo: OTHER }));
    other.claim(8, "alice", { token: 1 });
    await h.drain();
    expect(parseMarker(other.lastComment())).toMatchObject({ outcome: "acquired", issue: 8, holder: "alice" });
  });

  it("applies a repository's own limit across the organisation too, the strictest winning", async () => {
    const { h, gh } = t;
    const other = new GitHubMock(REPO.owner, OTHER.name);
    // No organisation file; Other-Repo is free of limits, Hello-World counts everywhere.
    other.config(null);
    await h.receive("issue_comment", commentPayload({ body: "/claim", author: alice, issue: 1, repo: OTHER }));
    other.claim(1, "alice", { createClaimed: true, token: 1 });
    await h.drain();

    gh.config("max_leases_per_holder_in_org: 1\n");
    await h.receive("issue_comment", commentPayload({ body: "/claim", author: alice, issue: 2 }));
    gh.comment(2);
    await h.drain();
    // Only counted: a reply here must not name another (perhaps private) repository.
    expect(gh.lastComment()).toContain("(1 in another repository); the limit is 1 (`max_leases_per_holder_in_org`)");
    expect(gh.lastComment()).not.toContain("Other-Repo");
  });
});

describe("author_first", () => {
  const t = useApp();
  const opened = T0 - HOUR;
  const claimBy = (author: UserSpec, issue = 1) =>
    commentPayload({ body: "/claim", author, issue, issueAuthor: alice, issueCreatedAt: opened });

  it("refuses someone else within the window after asking GitHub, and lets the author claim without asking", async () => {
    const { h, gh } = t;
    gh.config("author_first: 2d\n");
    gh.permission("bob", "read");
    await h.receive("issue_comment", claimBy(bob));
    gh.comment(1);
    await h.drain();
    expect(gh.routes(2)).toEqual(["GET /collaborators/bob/permission", "POST /issues/1/comments"]);
    const reply = gh.lastComment();
    expect(reply).toContain(
      "For 2 days after it was opened, until 2026-12-03 11:00 UTC, only this issue's author and people with write, maintain or admin permission can claim it (`author_first`).",
    );
    expect(parseMarker(reply)).toMatchObject({ outcome: "forbidden", holder: null });
    expect(await h.ledger.current(key(1), h.now())).toBeNull();

    const before = gh.mark();
    await h.receive("issue_comment", claimBy(alice));
    gh.claim(1, "alice", { createClaimed: true, token: 1 });
    await h.drain();
    expect(gh.reads(before).map((c) => c.path)).not.toContain("/repos/Codertocat/Hello-World/collaborators/alice/permission");
    expect(parseMarker(gh.lastComment())).toMatchObject({ outcome: "acquired", holder: "alice" });
  });

  it("lets a maintainer claim within the window, and anyone after it without asking GitHub", async () => {
    const { h, gh } = t;
    gh.config("author_first: 2d\n");
    gh.permission("maint", "maintain");
    await h.receive("issue_comment", claimBy(maintainer, 1));
    gh.claim(1, "maint", { createClaimed: true, token: 1 });
    await h.drain();
    expect(parseMarker(gh.lastComment())).toMatchObject({ outcome: "acquired", holder: "maint" });

    h.advance(2 * DAY);
    const before = gh.mark();
    await h.receive("issue_comment", claimBy(bob, 2));
    gh.claim(2, "bob", { token: 1 });
    await h.drain();
    expect(gh.reads(before).map((c) => c.path)).toEqual(["/repos/Codertocat/Hello-World/labels/claimed-by: bob"]);
    expect(parseMarker(gh.lastComment())).toMatchObject({ outcome: "acquired", holder: "bob" });
  });
});

describe("/claim @user", () => {
  const t = useApp();
  const contoso = { login: "alice_contoso", id: 5005 };

  it("by a maintainer gives the lease to that user, by the id GitHub gives, with a reply naming who gave it: two reads, three writes", async () => {
    const { h, gh } = t;
    gh.config(null);
    await h.receive("issue_comment", commentPayload({ body: "/claim", author: bob, issue: 9 }));
    gh.claim(9, "bob", { createClaimed: true, token: 1 });
    await h.drain();

    const before = gh.mark();
    gh.permission("maint", "write");
    gh.account("alice_contoso", { id: contoso.id });
    await h.receive("issue_comment", commentPayload({ body: "/claim @alice_contoso 3d", author: maintainer, issue: 1 }));
    gh.claim(1, "alice_contoso", { token: 1 });
    await h.drain();

    expect(gh.routes(before)).toEqual([
      "GET /collaborators/maint/permission",
      "GET /users/alice_contoso",
      "GET /labels/claimed-by: alice_contoso",
      "POST /issues/1/labels",
      "POST /issues/1/assignees",
      "POST /issues/1/comments",
    ]);
    expect(gh.calls[before + 3]!.body).toEqual({ labels: ["claimed", "claimed-by: alice_contoso", "lease #1"] });
    expect(gh.calls[before + 4]!.body).toEqual({ assignees: ["alice_contoso"] });
    const reply = gh.lastComment();
    expect(reply).toContain("@alice_contoso now holds this issue, given by **maint**, with lease token **1**; it expires 2026-12-04 12:00 UTC (in 3 days).");
    expect(mentionsIn(reply)).toEqual(["alice_contoso"]);
    expect(parseMarker(reply)).toMatchObject({ op: "claim", outcome: "acquired", holder: "alice_contoso", token: 1 });
    expect(await h.ledger.current(key(1), h.now())).toMatchObject({ holder: contoso, token: 1, expiresAt: T0 + 3 * DAY });
    expect((await h.ledger.history(key(1))).map((e) => [e.op, e.outcome, e.actor?.login, e.holder?.login])).toEqual([
      ["acquire", "acquired", "maint", "alice_contoso"],
    ]);

    // The holder can then release it herself: her labels are recognised as the app's.
    await h.receive("issue_comment", commentPayload({ body: "/release (no time, sorry)", author: { ...contoso, association: "NONE" }, issue: 1 }));
    gh.removeLabel(1, "claimed").deleteLabel("claimed-by: alice_contoso").removeLabel(1, "lease #1").unassign(1).comment(1);
    await h.drain();
    expect(parseMarker(gh.lastComment())).toMatchObject({ op: "release", outcome: "released", holder: "alice_contoso" });
  });

  it("by a reader is refused after asking GitHub, and nothing changes", async () => {
    const { h, gh } = t;
    gh.config(null);
    gh.permission("bob", "read");
    await h.receive("issue_comment", commentPayload({ body: "/claim @alice", author: bob, issue: 1 }));
    gh.comment(1);
    await h.drain();
    expect(gh.routes(2)).toEqual(["GET /collaborators/bob/permission", "POST /issues/1/comments"]);
    const reply = gh.lastComment();
    expect(reply).toContain("Only people with write, maintain or admin permission on this repository can give a lease to someone else.");
    expect(mentionsIn(reply)).toEqual([]);
    expect(parseMarker(reply)).toMatchObject({ outcome: "forbidden", holder: null });
    expect(await h.ledger.current(key(1), h.now())).toBeNull();
    expect((await h.ledger.history(key(1))).map((e) => [e.op, e.outcome])).toEqual([["note", "forbidden"]]);
  });

  it("for an account GitHub does not know is `invalid`; for oneself is a plain claim, with no read", async () => {
    const { h, gh } = t;
    gh.config(null);
    gh.permission("maint", "admin");
    gh.account("no-such-person", null);
    await h.receive("issue_comment", commentPayload({ body: "/claim @no-such-person", author: maintainer, issue: 1 }));
    gh.comment(1);
    await h.drain();
    expect(gh.lastComment()).toContain("GitHub has no account with that login, so the lease was given to nobody.");
    expect(parseMarker(gh.lastComment())).toMatchObject({ outcome: "invalid" });

    const before = gh.mark();
    await h.receive("issue_comment", commentPayload({ body: "/claim @Alice", author: alice, issue: 1 }));
    gh.claim(1, "alice", { createClaimed: true, token: 1 });
    await h.drain();
    expect(gh.reads(before).every((c) => c.path.includes("/labels/"))).toBe(true);
    expect(parseMarker(gh.lastComment())).toMatchObject({ outcome: "acquired", holder: "alice" });
    expect(gh.lastComment()).not.toContain("given by");
  });

  it("to a bot is refused with `bots: false`", async () => {
    const { h, gh } = t;
    gh.config("bots: false\n");
    gh.permission("maint", "write");
    gh.account("helper-bot[bot]", { id: 1004, type: "Bot" });
    await h.receive("issue_comment", commentPayload({ body: "/claim @helper-bot[bot]", author: maintainer, issue: 1 }));
    gh.comment(1);
    await h.drain();
    expect(gh.lastComment()).toContain("Bots may not hold leases in this repository (`bots: false`");
    expect(await h.ledger.current(key(1), h.now())).toBeNull();
  });
});
