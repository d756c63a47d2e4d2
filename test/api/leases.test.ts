/**
 * The HTTP API end to end: the real server (`npm start` in a child process)
 * against the fake GitHub, which knows the callers' tokens (who each is,
 * which repositories it sees). Every answer is checked against the OpenAPI
 * document as it arrives (api-calls.ts), and no test's log holds a token.
 */
import { describe, expect, it } from "vitest";
import { alice, maintainer, REPO } from "../support/payloads.js";
import { sleep, waitFor, type ServerProcess } from "../support/server-process.js";
import { FULL, labels, leaseLabels, replies } from "../e2e/issue-view.js";
import { history } from "../e2e/ledger-file.js";
import { type LiveApp, withLiveApp } from "../e2e/live-app.js";
import { call, leasePath } from "./api-calls.js";

const BOT = { token: "ghs_botTokenAAAAAAAAAAAAAAAAAAAAAAAAAAAA", login: "agent[bot]", id: 4001 };
const OTHER = { token: "ghp_otherTokenBBBBBBBBBBBBBBBBBBBBBBBBBB", login: "other-bot", id: 4002 };
const ALICE = { token: "ghp_aliceTokenCCCCCCCCCCCCCCCCCCCCCCCCCC", login: alice.login, id: alice.id };

/** The fake knows the e2e repository by the id the webhook payloads carry, and the callers' tokens. */
function seed(live: LiveApp): void {
  live.fake.addRepo(FULL, { id: REPO.id });
  for (const t of [BOT, OTHER, ALICE]) live.fake.addToken(t.token, { login: t.login, id: t.id });
}

/** Nothing any server of the test logged or printed holds a token. */
function expectNoToken(server: ServerProcess): void {
  const output = server.stdout() + server.stderr();
  for (const t of [BOT, OTHER, ALICE]) expect(output).not.toContain(t.token);
}

/** Requests the app made that change something on GitHub (GraphQL queries are reads). */
function githubWrites(live: LiveApp) {
  return live.fake.requests.filter((r) => r.method !== "GET" && !r.path.endsWith("/graphql"));
}

describe.concurrent("The HTTP API", () => {
  it("two clients racing for one issue: one acquired, one 409 naming the winner; GitHub shows the winner once", () =>
    withLiveApp(async (live) => {
      seed(live);
      const server = await live.start({ LOG_LEVEL: "debug" });
      const [a, b] = await Promise.all([
        call(server, "POST", leasePath(1), { token: BOT.token, body: { ttl: "2h", instance: "worker-1" } }),
        call(server, "POST", leasePath(1), { token: OTHER.token, body: { ttl: "2h" } }),
      ]);
      const won = a.status === 200 ? a : b;
      const lost = a.status === 200 ? b : a;
      expect([a.status, b.status].sort()).toEqual([200, 409]);
      expect(won.body).toMatchObject({ outcome: "acquired", repo: FULL, issue: 1, token: 1 });
      // The acquired answer names the issue for the winner's next step (its title and page); the refusal names the lease.
      const { title, url, ...lease } = won.body;
      expect({ title, url }).toEqual({ title: "Issue 1", url: expect.stringMatching(new RegExp(`/${FULL}/issues/1$`)) });
      expect(lost.body).toEqual({ ...lease, outcome: "held" });
      const winner = won === a ? BOT : OTHER;
      expect(won.body.holder).toEqual({ login: winner.login, id: winner.id, instance: won === a ? "worker-1" : null });

      await live.settled(server);
      expect(labels(live.fake, 1)).toEqual(leaseLabels(winner.login, 1));
      // One reply, the winner's: the loser was answered over HTTP, not on the issue.
      const posted = replies(live.fake, 1);
      expect(posted).toHaveLength(1);
      expect(posted[0]).toMatchObject({ op: "claim", outcome: "acquired", holder: winner.login, token: 1 });
      expect(posted[0]!.body).toContain("through the issue-leases API");
      const status = await call(server, "GET", leasePath(1), { token: OTHER.token });
      expect(status.body).toMatchObject({ outcome: "status", holder: won.body.holder, token: 1 });
      expect(status.body.tenures).toEqual([expect.objectContaining({ holder: won.body.holder, token: 1, ended: "live" })]);
      expect(live.fake.unmatched).toEqual([]);
      expectNoToken(server);
    }), 120_000);

  it("a comment /claim against an API lease is held, naming the instance; an API claim against a comment's lease gets 409", () =>
    withLiveApp(async (live) => {
      seed(live);
      const server = await live.start();
      expect((await call(server, "POST", leasePath(1), { token: BOT.token, body: { instance: "w-7" } })).status).toBe(200);
      await live.comment(server, "/claim", alice, 1);
      await waitFor("both replies", () => replies(live.fake, 1).length === 2);
      const held = replies(live.fake, 1)[1]!;
      expect(held).toMatchObject({ op: "claim", outcome: "held", holder: BOT.login, token: 1 });
      expect(held.body).toContain("**agent[bot]** (instance `w-7`)");

      // The other way round, on issue 2: alice's comment first.
      await live.comment(server, "/claim 3d", alice, 2);
      await waitFor("alice's lease on #2", () => replies(live.fake, 2).length === 1);
      const refused = await call(server, "POST", leasePath(2), { token: BOT.token, body: { instance: "w-7" } });
      expect(refused.status).toBe(409);
      expect(refused.body).toMatchObject({ outcome: "held", token: 1, holder: { login: "alice", id: alice.id, instance: null } });
      // The same ledger: alice's own API call (no instance) is her comment's holder, so she may renew and release it.
      expect((await call(server, "PATCH", leasePath(2), { token: ALICE.token, body: { ttl: "1d" } })).body).toMatchObject({ outcome: "renewed", token: 1 });
      expect((await call(server, "DELETE", leasePath(2), { token: ALICE.token })).body).toMatchObject({ outcome: "released", token: 1 });
      await live.settled(server);
      expect(labels(live.fake, 2)).toEqual([]);
      expect(replies(live.fake, 2).map((r) => r.outcome)).toEqual(["acquired", "released"]);
      expectNoToken(server);
    }), 120_000);

  it("two instances of one account are two holders; the per-holder limit counts the account", () =>
    withLiveApp(async (live) => {
      seed(live);
      live.fake.setConfigFile(FULL, ".github/issue-leases.yml", "max_leases_per_holder: 1\n");
      const server = await live.start();
      const first = await call(server, "POST", leasePath(1), { token: BOT.token, body: { instance: "w1" } });
      expect(first.body).toMatchObject({ outcome: "acquired", holder: { instance: "w1" } });
      const second = await call(server, "POST", leasePath(1), { token: BOT.token, body: { instance: "w2" } });
      expect(second.status).toBe(409);
      expect(second.body).toMatchObject({ outcome: "held", holder: { id: BOT.id, instance: "w1" } });
      expect((await call(server, "PATCH", leasePath(1), { token: BOT.token, body: { instance: "w2" } })).body).toMatchObject({ outcome: "not_holder" });
      expect((await call(server, "DELETE", `${leasePath(1)}?instance=w2`, { token: BOT.token })).status).toBe(409);
      // Without its instance, the account is not the holder either.
      expect((await call(server, "DELETE", leasePath(1), { token: BOT.token })).status).toBe(409);
      // w2 on another issue: the account already holds its one lease here.
      const limited = await call(server, "POST", leasePath(2), { token: BOT.token, body: { instance: "w2" } });
      expect(limited.status).toBe(403);
      expect(limited.body.error).toMatchObject({ code: "forbidden", reason: "max_leases_per_holder" });
      expect((await call(server, "DELETE", `${leasePath(1)}?instance=w1`, { token: BOT.token })).body).toMatchObject({ outcome: "released" });
      expect((await call(server, "POST", leasePath(2), { token: BOT.token, body: { instance: "w2" } })).body).toMatchObject({ outcome: "acquired" });
      await live.settled(server);
      expect(replies(live.fake, 1).map((r) => r.outcome)).toEqual(["acquired", "released"]);
      expect(replies(live.fake, 2)[0]!.body).toContain("(instance `w2`)");
    }), 120_000);

  it("verify: valid while held, not after expiry, not after a maintainer's /release, not for another token or instance", () =>
    withLiveApp(async (live) => {
      seed(live);
      live.fake.setConfigFile(FULL, ".github/issue-leases.yml", "min_ttl: 1s\n");
      live.fake.setPermission(FULL, maintainer.login, "write");
      const server = await live.start({ SWEEP_INTERVAL_MS: "2000" });
      const verify = (token: number, instance?: string) =>
        call(server, "POST", `${leasePath(1)}/verify`, { token: BOT.token, body: { token, ...(instance ? { instance } : {}) } });

      const claimed = await call(server, "POST", leasePath(1), { token: BOT.token, body: { ttl: "3s", instance: "w1" } });
      expect(claimed.body.token).toBe(1);
      const valid = await verify(1, "w1");
      expect(valid.status).toBe(200);
      expect(valid.body).toEqual({ valid: true, lease: { repo: FULL, issue: 1, holder: { login: BOT.login, id: BOT.id, instance: "w1" }, token: 1, expires_at: claimed.body.expires_at, held_by: "time" } });
      expect((await verify(1)).body).toMatchObject({ valid: false, lease: { token: 1 } });
      expect((await verify(2, "w1")).status).toBe(409);
      const stranger = await call(server, "POST", `${leasePath(1)}/verify`, { token: OTHER.token, body: { token: 1, instance: "w1" } });
      expect(stranger.body).toMatchObject({ valid: false, lease: { token: 1 } });

      // After the expiry (the sweeper need not have run: the lease is not live any more).
      await waitFor("the expiry", () => Date.now() > Date.parse(claimed.body.expires_at) + 1000, 10_000);
      expect((await verify(1, "w1")).body).toEqual({ valid: false, lease: null });
      // The sweeper ends it as any lease, with one expire reply naming the instance.
      await waitFor("the expire reply", () => replies(live.fake, 1).find((r) => r.op === "expire"), 30_000);
      expect(replies(live.fake, 1).find((r) => r.op === "expire")!.body).toContain("@agent[bot] (instance `w1`)'s lease (token **1**) expired");

      // A new tenure, then a maintainer ends it with a comment.
      const again = await call(server, "POST", leasePath(1), { token: BOT.token, body: { ttl: "1h", instance: "w1" } });
      expect(again.body.token).toBe(2);
      expect((await verify(2, "w1")).status).toBe(200);
      await live.comment(server, `/release @${BOT.login}`, maintainer, 1);
      await waitFor("the maintainer's release", () => replies(live.fake, 1).some((r) => r.op === "release"));
      expect((await verify(2, "w1")).body).toEqual({ valid: false, lease: null });
      expect((await call(server, "PATCH", leasePath(1), { token: BOT.token, body: { instance: "w1" } })).body).toMatchObject({ outcome: "not_holder", holder: null });
      expectNoToken(server);
    }), 120_000);

  it("an Idempotency-Key: a retried claim, renewal or release answers the first answer and changes nothing more", () =>
    withLiveApp(async (live) => {
      seed(live);
      const server = await live.start();
      const claim = () => call(server, "POST", leasePath(1), { token: BOT.token, body: { ttl: "2h" }, headers: { "idempotency-key": "claim-1" } });
      const first = await claim();
      expect(first.body).toMatchObject({ outcome: "acquired", token: 1 });
      expect((await call(server, "DELETE", leasePath(1), { token: BOT.token })).body).toMatchObject({ outcome: "released", token: 1 });
      // The retry of the claim (its answer was "lost"): the first answer, byte for byte, and the issue stays free.
      const retried = await claim();
      expect(retried.status).toBe(200);
      expect(retried.text).toBe(first.text);
      expect((await call(server, "GET", leasePath(1), { token: BOT.token })).body).toMatchObject({ holder: null, token: null });

      // The same key from another caller, or for another issue, is another request.
      const other = await call(server, "POST", leasePath(1), { token: OTHER.token, body: {}, headers: { "idempotency-key": "claim-1" } });
      expect(other.body).toMatchObject({ outcome: "acquired", token: 2, holder: { login: OTHER.login } });
      const held = await call(server, "POST", leasePath(1), { token: BOT.token, body: {}, headers: { "idempotency-key": "claim-2" } });
      expect(held.status).toBe(409);
      // A retry of a 409 is still the 409, even after the issue became free.
      expect((await call(server, "DELETE", leasePath(1), { token: OTHER.token, headers: { "idempotency-key": "rel-1" } })).status).toBe(200);
      const heldAgain = await call(server, "POST", leasePath(1), { token: BOT.token, body: {}, headers: { "idempotency-key": "claim-2" } });
      expect(heldAgain.status).toBe(409);
      expect(heldAgain.text).toBe(held.text);
      // And a retried release releases nothing new.
      const release = await call(server, "DELETE", leasePath(1), { token: OTHER.token, headers: { "idempotency-key": "rel-1" } });
      expect(release.body).toMatchObject({ outcome: "released", token: 2 });
      // A retried heartbeat does not move the expiry again.
      expect((await call(server, "POST", leasePath(2), { token: BOT.token, body: {} })).status).toBe(200);
      const renew = () => call(server, "PATCH", leasePath(2), { token: BOT.token, body: { ttl: "1h" }, headers: { "idempotency-key": "hb-1" } });
      const beat = await renew();
      await sleep(1100);
      expect((await renew()).text).toBe(beat.text);
      expect(history(live.dbFile).filter((h) => h.issue === 2 && h.op === "renew")).toHaveLength(1);

      await live.settled(server);
      const claimsAndReleases = history(live.dbFile).filter((h) => h.issue === 1).map((h) => `${h.op}:${h.outcome}:${h.token}`);
      expect(claimsAndReleases).toEqual(["acquire:acquired:1", "release:released:1", "acquire:acquired:2", "acquire:held:2", "release:released:2"]);
      expect(replies(live.fake, 1).map((r) => `${r.outcome}:${r.token}`)).toEqual(["acquired:1", "released:1", "acquired:2", "released:2"]);
    }), 120_000);

  it("heartbeat renewals move the expiry and post nothing on GitHub", () =>
    withLiveApp(async (live) => {
      seed(live);
      const server = await live.start();
      const claimed = await call(server, "POST", leasePath(1), { token: BOT.token, body: { ttl: "30m", instance: "w1" } });
      await live.settled(server);
      const writes = githubWrites(live).length;
      const comments = live.fake.comments(FULL, 1).length;
      let last = claimed.body.expires_at as string;
      for (let i = 0; i < 5; i++) {
        await sleep(1100);
        const renewed = await call(server, "PATCH", leasePath(1), { token: BOT.token, body: { ttl: "30m", instance: "w1" } });
        expect(renewed.body).toMatchObject({ outcome: "renewed", token: 1 });
        expect(Date.parse(renewed.body.expires_at)).toBeGreaterThan(Date.parse(last));
        last = renewed.body.expires_at;
      }
      // Nothing queued, nothing written, no comment: a heartbeat notifies nobody.
      expect((await server.health()).body.outbox.pending).toBe(0);
      await sleep(500);
      expect(githubWrites(live)).toHaveLength(writes);
      expect(live.fake.comments(FULL, 1)).toHaveLength(comments);
      expect(history(live.dbFile).filter((h) => h.op === "renew").map((h) => h.outcome)).toEqual(Array(5).fill("renewed"));
      // With the identity, access and moderation cached, the heartbeats asked GitHub nothing either:
      // one GraphQL query for who the token is, one for what GitHub lets it do with the issue (the claim's).
      // (The app's own GraphQL writes, on GITHUB_WRITES=graphql, are not the API's: they ask neither.)
      const asked = live.fake.requests.filter((r) => r.path === "/graphql" && /viewer \{|issueOrPullRequest/.test(String((r.body as { query?: string }).query)));
      expect(asked.map((r) => /viewer \{/.test(String((r.body as { query?: string }).query)))).toEqual([true, false]);
    }), 120_000);

  it("401 without a token or with a bad one; 404 alike for a missing repository, a private one the token cannot see, and one without the app", () =>
    withLiveApp(async (live) => {
      seed(live);
      live.fake.addRepo("Codertocat/secret");
      live.fake.addRepo("Codertocat/no-app");
      live.fake.uninstall("Codertocat/no-app");
      live.fake.addToken("ghp_narrowTokenDDDDDDDDDDDDDDDDDDDDDDDDD", { login: "narrow", id: 4009, repos: [FULL, "Codertocat/no-app"] });
      const server = await live.start();
      for (const o of [{ token: null }, { headers: { authorization: "Basic dXNlcjpwYXNz" } }, { token: "ghp_notATokenGitHubKnows" }]) {
        const r = await call(server, "GET", leasePath(1), o);
        expect(r.status).toBe(401);
        expect(r.body.error.code).toBe("unauthorized");
        expect(r.headers.get("www-authenticate")).toBe("Bearer");
      }
      const narrow = "ghp_narrowTokenDDDDDDDDDDDDDDDDDDDDDDDDD";
      const missing = await call(server, "POST", leasePath(1, "Codertocat/does-not-exist"), { token: narrow, body: {} });
      const secret = await call(server, "POST", leasePath(1, "Codertocat/secret"), { token: narrow, body: {} });
      const noApp = await call(server, "POST", leasePath(1, "Codertocat/no-app"), { token: narrow, body: {} });
      for (const r of [missing, secret, noApp]) {
        expect(r.status).toBe(404);
        expect(r.text).toBe(missing.text);
        expect([...r.headers.entries()].filter(([h]) => h !== "date")).toEqual([...missing.headers.entries()].filter(([h]) => h !== "date"));
      }
      expect(missing.body).toEqual({ error: { code: "not_found", message: "Not Found" } });
      // The token does see the e2e repository, where the app is installed.
      expect((await call(server, "POST", leasePath(1), { token: narrow, body: {} })).status).toBe(200);
      expect(history(live.dbFile).map((h) => h.issue)).toEqual([1]);
      expect(server.stdout()).not.toContain(narrow);
      expect(server.stdout()).not.toContain("dXNlcjpwYXNz");
      // Not because headers go unlogged: Probot's HTTP log has them, with the credential redacted.
      expect(server.stdout()).toContain('"authorization":"[redacted]"');
      expectNoToken(server);
    }), 120_000);

  it("a claim through the API meets the same policies as a comment: a label limit, an exempt label, author_first", () =>
    withLiveApp(async (live) => {
      seed(live);
      live.fake.setConfigFile(
        FULL,
        ".github/issue-leases.yml",
        'limits_by_label: {"good first issue": 1}\nexempt_labels: [pinned]\nauthor_first: 2d\n',
      );
      // Issues the fake makes now: inside author_first's two days, so only their author or a writer (the bot) may claim.
      live.fake.setPermission(FULL, BOT.login, "write");
      live.fake.addIssue(FULL, 1, { labels: ["good first issue"], user: "someone" });
      live.fake.addIssue(FULL, 2, { labels: ["Good First Issue"], user: "someone" });
      live.fake.addIssue(FULL, 3, { labels: ["pinned"], user: "someone" });
      live.fake.addIssue(FULL, 4, { user: "someone" });
      const server = await live.start();
      const claim = (issue: number, token = BOT.token) => call(server, "POST", leasePath(issue), { token, body: { ttl: "2h" } });

      expect((await claim(1)).body).toMatchObject({ outcome: "acquired", held_by: "time" });
      const second = await claim(2);
      expect([second.status, second.body.error?.reason]).toEqual([403, "limits_by_label"]);
      expect(second.body.error.message).toContain("#1");
      const pinned = await claim(3);
      expect(pinned.body).toMatchObject({ outcome: "acquired", held_by: "exempt", expires_at: null });
      // GitHub failing to say the caller's permission (which author_first asks): 502, retry; nothing recorded.
      live.fake.failNextReads(/\/collaborators\/alice\/permission$/, 1, 403);
      const before = history(live.dbFile).length;
      const failed = await claim(4, ALICE.token);
      expect([failed.status, failed.body.error?.code, failed.headers.get("retry-after")]).toEqual([502, "github_unavailable", "5"]);
      expect(history(live.dbFile)).toHaveLength(before);
      const early = await claim(4, ALICE.token);
      expect([early.status, early.body.error?.reason]).toEqual([403, "author_first"]);
      // The label limit was decided in the acquire's transaction; author_first before it (a note).
      expect(history(live.dbFile).filter((h) => h.op !== "note").map((h) => `${h.issue}:${h.outcome}`)).toEqual(["1:acquired", "2:limit", "3:acquired"]);
    }), 120_000);

  it("bad requests get a clear 4xx and change nothing; the repository's rules answer 403 and 422 with the rule", () =>
    withLiveApp(async (live) => {
      seed(live);
      live.fake.setConfigFile(FULL, ".github/issue-leases.yml", "min_ttl: 1h\nbots: false\nclaimers: collaborators\n");
      live.fake.setPermission(FULL, OTHER.login, "write");
      live.fake.addIssue(FULL, 5, { state: "closed" });
      const server = await live.start();
      const post = (body: unknown, o: { raw?: string; headers?: Record<string, string>; token?: string; issue?: number } = {}) =>
        call(server, "POST", leasePath(o.issue ?? 1), { token: o.token ?? OTHER.token, ...(o.raw !== undefined ? { raw: o.raw } : { body }), headers: o.headers ?? {} });
      const code = (r: { body: any }) => r.body.error?.code;

      expect(code(await post(undefined, { raw: "{not json" }))).toBe("invalid_body");
      expect(code(await post({ ttl: "2h", tll: "3h" }))).toBe("invalid_body");
      expect(code(await post({ ttl: 7200 }))).toBe("invalid_body");
      expect(code(await post({ ttl: "7" }))).toBe("invalid_ttl");
      expect(code(await post({ instance: "two words" }))).toBe("invalid_body");
      expect(code(await post({ instance: "@alice" }))).toBe("invalid_body");
      expect(code(await post({}, { headers: { "idempotency-key": "with space" } }))).toBe("invalid_idempotency_key");
      const big = await post(undefined, { raw: JSON.stringify({ ttl: "2h", pad: "x".repeat(17_000) }) });
      expect(big.status).toBe(413);
      const tooShort = await post({ ttl: "30m" });
      expect(tooShort.status).toBe(422);
      expect(tooShort.body.error).toMatchObject({ code: "invalid_ttl", reason: "ttl" });
      // The same words as a comment's reply: the bound crossed, as the config writes it, and what may be asked for.
      expect(tooShort.body.error.message).toBe(
        "30 minutes is shorter than this repository allows (`min_ttl: 1h`), so nothing changed: claim for `1h` or more, or give no duration for the default (1 week).",
      );
      const tooLong = await call(server, "PATCH", leasePath(1), { token: OTHER.token, body: { ttl: "45d" } });
      expect([tooLong.status, tooLong.body.error.code, tooLong.body.error.reason]).toEqual([422, "invalid_ttl", "ttl"]);
      expect(tooLong.body.error.message).toMatch(/^45 days is longer than this repository allows \(`max_ttl: 30d`\), so nothing changed: renew for `30d` or less/);
      const bot = await post({}, { token: BOT.token });
      expect([bot.status, bot.body.error.reason]).toEqual([403, "bots"]);
      const notCollaborator = await post({}, { token: ALICE.token });
      expect([notCollaborator.status, notCollaborator.body.error.reason]).toEqual([403, "claimers"]);
      const closed = await post({}, { issue: 5 });
      expect([closed.status, closed.body.error.reason]).toEqual([403, "closed"]);
      const wrongMethod = await call(server, "PUT", leasePath(1), { token: OTHER.token, body: {}, unchecked: true });
      expect([wrongMethod.status, wrongMethod.headers.get("allow")]).toEqual([405, "GET, POST, PATCH, DELETE"]);

      // Nothing changed: the first good claim gets token 1, and nothing was posted.
      expect((await post({ ttl: "2h" })).body).toMatchObject({ outcome: "acquired", token: 1, holder: { login: OTHER.login } });
      await live.settled(server);
      expect(replies(live.fake, 1)).toHaveLength(1);
      expect(replies(live.fake, 5)).toHaveLength(0);
      expect(history(live.dbFile).filter((h) => h.op !== "note").map((h) => `${h.issue}:${h.outcome}`)).toEqual(["1:acquired"]);
    }), 120_000);

  it("a per-identity rate limit answers 429 with Retry-After", () =>
    withLiveApp(async (live) => {
      seed(live);
      const server = await live.start({ API_RATE_LIMIT: "6", API_RATE_BURST: "2" });
      const answers = [];
      for (let i = 0; i < 3; i++) answers.push(await call(server, "GET", leasePath(1), { token: BOT.token }));
      expect(answers.map((a) => a.status)).toEqual([200, 200, 429]);
      expect(answers[2]!.body.error.code).toBe("rate_limited");
      expect(Number(answers[2]!.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
      expect(Number(answers[2]!.headers.get("retry-after"))).toBeLessThanOrEqual(10);
      // Another identity has its own bucket.
      expect((await call(server, "GET", leasePath(1), { token: OTHER.token })).status).toBe(200);
    }), 60_000);
});
