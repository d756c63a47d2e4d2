/**
 * `issue-leases agent …` run in the test's process against a stub API
 * (test/client/api-stub.ts): its exit code, both streams and the requests
 * the stub received. Retries are quick: these tests are about what is
 * asked and printed, not when.
 */
import { runAgentCli } from "../../src/cli/agent-cli.js";
import type { ApiStub } from "../client/api-stub.js";

export async function runAgainst(stub: ApiStub, args: string[], env: Record<string, string> = {}) {
  let stdout = "";
  let stderr = "";
  const code = await runAgentCli(args, {
    out: (t) => (stdout += `${t}\n`),
    err: (t) => (stderr += `${t}\n`),
    env: { ISSUE_LEASES_URL: stub.url, GITHUB_TOKEN: "ghp_from_env", ...env },
    retry: { minDelayMs: 1, maxDelayMs: 2, retries: 2 },
  });
  return { code, stdout, stderr, requests: stub.requests };
}
