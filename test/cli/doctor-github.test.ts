/**
 * `doctor`'s GitHub check against the fake GitHub in each layout: where the
 * environment points is where GitHub answers, or it says what to fix.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { githubCheck } from "../../src/cli/doctor-github.js";
import { type FakeGitHub, startFakeGitHub } from "../support/fake-github.js";

let enterprise: FakeGitHub;
let dotcom: FakeGitHub;
beforeAll(async () => {
  [enterprise, dotcom] = await Promise.all([startFakeGitHub({ layout: "enterprise" }), startFakeGitHub({ layout: "github.com" })]);
});
afterAll(() => Promise.all([enterprise.close(), dotcom.close()]));

describe("doctor's github check", () => {
  it("finds Enterprise Server's REST and GraphQL where GHE_HOST says, and github.com's layout where GITHUB_API_URL says", async () => {
    expect(await githubCheck(enterprise.appEnv())).toEqual({
      name: "github", status: "ok",
      message: `GitHub Enterprise Server: REST ${enterprise.baseUrl}, GraphQL ${enterprise.graphqlUrl} answer`,
    });
    expect(await githubCheck(dotcom.appEnv())).toMatchObject({ status: "ok", message: expect.stringContaining(`GraphQL ${dotcom.graphqlUrl} answer`) });
  });

  it("fails, saying where GitHub is not and what to set, when the address names the other layout", async () => {
    // GHE_HOST on a github.com-layout GitHub: /api/v3/meta and /api/graphql are not there.
    const wrong = await githubCheck({ GHE_HOST: dotcom.host, GHE_PROTOCOL: "http" });
    expect(wrong.status).toBe("fail");
    expect(wrong.message).toContain(`GraphQL ${dotcom.url}/api/graphql answered 404, and REST ${dotcom.url}/api/v3/meta answered 404`);
    expect(wrong.message).toContain("Set GHE_HOST (and GHE_PROTOCOL) for Enterprise Server");
    expect(dotcom.takeUnmatched()).toHaveLength(2);
  });

  it("names a variable it cannot read, and does not ask github.com from a test", async () => {
    expect(await githubCheck({ GHE_HOST: "a", GITHUB_API_URL: "https://b" })).toMatchObject({ status: "fail", message: expect.stringMatching(/both GITHUB_API_URL/) });
    const refused = () => Promise.reject(new Error("no network in this test"));
    expect(await githubCheck({}, refused)).toMatchObject({ status: "ok", message: expect.stringMatching(/^github.com/) });
  });
});
