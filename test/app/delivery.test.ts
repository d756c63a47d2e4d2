/**
 * Deliveries as GitHub makes them: redelivered with the same id, and
 * concurrent. The ledger, not the payload, decides who holds an issue.
 */
import { describe, expect, it } from "vitest";
import { parseMarker } from "../../src/github/reply-marker.js";
import { APP_ID, claimFor, useApp } from "../support/app-harness.js";
import { alice, bob, commentPayload, issuesPayload, maintainer, REPO } from "../support/payloads.js";

const key = (issue: number) => ({ repoId: REPO.id, repo: `${REPO.owner}/${REPO.name}`, issue });

describe("redelivery", () => {
  const t = useApp();

  it("applies a delivery received twice once: the second receive makes no HTTP call and adds no history row", async () => {
    const { h, gh } = t;
    const payload = commentPayload({ body: "/claim", author: alice });
    gh.config(null);
    await h.receive("issue_comment", payload, "delivery-1");
    gh.claim(1, "alice", { createClaimed: true, token: 1 });
    await h.drain();

    const before = gh.mark();
    await h.receive("issue_comment", payload, "delivery-1");
    await h.drain();
    expect(gh.calls.slice(before)).toEqual([]);
    expect(gh.comments()).toHaveLength(1);
    const history = await h.ledger.history(key(1));
    expect(history.map((e) => [e.op, e.outcome, e.delivery])).toEqual([["acquire", "acquired", "delivery-1"]]);
  });

  it("applies a redelivered `/release` once, even after someone else claimed in between", async () => {
    const { h, gh } = t;
    await claimFor(h, gh, alice, { first: true });
    const release = commentPayload({ body: "/release", author: alice });
    await h.receive("issue_comment", release, "release-1");
    gh.release(1, "alice", 1);
    await h.drain();
    await claimFor(h, gh, bob);

    const before = gh.mark();
    await h.receive("issue_comment", release, "release-1");
    await h.drain();
    expect(gh.calls.slice(before)).toEqual([]);
    expect(await h.ledger.current(key(1), h.now())).toMatchObject({ holder: { login: "bob" }, token: 2 });
  });

  it("applies a redelivered `issues.closed` once", async () => {
    const { h, gh } = t;
    await claimFor(h, gh, alice, { first: true });
    const closed = issuesPayload("closed", { at: h.now(), sender: maintainer });
    // Closed in the second the lease began: GitHub is asked whether it still is (the redelivery is answered from the ledger).
    gh.issue(1, "closed");
    await h.receive("issues", closed, "closed-1");
    gh.release(1, "alice", 1);
    await h.drain();

    const before = gh.mark();
    await h.receive("issues", closed, "closed-1");
    await h.drain();
    expect(gh.calls.slice(before)).toEqual([]);
    expect((await h.ledger.history(key(1))).map((e) => e.op)).toEqual(["acquire", "force_release"]);
  });
});

describe("concurrency", () => {
  const t = useApp();

  it("gives one of two concurrent claims on an issue the lease, and tells the other it is held", async () => {
    const { h, gh } = t;
    // One config read for both: concurrent loads of a repository's config share one request.
    gh.config(null);
    await Promise.all([
      h.receive("issue_comment", commentPayload({ body: "/claim", author: alice }), "claim-alice"),
      h.receive("issue_comment", commentPayload({ body: "/claim", author: bob }), "claim-bob"),
    ]);
    const lease = await h.ledger.current(key(1), h.now());
    expect(lease).not.toBeNull();
    const winner = lease!.holder.login;
    const loser = winner === "alice" ? "bob" : "alice";

    gh.claim(1, winner, { createClaimed: true, token: 1 });
    gh.comment(1);
    await h.drain();

    const history = await h.ledger.history(key(1));
    expect(history.map((e) => [e.actor?.login, e.outcome])).toEqual([
      [winner, "acquired"],
      [loser, "held"],
    ]);
    const [acquired, held] = gh.comments();
    expect(parseMarker(acquired!)).toMatchObject({ outcome: "acquired", holder: winner, token: 1 });
    expect(acquired).toContain(`**${winner}** now holds this issue with lease token **1**`);
    expect(parseMarker(held!)).toMatchObject({ outcome: "held", holder: winner, token: 1 });
    expect(held).toContain(`This issue is held by **${winner}** (token **1**)`);
    // Labels and assignee show the winner only.
    expect(gh.calls.find((c) => c.path.endsWith("/issues/1/labels"))!.body).toEqual({ labels: ["claimed", `claimed-by: ${winner}`, "lease #1"] });
    expect(gh.calls.filter((c) => c.path.endsWith("/assignees")).map((c) => c.body)).toEqual([{ assignees: [winner] }]);
  });

  it("keeps `max_leases_per_holder` under concurrent claims by one person on two issues", async () => {
    const { h, gh } = t;
    gh.config("max_leases_per_holder: 1\n");
    await Promise.all([
      h.receive("issue_comment", commentPayload({ body: "/claim", author: alice, issue: 1 })),
      h.receive("issue_comment", commentPayload({ body: "/claim", author: alice, issue: 2 })),
    ]);
    const held = await h.ledger.list(REPO.id, h.now());
    expect(held).toHaveLength(1);
    const won = held[0]!.issue;
    const lost = won === 1 ? 2 : 1;
    gh.claim(won, "alice", { createClaimed: true, token: 1 });
    gh.comment(lost);
    await h.drain();
    const refusal = gh.comments().find((c) => parseMarker(c)?.outcome === "forbidden")!;
    expect(refusal).toContain(`(#${won}); the limit is 1`);
  });
});

describe("a reply GitHub failed to take", () => {
  const t = useApp();

  it("is retried after a 502 without redoing the labels, and looked for first (one read) so it is posted once", async () => {
    const { h, gh } = t;
    gh.config(null);
    await h.receive("issue_comment", commentPayload({ body: "/claim", author: alice }));
    gh.createLabel().lookups("claimed-by: alice", "lease #1").addLabels(1).assign(1, "alice").expect("POST", "/issues/1/comments", 502, { message: "Bad Gateway" });
    await h.drain();
    expect(await h.ledger.outboxStats()).toMatchObject({ pending: 1 });

    const before = gh.mark();
    h.advance(5_000);
    gh.expect("GET", "/issues/1/comments", 200, []).comment(1);
    await h.drain();
    expect(gh.routes(before)).toEqual(["GET /issues/1/comments", "POST /issues/1/comments"]);
    expect(gh.comments()).toHaveLength(2); // the failed attempt, and the one that was taken
    expect(parseMarker(gh.lastComment())).toMatchObject({ outcome: "acquired", holder: "alice", token: 1 });
    expect(await h.ledger.outboxStats()).toMatchObject({ pending: 0, parked: 0 });
  });

  it("is not posted again when the first attempt reached GitHub although its answer was lost", async () => {
    const { h, gh } = t;
    gh.config(null);
    await h.receive("issue_comment", commentPayload({ body: "/claim", author: alice }));
    gh.createLabel().lookups("claimed-by: alice", "lease #1").addLabels(1).assign(1, "alice").expect("POST", "/issues/1/comments", 504, { message: "Gateway Timeout" });
    await h.drain();
    const posted = gh.lastComment();
    // A random ref, written with the effect: nobody can guess it from earlier replies.
    expect(parseMarker(posted)?.ref).toMatch(/^[0-9a-f]{24}$/);

    const before = gh.mark();
    h.advance(5_000);
    gh.expect("GET", "/issues/1/comments", 200, [{ id: 1, body: posted, performed_via_github_app: { id: APP_ID } }]);
    await h.drain();
    expect(gh.routes(before)).toEqual(["GET /issues/1/comments"]);
    expect(await h.ledger.outboxStats()).toMatchObject({ pending: 0, parked: 0 });
  });

  it("is looked for again after it was parked and un-parked on restart, so a reply GitHub created once is not posted twice", async () => {
    const { h, gh } = t;
    gh.config(null);
    await h.receive("issue_comment", commentPayload({ body: "/claim", author: alice }));
    // GitHub creates the comment, but the answer is a 502; the look-up that follows is refused for good (parked).
    gh.createLabel().lookups("claimed-by: alice", "lease #1").addLabels(1).assign(1, "alice").expect("POST", "/issues/1/comments", 502, { message: "Bad Gateway" });
    await h.drain();
    const posted = gh.lastComment();
    h.advance(5_000);
    gh.expect("GET", "/issues/1/comments", 403, { message: "Resource not accessible by integration" });
    await h.drain();
    expect(await h.ledger.outboxStats()).toMatchObject({ pending: 0, parked: 1 });

    // The app restarts: parked effects are pending again, their attempts kept, so the reply is looked for first.
    expect(await h.ledger.unparkEffects(h.now())).toBe(1);
    const before = gh.mark();
    gh.expect("GET", "/issues/1/comments", 200, [{ id: 1, body: posted, performed_via_github_app: { id: APP_ID } }]);
    await h.drain();
    expect(gh.routes(before)).toEqual(["GET /issues/1/comments"]);
    expect(await h.ledger.outboxStats()).toMatchObject({ pending: 0, parked: 0 });
  });

  it("says when it was decided when it is posted after newer replies on the issue (un-parked late)", async () => {
    const { h, gh } = t;
    await claimFor(h, gh, alice, { first: true });
    h.advance(60_000);
    const decided = h.now();
    await h.receive("issue_comment", commentPayload({ body: "/claim", author: bob }));
    gh.expect("POST", "/issues/1/comments", 422, { message: "Validation Failed" });
    await h.drain();
    expect(await h.ledger.outboxStats()).toMatchObject({ parked: 1 });

    // A newer reply on the issue goes first.
    h.advance(60_000);
    await h.receive("issue_comment", commentPayload({ body: "/lease", author: bob }));
    gh.comment(1);
    await h.drain();

    await h.ledger.unparkEffects(h.now());
    gh.expect("GET", "/issues/1/comments", 200, []).comment(1);
    await h.drain();
    const late = gh.lastComment();
    expect(parseMarker(late)).toMatchObject({ op: "claim", outcome: "held", holder: "alice" });
    expect(late.split("\n")[0]).toBe(`_Posted late: this reply was decided at ${new Date(decided).toISOString().replace(/\.\d{3}Z$/, "Z")}, before the replies above it._`);
    // The newer reply said nothing of the kind.
    expect(gh.comments().filter((c) => c.includes("Posted late"))).toHaveLength(1);
  });

  it("is posted when only someone else's comment carries its marker: the look-up trusts the app's own comments only", async () => {
    const { h, gh } = t;
    gh.config(null);
    await h.receive("issue_comment", commentPayload({ body: "/claim", author: alice }));
    gh.createLabel().lookups("claimed-by: alice", "lease #1").addLabels(1).assign(1, "alice").expect("POST", "/issues/1/comments", 502, { message: "Bad Gateway" });
    await h.drain();
    const marker = gh.lastComment().split("\n").pop()!;

    // Someone copies the marker (here: the very ref) into a comment of their own, or another app does.
    const before = gh.mark();
    h.advance(5_000);
    gh.expect("GET", "/issues/1/comments", 200, [
      { id: 2, body: `nothing to see\n\n${marker}`, user: { login: "mallory", type: "User" }, performed_via_github_app: null },
      { id: 3, body: marker, user: { login: "other-app[bot]", type: "Bot" }, performed_via_github_app: { id: APP_ID + 1 } },
    ]).comment(1);
    await h.drain();
    expect(gh.routes(before)).toEqual(["GET /issues/1/comments", "POST /issues/1/comments"]);
    expect(parseMarker(gh.lastComment())).toMatchObject({ outcome: "acquired", holder: "alice", token: 1 });
  });
});
