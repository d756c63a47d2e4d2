/**
 * Lease events through the whole app (`probot.receive`, a real SQLite
 * ledger, strict GitHub mocks): a `/claim` comment and a `/release` write one
 * event each, with cause `command`, the installation of the delivery and the
 * sequence going up; a redelivery writes none; a maintainer's
 * `/release @alice`, a close and the `claimed` label taken off end the lease
 * with their own cause. Watchers of the ledger hear of each.
 */
import { describe, expect, it } from "vitest";
import { claimFor, useApp } from "../support/app-harness.js";
import { alice, commentPayload, INSTALLATION_ID, issuesPayload, maintainer, REPO } from "../support/payloads.js";

describe("lease events through the app", () => {
  const t = useApp();

  /** Every event kept, as type, holder, token, actor and cause. */
  async function events(): Promise<string[]> {
    return (await t.h.ledger.eventsAfter(0)).map(({ event: e }) => `${e.type} ${e.holder.login}#${e.token} by ${e.actor?.login ?? "-"} (${e.cause})`);
  }

  it("`/claim` then `/release`: lease.acquired and lease.released, cause command, the delivery's installation, seq 1 and 2; a redelivery adds none", async () => {
    const { h, gh } = t;
    let heard = 0;
    const stop = h.runtime.ledger.watchEvents(() => heard++);
    await claimFor(h, gh, alice, { first: true });
    const payload = commentPayload({ body: "/release", author: alice });
    await h.receive("issue_comment", payload, "release-1");
    gh.release(1, "alice", 1);
    await h.drain();
    await h.receive("issue_comment", payload, "release-1");
    await h.drain();
    stop();

    expect(await events()).toEqual(["lease.acquired alice#1 by alice (command)", "lease.released alice#1 by alice (command)"]);
    const kept = await h.ledger.eventsAfter(0);
    expect(kept.map((e) => [e.installation, e.repoId, e.event.seq, e.event.repo, e.event.issue])).toEqual([
      [INSTALLATION_ID, REPO.id, 1, `${REPO.owner}/${REPO.name}`, 1],
      [INSTALLATION_ID, REPO.id, 2, `${REPO.owner}/${REPO.name}`, 1],
    ]);
    expect(kept[1]!.event.at).toBe(new Date(h.now()).toISOString());
    expect(heard).toBe(2);
  });

  it("a maintainer's `/release @alice`: lease.ended, cause maintainer", async () => {
    const { h, gh } = t;
    await claimFor(h, gh, alice, { first: true });
    gh.permission("maint", "write");
    await h.receive("issue_comment", commentPayload({ body: "/release @alice", author: maintainer }));
    gh.release(1, "alice", 1);
    await h.drain();
    expect((await events()).slice(1)).toEqual(["lease.ended alice#1 by maint (maintainer)"]);
  });

  it("the issue closed: lease.ended, cause close", async () => {
    const { h, gh } = t;
    await claimFor(h, gh, alice, { first: true });
    // Closed in the second the lease began: GitHub is asked whether it still is.
    gh.issue(1, "closed");
    await h.receive("issues", issuesPayload("closed", { at: h.now(), sender: maintainer, labels: ["claimed", "claimed-by: alice", "lease #1"] }));
    gh.release(1, "alice", 1);
    await h.drain();
    expect((await events()).slice(1)).toEqual(["lease.ended alice#1 by maint (close)"]);
  });

  it("the `claimed` label taken off by a maintainer: lease.ended, cause label_removed", async () => {
    const { h, gh } = t;
    await claimFor(h, gh, alice, { first: true });
    gh.permission("maint", "write");
    await h.receive("issues", issuesPayload("unlabeled", { at: h.now(), sender: maintainer, label: "claimed", labels: ["claimed-by: alice", "lease #1"] }));
    gh.removeLabel(1, "claimed", 404).deleteLabel("claimed-by: alice").deleteLabel("lease #1").unassign(1).comment(1);
    await h.drain();
    expect((await events()).slice(1)).toEqual(["lease.ended alice#1 by maint (label_removed)"]);
  });
});
