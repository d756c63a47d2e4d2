/**
 * GET /api/v1/leases, the board's JSON twin, against the real server and
 * the fake GitHub, without a browser: what an anonymous caller and a
 * signed-in one see of a public and a private repository, `holder=@me`,
 * the filters, and the answers to bad input. And the sign-in's promises: the
 * state is checked, the user's token is revoked once the session has what
 * it needs, a forged cookie is nobody.
 */
import { describe, expect, it } from "vitest";
import { checkAnswer } from "../api/openapi-check.js";
import { alice, bob, carol, cookieOf, full, PUBLIC, SECRET, signIn, withBoard } from "./board-world.js";

/** GET, and the answer checked against the OpenAPI document the server serves. */
const leases = async (url: string, headers: Record<string, string> = {}) => {
  const res = await fetch(url, { headers });
  const body = (await res.json()) as Record<string, any>;
  checkAnswer("GET", new URL(url).pathname, res.status, body);
  return { status: res.status, body };
};
const names = (body: Record<string, any>) => (body.leases as Array<Record<string, any>>).map((l) => `${l.repo}#${l.issue} ${l.holder.login}`);

describe.concurrent("GET /api/v1/leases", () => {
  it("shows an anonymous caller public repositories only, and a signed-in one the private repositories GitHub says they can see", () =>
    withBoard(async ({ fake, server, claim }) => {
      await claim(PUBLIC, 1, alice, "Fix the parser", { ttl: "2d", labels: ["bug"] });
      await claim(SECRET, 2, bob, "Secret plan", { ttl: "1d" });
      await claim(PUBLIC, 3, carol, "Docs", { ttl: "3d" });
      const api = `${server.url}/api/v1/leases`;

      // The server's root is the board.
      const root = await fetch(`${server.url}/?holder=alice`, { redirect: "manual" });
      expect([root.status, root.headers.get("location")]).toEqual([302, "/leases?holder=alice"]);

      const anonymous = await leases(api);
      expect(anonymous.status).toBe(200);
      expect(names(anonymous.body)).toEqual([`${full(PUBLIC)}#1 alice`, `${full(PUBLIC)}#3 carol`]);
      expect(anonymous.body.leases[0]).toMatchObject({
        title: "Fix the parser",
        labels: ["bug"],
        token: 1,
        held_by: "time",
        holder: { login: "alice", id: alice.id },
        url: `${fake.url}/${full(PUBLIC)}/issues/1`,
      });
      expect(anonymous.body.viewer).toBeNull();
      // Nothing of the private repository: not its name, its issue, nor its holder.
      const raw = JSON.stringify(anonymous.body);
      for (const secret of [SECRET.name, "Secret plan", "bob"]) expect(raw).not.toContain(secret);
      // Asking for it by name is answered exactly as for a repository that does not exist.
      const hidden = await leases(`${api}?repo=${full(SECRET)}`);
      const missing = await leases(`${api}?repo=${SECRET.owner}/no-such-repo`);
      expect(hidden).toEqual(missing);
      expect(hidden.status).toBe(404);
      expect((await leases(`${api}?holder=@me`)).status).toBe(401);

      const bobs = await signIn(server, fake, "bob");
      expect(bobs.location).toBe("/leases");
      const signedIn = await leases(api, { cookie: bobs.cookie });
      expect(names(signedIn.body)).toEqual([`${full(SECRET)}#2 bob`, `${full(PUBLIC)}#1 alice`, `${full(PUBLIC)}#3 carol`]);
      expect(signedIn.body.viewer).toEqual({ login: "bob", id: bob.id });
      expect(names((await leases(`${api}?holder=@me`, { cookie: bobs.cookie })).body)).toEqual([`${full(SECRET)}#2 bob`]);
      expect(names((await leases(`${api}?repo=${full(SECRET)}`, { cookie: bobs.cookie })).body)).toEqual([`${full(SECRET)}#2 bob`]);
      // alice may not see the private repository: signed in, she sees what anyone sees, and her own.
      const alices = await signIn(server, fake, "alice");
      expect(names((await leases(api, { cookie: alices.cookie })).body)).toEqual(names(anonymous.body));
      expect(names((await leases(`${api}?holder=@me`, { cookie: alices.cookie })).body)).toEqual([`${full(PUBLIC)}#1 alice`]);
      // The tokens the sign-ins used were revoked once the sessions had what they need.
      expect(fake.liveUserTokens()).toEqual([]);
      expect(fake.unmatched).toEqual([]);
    }), 60_000);

  it("answers a bearer token as GitHub says: who it is (GraphQL viewer) and the private repositories it can access; a bad token is 401", () =>
    withBoard(async ({ fake, server, claim }) => {
      await claim(PUBLIC, 1, alice, "Fix the parser", { ttl: "2d" });
      await claim(SECRET, 2, bob, "Secret plan", { ttl: "1d" });
      fake.addToken("ghu_bob_token", { login: "bob", id: bob.id });
      fake.addToken("ghu_carol_token", { login: "carol", id: carol.id });
      const api = `${server.url}/api/v1/leases`;
      const asBob = { authorization: "Bearer ghu_bob_token" };
      const bobs = await leases(api, asBob);
      expect(names(bobs.body)).toEqual([`${full(SECRET)}#2 bob`, `${full(PUBLIC)}#1 alice`]);
      expect(bobs.body.viewer).toEqual({ login: "bob", id: bob.id });
      expect(names((await leases(`${api}?holder=@me`, asBob)).body)).toEqual([`${full(SECRET)}#2 bob`]);
      expect(names((await leases(`${api}?holder=@me`, { authorization: "token ghu_carol_token" })).body)).toEqual([]);
      // carol's token sees no installation: public repositories only, as anonymous callers.
      expect(names((await leases(api, { authorization: "Bearer ghu_carol_token" })).body)).toEqual([`${full(PUBLIC)}#1 alice`]);
      const bad = await leases(api, { authorization: "Bearer not-a-token" });
      expect(bad).toEqual({ status: 401, body: { error: { code: "unauthorized", message: "GitHub did not accept the token" } } });
      // Asked of GitHub once per token within the cache's minute.
      await leases(api, asBob);
      expect(fake.requests.filter((r) => r.path === "/user/installations").length).toBe(2);
      expect(fake.unmatched).toEqual([]);
    }), 60_000);

  it("another app's installation token, which sees a private repository but not its issues, is shown public repositories only", () =>
    withBoard(async ({ fake, server, claim }) => {
      fake.addRepo(full(SECRET), { private: true });
      await claim(PUBLIC, 1, alice, "Fix the parser", { ttl: "2d" });
      await claim(SECRET, 2, bob, "Secret plan", { ttl: "1d" });
      // Both installations list both repositories (GET /installation/repositories); only one may read issues.
      fake.addToken("ghs_checksApp", { login: "checks-app[bot]", id: 4401, issues: "none" });
      fake.addToken("ghs_triageApp", { login: "triage-app[bot]", id: 4402, issues: "read" });
      const api = `${server.url}/api/v1/leases`;
      const foreign = await leases(api, { authorization: "Bearer ghs_checksApp" });
      expect(names(foreign.body)).toEqual([`${full(PUBLIC)}#1 alice`]);
      const raw = JSON.stringify(foreign.body);
      for (const secret of [SECRET.name, "Secret plan", "bob"]) expect(raw).not.toContain(secret);
      const hidden = await leases(`${api}?repo=${full(SECRET)}`, { authorization: "Bearer ghs_checksApp" });
      expect(hidden).toEqual(await leases(`${api}?repo=${SECRET.owner}/no-such-repo`));
      // An installation token that may read the issues sees the private repository's lease.
      const reader = await leases(api, { authorization: "Bearer ghs_triageApp" });
      expect(names(reader.body)).toEqual([`${full(SECRET)}#2 bob`, `${full(PUBLIC)}#1 alice`]);
      expect(fake.unmatched).toEqual([]);
    }), 60_000);

  it("filters by holder and label, pages, and refuses what it does not understand with a clear answer", () =>
    withBoard(async ({ server, claim }) => {
      await claim(PUBLIC, 1, alice, "One", { ttl: "1d", labels: ["bug"] });
      await claim(PUBLIC, 2, carol, "Two", { ttl: "2d", labels: ["Good First Issue"] });
      await claim(PUBLIC, 3, alice, "Three", { ttl: "3d" });
      const api = `${server.url}/api/v1/leases`;
      expect(names((await leases(`${api}?holder=ALICE`)).body)).toEqual([`${full(PUBLIC)}#1 alice`, `${full(PUBLIC)}#3 alice`]);
      expect(names((await leases(`${api}?label=good%20first%20issue`)).body)).toEqual([`${full(PUBLIC)}#2 carol`]);
      expect((await leases(`${api}?page=2`)).body).toMatchObject({ leases: [], page: 2, per_page: 100, next: null });
      for (const [query, message] of [
        ["holder=not%20a%20login", "holder must be a GitHub login or @me"],
        ["repo=nope", "repo must be owner/name"],
        ["page=0", "page must be a whole number from 1 to 10000"],
      ] as const) {
        expect(await leases(`${api}?${query}`)).toEqual({ status: 422, body: { error: { code: "invalid_filter", message } } });
      }
      const wrongScheme = await leases(api, { authorization: "Basic Zm9vOmJhcg==" });
      expect(wrongScheme.status).toBe(401);
      expect(wrongScheme.body.error.code).toBe("unauthorized");
    }), 60_000);

  it("a session cookie that was tampered with, or a sign-in whose state does not match, is nobody", () =>
    withBoard(async ({ fake, server, claim }) => {
      await claim(SECRET, 2, bob, "Secret plan");
      const api = `${server.url}/api/v1/leases`;
      const { cookie } = await signIn(server, fake, "bob");
      expect(names((await leases(api, { cookie })).body)).toEqual([`${full(SECRET)}#2 bob`]);
      // Another account's id written into the cookie breaks its signature.
      const [name, value] = cookie.split("=") as [string, string];
      const [payload, mac] = value.split(".") as [string, string];
      const forged = Buffer.from(Buffer.from(payload, "base64url").toString().replace(`"l":"bob"`, `"l":"mallory"`)).toString("base64url");
      expect((await leases(api, { cookie: `${name}=${forged}.${mac}` })).body).toMatchObject({ leases: [], viewer: null });

      // A callback with a state that is not the sign-in cookie's: refused, no session.
      fake.signInAs("bob");
      const start = await fetch(`${server.url}/login`, { redirect: "manual" });
      const authorize = new URL(start.headers.get("location")!);
      expect(authorize.searchParams.get("client_id")).toBe("Iv1.boardtest");
      expect(authorize.searchParams.get("redirect_uri")).toBe(`${server.url}/oauth/callback`);
      const back = await fetch(`${server.url}/oauth/callback?code=x&state=not-the-state`, {
        redirect: "manual",
        headers: { cookie: cookieOf(start, "il_sign_in") },
      });
      expect(back.status).toBe(400);
      expect(back.headers.getSetCookie().some((c) => c.startsWith("il_session="))).toBe(false);
      // The cookie itself: HttpOnly and SameSite=Lax (not Secure over plain http).
      const sessionCookie = (await fetch(`${server.url}/logout`, { redirect: "manual", headers: { cookie } })).headers.getSetCookie()[0]!;
      expect(sessionCookie).toMatch(/^il_session=; Path=\/; HttpOnly; SameSite=Lax; Max-Age=0$/);
    }), 60_000);

  it("with DASHBOARD=off serves no page and no sign-in, and the JSON listing still", () =>
    withBoard(
      async ({ server, claim }) => {
        await claim(PUBLIC, 1, alice, "One");
        expect((await fetch(`${server.url}/leases`)).status).toBe(404);
        expect((await fetch(`${server.url}/`, { redirect: "manual" })).status).toBe(404);
        expect((await fetch(`${server.url}/login`, { redirect: "manual" })).status).toBe(404);
        expect(names((await leases(`${server.url}/api/v1/leases`)).body)).toEqual([`${full(PUBLIC)}#1 alice`]);
      },
      { DASHBOARD: "off" },
    ), 60_000);
});
