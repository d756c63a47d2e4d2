/**
 * Who a token is, asked of the fake GitHub's GraphQL `viewer` over HTTP,
 * with the clock injected: remembered at most 5 minutes by the token's
 * hash, a refused token remembered as refused, one question for a burst,
 * and a bounded cache; for a bot, what its token reaches, in the same
 * look-up.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { callerKey, GitHubUnavailable, Identities, MAX_IDENTITY_TTL_MS, reaches } from "../../src/api/identity.js";
import { LookupGate } from "../../src/api/lookup-gate.js";
import { callerGitHub } from "../../src/github/caller-port.js";
import { RateLimited } from "../../src/api/rate-limit.js";
import { githubUrls } from "../../src/github/github-urls.js";
import { type FakeGitHub, startFakeGitHub } from "../support/fake-github.js";

let fake: FakeGitHub;
beforeAll(async () => {
  fake = await startFakeGitHub();
});
afterAll(() => fake.close());
beforeEach(() => {
  fake.reset();
  fake.addToken("ghs_installationToken", { login: "agent[bot]", id: 41 });
  fake.addToken("ghp_personalToken", { login: "alice", id: 1001 });
});

const asked = () => fake.requests.filter((r) => r.path === "/graphql").length;
const listed = () => fake.requests.filter((r) => r.path === "/installation/repositories").length;

describe("Identities", () => {
  it("asks GitHub Enterprise's /api/graphql beside /api/v3, and github.com's /graphql", () => {
    expect(githubUrls(fake.baseUrl).graphql).toBe(fake.graphqlUrl);
    expect(githubUrls("https://ghe.example/api/v3")).toEqual({
      layout: "enterprise-server", rest: "https://ghe.example/api/v3", graphql: "https://ghe.example/api/graphql", web: "https://ghe.example",
    });
    expect(githubUrls("https://api.github.com")).toEqual({
      layout: "github.com", rest: "https://api.github.com", graphql: "https://api.github.com/graphql", web: "https://github.com",
    });
    expect(githubUrls("https://api.octocorp.ghe.com/").graphql).toBe("https://api.octocorp.ghe.com/graphql");
    expect(githubUrls("https://api.octocorp.ghe.com/").web).toBe("https://octocorp.ghe.com");
  });

  it("tells bots from users, and remembers each for at most 5 minutes", async () => {
    let now = 1_000_000;
    const ids = new Identities({ github: callerGitHub({ graphql: fake.graphqlUrl, rest: fake.baseUrl }), clock: () => now, ttlMs: 60 * 60_000 });
    expect(await ids.who("ghs_installationToken")).toMatchObject({ id: 41, login: "agent[bot]", type: "Bot" });
    expect(await ids.who("ghp_personalToken")).toEqual({ id: 1001, login: "alice", type: "User" });
    expect(asked()).toBe(2);
    now += MAX_IDENTITY_TTL_MS - 1;
    await ids.who("ghs_installationToken");
    expect(asked()).toBe(2);
    // Asked for an hour, given 5 minutes at the most.
    now += 1;
    await ids.who("ghs_installationToken");
    expect(asked()).toBe(3);
  });

  it("a token GitHub refuses is null, and is not asked about again at once", async () => {
    const ids = new Identities({ github: callerGitHub({ graphql: fake.graphqlUrl, rest: fake.baseUrl }) });
    expect(await ids.who("ghp_revoked")).toBeNull();
    expect(await ids.who("ghp_revoked")).toBeNull();
    expect(asked()).toBe(1);
  });

  it("a burst of one token's first calls asks once", async () => {
    const ids = new Identities({ github: callerGitHub({ graphql: fake.graphqlUrl, rest: fake.baseUrl }) });
    const all = await Promise.all(Array.from({ length: 10 }, () => ids.who("ghp_personalToken")));
    expect(new Set(all.map((i) => i?.login))).toEqual(new Set(["alice"]));
    expect(asked()).toBe(1);
  });

  it("keeps at most maxEntries tokens, forgetting the oldest", async () => {
    const ids = new Identities({ github: callerGitHub({ graphql: fake.graphqlUrl, rest: fake.baseUrl }), maxEntries: 1 });
    await ids.who("ghp_personalToken");
    await ids.who("ghs_installationToken");
    await ids.who("ghp_personalToken");
    expect(asked()).toBe(3);
  });

  it("random tokens GitHub refuses do not push good identities out: refusals are remembered apart", async () => {
    const ids = new Identities({ github: callerGitHub({ graphql: fake.graphqlUrl, rest: fake.baseUrl }), maxEntries: 2 });
    await ids.who("ghp_personalToken");
    await ids.who("ghs_installationToken");
    for (let i = 0; i < 20; i++) expect(await ids.who(`ghp_random${i}`)).toBeNull();
    const before = asked();
    expect(await ids.who("ghp_personalToken")).toMatchObject({ login: "alice" });
    expect(await ids.who("ghs_installationToken")).toMatchObject({ login: "agent[bot]" });
    expect(asked()).toBe(before);
  });

  it("limits the tokens GitHub refused per client address, without asking GitHub past the limit; good tokens take nothing of it", async () => {
    let now = 1_000_000;
    const lookups = new LookupGate({ refused: { perMinute: 6, burst: 2 } }, () => now);
    const ids = new Identities({ github: callerGitHub({ graphql: fake.graphqlUrl, rest: fake.baseUrl }), clock: () => now, lookups });
    // A good token, fresh: asked, and nothing taken of the address's limit.
    expect(await ids.who("ghp_personalToken", "203.0.113.9")).toMatchObject({ login: "alice" });
    expect(await ids.who("ghp_random1", "203.0.113.9")).toBeNull();
    expect(await ids.who("ghp_random2", "203.0.113.9")).toBeNull();
    const over = await ids.who("ghp_random3", "203.0.113.9").catch((e: unknown) => e);
    expect(over).toBeInstanceOf(RateLimited);
    expect((over as RateLimited).retryAfter).toBe(10);
    expect((over as RateLimited).message).toContain("Too many tokens GitHub refused from this address");
    expect(asked()).toBe(3);
    // What is known either way costs nothing and takes nothing of the limit.
    expect(await ids.who("ghp_personalToken", "203.0.113.9")).toMatchObject({ login: "alice" });
    expect(await ids.who("ghp_random1", "203.0.113.9")).toBeNull();
    // Another address has its own bucket; this one refills with time.
    expect(await ids.who("ghs_installationToken", "198.51.100.7")).toMatchObject({ login: "agent[bot]" });
    now += 10_000;
    expect(await ids.who("ghp_random3", "203.0.113.9")).toBeNull();
    expect(asked()).toBe(5);
  });

  it("twenty fresh good tokens from one address at once are all asked about, none refused by the limit", async () => {
    const lookups = new LookupGate({ refused: { perMinute: 20, burst: 10 } });
    const ids = new Identities({ github: callerGitHub({ graphql: fake.graphqlUrl, rest: fake.baseUrl }), lookups });
    for (let i = 0; i < 20; i++) fake.addToken(`ghp_fleet${i}`, { login: `fleet-${i}`, id: 2000 + i });
    const all = await Promise.all(Array.from({ length: 20 }, (_, i) => ids.who(`ghp_fleet${i}`, "203.0.113.9")));
    expect(all.map((w) => w?.login)).toEqual(Array.from({ length: 20 }, (_, i) => `fleet-${i}`));
    expect(asked()).toBe(20);
    expect(lookups.inFlight).toBe(0);
  });

  it("GitHub not answering is GitHubUnavailable, and is not remembered", async () => {
    const down = new Identities({ github: callerGitHub({ graphql: "http://127.0.0.1:9/graphql", rest: "http://127.0.0.1:9" }, { timeoutMs: 2_000 }) });
    await expect(down.who("ghp_personalToken")).rejects.toBeInstanceOf(GitHubUnavailable);
    const ids = new Identities({ github: callerGitHub({ graphql: `${fake.url}/no-such-graphql`, rest: fake.baseUrl }) });
    await expect(ids.who("ghp_personalToken")).rejects.toBeInstanceOf(GitHubUnavailable);
    await expect(ids.who("ghp_personalToken")).rejects.toBeInstanceOf(GitHubUnavailable);
    expect(fake.takeUnmatched()).toHaveLength(2);
  });

  it("a bot's identity is its account and what its token reaches: two installations of one account are two callers, two tokens of one installation one", async () => {
    let now = 1_000_000;
    const mine = Array.from({ length: 150 }, (_, i) => `octo/r${i}`);
    mine.forEach((r, i) => fake.addRepo(r, { id: 5000 + i }));
    fake.addRepo("other-org/tools", { id: 9000 });
    const workflow = { login: "github-actions[bot]", id: 41898282 };
    fake.addToken("ghs_octoRun1", { ...workflow, installation: 1, repos: mine });
    fake.addToken("ghs_octoRun2", { ...workflow, installation: 1, repos: mine });
    fake.addToken("ghs_otherRun", { ...workflow, installation: 2, repos: ["other-org/tools"] });
    const ids = new Identities({ github: callerGitHub({ graphql: fake.graphqlUrl, rest: fake.baseUrl }), clock: () => now });
    const first = (await ids.who("ghs_octoRun1"))!;
    const again = (await ids.who("ghs_octoRun2"))!;
    const other = (await ids.who("ghs_otherRun"))!;
    // One account for GitHub; for the API, the first two are one installation, the third another.
    expect([first.id, again.id, other.id]).toEqual([41898282, 41898282, 41898282]);
    expect(first.scope?.repos.size).toBe(150);
    expect(again.scope).toBe(first.scope);
    expect(callerKey(again)).toBe(callerKey(first));
    expect(callerKey(other)).not.toBe(callerKey(first));
    const [octo, tools] = [5149, 9000];
    expect([reaches(first, octo), reaches(first, tools), reaches(other, octo), reaches(other, tools)]).toEqual([true, false, false, true]);
    // Two pages for each octo token, one for the other; a user's token is not asked, and reaches wherever it sees.
    expect(listed()).toBe(5);
    const alice = (await ids.who("ghp_personalToken"))!;
    expect([alice.scope, callerKey(alice), reaches(alice, tools)]).toEqual([undefined, "1001", true]);
    expect(listed()).toBe(5);
    // Remembered with the identity, for as long.
    await ids.who("ghs_octoRun1");
    expect(listed()).toBe(5);
    now += MAX_IDENTITY_TTL_MS;
    await ids.who("ghs_octoRun1");
    expect(listed()).toBe(7);
    expect(fake.unmatched).toEqual([]);
  });

  it("a bot whose token GitHub lets list nothing reaches nothing, and GitHub failing the list is GitHubUnavailable, not remembered", async () => {
    fake.addRepo("octo/app", { id: 7000 });
    const ids = new Identities({ github: callerGitHub({ graphql: fake.graphqlUrl, rest: fake.baseUrl }) });
    // The app's bot with the reach of no installation (an empty selection).
    fake.addToken("ghs_empty", { login: "agent[bot]", id: 41, installation: 3, repos: [] });
    const empty = (await ids.who("ghs_empty"))!;
    expect(reaches(empty, 7000)).toBe(false);
    fake.failNextReads(/^\/installation\/repositories$/, 1, 502);
    await expect(ids.who("ghs_installationToken")).rejects.toBeInstanceOf(GitHubUnavailable);
    expect(reaches((await ids.who("ghs_installationToken"))!, 7000)).toBe(true);
  });
});
