/**
 * The board's Ready view in-process, over a real SQLite ledger's inventory:
 * a repository's free open issues that match the filter, in the order
 * claim-next takes them (label order, then oldest first), held ones counted
 * but not listed; a private repository is "not there" to an anonymous viewer
 * and shown to a session that may see it; a malformed filter is a 400; a
 * hostile title is text, never markup.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { Logger } from "probot";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { dashboardHandler } from "../../src/dashboard/dashboard.js";
import { sealSession, SESSION_MS } from "../../src/dashboard/session.js";
import { dashboardSettings } from "../../src/settings/board-settings.js";
import type { IssueSnapshot } from "../../src/ledger/inventory/inventory-types.js";
import { SqliteLedger } from "../../src/ledger/sqlite/sqlite-ledger.js";

const T0 = 1_800_000_000_000;
const HOUR = 3_600_000;
const pub = { repoId: 1, repo: "o/public" };
const priv = { repoId: 2, repo: "o/secret" };

function issue(repoId: number, n: number, labels: string[], extra: Partial<IssueSnapshot> = {}): IssueSnapshot {
  return {
    repoId,
    issue: n,
    title: `Issue ${n}`,
    labels,
    assignees: [],
    milestone: null,
    author: { id: 100 + n, login: `author${n}` },
    createdAt: T0 - 100 * HOUR + n * HOUR,
    state: "open",
    blockedByOpen: null,
    openSubIssues: null,
    updatedAt: T0 - HOUR,
    ...extra,
  };
}

/** The issue numbers of the view's rows, in order. */
function rows(html: string): number[] {
  return [...html.matchAll(/<tr class="ready" data-issue="(\d+)"/g)].map((m) => Number(m[1]));
}

describe("the board's Ready view", () => {
  let ledger: SqliteLedger;
  let server: Server;
  let base: string;
  const settings = dashboardSettings({ GITHUB_CLIENT_ID: "Iv1.x", GITHUB_CLIENT_SECRET: "s" });
  const log = { error: vi.fn(), warn: vi.fn(), info: vi.fn() } as unknown as Logger;
  const page = async (path: string, cookie?: string) => {
    const res = await fetch(`${base}${path}`, { redirect: "manual", ...(cookie ? { headers: { cookie } } : {}) });
    return { status: res.status, html: await res.text() };
  };

  beforeEach(async () => {
    ledger = new SqliteLedger(":memory:");
    await ledger.rememberVisibility({ ...pub, installation: 1, private: false }, T0);
    await ledger.rememberVisibility({ ...priv, installation: 1, private: true }, T0);
    await ledger.rememberIssues(
      [
        issue(1, 1, ["bug"]),
        issue(1, 2, ["bug", "priority: high"]),
        issue(1, 3, ["docs"]),
        issue(1, 4, ["bug"], { title: '<script>alert("@x")</script>' }),
        issue(1, 5, ["bug"], { assignees: [{ id: 7, login: "bob" }] }),
        issue(1, 6, ["bug"], { state: "closed" }),
        issue(2, 1, ["bug"]),
      ],
      T0,
    );
    await ledger.acquire({ ...pub, issue: 1 }, { id: 5, login: "alice" }, 24 * HOUR, T0);
    const handler = dashboardHandler({ ledger, clock: () => T0, log, settings, fetch: () => Promise.reject(new Error("no GitHub here")) });
    server = createServer((req, res) => void handler(req, res).then((handled) => handled || res.writeHead(404).end()));
    await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterEach(async () => {
    await new Promise((done) => server.close(done));
    await ledger.close();
  });

  it("lists the free open issues that match, in claim-next's order, and counts the held ones", async () => {
    const all = await page("/leases/o/public/ready");
    expect(all.status).toBe(200);
    // #1 is held; #5, assigned to someone else, does not match (anonymous: only unassigned); #6 is closed.
    expect(rows(all.html)).toEqual([2, 3, 4]);
    expect(all.html).toContain("4 open issues match: 1 held, 3 free.");

    const bugs = await page("/leases/o/public/ready?label=bug&order=priority%3A%20high&exclude_label=docs");
    expect(rows(bugs.html)).toEqual([2, 4]);
    expect(bugs.html).toContain("3 open issues match: 1 held, 2 free.");
    // The same call for an agent is shown beside it.
    expect(bugs.html).toContain("POST /api/v1/repos/o/public/leases/next");
    expect(bugs.html).toContain("&quot;order&quot;:[&quot;priority: high&quot;]");

    // The repository's board links to it.
    expect((await page("/leases/o/public")).html).toContain('href="/leases/o/public/ready"');
  });

  it("counts an issue assigned to the signed-in viewer as theirs to take", async () => {
    const cookie = `il_session=${sealSession(settings.sessionKey!, { id: 7, login: "bob", repos: [], checkedAt: T0, expiresAt: T0 + SESSION_MS, partial: false })}`;
    expect(rows((await page("/leases/o/public/ready?label=bug", cookie)).html)).toEqual([2, 4, 5]);
  });

  it("answers a private repository as not there to an anonymous viewer, and shows it to one who may see it", async () => {
    expect((await page("/leases/o/secret/ready")).status).toBe(404);
    expect((await page("/leases/o/nowhere/ready")).status).toBe(404);
    const cookie = `il_session=${sealSession(settings.sessionKey!, { id: 7, login: "bob", repos: [priv.repoId], checkedAt: T0, expiresAt: T0 + SESSION_MS, partial: false })}`;
    const seen = await page("/leases/o/secret/ready", cookie);
    expect(seen.status).toBe(200);
    expect(rows(seen.html)).toEqual([1]);
  });

  it("refuses a malformed filter with a 400 and shows a hostile title as text", async () => {
    const bad = await page(`/leases/o/public/ready?label=${"x".repeat(101)}`);
    expect(bad.status).toBe(400);
    expect(bad.html).toContain("label must be a label");
    const html = (await page("/leases/o/public/ready")).html;
    expect(html).not.toContain("<script>");
    expect(html).toContain("&lt;script&gt;alert(&quot;@x&quot;)&lt;/script&gt;");
  });

  it("answers 503, not a crash, when the ledger does not answer", async () => {
    await ledger.close();
    const res = await page("/leases/o/public/ready");
    expect(res.status).toBe(503);
    ledger = new SqliteLedger(":memory:");
  });
});
