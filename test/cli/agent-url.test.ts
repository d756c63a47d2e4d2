/**
 * The app's URL as `issue-leases agent` takes it ($ISSUE_LEASES_URL or
 * --url): a value that is not an http(s) URL exits 78 with one line naming
 * the value and the URL to write, before any request.
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
