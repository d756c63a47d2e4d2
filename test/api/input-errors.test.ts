/**
 * Input that can never succeed is answered 422 before GitHub is asked
 * anything, so that it is never taken for an outage: against the real
 * server, with the fake GitHub failing every call it gets, no bad request
 * reaches GitHub, and `issue-leases agent` exits 64 after one request. And
 * when GitHub is really down, the agent says so, not "check ISSUE_LEASES_URL".
 */
import { describe, expect, it } from "vitest";
import { runAgentCli } from "../../src/cli/agent-cli.js";
import { AGENT_EXIT } from "../../src/cli/agent-exit.js";
import { REPO } from "../support/payloads.js";
import { FULL } from "../e2e/issue-view.js";
import { withLiveApp } from "../e2e/live-app.js";
import { call, leasePath } from "./api-calls.js";

const BOT = { token: "ghs_inputBotTokenAAAAAAAAAAAAAAAAAAAAAAAA", login: "agent[bot]", id: 4101 };

/** The agent in this process against the server, counting the requests it makes. */
async function agent(url: string, args: string[]) {
  let requests = 0;
  let stderr = "";
  const code = await runAgentCli(args, {
    out: () => {},
    err: (t) => (stderr += `${t}\n`),
    env: { ISSUE_LEASES_URL: url, GH_TOKEN: BOT.token },
    fetch: (input, init) => {
      requests++;
      return fetch(input, init);
    },
    retry: { minDelayMs: 1, maxDelayMs: 5, retries: 2 },
  });
  return { code, stderr, requests };
}

describe("API input errors", () => {
  it("API input errors answered 422 with GitHub down (the fake failing every call), and `agent` exiting 64 without retrying", () =>
    withLiveApp(async (live) => {
      live.fake.addRepo(FULL, { id: REPO.id });
      live.fake.addToken(BOT.token, { login: BOT.login, id: BOT.id });
      const server = await live.start();
      // From now on every read (GraphQL included) and every write GitHub gets fails.
      live.fake.failNextReads(/./, 10_000, 502);
      live.fake.failNextWrites(10_000, 502);
      const before = live.fake.requests.length;
      const as = { token: BOT.token };

      const cases: Array<[string, Promise<{ status: number; body: any }>, RegExp]> = [
        ["an instance that is not a name", call(server, "POST", leasePath(1), { ...as, body: { instance: "bad name!" } }), /`instance` must be 1 to 40 letters/],
        ["a ttl that is not a string", call(server, "POST", leasePath(1), { ...as, body: { ttl: 7 } }), /`ttl` expected string, received number/],
        ["a body that is not JSON", call(server, "PATCH", leasePath(1), { ...as, raw: "{not json" }), /The body is not JSON/],
        ["an issue number that is not a number", call(server, "POST", leasePath(1).replace("/issues/1/", "/issues/abc/"), { ...as, body: {} }), /issue number must be a whole number/],
        ["a repository name GitHub would not accept", call(server, "GET", leasePath(1, "Codertocat/bad%20name"), as), /owner and repository must each be/],
        ["a release's instance", call(server, "DELETE", `${leasePath(1)}?instance=%40alice`, as), /`instance` must be 1 to 40 letters/],
        ["a verify without a token", call(server, "POST", `${leasePath(1)}/verify`, { ...as, body: { token: "1" } }), /`token` expected number/],
        ["an Idempotency-Key with a space", call(server, "POST", leasePath(1), { ...as, body: {}, headers: { "idempotency-key": "a b" } }), /Idempotency-Key/],
      ];
      for (const [what, answer, message] of cases) {
        const r = await answer;
        expect(r.status, what).toBe(422);
        expect(r.body.error.code, what).not.toBe("github_unavailable");
        expect(r.body.error.message, what).toMatch(message);
      }
      // Not one of them asked GitHub anything.
      expect(live.fake.requests.slice(before)).toEqual([]);

      // The agent: one request, no retry, exit 64 with the API's reason.
      const bad = await agent(server.url, ["claim", `${FULL}#1`, "--instance", "bad name!"]);
      expect(bad.code).toBe(AGENT_EXIT.usage);
      expect(bad.requests).toBe(1);
      expect(bad.stderr).toMatch(/`instance` must be 1 to 40 letters.*\(HTTP 422\)/);
      expect(live.fake.requests.slice(before)).toEqual([]);

      // A good request with GitHub down: 502, retried, and the agent names GitHub, not the URL it reached.
      const down = await agent(server.url, ["claim", `${FULL}#1`]);
      expect(down.code).toBe(AGENT_EXIT.unavailable);
      expect(down.requests).toBe(3);
      expect(down.stderr).not.toContain("ISSUE_LEASES_URL");
      expect(down.stderr).toMatch(/GitHub did not answer who the token is.*GitHub is not answering the app/);
      // Each attempt asked GitHub who the token is (a failure is not cached), and was told 502.
      expect(live.fake.requests.slice(before).filter((r) => r.path.endsWith("/graphql")).map((r) => r.status)).toEqual([502, 502, 502]);
    }), 120_000);
});
