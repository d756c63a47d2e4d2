/**
 * What a 404 means to the outbox, on errors as Octokit throws them against
 * the fake GitHub: GitHub saying the issue, the repository or the
 * installation is gone drops the effect; a 404 from GraphQL's endpoint
 * itself, or from a path that is not GitHub's, is a wrong address for
 * GitHub: the effect is parked, with what to fix.
 */
import { Octokit } from "@octokit/rest";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { GraphqlRefused } from "../../src/github/graphql-writes.js";
import { nextAfterFailure, notFoundMeaning, type RetryPolicy } from "../../src/outbox/after-failure.js";
import { type FakeGitHub, startFakeGitHub } from "../support/fake-github.js";

const policy: RetryPolicy = { maxAttempts: 8, backoffMs: 1000, maxBackoffMs: 300_000, random: () => 0.5, minPauseMs: 60_000 };
const silent = { debug() {}, info() {}, warn() {}, error() {} };

async function thrown(call: Promise<unknown>): Promise<unknown> {
  try {
    await call;
  } catch (error) {
    return error;
  }
  throw new Error("expected the request to fail");
}

let fake: FakeGitHub;
let octokit: Octokit;
beforeAll(async () => {
  fake = await startFakeGitHub({ layout: "enterprise" });
  octokit = new Octokit({ baseUrl: fake.baseUrl, auth: "ghs_app", log: silent });
});
afterAll(() => fake.close());

describe("a 404 to the outbox", () => {
  it("drops the effect when GitHub's GraphQL says the repository or the issue is not there", () => {
    expect(nextAfterFailure(new GraphqlRefused([{ type: "NOT_FOUND", message: "no issue #9" }], true), 1, 0, policy)).toEqual({ action: "drop" });
  });

  it("drops the effect on GitHub's own 404 to the repository's path (an issue, a label, a check run)", async () => {
    fake.uninstall("octo/gone");
    const error = await thrown(octokit.request("GET /repos/{owner}/{repo}/installation", { owner: "octo", repo: "gone" }));
    expect(notFoundMeaning(error)).toBe("gone");
    expect(nextAfterFailure(error, 1, 0, policy)).toEqual({ action: "drop" });
  });

  it("parks the effect, saying what to fix, when GraphQL's endpoint is not where the app sent it (Enterprise Server's /api/v3/graphql)", async () => {
    const error = await thrown(octokit.request("POST /graphql", { query: "{ viewer { login } }" }));
    expect(fake.takeUnmatched()).toMatchObject([{ method: "POST", path: "/api/v3/graphql", status: 404 }]);
    const next = nextAfterFailure(error, 1, 0, policy);
    expect(next).toEqual({ action: "park", misconfigured: expect.stringContaining(`GitHub's GraphQL endpoint answered 404 at ${fake.baseUrl}/graphql: check GHE_HOST`) });
  });

  it("parks the effect when the 404 is not GitHub's JSON, or not on a path of the repository's", async () => {
    const html = Object.assign(new Error("Not Found"), {
      status: 404, request: { url: "https://proxy.example/api/v3/repos/o/r/issues/1/comments" }, response: { data: "<html>404</html>" },
    });
    expect(nextAfterFailure(html, 1, 0, policy)).toMatchObject({ action: "park", misconfigured: expect.stringContaining("a GitHub path the effect did not expect") });
    const elsewhere = await thrown(octokit.request("GET /users/{user}/nothing-here", { user: "octocat" }));
    expect(fake.takeUnmatched()).toHaveLength(1);
    expect(nextAfterFailure(elsewhere, 1, 0, policy)).toMatchObject({ action: "park" });
  });
});
