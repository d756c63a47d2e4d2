/**
 * The board's cookies and settings: a session opens only with the key that
 * sealed it and before it ends; the repository list survives the trip and
 * is cut (and marked partial) to fit a cookie; the sign-in's return path is
 * always a path of this server; settings refuse what they cannot use.
 */
import { describe, expect, it } from "vitest";
import {
  cookie,
  openSession,
  openSignIn,
  safeReturnTo,
  sealSession,
  sealSignIn,
  type Session,
} from "../../src/dashboard/session.js";
import { dashboardSettings } from "../../src/settings/board-settings.js";

const key = Buffer.alloc(32, 7);
const other = Buffer.alloc(32, 8);
const T0 = 1_800_000_000_000;
const session: Session = { id: 42, login: "bob", repos: [777_000_001, 186_853_002, 5], checkedAt: T0, expiresAt: T0 + 1000, partial: false };

describe("board sessions", () => {
  it("open with the key that sealed them, before they end, with the same content", () => {
    const sealed = sealSession(key, session);
    expect(openSession(key, sealed, T0)).toEqual({ ...session, repos: [5, 186_853_002, 777_000_001] });
    expect(openSession(other, sealed, T0)).toBeNull();
    expect(openSession(key, sealed, T0 + 1000)).toBeNull();
    expect(openSession(key, undefined, T0)).toBeNull();
    expect(openSession(key, "garbage", T0)).toBeNull();
    // A sign-in cookie is not a session, though sealed with the same key.
    expect(openSession(key, sealSignIn(key, { state: "s", returnTo: "/leases", expiresAt: T0 + 1000 }), T0)).toBeNull();
  });

  it("refuse a payload changed after sealing", () => {
    const [payload, mac] = sealSession(key, session).split(".") as [string, string];
    const changed = Buffer.from(Buffer.from(payload, "base64url").toString().replace('"i":42', '"i":43')).toString("base64url");
    expect(openSession(key, `${changed}.${mac}`, T0)).toBeNull();
  });

  it("cut a list of repositories too long for a cookie, and say so", () => {
    const repos = Array.from({ length: 5_000 }, (_, i) => 100_000_000 + i * 7_919);
    const sealed = sealSession(key, { ...session, repos });
    expect(sealed.length).toBeLessThanOrEqual(3_600);
    const opened = openSession(key, sealed, T0)!;
    expect(opened.partial).toBe(true);
    expect(opened.repos.length).toBeGreaterThan(300);
    expect(repos.slice(0, opened.repos.length)).toEqual(opened.repos);
  });

  it("carry the sign-in's state and return path until it expires", () => {
    const sealed = sealSignIn(key, { state: "abc", returnTo: "/leases?holder=%40me", expiresAt: T0 + 10 });
    expect(openSignIn(key, sealed, T0)).toEqual({ state: "abc", returnTo: "/leases?holder=%40me", expiresAt: T0 + 10 });
    expect(openSignIn(key, sealed, T0 + 10)).toBeNull();
    expect(openSignIn(other, sealed, T0)).toBeNull();
  });

  it("return only to a path of this server", () => {
    expect(safeReturnTo("/leases/o/r?label=bug")).toBe("/leases/o/r?label=bug");
    for (const bad of ["https://evil.example/", "//evil.example/x", "/\\evil.example", "leases", "", null, "/a b", `/${"x".repeat(2_001)}`]) {
      expect(safeReturnTo(bad)).toBe("/leases");
    }
  });

  it("are HttpOnly, SameSite=Lax cookies, Secure when asked", () => {
    expect(cookie("il_session", "v", 60_000, true)).toBe("il_session=v; Path=/; HttpOnly; SameSite=Lax; Max-Age=60; Secure");
    expect(cookie("il_session", "", 0, false)).toBe("il_session=; Path=/; HttpOnly; SameSite=Lax; Max-Age=0");
  });
});

describe("board settings", () => {
  it("default to a board of public repositories on github.com, without sign-in", () => {
    expect(dashboardSettings({})).toMatchObject({ page: true, oauth: null, sessionKey: null, baseUrl: null, github: { web: "https://github.com", api: "https://api.github.com" } });
  });

  it("sign in against GitHub Enterprise Server when GHE_HOST is set, with a key derived from the client secret", () => {
    const s = dashboardSettings({ GHE_HOST: "ghe.example", GITHUB_CLIENT_ID: "Iv1.x", GITHUB_CLIENT_SECRET: "secret", DASHBOARD: "ON" });
    expect(s).toMatchObject({ page: true, oauth: { clientId: "Iv1.x", clientSecret: "secret" }, github: { web: "https://ghe.example", api: "https://ghe.example/api/v3" } });
    expect(s.sessionKey).toHaveLength(32);
    expect(dashboardSettings({ GITHUB_CLIENT_ID: "Iv1.x", GITHUB_CLIENT_SECRET: "secret" }).sessionKey).toEqual(s.sessionKey);
    expect(dashboardSettings({ GITHUB_CLIENT_ID: "Iv1.x", GITHUB_CLIENT_SECRET: "secret", SESSION_SECRET: "other" }).sessionKey).not.toEqual(s.sessionKey);
  });

  it("refuse, naming the variable, what they cannot use", () => {
    expect(() => dashboardSettings({ DASHBOARD: "maybe" })).toThrow(/DASHBOARD is "maybe": set it to "on" \(the default\) or "off"/);
    expect(() => dashboardSettings({ GITHUB_CLIENT_ID: "Iv1.x" })).toThrow(/GITHUB_CLIENT_SECRET is empty/);
    expect(() => dashboardSettings({ GITHUB_CLIENT_SECRET: "s" })).toThrow(/GITHUB_CLIENT_ID is empty/);
    expect(() => dashboardSettings({ PUBLIC_URL: "leases.example.com" })).toThrow(/PUBLIC_URL is "leases.example.com"/);
    expect(() => dashboardSettings({ PUBLIC_URL: "ftp://leases.example.com" })).toThrow(/must start with https:\/\//);
    expect(dashboardSettings({ DASHBOARD: "off", PUBLIC_URL: "https://leases.example.com/" })).toMatchObject({ page: false });
  });
});
