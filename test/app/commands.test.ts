/**
 * The commands end to end: real `issue_comment` payloads through
 * `probot.receive`, a real SQLite ledger, the outbox drained by hand, and
 * GitHub mocked strictly, so that each test states exactly which calls a
 * command costs (any other request fails the test).
 */
import { describe, expect, it } from "vitest";
import { DURATION_FORMS } from "../../src/commands/parse-duration.js";
import { parseMarker } from "../../src/github/reply-marker.js";
import { APP_ID, claimFor, mentionsIn, releaseRoutes, T0, useApp } from "../support/app-harness.js";
import { alice, bob, commentPayload, maintainer, REPO, robot } from "../support/payloads.js";

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
const key = (issue: number) => ({ repoId: REPO.id, repo: `${REPO.owner}/${REPO.name}`, issue });
const iso = (ms: number) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, "Z");

describe("/claim", () => {
  const t = useApp();

  it("claims a free issue with exactly: create `claimed`, add the three labels, assign, reply; the next claim in the repo costs 3 writes and reads only a label name new to the app", async () => {
    const { h, gh } = t;
    gh.config(null);
    await h.receive("issue_comment", commentPayload({ body: "/claim 2h", author: alice, issue: 1 }));
    gh.claim(1, "alice", { createClaimed: true, token: 1 });
    await h.drain();

    // The reads: the config file (absent from the repo, then from the owner's
    // `.github` repo), and whether the holder and token labels exist already
    // (names new to the app: a label it did not make, it never deletes).
    expect(gh.routes()).toEqual([
      "GET /contents/.github/issue-leases.yml",
      "GET /repos/Codertocat/.github/contents/.github/issue-leases.yml",
      "POST /labels",
      "GET /labels/claimed-by: alice",
      "GET /labels/lease #1",
      "POST /issues/1/labels",
      "POST /issues/1/assignees",
      "POST /issues/1/comments",
    ]);
    expect(gh.writes()).toHaveLength(4);
    const [, , createLabel, , , addLabels, assign] = gh.calls;
    expect(createLabel!.body).toEqual({ name: "claimed", color: expect.stringMatching(/^[0-9a-f]{6}$/), description: expect.stringContaining("issue-leases") });
    expect(addLabels!.body).toEqual({ labels: ["claimed", "claimed-by: alice", "lease #1"] });
    expect(assign!.body).toEqual({ assignees: ["alice"] });

    const reply = gh.lastComment();
    expect(reply.split("\n")[0]).toBe("> `/claim 2h`");
    expect(reply).toContain("**alice** now holds this issue with lease token **1**");
    expect(reply).toContain("expires 2026-12-01 14:00 UTC (in 2 hours)");
    expect(reply.split("\n").pop()).toMatch(/^<!-- issue-leases: \{.*\} -->$/);
    expect(parseMarker(reply)).toMatchObject({
      op: "claim",
      outcome: "acquired",
      issue: 1,
      holder: "alice",
      token: 1,
      expires_at: "2026-12-01T14:00:00Z",
    });
    expect(await h.ledger.current(key(1), h.now())).toMatchObject({ holder: { id: alice.id, login: "alice" }, token: 1, expiresAt: T0 + 2 * HOUR });

    // A second claim in the same repository: the config is cached, and `claimed` exists already.
    const before = gh.mark();
    await h.receive("issue_comment", commentPayload({ body: "/claim", author: bob, issue: 2 }));
    gh.claim(2, "bob", { token: 1 });
    await h.drain();
    expect(gh.routes(before)).toEqual(["GET /labels/claimed-by: bob", "POST /issues/2/labels", "POST /issues/2/assignees", "POST /issues/2/comments"]);
    expect(gh.calls[before + 1]!.body).toEqual({ labels: ["claimed", "claimed-by: bob", "lease #1"] });
    // No duration: the default, 7 days.
    expect(parseMarker(gh.lastComment())).toMatchObject({ holder: "bob", token: 1, expires_at: iso(T0 + 7 * DAY) });
  });

  it("answers `held` to a claim on an issue someone else holds, with one write: the reply naming holder, token and expiry", async () => {
    const { h, gh } = t;
    await claimFor(h, gh, alice, { first: true, body: "/claim 2h" });
    h.advance(30 * MINUTE);

    const before = gh.mark();
    await h.receive("issue_comment", commentPayload({ body: "/claim", author: bob }));
    gh.comment(1);
    await h.drain();

    expect(gh.routes(before)).toEqual(["POST /issues/1/comments"]);
    const reply = gh.lastComment();
    expect(reply).toContain("This issue is held by **alice** (token **1**), whose lease expires 2026-12-01 14:00 UTC (in 90 minutes). Nothing changed.");
    expect(parseMarker(reply)).toMatchObject({ op: "claim", outcome: "held", holder: "alice", token: 1, expires_at: "2026-12-01T14:00:00Z" });
    expect(await h.ledger.current(key(1), h.now())).toMatchObject({ holder: { login: "alice" }, token: 1 });
  });

  it("is idempotent for the holder: claiming again keeps the token, extends the expiry, and only replies", async () => {
    const { h, gh } = t;
    await claimFor(h, gh, alice, { first: true, body: "/claim 2h" });
    h.advance(HOUR);

    const before = gh.mark();
    await h.receive("issue_comment", commentPayload({ body: "/claim 3h", author: alice }));
    gh.comment(1);
    await h.drain();

    expect(gh.routes(before)).toEqual(["POST /issues/1/comments"]);
    const reply = gh.lastComment();
    expect(reply).toContain("**alice** already held this issue; the lease (token **1**) now expires 2026-12-01 16:00 UTC (in 3 hours).");
    expect(parseMarker(reply)).toMatchObject({ outcome: "acquired", token: 1, expires_at: "2026-12-01T16:00:00Z" });
    expect(await h.ledger.current(key(1), h.now())).toMatchObject({ token: 1, acquiredAt: T0, expiresAt: T0 + 4 * HOUR });
  });

  it("claims for the duration given (`/claim 3 days`)", async () => {
    const { h, gh } = t;
    await claimFor(h, gh, alice, { first: true, body: "/claim 3 days" });
    expect(gh.lastComment()).toContain("expires 2026-12-04 12:00 UTC (in 3 days)");
    expect(await h.ledger.current(key(1), h.now())).toMatchObject({ expiresAt: T0 + 3 * DAY });
  });

  it.each([
    ["/claim 60d", "60 days is longer than this repository allows (`max_ttl: 30d`), so nothing changed: claim for `30d` or less"],
    ["/claim 10s", "10 seconds is shorter than this repository allows (`min_ttl: 1m`), so nothing changed: claim for `1m` or more"],
  ])("refuses `%s` as `invalid`, saying which bound it crossed and what the repository allows, and leaves the ledger untouched", async (body, says) => {
    const { h, gh } = t;
    gh.config(null);
    await h.receive("issue_comment", commentPayload({ body, author: alice }));
    gh.comment(1);
    await h.drain();

    expect(gh.writes().map((c) => `${c.method} ${c.path}`)).toEqual(["POST /repos/Codertocat/Hello-World/issues/1/comments"]);
    const reply = gh.lastComment();
    const lines = reply.split("\n\n");
    expect(lines[0]).toBe(`> \`${body}\``);
    // What happened comes first: the command was understood, its duration is outside the range.
    expect(lines[1]).toBe(`${says}, or give no duration for the default (1 week).`);
    expect(reply).not.toContain("not understood");
    expect(parseMarker(reply)).toMatchObject({ op: "claim", outcome: "invalid", holder: null, token: null });
    expect(await h.ledger.current(key(1), h.now())).toBeNull();
    const history = await h.ledger.history(key(1));
    expect(history.map((e) => [e.op, e.outcome])).toEqual([["note", "invalid"]]);
  });

  it("`/claim 30d` where `max_ttl` is 14d: the reply says 30 days is longer than the repository allows, and that it allows 14 days", async () => {
    const { h, gh } = t;
    gh.config("max_ttl: 14d\ndefault_ttl: 3d\n");
    await h.receive("issue_comment", commentPayload({ body: "/claim 30d", author: alice }));
    gh.comment(1);
    await h.drain();

    const reply = gh.lastComment();
    expect(reply.split("\n\n").slice(0, 2)).toEqual([
      "> `/claim 30d`",
      "30 days is longer than this repository allows (`max_ttl: 14d`), so nothing changed: claim for `14d` or less, or give no duration for the default (3 days).",
    ]);
    expect(parseMarker(reply)).toMatchObject({ op: "claim", outcome: "invalid", holder: null });
    expect(await h.ledger.current(key(1), h.now())).toBeNull();
  });

  it.each(["/claim 2 parsecs", "/claim -2h"])("answers `%s` with `invalid` and the accepted forms", async (body) => {
    const { h, gh } = t;
    gh.config(null);
    await h.receive("issue_comment", commentPayload({ body, author: alice }));
    gh.comment(1);
    await h.drain();

    const reply = gh.lastComment();
    expect(reply.split("\n")[0]).toBe(`> \`${body}\``);
    expect(reply).toContain(`\`/claim\` reads a number right after it as a duration: write one such as ${DURATION_FORMS}, or start your note with a word.`);
    expect(parseMarker(reply)).toMatchObject({ op: "claim", outcome: "invalid" });
    expect((await h.ledger.history(key(1))).map((e) => e.op)).toEqual(["note"]);
    expect(await h.ledger.current(key(1), h.now())).toBeNull();
  });
});

describe("/renew", () => {
  const t = useApp();

  it("renews the holder's lease: labels unchanged, so the reply is the only call", async () => {
    const { h, gh } = t;
    await claimFor(h, gh, alice, { first: true, body: "/claim 2h" });
    h.advance(HOUR);

    const before = gh.mark();
    await h.receive("issue_comment", commentPayload({ body: "/renew 1d", author: alice }));
    gh.comment(1);
    await h.drain();

    expect(gh.routes(before)).toEqual(["POST /issues/1/comments"]);
    const reply = gh.lastComment();
    expect(reply).toContain("**alice**'s lease (token **1**) was renewed and now expires 2026-12-02 13:00 UTC (in 1 day).");
    expect(parseMarker(reply)).toMatchObject({ op: "renew", outcome: "renewed", holder: "alice", token: 1, expires_at: "2026-12-02T13:00:00Z" });
    expect(await h.ledger.current(key(1), h.now())).toMatchObject({ token: 1, expiresAt: T0 + HOUR + DAY });
  });

  it("a `/renew` past `max_ttl` keeps the lease as it was and says what a renewal may ask for", async () => {
    const { h, gh } = t;
    await claimFor(h, gh, alice, { first: true, body: "/claim 2h" });
    const before = gh.mark();
    await h.receive("issue_comment", commentPayload({ body: "/renew 30.5d", author: alice }));
    gh.comment(1);
    await h.drain();

    expect(gh.routes(before)).toEqual(["POST /issues/1/comments"]);
    const reply = gh.lastComment();
    expect(reply.split("\n\n")[1]).toBe(
      "732 hours is longer than this repository allows (`max_ttl: 30d`), so nothing changed: renew for `30d` or less, or give no duration for the default (1 week).",
    );
    expect(parseMarker(reply)).toMatchObject({ op: "renew", outcome: "invalid", holder: "alice", token: 1 });
    expect(await h.ledger.current(key(1), h.now())).toMatchObject({ token: 1, expiresAt: T0 + 2 * HOUR });
  });

  it("answers `not_holder` to a renew by someone else, naming the holder", async () => {
    const { h, gh } = t;
    await claimFor(h, gh, alice, { first: true, body: "/claim 2h" });

    const before = gh.mark();
    await h.receive("issue_comment", commentPayload({ body: "/renew", author: bob }));
    gh.comment(1);
    await h.drain();

    expect(gh.routes(before)).toEqual(["POST /issues/1/comments"]);
    const reply = gh.lastComment();
    expect(reply).toContain("Only the holder can do that: this issue is held by **alice** (token **1**)");
    expect(parseMarker(reply)).toMatchObject({ op: "renew", outcome: "not_holder", holder: "alice", token: 1 });
    expect(await h.ledger.current(key(1), h.now())).toMatchObject({ holder: { login: "alice" }, expiresAt: T0 + 2 * HOUR });
  });

  it("answers `not_holder` to a renew after the lease expired", async () => {
    const { h, gh } = t;
    await claimFor(h, gh, alice, { first: true, body: "/claim 2h" });
    h.advance(2 * HOUR + 1);

    const before = gh.mark();
    await h.receive("issue_comment", commentPayload({ body: "/renew", author: alice }));
    gh.comment(1);
    await h.drain();

    expect(gh.routes(before)).toEqual(["POST /issues/1/comments"]);
    const reply = gh.lastComment();
    expect(reply).toContain("There is no live lease on this issue to renew.");
    expect(parseMarker(reply)).toMatchObject({ op: "renew", outcome: "not_holder", holder: null, token: null });
    expect(await h.ledger.current(key(1), h.now())).toBeNull();
  });
});

describe("/release", () => {
  const t = useApp();

  it("releases the holder's lease: deletes the holder and token labels, takes `claimed` off, unassigns, replies; the next claim gets token 2", async () => {
    const { h, gh } = t;
    await claimFor(h, gh, alice, { first: true });

    let before = gh.mark();
    await h.receive("issue_comment", commentPayload({ body: "/release", author: alice }));
    gh.release(1, "alice", 1);
    await h.drain();

    expect(gh.routes(before)).toEqual(releaseRoutes(1, "alice", 1));
    expect(gh.calls[before + 3]!.body).toEqual({ assignees: ["alice"] });
    const reply = gh.lastComment();
    expect(reply).toContain("**alice** released the lease (token **1**). The issue is free.");
    expect(reply).toContain("the next lease gets token **2**");
    expect(parseMarker(reply)).toMatchObject({ op: "release", outcome: "released", holder: "alice", token: 1 });
    expect(await h.ledger.current(key(1), h.now())).toBeNull();

    before = gh.mark();
    await claimFor(h, gh, bob);
    expect(gh.routes(before)).toEqual([
      "GET /labels/claimed-by: bob",
      "GET /labels/lease #2",
      "POST /issues/1/labels",
      "POST /issues/1/assignees",
      "POST /issues/1/comments",
    ]);
    expect(gh.calls[before + 2]!.body).toEqual({ labels: ["claimed", "claimed-by: bob", "lease #2"] });
    expect(parseMarker(gh.lastComment())).toMatchObject({ holder: "bob", token: 2 });
  });

  it("answers `/release` on a free issue with one reply saying there was no lease", async () => {
    const { h, gh } = t;
    gh.config(null);
    await h.receive("issue_comment", commentPayload({ body: "/release", author: alice }));
    gh.comment(1);
    await h.drain();
    expect(gh.writes().map((c) => c.method + " " + c.path)).toEqual(["POST /repos/Codertocat/Hello-World/issues/1/comments"]);
    expect(gh.lastComment()).toContain("There was no live lease on this issue; it is free.");
    expect(parseMarker(gh.lastComment())).toMatchObject({ op: "release", outcome: "released", holder: null, token: null });
  });

  it("refuses `/release @alice` by bob, who has only read permission: `forbidden`, nothing changes", async () => {
    const { h, gh } = t;
    await claimFor(h, gh, alice, { first: true });

    const before = gh.mark();
    gh.permission("bob", "read");
    await h.receive("issue_comment", commentPayload({ body: "/release @alice", author: bob }));
    gh.comment(1);
    await h.drain();

    expect(gh.routes(before)).toEqual(["GET /collaborators/bob/permission", "POST /issues/1/comments"]);
    const reply = gh.lastComment();
    expect(reply).toContain("That command is not allowed here, so nothing changed.");
    expect(reply).toContain("Only people with write, maintain or admin permission");
    expect(parseMarker(reply)).toMatchObject({ op: "release", outcome: "forbidden", holder: "alice", token: 1 });
    expect(mentionsIn(reply)).toEqual([]);
    expect(await h.ledger.current(key(1), h.now())).toMatchObject({ holder: { login: "alice" }, token: 1 });
  });

  it("lets a maintainer with write permission `/release @alice`: released, and the reply mentions @alice", async () => {
    const { h, gh } = t;
    await claimFor(h, gh, alice, { first: true });

    const before = gh.mark();
    gh.permission("maint", "write");
    await h.receive("issue_comment", commentPayload({ body: "/release @alice", author: maintainer }));
    gh.release(1, "alice", 1);
    await h.drain();

    expect(gh.routes(before)).toEqual(["GET /collaborators/maint/permission", ...releaseRoutes(1, "alice", 1)]);
    const reply = gh.lastComment();
    expect(reply).toContain("**maint** released @alice's lease (token **1**). The issue is free.");
    expect(mentionsIn(reply)).toEqual(["alice"]);
    expect(parseMarker(reply)).toMatchObject({ op: "release", outcome: "released", holder: "alice", token: 1 });
    expect(await h.ledger.current(key(1), h.now())).toBeNull();
    const last = (await h.ledger.history(key(1))).pop();
    expect(last).toMatchObject({ op: "force_release", outcome: "released", actor: { login: "maint" }, holder: { login: "alice" } });
  });

  it("answers `/release @carol` by a maintainer, when alice holds, with `not_holder` naming alice", async () => {
    const { h, gh } = t;
    await claimFor(h, gh, alice, { first: true });

    const before = gh.mark();
    gh.permission("maint", "maintain");
    await h.receive("issue_comment", commentPayload({ body: "/release @carol", author: maintainer }));
    gh.comment(1);
    await h.drain();

    expect(gh.routes(before)).toEqual(["GET /collaborators/maint/permission", "POST /issues/1/comments"]);
    const reply = gh.lastComment();
    expect(reply).toContain("Only the holder can do that: this issue is held by **alice** (token **1**)");
    expect(mentionsIn(reply)).toEqual([]);
    expect(parseMarker(reply)).toMatchObject({ op: "release", outcome: "not_holder", holder: "alice", token: 1 });
    expect(await h.ledger.current(key(1), h.now())).toMatchObject({ holder: { login: "alice" } });
  });
});

describe("/lease", () => {
  const t = useApp();

  it("answers with the holder, token, expiry and the recent tenures (claim, release, claim by another)", async () => {
    const { h, gh } = t;
    await claimFor(h, gh, alice, { first: true, body: "/claim 2h" });
    h.advance(HOUR);
    await h.receive("issue_comment", commentPayload({ body: "/release", author: alice }));
    gh.release(1, "alice", 1);
    await h.drain();
    h.advance(HOUR);
    await claimFor(h, gh, bob, { body: "/claim 1d" });
    h.advance(HOUR);

    const before = gh.mark();
    await h.receive("issue_comment", commentPayload({ body: "/lease", author: maintainer }));
    gh.comment(1);
    await h.drain();

    expect(gh.routes(before)).toEqual(["POST /issues/1/comments"]);
    const reply = gh.lastComment();
    expect(reply).toContain(
      "This issue is held by **bob** with lease token **2**, acquired 2026-12-01 14:00 UTC (1 hour ago); it expires 2026-12-02 14:00 UTC (in 23 hours).",
    );
    expect(reply).toContain("| Holder | Token | From | To | How it ended |");
    expect(reply).toContain("| **alice** | 1 | 2026-12-01 12:00 UTC (3 hours ago) | 2026-12-01 13:00 UTC (2 hours ago) | released |");
    expect(reply).toContain("| **bob** | 2 | 2026-12-01 14:00 UTC (1 hour ago) | 2026-12-02 14:00 UTC (in 23 hours) | live |");
    expect(parseMarker(reply)).toMatchObject({ op: "status", outcome: "status", holder: "bob", token: 2, expires_at: "2026-12-02T14:00:00Z" });
  });
});

describe("where and how a command is written", () => {
  const t = useApp();

  it("claims from a pull request comment the same way", async () => {
    const { h, gh } = t;
    gh.config(null);
    await h.receive("issue_comment", commentPayload({ body: "/claim", author: alice, issue: 7, pullRequest: true }));
    gh.claim(7, "alice", { createClaimed: true, token: 1 });
    await h.drain();
    expect(gh.calls[5]!.body).toEqual({ labels: ["claimed", "claimed-by: alice", "lease #1"] });
    expect(parseMarker(gh.lastComment())).toMatchObject({ op: "claim", outcome: "acquired", issue: 7, holder: "alice", token: 1 });
    expect(await h.ledger.current(key(7), h.now())).toMatchObject({ holder: { login: "alice" } });
  });

  it("runs a command that an edit added", async () => {
    const { h, gh } = t;
    gh.config(null);
    await h.receive("issue_comment", commentPayload({ body: "I can look at this.\n/claim", previousBody: "I can look at this.", author: alice }));
    gh.claim(1, "alice", { createClaimed: true, token: 1 });
    await h.drain();
    expect(parseMarker(gh.lastComment())).toMatchObject({ outcome: "acquired", holder: "alice" });
  });

  it("does nothing, with no HTTP call at all, for an edit that keeps the same command line and changes other text", async () => {
    const { h, gh } = t;
    await claimFor(h, gh, alice, { first: true });
    const rows = (await h.ledger.history(key(1))).length;

    const before = gh.mark();
    await h.receive("issue_comment", commentPayload({ body: "/CLAIM\n\nEDIT: fixed a typo", previousBody: "/claim\n\nEDIT: fixde a typo", author: alice }));
    await h.drain();
    expect(gh.calls.slice(before)).toEqual([]);
    expect(await h.ledger.history(key(1))).toHaveLength(rows);
  });

  it("does nothing for a deleted comment", async () => {
    const { h, gh } = t;
    await h.receive("issue_comment", commentPayload({ body: "/claim", author: alice, action: "deleted" }));
    await h.drain();
    expect(gh.calls).toEqual([]);
    expect(await h.ledger.history(key(1))).toEqual([]);
  });

  it("ignores the app's own comment (performed_via_github_app is this app)", async () => {
    const { h, gh } = t;
    await h.receive("issue_comment", commentPayload({ body: "/claim", author: alice, performedViaAppId: APP_ID }));
    await h.drain();
    expect(gh.calls).toEqual([]);
    expect(await h.ledger.history(key(1))).toEqual([]);
  });

  it("ignores a bot comment carrying the app's marker", async () => {
    const { h, gh } = t;
    const body = '/claim\n\n<!-- issue-leases: {"op":"claim","outcome":"acquired","issue":1,"holder":"alice","token":1,"expires_at":null} -->';
    await h.receive("issue_comment", commentPayload({ body, author: { login: "issue-leases[bot]", id: 5000, type: "Bot", association: "NONE" } }));
    await h.drain();
    expect(gh.calls).toEqual([]);
    expect(await h.ledger.history(key(1))).toEqual([]);
  });

  it("lets another bot claim", async () => {
    const { h, gh } = t;
    gh.config(null);
    await h.receive("issue_comment", commentPayload({ body: "/claim", author: robot }));
    gh.createLabel().lookups(`claimed-by: ${robot.login}`, "lease #1").addLabels(1).assign(1, robot.login).comment(1);
    await h.drain();
    expect(gh.calls[5]!.body).toEqual({ labels: ["claimed", "claimed-by: helper-bot[bot]", "lease #1"] });
    expect(parseMarker(gh.lastComment())).toMatchObject({ outcome: "acquired", holder: "helper-bot[bot]", token: 1 });
  });

  it.each([
    ["a block quote", "> /claim"],
    ["a nested quote", "Earlier:\n\n> > /claim 2h"],
    ["a fenced code block", "Type this:\n\n```\n/claim\n```"],
    ["a tilde fence", "~~~md\n/claim\n~~~"],
    ["inline code", "`/claim` is how you take an issue"],
    ["a code span over lines", "Say `\n/claim\n` to take it"],
  ])("ignores a command inside %s", async (_, body) => {
    const { h, gh } = t;
    await h.receive("issue_comment", commentPayload({ body, author: alice }));
    await h.drain();
    expect(gh.calls).toEqual([]);
    expect(await h.ledger.history(key(1))).toEqual([]);
  });

  it("runs only the first of two commands, and the reply says the other was ignored", async () => {
    const { h, gh } = t;
    gh.config(null);
    await h.receive("issue_comment", commentPayload({ body: "/claim 2h\n/release", author: alice }));
    gh.claim(1, "alice", { createClaimed: true, token: 1 });
    await h.drain();
    const reply = gh.lastComment();
    expect(reply.split("\n")[0]).toBe("> `/claim 2h`");
    expect(reply).toContain("Only the first command in a comment runs; 1 other command was ignored.");
    expect(await h.ledger.current(key(1), h.now())).toMatchObject({ holder: { login: "alice" } });
    expect((await h.ledger.history(key(1))).map((e) => e.op)).toEqual(["acquire"]);
  });

  it("finds a command at the end of a 65,536-character comment", async () => {
    const { h, gh } = t;
    const tail = "\n/claim 2h";
    const body = "lorem ipsum ".repeat(6000).slice(0, 65_536 - tail.length) + tail;
    expect(body).toHaveLength(65_536);
    gh.config(null);
    await h.receive("issue_comment", commentPayload({ body, author: alice }));
    gh.claim(1, "alice", { createClaimed: true, token: 1 });
    await h.drain();
    const reply = gh.lastComment();
    expect(reply.length).toBeLessThan(1000);
    expect(parseMarker(reply)).toMatchObject({ outcome: "acquired", holder: "alice", token: 1 });
  });

  it("quotes the user's command in a code span, so `/release @bob` mentions nobody", async () => {
    const { h, gh } = t;
    await claimFor(h, gh, alice, { first: true });

    gh.permission("maint", "admin");
    await h.receive("issue_comment", commentPayload({ body: "/release @bob", author: maintainer }));
    gh.comment(1);
    await h.drain();
    const reply = gh.lastComment();
    expect(reply.split("\n")[0]).toBe("> `/release @bob`");
    expect(mentionsIn(reply)).toEqual([]);
    expect(reply.replace(/`[^`]*`/g, "")).not.toContain("@bob");
    expect(parseMarker(reply)).toMatchObject({ outcome: "not_holder", holder: "alice" });
  });
});
