/**
 * Time: the sweeper ends expired leases and reminds holders, driven by the
 * injected clock and called by hand (its timer is off in these tests).
 */
import { describe, expect, it } from "vitest";
import { parseMarker } from "../../src/github/reply-marker.js";
import { claimFor, type Harness, mentionsIn, releaseRoutes, T0, useApp } from "../support/app-harness.js";
import { alice, bob, commentPayload, REPO } from "../support/payloads.js";

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const key = (issue: number) => ({ repoId: REPO.id, repo: `${REPO.owner}/${REPO.name}`, issue });

/** Moves the clock to `at` (ms after T0) and sweeps once. */
async function sweepAt(h: Harness, at: number) {
  h.advance(T0 + at - h.now());
  const result = await h.runtime.sweeper.sweep();
  expect(result).not.toBeNull();
  return result!;
}

describe("expiry", () => {
  const t = useApp();

  it("ends an expired lease with one `expire` comment mentioning the holder and takes its labels off; a second sweep posts nothing; the next claim gets the next token", async () => {
    const { h, gh } = t;
    await claimFor(h, gh, alice, { first: true, body: "/claim 2h" });

    // Not yet.
    expect(await sweepAt(h, 2 * HOUR - MINUTE)).toMatchObject({ expired: 0 });
    await h.drain();

    let before = gh.mark();
    expect(await sweepAt(h, 2 * HOUR + MINUTE)).toMatchObject({ expired: 1 });
    gh.release(1, "alice", 1);
    await h.drain();
    expect(gh.routes(before)).toEqual(releaseRoutes(1, "alice", 1));
    const comment = gh.lastComment();
    expect(comment).toContain("@alice's lease (token **1**) expired 2026-12-01 14:00 UTC (1 minute ago). The issue is free.");
    expect(comment).toContain("the next lease gets token **2**");
    expect(mentionsIn(comment)).toEqual(["alice"]);
    expect(parseMarker(comment)).toMatchObject({ op: "expire", outcome: "expired", holder: "alice", token: 1, expires_at: "2026-12-01T14:00:00Z" });
    expect(await h.ledger.current(key(1), h.now())).toBeNull();

    before = gh.mark();
    expect(await sweepAt(h, 3 * HOUR)).toMatchObject({ expired: 0, reminded: 0 });
    await h.drain();
    expect(gh.calls.slice(before)).toEqual([]);

    before = gh.mark();
    await claimFor(h, gh, bob);
    expect(gh.routes(before).slice(0, 3)).toEqual(["GET /labels/claimed-by: bob", "GET /labels/lease #2", "POST /issues/1/labels"]);
    expect(gh.calls[before + 2]!.body).toEqual({ labels: ["claimed", "claimed-by: bob", "lease #2"] });
    expect(parseMarker(gh.lastComment())).toMatchObject({ holder: "bob", token: 2 });
    expect((await h.ledger.history(key(1))).map((e) => [e.op, e.outcome, e.token])).toEqual([
      ["acquire", "acquired", 1],
      ["expire", "expired", 1],
      ["acquire", "acquired", 2],
    ]);
  });

  it("lets another claim an expired lease before the sweeper ends it: token 2, the old holder's labels and assignee swapped for the new, one reply", async () => {
    const { h, gh } = t;
    await claimFor(h, gh, alice, { first: true, body: "/claim 2h" });
    h.advance(3 * HOUR);

    const before = gh.mark();
    await h.receive("issue_comment", commentPayload({ body: "/claim", author: bob }));
    gh.lookups("claimed-by: bob", "lease #2").addLabels(1).deleteLabel("claimed-by: alice").deleteLabel("lease #1").unassign(1).assign(1, "bob").comment(1);
    await h.drain();
    expect(gh.routes(before)).toEqual([
      "GET /labels/claimed-by: bob",
      "GET /labels/lease #2",
      "POST /issues/1/labels",
      "DELETE /labels/claimed-by: alice",
      "DELETE /labels/lease #1",
      "DELETE /issues/1/assignees",
      "POST /issues/1/assignees",
      "POST /issues/1/comments",
    ]);
    expect(gh.calls[before + 2]!.body).toEqual({ labels: ["claimed-by: bob", "lease #2"] });
    expect(gh.calls[before + 5]!.body).toEqual({ assignees: ["alice"] });
    expect(gh.calls[before + 6]!.body).toEqual({ assignees: ["bob"] });
    expect(parseMarker(gh.lastComment())).toMatchObject({ outcome: "acquired", holder: "bob", token: 2 });

    // Nothing is left for the sweeper: alice's tenure was taken over, not expired.
    const after = gh.mark();
    expect(await sweepAt(h, 4 * HOUR)).toMatchObject({ expired: 0 });
    await h.drain();
    expect(gh.calls.slice(after)).toEqual([]);
  });
});

describe("reminders", () => {
  const t = useApp();

  it("with `reminder_before: 1h`, reminds the holder of a 2h lease exactly once when less than 1h is left, across many sweeps; a renewal makes a new reminder possible", async () => {
    const { h, gh } = t;
    gh.config("reminder_before: 1h\n");
    await h.receive("issue_comment", commentPayload({ body: "/claim 2h", author: alice }));
    gh.claim(1, "alice", { createClaimed: true, token: 1 });
    await h.drain();

    const remindersSince = (from: number) => gh.comments(from).filter((c) => parseMarker(c)?.op === "remind");
    const start = gh.mark();

    for (const at of [0, 30 * MINUTE, 59 * MINUTE]) expect(await sweepAt(h, at)).toMatchObject({ reminded: 0 });
    await h.drain();
    expect(gh.calls.slice(start)).toEqual([]);

    expect(await sweepAt(h, 61 * MINUTE)).toMatchObject({ reminded: 1 });
    gh.comment(1);
    await h.drain();
    expect(gh.routes(start)).toEqual(["POST /issues/1/comments"]);
    const reminder = gh.lastComment();
    expect(reminder).toContain("@alice, your lease on this issue (token **1**) expires 2026-12-01 14:00 UTC (in 59 minutes).");
    expect(reminder).toContain("Use `/renew [duration]` to keep it");
    expect(mentionsIn(reminder)).toEqual(["alice"]);
    expect(parseMarker(reminder)).toMatchObject({ op: "remind", outcome: "reminded", holder: "alice", token: 1, expires_at: "2026-12-01T14:00:00Z" });

    for (const at of [62 * MINUTE, 70 * MINUTE, 90 * MINUTE, 100 * MINUTE]) {
      expect(await sweepAt(h, at)).toMatchObject({ expired: 0, reminded: 0 });
      await h.drain();
    }
    expect(remindersSince(start)).toHaveLength(1);
    expect(gh.calls).toHaveLength(start + 1);

    // Renewed at 1h50m for 2h: expires at 3h50m, so a new reminder is due at 2h50m.
    h.advance(10 * MINUTE);
    await h.receive("issue_comment", commentPayload({ body: "/renew 2h", author: alice }));
    gh.comment(1);
    await h.drain();
    expect(parseMarker(gh.lastComment())).toMatchObject({ op: "renew", outcome: "renewed", expires_at: "2026-12-01T15:50:00Z" });

    const renewed = gh.mark();
    for (const at of [2 * HOUR, 2 * HOUR + 49 * MINUTE]) expect(await sweepAt(h, at)).toMatchObject({ reminded: 0 });
    expect(await sweepAt(h, 2 * HOUR + 51 * MINUTE)).toMatchObject({ reminded: 1 });
    gh.comment(1);
    await h.drain();
    expect(await sweepAt(h, 3 * HOUR)).toMatchObject({ reminded: 0 });
    await h.drain();
    expect(remindersSince(renewed)).toHaveLength(1);
    expect(gh.lastComment()).toContain("expires 2026-12-01 15:50 UTC (in 59 minutes)");
    expect(remindersSince(start)).toHaveLength(2);
  });

  it("does not remind the holder of a lease no longer than `reminder_before` (default 1d): the claim reply said when it ends", async () => {
    const { h, gh } = t;
    await claimFor(h, gh, alice, { first: true, body: "/claim 2h" });
    const start = gh.mark();
    for (const at of [MINUTE, HOUR, 2 * HOUR - MINUTE]) {
      expect(await sweepAt(h, at)).toMatchObject({ expired: 0, reminded: 0 });
      await h.drain();
    }
    expect(gh.calls.slice(start)).toEqual([]);
  });
});
