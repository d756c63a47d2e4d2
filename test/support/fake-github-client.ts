/**
 * For the fake GitHub's own tests: a fake per test, with a plain Octokit on
 * it (no retries, no throttling: these tests look at raw answers), each
 * closed after its test.
 */
import { Octokit } from "@octokit/rest";
import { afterEach } from "vitest";
import { type FakeGitHub, type FakeGitHubOptions, startFakeGitHub } from "./fake-github.js";

/** Call at a test file's top level: the function it returns starts a fake that the file's afterEach closes. */
export function fakesPerTest(): (opts?: FakeGitHubOptions) => Promise<{ fake: FakeGitHub; octokit: Octokit }> {
  const started: FakeGitHub[] = [];
  afterEach(async () => {
    await Promise.all(started.splice(0).map((fake) => fake.close()));
  });
  return async (opts) => {
    const fake = await startFakeGitHub(opts);
    started.push(fake);
    const octokit = new Octokit({ baseUrl: fake.baseUrl, auth: "x", log: { debug() {}, info() {}, warn() {}, error() {} } });
    return { fake, octokit };
  };
}
