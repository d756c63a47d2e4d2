/**
 * Assignment as a claim (`assignment: claims`), through the whole app:
 * unassigning the holder, the app's own assignments (never commands), and
 * the default, `assignment: ignore`. Real `issues.unassigned` /
 * `issues.assigned` payloads, strict HTTP mocks, a real SQLite ledger.
 */
import { describe, expect, it } from "vitest";
import { parseMarker } from "../../src/github/reply-marker.js";
import { mentionsIn, releaseRoutes, useApp } from "../support/app-harness.js";
import { appBot, assignment, claimByComment, CLAIMS, key, triager } from "../support/assignments.js";
import { alice, bob, commentPayload, maintainer } from "../support/payloads.js";

describe("unassigning the holder", () => {
  const t = useApp();

  it("by the holder releases the lease, asking GitHub nothing and not unassigning again", async () => {
    const { h, gh } = t;
    await claimByComment(h, gh, alice, CLAIMS);

    const before = gh.mark();
    await assignment(h, "unassigned", alice, alice, { id: "unassign-1" });
    gh.release(1, "alice", 1, { assign: false });
    await h.drain();
    expect(gh.routes(before)).toEqual([
      "DELETE /issues/1/labels/claimed",
      "DELETE /labels/claimed-by: alice",
      "DELETE /labels/lease #1",
      "POST /issues/1/comments",
    ]);
    const reply = gh.lastComment();
    expect(reply).toContain("> `unassigned alice`");
    expect(reply).toContain("**alice** released the lease (token **1**). The issue is free.");
    expect(reply).toContain("Unassigning the holder ended the lease");
    expect(mentionsIn(reply)).toEqual([]);
    expect(parseMarker(reply)).toMatchObject({ op: "release", outcome: "released", holder: "alice", token: 1 });
    expect(await h.ledger.current(key(1), h.now())).toBeNull();

    // Redelivered: nothing more.
    const again = gh.mark();
    await assignment(h, "unassigned", alice, alice, { id: "unassign-1" });
    await h.drain();
    expect(gh.calls.slice(again)).toEqual([]);
  });

  it("by a maintainer releases it, mentioning the holder", async () => {
    const { h, gh } = t;
    await claimByComment(h, gh, alice, CLAIMS);

    const before = gh.mark();
    gh.permission("maint", "write");
    await assignment(h, "unassigned", maintainer, alice);
    gh.release(1, "alice", 1, { assign: false });
    await h.drain();
    expect(gh.routes(before)[0]).toBe("GET /collaborators/maint/permission");
    const reply = gh.lastComment();
    expect(reply).toContain("**maint** released @alice's lease (token **1**). The issue is free.");
    expect(parseMarker(reply)).toMatchObject({ op: "release", outcome: "released", holder: "alice", token: 1 });
    expect((await h.ledger.history(key(1))).pop()).toMatchObject({ op: "force_release", outcome: "released", actor: { login: "maint" } });
  });

  it("by someone without write permission is refused; the lease stands", async () => {
    const { h, gh } = t;
    await claimByComment(h, gh, alice, CLAIMS);

    const before = gh.mark();
    gh.permission("triager", "triage");
    await assignment(h, "unassigned", triager, alice);
    gh.comment(1);
    await h.drain();
    expect(gh.routes(before)).toEqual(["GET /collaborators/triager/permission", "POST /issues/1/comments"]);
    const reply = gh.lastComment();
    expect(reply).toContain("Only the holder, or someone with write, maintain or admin permission");
    expect(parseMarker(reply)).toMatchObject({ op: "release", outcome: "forbidden", holder: "alice", token: 1 });
    expect(await h.ledger.current(key(1), h.now())).toMatchObject({ holder: { login: "alice" }, token: 1 });
  });

  it("does nothing, and asks nothing, when the one unassigned holds no lease", async () => {
    const { h, gh } = t;
    await claimByComment(h, gh, alice, CLAIMS);

    const before = gh.mark();
    await assignment(h, "unassigned", maintainer, bob);
    await assignment(h, "unassigned", maintainer, bob, { issue: 2 });
    await h.drain();
    expect(gh.calls.slice(before)).toEqual([]);
    expect((await h.ledger.history(key(1))).map((e) => e.op)).toEqual(["acquire"]);
    expect(await h.ledger.history(key(2))).toEqual([]);
  });
});

describe("a lease given by assignment", () => {
  const t = useApp();

  it("ends like any other: at its expiry the app unassigns the assignee, as its own assignment", async () => {
    const { h, gh } = t;
    gh.config(`${CLAIMS}reminder_before: none\n`).permission("maint", "write");
    await assignment(h, "assigned", maintainer, bob);
    gh.claim(1, "bob", { createClaimed: true, token: 1, assign: false });
    await h.drain();

    const before = gh.mark();
    h.advance(7 * 24 * 3_600_000 + 60_000);
    expect(await h.runtime.sweeper.sweep()).toMatchObject({ expired: 1 });
    gh.release(1, "bob", 1);
    await h.drain();
    expect(gh.routes(before)).toEqual(releaseRoutes(1, "bob", 1));
    expect(gh.calls.find((c) => c.method === "DELETE" && c.path.endsWith("/issues/1/assignees"))?.body).toEqual({ assignees: ["bob"] });
    expect(parseMarker(gh.lastComment())).toMatchObject({ op: "expire", outcome: "expired", holder: "bob", token: 1 });
  });
});

describe("the app's own assignments", () => {
  const t = useApp();

  it("are never commands: the assignment made while applying a `/claim` gives no second lease or reply", async () => {
    const { h, gh } = t;
    await claimByComment(h, gh, alice, CLAIMS);
    // The app assigned alice (POST /issues/1/assignees): GitHub tells of it, sent by the app's bot.
    expect(gh.routes()).toContain("POST /issues/1/assignees");

    const before = gh.mark();
    await assignment(h, "assigned", appBot, alice);
    await h.drain();
    expect(gh.calls.slice(before)).toEqual([]);
    expect((await h.ledger.history(key(1))).map((e) => [e.op, e.token])).toEqual([["acquire", 1]]);
  });

  it("are not read even when they come late, after the lease ended", async () => {
    const { h, gh } = t;
    await claimByComment(h, gh, alice, CLAIMS);
    await h.receive("issue_comment", commentPayload({ body: "/release", author: alice }));
    gh.release(1, "alice", 1);
    await h.drain();

    // The app's assignment of alice, and its unassignment, delivered now: alice holds nothing, and nothing starts.
    const before = gh.mark();
    await assignment(h, "assigned", appBot, alice);
    await assignment(h, "unassigned", appBot, alice);
    await h.drain();
    expect(gh.calls.slice(before)).toEqual([]);
    expect(await h.ledger.current(key(1), h.now())).toBeNull();
    expect((await h.ledger.history(key(1))).map((e) => e.op)).toEqual(["acquire", "release"]);
  });
});

describe("`assignment: ignore` (the default)", () => {
  const t = useApp();

  it("reads the config once, and then does nothing and makes no request", async () => {
    const { h, gh } = t;
    gh.config(null);
    await assignment(h, "assigned", maintainer, bob);
    await h.drain();
    expect(gh.routes()).toEqual(["GET /contents/.github/issue-leases.yml", "GET /repos/Codertocat/.github/contents/.github/issue-leases.yml"]);

    await claimByComment(h, gh, alice, null, { issue: 2, cached: true });
    const before = gh.mark();
    await assignment(h, "assigned", maintainer, bob);
    await assignment(h, "assigned", maintainer, bob, { issue: 2 });
    await assignment(h, "unassigned", maintainer, alice, { issue: 2 });
    await assignment(h, "unassigned", alice, alice, { issue: 2 });
    await h.drain();
    expect(gh.calls.slice(before)).toEqual([]);
    expect(await h.ledger.history(key(1))).toEqual([]);
    expect((await h.ledger.history(key(2))).map((e) => e.op)).toEqual(["acquire"]);
  });
});
