/**
 * Assignment as a claim (`assignment: claims`), through the whole app: an
 * `issues.assigned` from GitHub's own examples, strict HTTP mocks, a real
 * SQLite ledger. Unassigning, the app's own assignments and the default
 * (`ignore`): unassignment.test.ts.
 */
import { describe, expect, it } from "vitest";
import { parseMarker } from "../../src/github/reply-marker.js";
import { mentionsIn, useApp } from "../support/app-harness.js";
import { assignment, claimByComment, CLAIMS, copilot, key, triager } from "../support/assignments.js";
import { alice, bob, maintainer } from "../support/payloads.js";

describe("an assignment by someone with write permission", () => {
  const t = useApp();

  it("gives the assignee a lease for default_ttl, token 1, with a reply naming who gave it; GitHub is not asked to assign again", async () => {
    const { h, gh } = t;
    gh.config(CLAIMS).permission("maint", "write");
    await assignment(h, "assigned", maintainer, bob, { id: "assign-1" });
    gh.claim(1, "bob", { createClaimed: true, token: 1, assign: false });
    await h.drain();

    expect(gh.routes()).toEqual([
      "GET /contents/.github/issue-leases.yml",
      "GET /repos/Codertocat/.github/contents/.github/issue-leases.yml",
      "GET /collaborators/maint/permission",
      "POST /labels",
      "GET /labels/claimed-by: bob",
      "GET /labels/lease #1",
      "POST /issues/1/labels",
      "POST /issues/1/comments",
    ]);
    const reply = gh.lastComment();
    expect(reply).toContain("> `assigned bob`");
    expect(reply).toContain("@bob now holds this issue, given by **maint**, with lease token **1**; it expires 2026-12-08 12:00 UTC (in 1 week).");
    expect(mentionsIn(reply)).toEqual(["bob"]);
    expect(parseMarker(reply)).toMatchObject({ op: "claim", outcome: "acquired", holder: "bob", token: 1, expires_at: "2026-12-08T12:00:00Z" });
    expect(parseMarker(reply)).not.toHaveProperty("comment");
    expect(await h.ledger.current(key(1), h.now())).toMatchObject({ holder: { id: bob.id, login: "bob" }, token: 1 });
    expect((await h.ledger.history(key(1))).map((e) => [e.op, e.outcome, e.actor?.login])).toEqual([["acquire", "acquired", "maint"]]);

    // Redelivered: the lease is bob's already; nothing is asked or posted.
    const before = gh.mark();
    await assignment(h, "assigned", maintainer, bob, { id: "assign-1" });
    await h.drain();
    expect(gh.calls.slice(before)).toEqual([]);
    expect(await h.ledger.history(key(1))).toHaveLength(1);
  });

  it("is the maintainer's own claim when they assign themselves", async () => {
    const { h, gh } = t;
    gh.config(CLAIMS).permission("maint", "admin");
    await assignment(h, "assigned", maintainer, maintainer);
    gh.claim(1, "maint", { createClaimed: true, token: 1, assign: false });
    await h.drain();
    const reply = gh.lastComment();
    expect(reply).toContain("**maint** now holds this issue with lease token **1**");
    expect(reply).not.toContain("given by");
    expect(await h.ledger.current(key(1), h.now())).toMatchObject({ holder: { login: "maint" }, token: 1 });
  });

  it("gives a lease whatever `claimers` says, as `/claim @user` by a maintainer does", async () => {
    const { h, gh } = t;
    gh.config(`${CLAIMS}claimers: members\n`).permission("maint", "maintain");
    await assignment(h, "assigned", maintainer, bob);
    gh.claim(1, "bob", { createClaimed: true, token: 1, assign: false });
    await h.drain();
    expect(parseMarker(gh.lastComment())).toMatchObject({ op: "claim", outcome: "acquired", holder: "bob" });
  });

  it("is refused over the assignee's limit, naming what they hold; nothing changes", async () => {
    const { h, gh } = t;
    await claimByComment(h, gh, bob, `${CLAIMS}max_leases_per_holder: 1\n`, { issue: 2 });

    const before = gh.mark();
    gh.permission("maint", "write");
    await assignment(h, "assigned", maintainer, bob);
    gh.comment(1);
    await h.drain();
    expect(gh.routes(before)).toEqual(["GET /collaborators/maint/permission", "POST /issues/1/comments"]);
    const reply = gh.lastComment();
    expect(reply).toContain("(#2); the limit is 1.");
    expect(parseMarker(reply)).toMatchObject({ op: "claim", outcome: "forbidden", holder: null });
    expect(await h.ledger.current(key(1), h.now())).toBeNull();
  });

  it("does nothing, and asks nothing, on a closed issue", async () => {
    const { h, gh } = t;
    await assignment(h, "assigned", maintainer, bob, { state: "closed" });
    await h.drain();
    expect(gh.calls).toEqual([]);
    expect(await h.ledger.history(key(1))).toEqual([]);
  });
});

describe("an assignment by someone without write permission", () => {
  const t = useApp();

  it("is refused with one reply saying why; the assignment stays and no lease is taken", async () => {
    const { h, gh } = t;
    gh.config(CLAIMS).permission("triager", "triage");
    await assignment(h, "assigned", triager, bob, { id: "assign-2" });
    gh.comment(1);
    await h.drain();

    expect(gh.routes()).toEqual([
      "GET /contents/.github/issue-leases.yml",
      "GET /repos/Codertocat/.github/contents/.github/issue-leases.yml",
      "GET /collaborators/triager/permission",
      "POST /issues/1/comments",
    ]);
    const reply = gh.lastComment();
    expect(reply).toContain("> `assigned bob`");
    expect(reply).toContain("Only an assignment by someone with write, maintain or admin permission on this repository gives a lease");
    expect(mentionsIn(reply)).toEqual([]);
    expect(parseMarker(reply)).toMatchObject({ op: "claim", outcome: "forbidden", holder: null, token: null });
    expect(await h.ledger.current(key(1), h.now())).toBeNull();

    // Redelivered: asked again (before the ledger), answered once.
    const before = gh.mark();
    gh.permission("triager", "triage");
    await assignment(h, "assigned", triager, bob, { id: "assign-2" });
    await h.drain();
    expect(gh.routes(before)).toEqual(["GET /collaborators/triager/permission"]);
  });
});

describe("assigning someone else while a lease is held", () => {
  const t = useApp();

  it("is answered once, naming the holder without a mention; nothing changes", async () => {
    const { h, gh } = t;
    await claimByComment(h, gh, alice, CLAIMS);

    const before = gh.mark();
    gh.permission("maint", "write");
    await assignment(h, "assigned", maintainer, bob, { id: "assign-3" });
    gh.comment(1);
    await h.drain();
    expect(gh.routes(before)).toEqual(["GET /collaborators/maint/permission", "POST /issues/1/comments"]);
    const reply = gh.lastComment();
    expect(reply).toContain("This issue is held by **alice** (token **1**)");
    expect(reply).toContain("**bob** stays assigned on GitHub, without a lease.");
    expect(mentionsIn(reply)).toEqual([]);
    expect(parseMarker(reply)).toMatchObject({ op: "claim", outcome: "held", holder: "alice", token: 1 });
    expect(await h.ledger.current(key(1), h.now())).toMatchObject({ holder: { login: "alice" }, token: 1 });

    const again = gh.mark();
    gh.permission("maint", "write");
    await assignment(h, "assigned", maintainer, bob, { id: "assign-3" });
    await h.drain();
    expect(gh.comments(again)).toEqual([]);
    expect((await h.ledger.history(key(1))).map((e) => e.outcome)).toEqual(["acquired", "held"]);
  });
});

describe("a bot assignee (GitHub's coding agent)", () => {
  const t = useApp();

  it("gets the lease when bots may claim (the default)", async () => {
    const { h, gh } = t;
    gh.config(CLAIMS).permission("maint", "write");
    await assignment(h, "assigned", maintainer, copilot);
    gh.claim(1, "Copilot", { createClaimed: true, token: 1, assign: false });
    await h.drain();
    // The payload names the account: no `GET /users/Copilot`, as `/claim @Copilot` would need.
    expect(gh.reads().map((c) => c.path)).not.toContain("/users/Copilot");
    expect(parseMarker(gh.lastComment())).toMatchObject({ op: "claim", outcome: "acquired", holder: "Copilot", token: 1 });
    expect(await h.ledger.current(key(1), h.now())).toMatchObject({ holder: { id: copilot.id, login: "Copilot" }, token: 1 });
  });

  it("is refused with `bots: false`, as `/claim @bot` is", async () => {
    const { h, gh } = t;
    gh.config(`${CLAIMS}bots: false\n`).permission("maint", "write");
    await assignment(h, "assigned", maintainer, copilot);
    gh.comment(1);
    await h.drain();
    const reply = gh.lastComment();
    expect(reply).toContain("Bots may not hold leases in this repository (`bots: false` in `.github/issue-leases.yml`).");
    expect(parseMarker(reply)).toMatchObject({ op: "claim", outcome: "forbidden", holder: null });
    expect(await h.ledger.current(key(1), h.now())).toBeNull();
  });
});
