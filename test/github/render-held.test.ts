/**
 * How replies show a lease that something besides time holds: the holder's
 * open pull requests, or an exempt label. Rendered by the app's own code.
 */
import { describe, expect, it } from "vitest";
import type { HeldBy } from "../../src/ledger/leases/lease-types.js";
import { renderReply } from "../../src/github/render.js";
import { leaseView, type Reply } from "../../src/commands/reply.js";
import { parseMarker } from "../../src/github/reply-marker.js";

const AT = Date.parse("2026-12-01T12:00:00Z");

function status(heldBy: HeldBy, expiresAt: number | null = null): string {
  const lease = leaseView({ repoId: 1, repo: "o/r", issue: 12, holder: { id: 1, login: "alice" }, token: 3, acquiredAt: AT, expiresAt, heldBy });
  const reply: Reply = { op: "status", outcome: "status", issue: 12, at: AT, command: "/lease", actor: "bob", lease, ignored: 0 };
  return renderReply(reply);
}

describe("a lease held by its work, in replies", () => {
  it.each([
    [[34], "it is held while #34 is open."],
    [[34, 35], "it is held while #34 and #35 are open."],
    [[34, 35, 36], "it is held while #34, #35 and #36 are open."],
  ])("pull requests %j: %s", (pulls, text) => {
    const body = status({ kind: "pull", pulls });
    expect(body).toContain(text);
    expect(parseMarker(body)).toMatchObject({ expires_at: null, held_by: { kind: "pull", pulls } });
  });

  it("an exempt label", () => {
    const body = status({ kind: "exempt", pulls: [] });
    expect(body).toContain("it does not expire while the issue carries an exempt label.");
    expect(parseMarker(body)).toMatchObject({ expires_at: null, held_by: { kind: "exempt", pulls: [] } });
  });

  it("time: as before, and no `held_by` in the marker", () => {
    const body = status({ kind: "time" }, AT + 86_400_000);
    expect(body).toContain("it expires 2026-12-02 12:00 UTC (in 1 day).");
    expect(parseMarker(body)).not.toHaveProperty("held_by");
  });
});
