/**
 * Renamed accounts: a lease is held by an account id, and the holder's new
 * login (seen in any event from them) follows them to their live leases, the
 * `claimed-by:` label and later mentions included.
 */
import { describe, expect, it, vi } from "vitest";
import { parseMarker } from "../../src/github/reply-marker.js";
import { claimFor, type Harness, mentionsIn, T0, useApp } from "../support/app-harness.js";
import { alice, bob, commentPayload, issuesPayload, maintainer, REPO, type UserSpec } from "../support/payloads.js";

const HOUR = 3_600_000;
const key = (issue: number) => ({ repoId: REPO.id, repo: `${REPO.owner}/${REPO.name}`, issue });
/** alice's account after she renamed it: the same id. */
const alice2: UserSpec = { ...alice, login: "alice2" };

/** Rows the SQLite ledger has written since it opened. */
const writes = (h: Harness) => h.ledger.db.prepare("SELECT total_changes()").pluck().get() as number;

/** The calls that move alice's lease on issue 1 to her new login. */
function renameCalls(gh: ReturnType<typeof useApp>["gh"]) {
  gh.lookup("claimed-by: alice2").addLabels(1).deleteLabel("claimed-by: alice").unassign(1).assign(1, "alice2");
}

describe("a holder who renamed their account", () => {
  const t = useApp();

  it("gets the new login on the label at their next event, and the expiry comment mentions the new login", async () => {
    const { h, gh } = t;
    await claimFor(h, gh, alice, { first: true, body: "/claim 2h" });

    const before = gh.mark();
    await h.receive("issue_comment", commentPayload({ body: "Working on it.", author: alice2 }));
    renameCalls(gh);
    await h.drain();
    expect(gh.routes(before)).toEqual([
      "GET /labels/claimed-by: alice2",
      "POST /issues/1/labels",
      "DELETE /labels/claimed-by: alice",
      "DELETE /issues/1/assignees",
      "POST /issues/1/assignees",
    ]);
    expect(gh.calls[before + 1]!.body).toEqual({ labels: ["claimed-by: alice2"] });
    expect(await h.ledger.current(key(1), h.now())).toMatchObject({ holder: { id: alice.id, login: "alice2" }, token: 1 });

    // Expiry: the comment mentions the new login, and takes the new label off.
    h.advance(T0 + 2 * HOUR + 60_000 - h.now());
    expect(await h.runtime.sweeper.sweep()).toMatchObject({ expired: 1 });
    const expiry = gh.mark();
    gh.release(1, "alice2", 1);
    await h.drain();
    expect(gh.writes(expiry)).toHaveLength(5);
    expect(mentionsIn(gh.lastComment())).toEqual(["alice2"]);
    expect(parseMarker(gh.lastComment())).toMatchObject({ op: "expire", holder: "alice2" });
  });

  it("costs no ledger write and no HTTP call when the login is unchanged, and no ledger query for a pair seen before", async () => {
    const { h, gh } = t;
    await claimFor(h, gh, alice, { first: true });
    const asked = vi.spyOn(h.ledger, "renameHolder");
    const rows = writes(h);
    const before = gh.mark();
    // alice was seen with this login when she claimed: not even a read. (On an issue she does not hold, so that her activity renews nothing.)
    await h.receive("issue_comment", commentPayload({ body: "Still on it.", author: alice, issue: 2 }));
    expect(asked).toHaveBeenCalledTimes(0);
    // bob is new to this process: one indexed read, then remembered.
    await h.receive("issue_comment", commentPayload({ body: "Nice.", author: bob }));
    await h.receive("issue_comment", commentPayload({ body: "Very nice.", author: bob }));
    expect(asked).toHaveBeenCalledTimes(1);
    await expect(asked.mock.results[0]!.value).resolves.toEqual([]);
    await h.drain();
    expect(writes(h)).toBe(rows);
    expect(gh.calls.slice(before)).toEqual([]);
  });

  it("follows a rename seen as the sender of a non-command event, and then `/release @newname` by a maintainer works", async () => {
    const { h, gh } = t;
    await claimFor(h, gh, alice, { first: true });

    // A label she removed that is not the app's: only her login is news.
    await h.receive("issues", issuesPayload("unlabeled", { at: h.now(), sender: alice2, label: "bug" }));
    renameCalls(gh);
    await h.drain();

    const before = gh.mark();
    gh.permission("maint", "write");
    await h.receive("issue_comment", commentPayload({ body: "/release @alice2", author: maintainer }));
    gh.release(1, "alice2", 1);
    await h.drain();
    expect(parseMarker(gh.lastComment())).toMatchObject({ op: "release", outcome: "released", holder: "alice2" });
    expect(mentionsIn(gh.lastComment())).toEqual(["alice2"]);
    expect(gh.writes(before)).toHaveLength(5);
    expect(await h.ledger.current(key(1), h.now())).toBeNull();
  });

  it("follows a rename seen as the sender of an event the app otherwise ignores (issues.labeled)", async () => {
    const { h, gh } = t;
    await claimFor(h, gh, alice, { first: true });
    await h.receive("issues", issuesPayload("labeled", { at: h.now(), sender: alice2, label: "bug" }));
    renameCalls(gh);
    await h.drain();
    expect(await h.ledger.current(key(1), h.now())).toMatchObject({ holder: { id: alice.id, login: "alice2" } });
  });
});
