/**
 * The board in a real browser: Debian's chromium, driven by playwright-core
 * (no browser download), against the real server and the fake GitHub.
 * An anonymous visitor sees the public repository's leases and nothing of
 * the private one; a filter by holder; "Sign in with GitHub" through the
 * fake's OAuth endpoints shows the private lease and "Mine"; a lease claimed
 * by a comment appears on reload; a title with `<script>` in it is shown as
 * text and never runs. Saves a screenshot of the board to docs/board.png
 * (the manual's board page, docs/maintainers/board.md, shows it). And at a phone's width (400 px): no sideways
 * scrolling, every token and expiry in view, repository names broken only
 * at their slash.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type BrowserContext, chromium, type Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import { ROOT } from "../support/server-process.js";
import { alice, bob, carol, commentIn, full, PUBLIC, SECRET, withBoard } from "./board-world.js";

const CHROMIUM = "/usr/bin/chromium";
const SCREENSHOT = join(ROOT, "docs", "board.png");
/** A repository whose name is too long for a phone's line beside its owner. */
const LONG = { id: 777_000_003, owner: PUBLIC.owner, name: "the-long-named-repository-of-the-widgets", private: false };
const SCRIPT_TITLE = `<script>window.__pwned = true</script>Fix the <b>parser</b>`;

async function browse<T>(work: (context: BrowserContext, page: Page) => Promise<T>): Promise<T> {
  if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: install Debian's chromium package (apt-get install chromium), as .ci/run does`);
  const profile = mkdtempSync(join(tmpdir(), "issue-leases-chromium-"));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    viewport: { width: 1280, height: 520 },
    args: [
      "--headless",
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
    ],
  });
  try {
    return await work(context, context.pages()[0] ?? (await context.newPage()));
  } finally {
    await context.close();
    rmSync(profile, { recursive: true, force: true });
  }
}

/** The rows of the board's table, as `owner/name#N holder`. */
async function rows(page: Page): Promise<string[]> {
  return page.locator("tr.lease").evaluateAll((trs) =>
    trs.map((tr) => `${tr.getAttribute("data-repo")}#${tr.getAttribute("data-issue")} ${tr.querySelector("td.holder")?.textContent ?? ""}`),
  );
}

describe("the board in a browser", () => {
  it("anonymous, filtered, signed in, mine, a new claim on reload, a <script> title as text; and a screenshot", () =>
    withBoard(async ({ fake, server, claim }) => {
      await claim(PUBLIC, 1, alice, SCRIPT_TITLE, { ttl: "2d", labels: ["bug"] });
      await claim(SECRET, 2, bob, "Secret plan", { ttl: "20h" });
      await claim(PUBLIC, 3, carol, "Write the docs", { ttl: "5d", labels: ["documentation"] });
      await claim(PUBLIC, 4, alice, "Speed up the sweeper", { ttl: "12h" });
      await claim(PUBLIC, 5, carol, "Try the new theme", { ttl: "1d" });
      const release = await server.send("issue_comment", commentIn(PUBLIC, { body: "/release", author: carol, issue: 5, title: "Try the new theme" }));
      expect(release).toBe(200);

      await browse(async (context, page) => {
        // Anonymous: the public repository's leases by expiry, nothing of the private one.
        const res = await page.goto(`${server.url}/leases`);
        expect(res?.status()).toBe(200);
        expect(await rows(page)).toEqual([`${full(PUBLIC)}#4 alice`, `${full(PUBLIC)}#1 alice`, `${full(PUBLIC)}#3 carol`]);
        const text = await page.locator("body").innerText();
        for (const secret of [SECRET.name, "Secret plan", "bob"]) expect(text).not.toContain(secret);
        expect(text).toContain("Sign in with GitHub");
        // The title with a script in it is text: shown as typed, never run, no element made of it.
        expect(await page.locator("tr.lease[data-issue='1'] a.title").textContent()).toBe(SCRIPT_TITLE);
        expect(await page.evaluate("window.__pwned")).toBeUndefined();
        expect(await page.locator("tr.lease a.title b, tr.lease script").count()).toBe(0);
        // The side panels: who holds the most, what expires within a day, what ended and how.
        expect(await page.locator("section.holders li").allInnerTexts()).toEqual(["alice 2", "carol 1"]);
        expect(await page.locator("section.expiring li").count()).toBe(1);
        expect(await page.locator("section.ended li").innerText()).toMatch(/#5 Try the new theme: carol \(token 1\) released just now/);
        // The private repository's own page is answered as one that is not there.
        const hidden = await page.goto(`${server.url}/leases/${full(SECRET)}`);
        const hiddenText = await page.locator("h1").innerText();
        const missing = await page.goto(`${server.url}/leases/${SECRET.owner}/no-such-repo`);
        expect([hidden?.status(), missing?.status()]).toEqual([404, 404]);
        expect(await page.locator("h1").innerText()).toBe(hiddenText);

        // A filter by holder, through the form; the URL carries it, so the view can be shared.
        await page.goto(`${server.url}/leases`);
        await page.fill("input[name=holder]", "carol");
        await page.click("button[type=submit]");
        expect(new URL(page.url()).searchParams.get("holder")).toBe("carol");
        expect(await rows(page)).toEqual([`${full(PUBLIC)}#3 carol`]);

        // Sign in with GitHub, as bob: back on the page he was on, then the private lease shows.
        fake.signInAs("bob");
        await page.click("text=Sign in with GitHub");
        await page.waitForURL((url) => url.pathname === "/leases" && url.searchParams.get("holder") === "carol");
        expect(await page.locator("header .who").innerText()).toContain("Signed in as bob");
        await page.goto(`${server.url}/leases`);
        expect(await rows(page)).toEqual([`${full(PUBLIC)}#4 alice`, `${full(SECRET)}#2 bob`, `${full(PUBLIC)}#1 alice`, `${full(PUBLIC)}#3 carol`]);
        expect((await context.cookies()).find((c) => c.name === "il_session")).toMatchObject({ httpOnly: true, sameSite: "Lax" });
        // Mine.
        await page.click("header nav >> text=Mine");
        expect(await rows(page)).toEqual([`${full(SECRET)}#2 bob`]);
        expect(await page.locator("h1").innerText()).toBe("Live leases held by you");

        // A lease claimed by a comment appears on reload.
        await page.goto(`${server.url}/leases`);
        await claim(PUBLIC, 6, carol, "Claimed while you watched", { ttl: "3d" });
        await page.reload();
        expect(await rows(page)).toContain(`${full(PUBLIC)}#6 carol`);
        expect(await page.locator("tr.lease[data-issue='6'] a.title").textContent()).toBe("Claimed while you watched");

        await page.screenshot({ path: SCREENSHOT, fullPage: true });
        expect(readFileSync(SCREENSHOT).subarray(1, 4).toString()).toBe("PNG");

        // Sign out: the private lease is gone again.
        await page.click("text=Sign out");
        await page.waitForURL(`${server.url}/leases`);
        expect((await rows(page)).some((r) => r.includes(SECRET.name))).toBe(false);
        expect((await context.cookies()).some((c) => c.name === "il_session")).toBe(false);
      });
      expect(fake.liveUserTokens()).toEqual([]);
      expect(fake.unmatched).toEqual([]);
    }), 120_000);

  it("at 400 px: every lease's token and expiry in view without scrolling sideways, and a long repository name broken only at its slash", () =>
    withBoard(async ({ fake, server, claim }) => {
      fake.addRepo(full(LONG), { id: LONG.id });
      await claim(PUBLIC, 1, alice, "Fix the parser, which has a rather long title that must wrap on a phone", { ttl: "2d", labels: ["bug"] });
      await claim(LONG, 2, carol, "A lease in a repository with a long name", { ttl: "3d" });
      await claim(PUBLIC, 3, carol, "Soon over", { ttl: "12h" });

      await browse(async (_context, page) => {
        await page.setViewportSize({ width: 400, height: 800 });
        expect((await page.goto(`${server.url}/leases`))?.status()).toBe(200);
        expect(await page.locator("p.total").innerText()).toBe("3 live leases");
        const scroll = (await page.evaluate("({ width: document.scrollingElement.scrollWidth, client: document.scrollingElement.clientWidth })")) as {
          width: number;
          client: number;
        };
        expect(scroll.client).toBeLessThanOrEqual(400);
        expect(scroll.width).toBeLessThanOrEqual(scroll.client);
        for (const cell of ["td.token", "td.expires"]) {
          const cells = await page.locator(`tr.lease ${cell}`).all();
          expect(cells).toHaveLength(3);
          for (const one of cells) {
            const box = (await one.boundingBox())!;
            expect(box.width).toBeGreaterThan(0);
            expect(box.x).toBeGreaterThanOrEqual(0);
            expect(box.x + box.width).toBeLessThanOrEqual(scroll.client);
          }
        }
        // The long name wraps, at its slash: each segment on one line, the second below the first.
        const name = page.locator(`tr.lease[data-repo='${full(LONG)}'] td.repo a`);
        expect(await name.textContent()).toBe(full(LONG));
        const segments = await name.locator(".seg").evaluateAll((spans) =>
          spans.map((span) => ({ text: span.textContent, lines: span.getClientRects().length, top: span.getBoundingClientRect().top })),
        );
        expect(segments.map((s) => [s.text, s.lines])).toEqual([
          [`${LONG.owner}/`, 1],
          [LONG.name, 1],
        ]);
        expect(segments[1]!.top).toBeGreaterThan(segments[0]!.top);
      });
      expect(fake.unmatched).toEqual([]);
    }), 120_000);
});
