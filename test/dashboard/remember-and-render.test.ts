/**
 * What the board remembers from real webhook payloads (GitHub's examples),
 * and what it renders: a repository's visibility and an issue's title come
 * from the events; titles, logins and labels are escaped; the filters in a
 * URL are read strictly.
 */
import type { Logger } from "probot";
import { describe, expect, it, vi } from "vitest";
import { parseFilters } from "../../src/dashboard/queries.js";
import { rememberer } from "../../src/dashboard/remember.js";
import { esc, renderBoard } from "../../src/dashboard/render.js";
import { SqliteLedger } from "../../src/ledger/sqlite/sqlite-ledger.js";
import type { BoardLease } from "../../src/ledger/board/board-types.js";
import { commentPayload, issuesPayload, REPO } from "../support/payloads.js";

const T0 = 1_800_000_000_000;
const HOUR = 3_600_000;
const quietLog = () => ({ warn: vi.fn() }) as unknown as Logger & { warn: ReturnType<typeof vi.fn> };

describe("remembering from webhooks", () => {
  it("learns a repository's visibility and a claimed issue's title and labels; an issue never claimed leaves nothing", async () => {
    const ledger = new SqliteLedger(":memory:");
    const log = quietLog();
    const remember = rememberer({ ledger, clock: () => T0, log });
    const key = { repoId: REPO.id, repo: `${REPO.owner}/${REPO.name}`, issue: 1 };

    const claim = commentPayload({ body: "Thanks!\n/claim 2h", issue: 1 });
    claim.issue.title = "Fix <the> parser";
    await remember("issue_comment", claim);
    await ledger.acquire(key, { id: 1001, login: "alice" }, 2 * HOUR, T0);
    const noise = commentPayload({ body: "just a comment", issue: 2 });
    await remember("issue_comment", noise);
    await ledger.acquire({ ...key, issue: 2 }, { id: 1002, login: "bob" }, HOUR, T0);

    const page = await ledger.boardLeases({ visible: [], page: 0, pageSize: 100 }, T0 + 1);
    expect(page.leases.map((l) => [l.issue, l.title])).toEqual([
      [2, null],
      [1, "Fix <the> parser"],
    ]);
    // Issue 2 is leased now: its next event brings its card.
    const labelled = issuesPayload("labeled", { issue: 2, labels: ["claimed", "bug"], label: "bug" });
    labelled.issue.title = "Second";
    await remember("issues", labelled);
    const again = await ledger.boardLeases({ visible: [], page: 0, pageSize: 100, label: "BUG" }, T0 + 1);
    expect(again.leases.map((l) => [l.issue, l.title, l.labels])).toEqual([[2, "Second", ["claimed", "bug"]]]);

    // The repository made private: gone for anonymous viewers.
    const privatized = issuesPayload("edited", { issue: 1 });
    privatized.repository.private = true;
    await remember("issues", privatized);
    expect((await ledger.boardLeases({ visible: [], page: 0, pageSize: 100 }, T0 + 1)).leases).toEqual([]);
    expect((await ledger.boardLeases({ visible: [REPO.id], page: 0, pageSize: 100 }, T0 + 1)).leases).toHaveLength(2);
    expect(log.warn).not.toHaveBeenCalled();
    await ledger.close();
  });

  it("keeps the card of a comment whose slash word a repository's alias may make a claim (`/take`), not of a mention or prose", async () => {
    const ledger = new SqliteLedger(":memory:");
    const remember = rememberer({ ledger, clock: () => T0, log: quietLog() });
    const key = { repoId: REPO.id, repo: `${REPO.owner}/${REPO.name}`, issue: 1 };
    const bodies: Array<[number, string]> = [
      [1, "On it.\n/take 2h"],
      [2, "@alice could you look?"],
      [3, "> /take"],
    ];
    for (const [issue, body] of bodies) {
      const p = commentPayload({ body, issue });
      p.issue.title = `Issue ${issue}`;
      await remember("issue_comment", p);
      await ledger.acquire({ ...key, issue }, { id: 1000 + issue, login: `user${issue}` }, HOUR, T0);
    }
    const page = await ledger.boardLeases({ visible: [], page: 0, pageSize: 100 }, T0 + 1);
    expect(page.leases.map((l) => [l.issue, l.title]).sort()).toEqual([
      [1, "Issue 1"],
      [2, null],
      [3, null],
    ]);
    await ledger.close();
  });

  it("logs and goes on when the ledger fails, and writes again on the next event", async () => {
    const ledger = new SqliteLedger(":memory:");
    const log = quietLog();
    const remember = rememberer({ ledger, clock: () => T0, log });
    const failing = vi.spyOn(ledger, "rememberVisibility").mockRejectedValueOnce(new Error("database is locked"));
    const p = commentPayload({ body: "/claim", issue: 1 });
    await expect(remember("issue_comment", p)).resolves.toBeUndefined();
    expect(log.warn).toHaveBeenCalledTimes(1);
    await remember("issue_comment", p);
    expect(failing).toHaveBeenCalledTimes(2);
    expect(await ledger.boardRepo(`${REPO.owner}/${REPO.name}`)).toMatchObject({ private: false });
    await ledger.close();
  });
});

describe("the board's HTML", () => {
  const lease = (over: Partial<BoardLease>): BoardLease => ({
    repoId: 1,
    repo: "o/r",
    issue: 7,
    holder: { id: 1, login: "alice" },
    token: 3,
    acquiredAt: T0 - HOUR,
    expiresAt: T0 + 3 * HOUR,
    title: "A title",
    labels: [],
    heldBy: { kind: "time" },
    ...over,
  });
  const page = (leases: BoardLease[], over: { total?: number; page?: number; more?: boolean } = {}) =>
    renderBoard({ now: T0, web: "https://github.com", viewer: null, signIn: true, here: "/leases" }, { mine: false, page: over.page ?? 1, label: `"><script>` }, {
      leases,
      more: over.more ?? false,
      total: over.total ?? leases.length,
      panels: { holders: [{ holder: { id: 9, login: "x<y" }, leases: 1 }], expiring: [], expiringCount: 0, ended: [] },
      repo: null,
    });
  const cell = (html: string, name: string) => [...html.matchAll(new RegExp(`<td class="[^"]*\\b${name}\\b[^"]*"[^>]*>(.*?)</td>`, "g"))].map((m) => m[1]);

  it("says an open-ended lease is held until released, and one with an expiry by time", () => {
    const html = page([lease({ issue: 1 }), lease({ issue: 2, expiresAt: null })]);
    expect(cell(html, "held-by")).toEqual(["by time", "until released"]);
    expect(cell(html, "expires")[1]).toBe('<span class="muted">no expiry</span>');
  });

  it("says how many wait in line for a lease (the wait list), and nothing when nobody does", () => {
    const html = page([lease({ issue: 1, waiting: 2 }), lease({ issue: 2 })]);
    expect(cell(html, "held-by")).toEqual(['by time<div class="muted">2 waiting in line</div>', "by time"]);
  });

  it("says how many live leases the filters match, and which of them the page shows", () => {
    const total = (html: string) => /<p class="muted total">(.*?)<\/p>/.exec(html)?.[1] ?? null;
    expect(total(page([lease({})]))).toBe("1 live lease");
    expect(total(page([lease({}), lease({ issue: 8 })]))).toBe("2 live leases");
    expect(total(page([lease({}), lease({ issue: 8 })], { page: 2, total: 102 }))).toBe("101–102 of 102 live leases");
    expect(total(page([lease({})], { total: 230, more: true }))).toBe("1–1 of 230 live leases");
    expect(total(page([], { page: 9, total: 230 }))).toBe("230 live leases in all");
    expect(total(page([], { total: 0 }))).toBeNull();
  });

  it("breaks a repository's name only after its slash: each segment whole, in the table and the panels", () => {
    const html = renderBoard({ now: T0, web: "https://github.com", viewer: null, signIn: true, here: "/leases" }, { mine: false, page: 1 }, {
      leases: [lease({ repo: "an-organisation/a-rather-long-repository-name" })],
      more: false,
      total: 1,
      panels: { holders: [], expiring: [lease({ repo: "o/<r>" })], expiringCount: 1, ended: [] },
      repo: null,
    });
    expect(cell(html, "repo")).toEqual([
      '<a href="/leases/an-organisation/a-rather-long-repository-name" title="an-organisation/a-rather-long-repository-name">' +
        '<span class="seg">an-organisation/</span><span class="seg">a-rather-long-repository-name</span></a>',
    ]);
    expect(html).toContain('<li><span class="seg">o/</span><span class="seg">&lt;r&gt;</span> ');
    expect(html).not.toMatch(/overflow-wrap:anywhere|word-break/);
  });

  it("escapes everything that came from GitHub, and shows the app's labels no more than the columns do", () => {
    const html = page([lease({ title: `<img src=x onerror=alert(1)> & "quotes"`, labels: ["bug", "claimed", "claimed-by: alice", "lease #3", "<b>"] })]);
    expect(html).toContain("&lt;img src=x onerror=alert(1)&gt; &amp; &quot;quotes&quot;");
    expect(html).not.toContain("<img");
    expect(html).not.toContain("<script>");
    expect(html).toContain("x&lt;y");
    expect(html).toContain('value="&quot;&gt;&lt;script&gt;"');
    expect(html).toContain(">bug</a>");
    expect(html).toContain(">&lt;b&gt;</a>");
    expect(html).not.toMatch(/>claimed<|claimed-by: alice<\/a>|lease #3<\/a>/);
    expect(html).toMatch(/<time datetime="2027-01-15T11:00:00Z" title="2027-01-15 11:00 UTC">in 3 hours<\/time>/);
    expect(esc(`<'&">`)).toBe("&lt;&#39;&amp;&quot;&gt;");
  });
});

describe("filters in the URL", () => {
  const parse = (q: string, path?: string) => parseFilters(new URLSearchParams(q), path);

  it("reads repo, holder (a login or @me), label and page; empty is no filter", () => {
    expect(parse("repo=o/r&holder=@Alice&label=good%20first%20issue&page=3")).toEqual({
      ok: true,
      value: { repo: "o/r", holder: "Alice", label: "good first issue", page: 3, mine: false },
    });
    expect(parse("holder=%40ME")).toEqual({ ok: true, value: { mine: true, page: 1 } });
    expect(parse("repo=&holder=&label=", "o/r")).toEqual({ ok: true, value: { repo: "o/r", mine: false, page: 1 } });
    expect(parse("holder=dependabot[bot]")).toMatchObject({ ok: true, value: { holder: "dependabot[bot]" } });
  });

  it("refuses what is not a filter, saying what is", () => {
    expect(parse("repo=o")).toEqual({ ok: false, error: "repo must be owner/name" });
    expect(parse("repo=o/r/x")).toEqual({ ok: false, error: "repo must be owner/name" });
    expect(parse("holder=a%20b")).toEqual({ ok: false, error: "holder must be a GitHub login or @me" });
    expect(parse(`label=${"x".repeat(101)}`)).toMatchObject({ ok: false });
    for (const page of ["0", "-1", "1.5", "abc", "10001"]) expect(parse(`page=${page}`)).toMatchObject({ ok: false });
  });
});
