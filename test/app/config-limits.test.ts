/**
 * A config file too big to parse, end to end through `probot.receive`: the
 * command gets one `invalid` reply naming the limit, the refusal is cached
 * like any config, and another installation's command is answered meanwhile.
 */
import { parseDocument } from "yaml";
import { describe, expect, it, vi } from "vitest";
import { parseMarker } from "../../src/github/reply-marker.js";
import { GitHubMock, useApp } from "../support/app-harness.js";
import { alice, bob, commentPayload, REPO } from "../support/payloads.js";

// The parser, watched: what it was given, to show that the big file never reached it.
vi.mock("yaml", async (importOriginal) => {
  const actual = await importOriginal<typeof import("yaml")>();
  return { ...actual, parseDocument: vi.fn(actual.parseDocument) };
});

/** 300,000 keys in one mapping, 4.9 MiB: minutes of parsing for the `yaml` library. */
const HUGE = Array.from({ length: 300_000 }, (_, i) => `key${i}: ${i}`).join("\n") + "\n";

/** A comment in a repository of another owner, through another installation. */
function otherInstallation(body: string) {
  const p = commentPayload({ body, author: bob, repo: { id: 999_001, name: "tools" } });
  p.repository.owner = { ...p.repository.owner, login: "octo-org", id: 999_002 };
  p.repository.full_name = "octo-org/tools";
  p.installation = { id: 5151, node_id: "I_2" };
  return p;
}

describe("a config file over the size limit", () => {
  const t = useApp();

  it("a 300k-key config: refused unparsed, cached, and another installation answered during it", async () => {
    const { h, gh } = t;
    const other = new GitHubMock("octo-org", "tools");
    vi.mocked(parseDocument).mockClear();
    gh.config(HUGE, "unread");
    other.config("default_ttl: 2d\n");

    // Both deliveries at once: the refusal does not hold up the other installation's command.
    await Promise.all([
      h.receive("issue_comment", commentPayload({ body: "/claim", author: alice })),
      h.receive("issue_comment", otherInstallation("/claim")),
    ]);
    gh.comment(1);
    other.claim(1, "bob", { createClaimed: true, token: 1 });
    await h.drain();

    const refusal = gh.lastComment();
    expect(refusal).toContain("That command was not understood, so nothing changed.");
    expect(refusal).toMatch(/`\.github\/issue-leases\.yml` is 4\.9 MiB, over the 64 KiB a config may have, so it was not read/);
    expect(parseMarker(refusal)).toMatchObject({ op: "claim", outcome: "invalid", holder: null });
    expect(parseMarker(other.lastComment())).toMatchObject({ op: "claim", outcome: "acquired", holder: "bob", token: 1 });
    // Decided on the raw size: the parser saw the other installation's file, never the big one.
    expect(vi.mocked(parseDocument).mock.calls.map(([text]) => String(text))).toEqual(["default_ttl: 2d\n"]);
    const key = { repoId: REPO.id, repo: `${REPO.owner}/${REPO.name}`, issue: 1 };
    expect(await h.ledger.current(key, h.now())).toBeNull();

    // Cached like any config: a second command within the cache's time reads nothing and gets the same answer.
    const before = gh.mark();
    h.advance(60_000);
    await h.receive("issue_comment", commentPayload({ body: "/claim", author: alice }));
    gh.comment(1);
    await h.drain();
    expect(gh.routes(before)).toEqual(["POST /issues/1/comments"]);
    expect(gh.lastComment()).toContain("over the 64 KiB a config may have");
  });
});
