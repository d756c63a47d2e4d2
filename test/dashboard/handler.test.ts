/**
 * The board's routes in-process, with an injected clock (the end-to-end
 * tests cannot move the server's): a session's list of private repositories
 * is trusted 10 minutes, then the page sends the browser through the
 * sign-in again while the JSON listing shows public repositories; a session
 * ends after 8 hours; without sign-in set up, `/login` says so; the ledger
 * not answering is a 503 page, not a crash.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { Logger } from "probot";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { dashboardHandler } from "../../src/dashboard/dashboard.js";
import { sealSession, SESSION_MS } from "../../src/dashboard/session.js";
import type { DashboardSettings } from "../../src/dashboard/settings.js";
import { dashboardSettings } from "../../src/settings/board-settings.js";
import { SqliteLedger } from "../../src/ledger/sqlite/sqlite-ledger.js";

const T0 = 1_800_000_000_000;
const MINUTE = 60_000;
const pub = { repoId: 1, repo: "o/public" };
const priv = { repoId: 2, repo: "o/secret" };

describe("the board's routes, in-process", () => {
  let ledger: SqliteLedger;
  let server: Server;
  let base: string;
  let now: number;
  let settings: DashboardSettings;
  const log = { error: vi.fn(), warn: vi.fn(), info: vi.fn() } as unknown as Logger;

  const start = async (s: DashboardSettings) => {
    settings = s;
    const handler = dashboardHandler({ ledger, clock: () => now, log, settings: s, fetch: () => Promise.reject(new Error("no GitHub here")) });
    server = createServer((req, res) => void handler(req, res).then((handled) => handled || res.writeHead(404).end()));
    await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  };
  const sessionFor = (checkedAt: number) =>
    `il_session=${sealSession(settings.sessionKey!, { id: 7, login: "bob", repos: [priv.repoId], checkedAt, expiresAt: checkedAt + SESSION_MS, partial: false })}`;

  beforeEach(async () => {
    now = T0;
    ledger = new SqliteLedger(":memory:");
    await ledger.rememberVisibility({ ...pub, installation: 1, private: false }, T0);
    await ledger.rememberVisibility({ ...priv, installation: 1, private: true }, T0);
    await ledger.acquire({ ...pub, issue: 1 }, { id: 5, login: "alice" }, 60 * MINUTE * 24, T0);
    await ledger.acquire({ ...priv, issue: 2 }, { id: 7, login: "bob" }, 60 * MINUTE * 24, T0);
  });
  afterEach(async () => {
    await new Promise((done) => server.close(done));
    await ledger.close();
  });

  it("trusts a session's private repositories for 10 minutes, then renews them through the sign-in (the JSON shows public ones meanwhile)", async () => {
    await start(dashboardSettings({ GITHUB_CLIENT_ID: "Iv1.x", GITHUB_CLIENT_SECRET: "s" }));
    const cookie = sessionFor(T0);
    now = T0 + 10 * MINUTE;
    const fresh = await fetch(`${base}/leases?label=x`, { headers: { cookie }, redirect: "manual" });
    expect(fresh.status).toBe(200);
    const json = async () => (await (await fetch(`${base}/api/v1/leases`, { headers: { cookie } })).json()) as { leases: Array<{ repo: string }>; viewer: unknown };
    expect((await json()).leases.map((l) => l.repo)).toEqual(["o/public", "o/secret"]);

    now = T0 + 10 * MINUTE + 1;
    const stale = await fetch(`${base}/leases?label=x`, { headers: { cookie }, redirect: "manual" });
    expect(stale.status).toBe(302);
    expect(stale.headers.get("location")).toBe(`/login?return_to=${encodeURIComponent("/leases?label=x")}`);
    expect(await json()).toEqual({ leases: [expect.objectContaining({ repo: "o/public" })], page: 1, per_page: 100, total: 1, next: null, viewer: { login: "bob", id: 7 } });

    // After 8 hours the session is over: anonymous.
    now = T0 + SESSION_MS;
    expect((await json()).viewer).toBeNull();
    const over = await fetch(`${base}/leases`, { headers: { cookie }, redirect: "manual" });
    expect(over.status).toBe(200);
    expect(await over.text()).toContain("Sign in with GitHub");
  });

  it("without sign-in set up: public repositories, no sign-in link, /login says why, Mine cannot be asked for", async () => {
    await start(dashboardSettings({}));
    const page = await (await fetch(`${base}/leases`)).text();
    expect(page).toContain("Public repositories only");
    expect(page).not.toContain("/login");
    expect(page).not.toContain("o/secret");
    const login = await fetch(`${base}/login`, { redirect: "manual" });
    expect(login.status).toBe(404);
    expect(await login.text()).toContain("GITHUB_CLIENT_ID and GITHUB_CLIENT_SECRET");
    expect((await fetch(`${base}/leases?holder=@me`, { redirect: "manual" })).status).toBe(401);
  });

  it("lists only the repository's holders, expiries and ended tenures beside a repository's page, and says how many leases it shows", async () => {
    await start(dashboardSettings({}));
    const widgets = { repoId: 3, repo: "org/widgets" };
    await ledger.rememberVisibility({ ...widgets, installation: 1, private: false }, T0);
    await ledger.acquire({ ...widgets, issue: 5 }, { id: 8, login: "carol" }, 60 * MINUTE, T0);
    await ledger.acquire({ ...widgets, issue: 6 }, { id: 8, login: "carol" }, 60 * MINUTE, T0);
    await ledger.release({ ...widgets, issue: 6 }, { id: 8, login: "carol" }, T0 + 1);
    await ledger.acquire({ ...pub, issue: 9 }, { id: 5, login: "alice" }, 60 * MINUTE, T0);
    await ledger.release({ ...pub, issue: 9 }, { id: 5, login: "alice" }, T0 + 1);
    now = T0 + 2;
    const aside = (html: string) => /<aside>(.*)<\/aside>/s.exec(html)![1]!;
    const total = (html: string) => /<p class="muted total">(.*?)<\/p>/.exec(html)?.[1];

    const one = await (await fetch(`${base}/leases/o/public`)).text();
    expect(aside(one)).not.toMatch(/carol|widgets/);
    expect(aside(one)).toMatch(/alice/);
    expect(total(one)).toBe("1 live lease");
    const other = await (await fetch(`${base}/leases/org/widgets`)).text();
    expect(aside(other)).not.toMatch(/alice|o\/public/);
    for (const section of ["holders", "expiring", "ended"]) expect(new RegExp(`<section class="${section}">.*?carol.*?</section>`, "s").test(aside(other))).toBe(true);
    expect(total(other)).toBe("1 live lease");
    const all = await (await fetch(`${base}/leases`)).text();
    expect(aside(all)).toMatch(/alice[\s\S]*carol|carol[\s\S]*alice/);
    expect(total(all)).toBe("2 live leases");
    // The JSON says how many there are too.
    const json = (await (await fetch(`${base}/api/v1/leases?holder=carol`)).json()) as { total: number; leases: unknown[] };
    expect([json.total, json.leases.length]).toEqual([1, 1]);
  });

  it("answers a bad filter with 400 and a ledger that does not answer with 503, both as pages, and serves on", async () => {
    await start(dashboardSettings({}));
    const bad = await fetch(`${base}/leases?page=zero`);
    expect(bad.status).toBe(400);
    expect(await bad.text()).toContain("The page must be a whole number from 1 to 10000.");
    expect(bad.headers.get("content-security-policy")).toContain("default-src 'none'");
    vi.spyOn(ledger, "boardLeases").mockRejectedValueOnce(new Error("database is locked"));
    const down = await fetch(`${base}/leases`);
    expect(down.status).toBe(503);
    expect(log.error).toHaveBeenCalled();
    expect((await fetch(`${base}/leases`)).status).toBe(200);
  });
});
