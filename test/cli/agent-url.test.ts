/**
 * The app's URL as `issue-leases agent` takes it ($ISSUE_LEASES_URL or
 * --url): a value that is not an http(s) URL, or plain http to another
 * machine without ISSUE_LEASES_ALLOW_HTTP=1, exits 78 with one line saying
 * what to write, before any request (so before the token is sent anywhere).
 */
import { describe, expect, it } from "vitest";
import { runAgentCli } from "../../src/cli/agent-cli.js";

async function agent(args: string[], env: Record<string, string>) {
  let stdout = "";
  let stderr = "";
  const requests: string[] = [];
  const code = await runAgentCli(args, {
    out: (t) => (stdout += `${t}\n`),
    err: (t) => (stderr += `${t}\n`),
    env: { GITHUB_TOKEN: "ghp_from_env", ...env },
    fetch: async (input) => {
      requests.push(String(input));
      return new Response("{}", { status: 500 });
    },
    retry: { retries: 0 },
  });
  return { code, stdout, stderr, requests };
}

describe("agent's URL", () => {
  it.each([
    [{ ISSUE_LEASES_URL: "localhost:3917" }, [], /^issue-leases: ISSUE_LEASES_URL must be an http\(s\) URL, not "localhost:3917": write it as http:\/\/localhost:3917$/],
    [{ ISSUE_LEASES_URL: "leases.example.com" }, [], /^issue-leases: ISSUE_LEASES_URL is not a URL, not "leases.example.com": write it as https:\/\/leases.example.com$/],
    [{ ISSUE_LEASES_URL: "https://leases.example.com" }, ["--url", "localhost:3917"], /^issue-leases: --url must be an http\(s\) URL, not "localhost:3917": write it as http:\/\/localhost:3917$/],
  ])("%j %j exits 78 saying what to write", async (env, flags, message) => {
    const r = await agent(["status", "octo-org/widgets#12", ...flags], env);
    expect(r.code).toBe(78);
    expect(r.stderr.trimEnd().split("\n")).toHaveLength(1);
    expect(r.stderr.trimEnd()).toMatch(message);
    expect(r.requests).toEqual([]);
  });
});

describe("agent and plain http", () => {
  it("refuses http:// to another machine, before any request, and says how to allow it", async () => {
    const r = await agent(["claim", "octo-org/widgets#12"], { ISSUE_LEASES_URL: "http://leases.example.com:3000" });
    expect(r.code).toBe(78);
    expect(r.stderr.trimEnd()).toBe(
      "issue-leases: ISSUE_LEASES_URL is http://leases.example.com:3000, plain http to another machine: every call would send the GitHub token unencrypted. " +
        "Use https://leases.example.com:3000, or set ISSUE_LEASES_ALLOW_HTTP=1 on a network you trust",
    );
    expect(r.requests).toEqual([]);
    const zero = await agent(["claim", "octo-org/widgets#12"], { ISSUE_LEASES_URL: "http://leases.example.com:3000", ISSUE_LEASES_ALLOW_HTTP: "0" });
    expect([zero.code, zero.requests]).toEqual([78, []]);
  });

  it("takes it with ISSUE_LEASES_ALLOW_HTTP=1, and takes http:// to this machine without it", async () => {
    const allowed = await agent(["status", "octo-org/widgets#12"], { ISSUE_LEASES_URL: "http://leases.internal:3000", ISSUE_LEASES_ALLOW_HTTP: "1" });
    expect(allowed.requests).toEqual(["http://leases.internal:3000/api/v1/repos/octo-org/widgets/issues/12/lease"]);
    const local = await agent(["status", "octo-org/widgets#12"], { ISSUE_LEASES_URL: "http://127.0.0.1:3917" });
    expect(local.requests).toEqual(["http://127.0.0.1:3917/api/v1/repos/octo-org/widgets/issues/12/lease"]);
  });
});
