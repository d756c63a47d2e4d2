/**
 * Each parser case of issue 11 ("commands as people type them") end to end:
 * a real `issue_comment` payload through `probot.receive`, the outbox
 * drained, GitHub mocked strictly, so each row shows what GitHub sees.
 */
import { describe, expect, it } from "vitest";
import { parseMarker } from "../../src/github/reply-marker.js";
import { claimFor, T0, useApp } from "../support/app-harness.js";
import { alice, commentPayload, issuesPayload, maintainer, REPO } from "../support/payloads.js";

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const key = { repoId: REPO.id, repo: `${REPO.owner}/${REPO.name}`, issue: 1 };
const iso = (ms: number) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, "Z");

describe("commands as people type them, through the app", () => {
  const t = useApp();

  it.each([
    ["a note after the command", "/claim I'd like to work on this", 7 * DAY],
    ["a one-word note", "/claim please", 7 * DAY],
    ["a duration, then a note", "/claim 2h so I can finish", 2 * HOUR],
    ["a full stop after the command", "/claim.", 7 * DAY],
    ["an exclamation mark after the command", "/claim!", 7 * DAY],
    ["a line indented inside a list item (ordinary text there)", "- I can do it\n\n    /claim", 7 * DAY],
    ["text and a command on the next line", "Thanks!\n/claim 3 days, then a PR", 3 * DAY],
  ])("claims with %s: `%s`", async (_name, body, ttl) => {
    const { h, gh } = t;
    gh.config(null);
    await h.receive("issue_comment", commentPayload({ body, author: alice }));
    gh.claim(1, "alice", { createClaimed: true, token: 1 });
    await h.drain();
    const reply = gh.lastComment();
    expect(parseMarker(reply)).toMatchObject({ op: "claim", outcome: "acquired", holder: "alice", expires_at: iso(T0 + ttl) });
    expect(await h.ledger.current(key, h.now())).toMatchObject({ holder: { login: "alice" }, expiresAt: T0 + ttl });
  });

  it.each([
    ["an indented code block after a blank line", "Try this:\n\n    /claim"],
    ["an indented code block at the start", "    /claim 2h"],
    ["a tab at the start (four columns)", "\t/claim"],
    ["a lazy continuation line of a quote", "> I'll take it\n/claim"],
    ["lazy continuation lines of a quote", "> Can I take it?\nsure\n/claim"],
  ])("does nothing, not even read the config, for %s", async (_name, body) => {
    const { h, gh } = t;
    await h.receive("issue_comment", commentPayload({ body, author: alice }));
    await h.drain();
    expect(gh.calls).toEqual([]);
    expect(await h.ledger.history(key)).toEqual([]);
  });

  it("releases with a note in parentheses: `/release (no time, sorry)`", async () => {
    const { h, gh } = t;
    await claimFor(h, gh, alice, { first: true });
    await h.receive("issue_comment", commentPayload({ body: "/release (no time, sorry)", author: alice }));
    gh.release(1, "alice", 1);
    await h.drain();
    expect(parseMarker(gh.lastComment())).toMatchObject({ op: "release", outcome: "released", holder: "alice", token: 1 });
    expect(await h.ledger.current(key, h.now())).toBeNull();
  });

  it("lets a maintainer `/release @alice_contoso`, a login with an underscore", async () => {
    const { h, gh } = t;
    const contoso = { login: "alice_contoso", id: 5005, association: "CONTRIBUTOR" };
    await claimFor(h, gh, contoso, { first: true });
    const before = gh.mark();
    gh.permission("maint", "write");
    await h.receive("issue_comment", commentPayload({ body: "/release @alice_contoso, inactive for a month", author: maintainer }));
    gh.release(1, "alice_contoso", 1);
    await h.drain();
    expect(gh.routes(before)[0]).toBe("GET /collaborators/maint/permission");
    const reply = gh.lastComment();
    expect(reply).toContain("**maint** released @alice_contoso's lease (token **1**).");
    expect(parseMarker(reply)).toMatchObject({ op: "release", outcome: "released", holder: "alice_contoso" });
    expect(await h.ledger.current(key, h.now())).toBeNull();
  });

  it("knows `claimed-by: alice_contoso` as its own label: its holder removing it by hand ends the lease", async () => {
    const { h, gh } = t;
    const contoso = { login: "alice_contoso", id: 5005, association: "CONTRIBUTOR" };
    await claimFor(h, gh, contoso, { first: true });
    await h.receive("issues", issuesPayload("unlabeled", { at: h.now(), sender: contoso, label: "claimed-by: alice_contoso" }));
    gh.removeLabel(1, "claimed").deleteLabel("claimed-by: alice_contoso").deleteLabel("lease #1").unassign(1).comment(1);
    await h.drain();
    expect(gh.lastComment()).toContain("**alice_contoso** released the lease (token **1**).");
    expect(await h.ledger.current(key, h.now())).toBeNull();
  });

  it("still answers a number that is not a duration with `invalid`: `/claim 2 of them`", async () => {
    const { h, gh } = t;
    gh.config(null);
    await h.receive("issue_comment", commentPayload({ body: "/claim 2 of them", author: alice }));
    gh.comment(1);
    await h.drain();
    expect(gh.lastComment()).toContain("`/claim` reads a number right after it as a duration");
    expect(parseMarker(gh.lastComment())).toMatchObject({ outcome: "invalid" });
    expect(await h.ledger.current(key, h.now())).toBeNull();
  });
});
