/**
 * The wait list end to end (issue 22): real `issue_comment` payloads through
 * `probot.receive` in a repository with `queue: true`, a real SQLite ledger,
 * the outbox drained by hand and GitHub mocked strictly: the queued reply,
 * the handoff's reply (mentioning the new holder) with its labels and
 * assignee, `/lease` showing the line, leaving it, expiry, and one handoff
 * reply after GitHub failed the first attempt.
 */
import { describe, expect, it } from "vitest";
import { parseMarker } from "../../src/github/reply-marker.js";
import { type GitHubMock, type Harness, mentionsIn, releaseRoutes, T0, useApp } from "../support/app-harness.js";
import { alice, bob, commentPayload, issuesPayload, maintainer, REPO, type UserSpec } from "../support/payloads.js";

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const key = { repoId: REPO.id, repo: `${REPO.owner}/${REPO.name}`, issue: 1 };
const carol: UserSpec = { login: "carol", id: 1005, association: "CONTRIBUTOR" };

/** alice claims issue 1 in a repository with `queue: true` (the repository's first command). */
async function aliceHolds(h: Harness, gh: GitHubMock, yaml = "queue: true\n", body = "/claim 2h"): Promise<void> {
  gh.config(yaml);
  await h.receive("issue_comment", commentPayload({ body, author: alice }));
  gh.claim(1, "alice", { createClaimed: true, token: 1 });
  await h.drain();
}

/** `who` comments `body` on issue 1, and the reply (one comment, nothing else) is drained. */
async function replyOnly(h: Harness, gh: GitHubMock, who: UserSpec, body: string): Promise<string> {
  const before = gh.mark();
  await h.receive("issue_comment", commentPayload({ body, author: who }));
  gh.comment(1);
  await h.drain();
  expect(gh.routes(before)).toEqual(["POST /issues/1/comments"]);
  return gh.lastComment();
}

/** The calls of a lease handed from `from` (token `token`) to `to` (token + 1): its labels swapped, the assignee, the one reply. */
function handoffCalls(gh: GitHubMock, from: string, to: string, token: number): string[] {
  gh.lookups(`claimed-by: ${to}`, `lease #${token + 1}`).addLabels(1);
  // Labels no other lease uses are deleted from the repository, which takes them off the issue too.
  gh.deleteLabel(`claimed-by: ${from}`).deleteLabel(`lease #${token}`);
  gh.unassign(1).assign(1, to).comment(1);
  return [
    `GET /labels/claimed-by: ${to}`,
    `GET /labels/lease #${token + 1}`,
    "POST /issues/1/labels",
    `DELETE /labels/claimed-by: ${from}`,
    `DELETE /labels/lease #${token}`,
    "DELETE /issues/1/assignees",
    "POST /issues/1/assignees",
    "POST /issues/1/comments",
  ];
}

describe("the wait list (`queue: true`)", () => {
  const t = useApp();

  it("answers a /claim on a held issue with the place in line; asking again keeps it; /lease shows the line", async () => {
    const { h, gh } = t;
    await aliceHolds(h, gh);
    const first = await replyOnly(h, gh, bob, "/claim");
    expect(first).toContain("**bob**, you are **1st** in line for this issue, held by **alice** (token **1**)");
    expect(parseMarker(first)).toMatchObject({ op: "claim", outcome: "queued", position: 1, holder: "alice", token: 1 });
    expect(mentionsIn(first)).toEqual([]);
    h.advance(MINUTE);
    const second = await replyOnly(h, gh, carol, "/claim 3h");
    expect(second).toContain("you are **2nd** in line");
    expect(parseMarker(second)).toMatchObject({ outcome: "queued", position: 2 });
    h.advance(MINUTE);
    expect(parseMarker(await replyOnly(h, gh, bob, "/claim"))).toMatchObject({ outcome: "queued", position: 1 });
    const status = await replyOnly(h, gh, carol, "/lease");
    expect(status).toContain("Waiting in line:\n\n1. **bob**\n2. **carol**");
    expect(parseMarker(status)).toMatchObject({ op: "status", queue: ["bob", "carol"] });
    expect(mentionsIn(status)).toEqual([]);
    expect((await h.ledger.queue(key, h.now())).map((p) => p.holder.login)).toEqual(["bob", "carol"]);
  });

  it("hands the lease to the first in line on /release: one reply mentioning them, their labels and assignee, token + 1", async () => {
    const { h, gh } = t;
    await aliceHolds(h, gh);
    await replyOnly(h, gh, bob, "/claim 3h");
    await replyOnly(h, gh, carol, "/claim");
    h.advance(10 * MINUTE);

    const before = gh.mark();
    await h.receive("issue_comment", commentPayload({ body: "/release", author: alice }));
    const routes = handoffCalls(gh, "alice", "bob", 1);
    await h.drain();
    expect(gh.routes(before)).toEqual(routes);
    expect(gh.calls.find((c, i) => i >= before && c.method === "POST" && c.path.endsWith("/labels"))!.body).toEqual({ labels: ["claimed-by: bob", "lease #2"] });
    const reply = gh.lastComment();
    expect(reply).toContain("**alice** released the lease (token **1**). @bob, first in line, now holds this issue with lease token **2**; it expires 2026-12-01 15:10 UTC (in 3 hours).");
    expect(mentionsIn(reply)).toEqual(["bob"]);
    expect(parseMarker(reply)).toMatchObject({ op: "handoff", outcome: "acquired", holder: "bob", token: 2, expires_at: "2026-12-01T15:10:00Z" });
    expect(await h.ledger.current(key, h.now())).toMatchObject({ holder: { login: "bob" }, token: 2 });
    expect((await h.ledger.queue(key, h.now())).map((p) => p.holder.login)).toEqual(["carol"]);
  });

  it("/release by someone in line leaves it, and the handoff skips them", async () => {
    const { h, gh } = t;
    await aliceHolds(h, gh);
    await replyOnly(h, gh, bob, "/claim");
    await replyOnly(h, gh, carol, "/claim");
    const left = await replyOnly(h, gh, bob, "/release");
    expect(left).toContain("**bob**, you left the line for this issue. Nothing else changed.");
    expect(parseMarker(left)).toMatchObject({ op: "release", outcome: "left_queue", holder: "alice", token: 1 });

    const before = gh.mark();
    await h.receive("issue_comment", commentPayload({ body: "/release", author: alice }));
    const routes = handoffCalls(gh, "alice", "carol", 1);
    await h.drain();
    expect(gh.routes(before)).toEqual(routes);
    expect(parseMarker(gh.lastComment())).toMatchObject({ op: "handoff", holder: "carol", token: 2 });
  });

  it("an expiry hands it on, with the reply saying it expired and mentioning the new holder", async () => {
    const { h, gh } = t;
    await aliceHolds(h, gh);
    await replyOnly(h, gh, bob, "/claim 1h");
    h.advance(2 * HOUR + MINUTE);
    expect(await h.runtime.sweeper.sweep()).toMatchObject({ expired: 1 });
    const before = gh.mark();
    const routes = handoffCalls(gh, "alice", "bob", 1);
    await h.drain();
    expect(gh.routes(before)).toEqual(routes);
    const reply = gh.lastComment();
    expect(reply).toContain("**alice**'s lease (token **1**) expired. @bob, first in line, now holds this issue with lease token **2**");
    expect(mentionsIn(reply)).toEqual(["bob"]);
    expect(parseMarker(reply)).toMatchObject({ op: "handoff", outcome: "acquired", holder: "bob", token: 2 });
    expect(await h.ledger.current(key, h.now())).toMatchObject({ holder: { login: "bob" }, token: 2, expiresAt: T0 + 3 * HOUR + MINUTE });
  });

  it("a /claim after the lease ran out but before the sweep hands it to the first in line, with their reply, and answers the claimer", async () => {
    const { h, gh } = t;
    await aliceHolds(h, gh);
    await replyOnly(h, gh, bob, "/claim 1h");
    h.advance(2 * HOUR + MINUTE);
    const before = gh.mark();
    await h.receive("issue_comment", commentPayload({ body: "/claim", author: carol }));
    const routes = handoffCalls(gh, "alice", "bob", 1);
    gh.comment(1);
    await h.drain();
    expect(gh.routes(before)).toEqual([...routes, "POST /issues/1/comments"]);
    const [handoff, held] = gh.comments(before);
    expect(handoff).toContain("**alice**'s lease (token **1**) expired. @bob, first in line, now holds this issue with lease token **2**");
    expect(parseMarker(handoff!)).toMatchObject({ op: "handoff", outcome: "acquired", holder: "bob", token: 2 });
    expect(parseMarker(held!)).toMatchObject({ op: "claim", outcome: "queued", position: 1, holder: "bob", token: 2 });
    expect(mentionsIn(held!)).toEqual([]);
    // The sweep finds nothing left to end.
    expect(await h.runtime.sweeper.sweep()).toMatchObject({ expired: 0 });
  });

  it("a maintainer's /claim @user on a held issue puts that user in line, and the reply says who placed them", async () => {
    const { h, gh } = t;
    await aliceHolds(h, gh);
    const before = gh.mark();
    gh.permission("maint", "write").account("carol", { id: carol.id });
    await h.receive("issue_comment", commentPayload({ body: "/claim @carol", author: maintainer }));
    gh.comment(1);
    await h.drain();
    expect(gh.routes(before)).toEqual(["GET /collaborators/maint/permission", "GET /users/carol", "POST /issues/1/comments"]);
    const reply = gh.lastComment();
    expect(reply).toContain("**carol**, you are **1st** in line for this issue (placed by **maint**), held by **alice**");
    expect(mentionsIn(reply)).toEqual([]);
    expect((await h.ledger.queue(key, h.now())).map((p) => p.holder.login)).toEqual(["carol"]);
  });

  it("puts the issue's author first with author_first", async () => {
    const { h, gh } = t;
    await aliceHolds(h, gh, "queue: true\nauthor_first: 1h\n", "/claim");
    await replyOnly(h, gh, bob, "/claim");
    const before = gh.mark();
    await h.receive("issue_comment", commentPayload({ body: "/claim", author: carol, issueAuthor: carol }));
    gh.comment(1);
    await h.drain();
    expect(gh.routes(before)).toEqual(["POST /issues/1/comments"]);
    expect(parseMarker(gh.lastComment())).toMatchObject({ outcome: "queued", position: 1 });
    expect((await h.ledger.queue(key, h.now())).map((p) => p.holder.login)).toEqual(["carol", "bob"]);
  });

  it("posts the handoff's reply once when GitHub fails the first attempt with a 502", async () => {
    const { h, gh } = t;
    await aliceHolds(h, gh);
    await replyOnly(h, gh, bob, "/claim");
    await h.receive("issue_comment", commentPayload({ body: "/release", author: alice }));
    gh.lookups("claimed-by: bob", "lease #2").addLabels(1);
    gh.deleteLabel("claimed-by: alice").deleteLabel("lease #1");
    gh.unassign(1).assign(1, "bob").expect("POST", "/issues/1/comments", 502, { message: "Bad Gateway" });
    await h.drain();
    const retry = gh.mark();
    expect(await h.ledger.outboxStats()).toMatchObject({ pending: 1 });

    // The retry looks among the app's comments first (the refused attempt might have been taken), then posts.
    gh.expect("GET", "/issues/1/comments", 200, []).comment(1);
    h.advance(5_000);
    await h.drain();
    expect(gh.routes(retry)).toEqual(["GET /issues/1/comments", "POST /issues/1/comments"]);
    const handoffs = gh.comments().filter((c) => parseMarker(c)?.op === "handoff");
    // The attempt GitHub refused, and the one it took: one handoff on the issue.
    expect(handoffs).toHaveLength(2);
    expect(parseMarker(handoffs[1]!)).toMatchObject({ outcome: "acquired", holder: "bob", token: 2 });
    expect(await h.ledger.outboxStats()).toMatchObject({ pending: 0, parked: 0 });
    // The ledger handed it once: one tenure for bob, token 2.
    const history = await h.ledger.history(key);
    expect(history.filter((e) => e.op === "handoff").map((e) => [e.holder?.login, e.token])).toEqual([["bob", 2]]);
  });

  it("a close ends the line: nobody is handed the lease, and every place ends (closed)", async () => {
    const { h, gh } = t;
    await aliceHolds(h, gh);
    await replyOnly(h, gh, bob, "/claim");
    await replyOnly(h, gh, carol, "/claim");
    const before = gh.mark();
    // Closed in the second the lease began: GitHub is asked whether it still is.
    gh.issue(1, "closed");
    await h.receive("issues", issuesPayload("closed", { at: h.now(), sender: maintainer, labels: ["claimed", "claimed-by: alice", "lease #1"] }));
    gh.release(1, "alice", 1);
    await h.drain();
    expect(gh.routes(before)).toEqual(["GET /issues/1", ...releaseRoutes(1, "alice", 1)]);
    expect(mentionsIn(gh.lastComment())).toEqual([]);
    expect(await h.ledger.current(key, h.now())).toBeNull();
    expect(await h.ledger.queue(key, h.now())).toEqual([]);
    expect((await h.ledger.history(key)).some((e) => e.op === "handoff")).toBe(false);
  });

  it("without `queue: true`, a /claim on a held issue is answered `held` as before", async () => {
    const { h, gh } = t;
    await aliceHolds(h, gh, "queue: false\n");
    expect(parseMarker(await replyOnly(h, gh, bob, "/claim"))).toMatchObject({ outcome: "held" });
    expect(await h.ledger.queue(key, h.now())).toEqual([]);
  });
});
