/**
 * Replies per person: one person cannot make the app post more than
 * `max_replies_per_hour` replies (and one notice) an hour in a repository;
 * their commands still run and are recorded. Maintainers are not limited.
 */
import { describe, expect, it } from "vitest";
import { parseMarker } from "../../src/github/reply-marker.js";
import { useApp } from "../support/app-harness.js";
import { alice, commentPayload, issuesPayload, maintainer, REPO, type UserSpec } from "../support/payloads.js";

const MIN = 60_000;
const key = (issue: number) => ({ repoId: REPO.id, repo: `${REPO.owner}/${REPO.name}`, issue });
const NOTICE = "You have reached 20 replies an hour in this repository";

describe("replies per person per hour", () => {
  const t = useApp();

  it("a comment edited back and forth 30 times gets 20 replies and one notice; the ledger records all 30; replies resume after the hour", async () => {
    const { h, gh } = t;
    const commentId = 4711;
    const bodies = Array.from({ length: 30 }, (_, i) => (i % 2 === 0 ? "/claim 1h" : "/claim 2h"));
    gh.config(null).claim(1, "alice", { createClaimed: true, token: 1 });
    for (let i = 0; i < 20; i++) gh.comment(1);
    for (const [i, body] of bodies.entries()) {
      const previousBody = i === 0 ? undefined : bodies[i - 1];
      await h.receive("issue_comment", commentPayload({ body, previousBody, author: alice, commentId }));
      h.advance(1_000);
    }
    await h.drain();

    const comments = gh.comments();
    expect(comments).toHaveLength(21);
    expect(comments.slice(0, 20).every((c) => !c.includes(NOTICE))).toBe(true);
    expect(comments[20]).toContain(NOTICE);
    expect(parseMarker(comments[20]!)).toMatchObject({ op: "claim", outcome: "acquired", holder: "alice" });
    const history = await h.ledger.history(key(1));
    expect(history).toHaveLength(30);
    expect(history.every((e) => e.op === "acquire" && e.outcome === "acquired" && e.token === 1)).toBe(true);
    // The last edit (/claim 2h) was applied, silently.
    expect(await h.ledger.current(key(1), h.now())).toMatchObject({ expiresAt: h.now() - 1_000 + 2 * 60 * MIN });

    // An hour after the first replies, one more edit is answered again.
    h.advance(60 * MIN);
    await h.receive("issue_comment", commentPayload({ body: "/claim 1h", previousBody: "/claim 2h", author: alice, commentId }));
    gh.comment(1);
    await h.drain();
    expect(gh.comments()).toHaveLength(22);
    expect(gh.lastComment()).not.toContain(NOTICE);
  });

  it.each([
    ["a maintainer (MEMBER association), under the default limit", null, maintainer],
    ["anyone when the repository sets `max_replies_per_hour: 0`", "max_replies_per_hour: 0\n", alice],
  ])("does not limit %s", async (_what, yaml, author) => {
    const { h, gh } = t;
    gh.config(yaml);
    for (let i = 0; i < 25; i++) {
      await h.receive("issue_comment", commentPayload({ body: "/lease", author }));
      gh.comment(1);
    }
    await h.drain();
    expect(gh.comments()).toHaveLength(25);
    expect(gh.comments().some((c) => c.includes("replies an hour"))).toBe(false);
  });

  it("counts the replies to labels removed by someone who may not end the lease; the labels are put back every time", async () => {
    const { h, gh } = t;
    const triager: UserSpec = { login: "triager", id: 1005, association: "CONTRIBUTOR" };
    gh.config("max_replies_per_hour: 1\n");
    await h.receive("issue_comment", commentPayload({ body: "/claim", author: alice }));
    gh.claim(1, "alice", { createClaimed: true, token: 1 });
    await h.drain();

    const before = gh.mark();
    for (let i = 0; i < 3; i++) {
      gh.permission("triager", "triage");
      await h.receive("issues", issuesPayload("unlabeled", { at: h.now(), sender: triager, label: "claimed" }));
      gh.addLabels(1);
      if (i < 2) gh.comment(1);
      await h.drain();
    }
    const replies = gh.comments(before);
    expect(replies).toHaveLength(2);
    expect(replies[0]).not.toContain("replies an hour");
    expect(replies[1]).toContain("You have reached 1 reply an hour in this repository");
    expect(gh.routes(before).filter((r) => r === "POST /issues/1/labels")).toHaveLength(3);
  });
});
