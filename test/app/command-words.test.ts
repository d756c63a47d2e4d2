/**
 * A repository's own words for the commands, end to end: aliases
 * (`commands:`), the mention form (`mentions: true`) and `/help`, through
 * `probot.receive` with GitHub mocked strictly.
 */
import { describe, expect, it } from "vitest";
import { parseMarker } from "../../src/github/reply-marker.js";
import { T0, useApp } from "../support/app-harness.js";
import { alice, bob, commentPayload, REPO } from "../support/payloads.js";

const HOUR = 3_600_000;
const key = (issue: number) => ({ repoId: REPO.id, repo: `${REPO.owner}/${REPO.name}`, issue });

const ALIASES = `
commands:
  take: claim
  /unassign-me: release
`;

describe("aliases", () => {
  const t = useApp();

  it("reads `/take 2h` as `/claim 2h` and `/unassign-me` as `/release`: the same lease, token and writes, the reply quoting what was typed", async () => {
    const { h, gh } = t;
    gh.config(ALIASES);
    await h.receive("issue_comment", commentPayload({ body: "Happy to help.\n/take 2h on it now", author: alice, issue: 1 }));
    gh.claim(1, "alice", { createClaimed: true, token: 1 });
    await h.drain();
    const claimed = gh.lastComment();
    expect(claimed.split("\n")[0]).toBe("> `/take 2h on it now`");
    expect(claimed).toContain("**alice** now holds this issue with lease token **1**");
    expect(parseMarker(claimed)).toMatchObject({ op: "claim", outcome: "acquired", holder: "alice", token: 1, expires_at: "2026-12-01T14:00:00Z" });
    expect(await h.ledger.current(key(1), h.now())).toMatchObject({ holder: { login: "alice" }, token: 1, expiresAt: T0 + 2 * HOUR });

    const before = gh.mark();
    await h.receive("issue_comment", commentPayload({ body: "/Unassign-Me.", author: alice, issue: 1 }));
    gh.release(1, "alice", 1);
    await h.drain();
    const released = gh.lastComment();
    expect(released.split("\n")[0]).toBe("> `/Unassign-Me.`");
    expect(parseMarker(released)).toMatchObject({ op: "release", outcome: "released", holder: "alice", token: 1 });
    expect(gh.comments(before)).toHaveLength(1);
    expect(await h.ledger.current(key(1), h.now())).toBeNull();
  });

  it("answers an alias's bad duration naming the word as typed, and changes nothing", async () => {
    const { h, gh } = t;
    gh.config(ALIASES);
    await h.receive("issue_comment", commentPayload({ body: "/take 2 soon", author: alice, issue: 1 }));
    gh.comment(1);
    await h.drain();
    expect(gh.lastComment()).toContain("`/take` reads a number right after it as a duration");
    expect(parseMarker(gh.lastComment())).toMatchObject({ op: "claim", outcome: "invalid" });
    expect(await h.ledger.current(key(1), h.now())).toBeNull();
  });

  it("reads a slash word the repository does not define as no command: the config is read, nothing is written", async () => {
    const { h, gh } = t;
    gh.config(null);
    await h.receive("issue_comment", commentPayload({ body: "/take", author: alice, issue: 1 }));
    await h.drain();
    expect(gh.writes()).toEqual([]);
    expect(await h.ledger.current(key(1), h.now())).toBeNull();
  });
});

describe("the mention form", () => {
  const t = useApp();

  it("reads `@<app-slug> claim` where `mentions: true`, asking GitHub the app's slug once", async () => {
    const { h, gh } = t;
    gh.config("mentions: true\ncommands:\n  take: claim\n");
    gh.expect("GET", "/app", 200, { id: 777, slug: "issue-leases", name: "issue-leases" });
    await h.receive("issue_comment", commentPayload({ body: "@issue-leases claim 2h", author: alice, issue: 1 }));
    gh.claim(1, "alice", { createClaimed: true, token: 1 });
    await h.drain();
    expect(gh.routes()).toContain("GET /app");
    expect(parseMarker(gh.lastComment())).toMatchObject({ op: "claim", outcome: "acquired", holder: "alice", token: 1 });

    // The slug is remembered: an alias after the mention costs no second read of it.
    const before = gh.mark();
    await h.receive("issue_comment", commentPayload({ body: "@Issue-Leases take", author: bob, issue: 2 }));
    gh.claim(2, "bob", { token: 1 });
    await h.drain();
    expect(gh.routes(before)).not.toContain("GET /app");
    expect(parseMarker(gh.lastComment())).toMatchObject({ op: "claim", holder: "bob", token: 1 });
  });

  it("does not read the mention form, nor ask the slug, where the repository leaves it off", async () => {
    const { h, gh } = t;
    gh.config(null);
    await h.receive("issue_comment", commentPayload({ body: "@issue-leases claim", author: alice, issue: 1 }));
    await h.drain();
    expect(gh.routes()).not.toContain("GET /app");
    expect(gh.writes()).toEqual([]);
    expect(await h.ledger.current(key(1), h.now())).toBeNull();
  });
});

const HELP_CONFIG = `
commands:
  take: claim
  assign-me: claim
  abandon: release
default_ttl: 3d
max_ttl: 14d
reminder_before: 12h
max_leases_per_holder: 2
limits_by_label:
  "good first issue": 1
max_replies_per_hour: 1
assignment: claims
`;

describe("/help", () => {
  const t = useApp();

  it("answers with the commands, this repository's aliases, its durations and limits; changes no lease; rate-limited like every reply", async () => {
    const { h, gh } = t;
    gh.config(HELP_CONFIG);
    await h.receive("issue_comment", commentPayload({ body: "/help", author: bob, issue: 1 }));
    gh.comment(1);
    await h.drain();
    expect(gh.writes().map((c) => `${c.method} ${c.path}`)).toEqual([`POST /repos/${REPO.owner}/${REPO.name}/issues/1/comments`]);
    const help = gh.lastComment();
    expect(help.split("\n")[0]).toBe("> `/help`");
    expect(help).toContain("| `/claim [duration] [note]` | `/take`, `/assign-me` |");
    expect(help).toContain("| `/release [note]` | `/abandon` |");
    expect(help).toContain("| `/renew [duration]` |  |");
    expect(help).toContain("A lease lasts 3 days unless you name a duration from 1 minute to 2 weeks");
    expect(help).toContain("its holder is reminded 12 hours before it ends");
    expect(help).toContain("One person may hold at most 2 leases in this repository and 1 lease on issues labelled `good first issue`.");
    expect(help).toContain("The app answers one person's commands at most once an hour here");
    expect(help).not.toContain("mention of the app");
    expect(help).toContain("Assigning someone in the issue's sidebar, by someone with write permission, gives them a lease");
    expect(parseMarker(help)).toMatchObject({ op: "help", outcome: "help", issue: 1, holder: null, token: null });
    expect(await h.ledger.current(key(1), h.now())).toBeNull();

    // `/lease help` is the same; past bob's one reply an hour it is told once, then not posted.
    await h.receive("issue_comment", commentPayload({ body: "/lease help", author: bob, issue: 1 }));
    gh.comment(1);
    await h.drain();
    const over = gh.mark();
    await h.receive("issue_comment", commentPayload({ body: "/help", author: bob, issue: 1 }));
    await h.drain();
    expect(gh.writes(over)).toEqual([]);
    expect(gh.comments()).toHaveLength(2);
  });
});
