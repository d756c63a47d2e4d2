/**
 * `work_on_next_issue`: the prompt that tells an agent the protocol, for
 * hosts that offer a server's prompts as commands (Claude Code's
 * `/mcp__issue-leases__work_on_next_issue`): claim the next ready issue,
 * put its token in each commit, let the session renew (or renew), release
 * when done, and stop at once when told a lease was lost.
 */
import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { z } from "zod";

export function workPromptText(scope: string, labels: string | undefined): string {
  const where = scope.includes("/") ? `repo: "${scope}"` : `org: "${scope}"`;
  const filter = labels ? `, labels: [${labels.split(",").map((l) => JSON.stringify(l.trim())).filter((l) => l !== '""').join(", ")}]` : "";
  return [
    `Work on the next ready issue of ${scope}, holding its lease so that no other agent works on it at the same time.`,
    "",
    `1. Call claim_next_issue with { ${where}${filter} }. If it says no issue is ready, stop and report that; do not pick an issue by yourself.`,
    "2. Read the issue at the URL it gives. Work on that issue only.",
    "3. Put the `Lease-Token: N #ISSUE` line from the answer as a trailer in every commit message, and in the pull request's body.",
    "4. This MCP session renews the lease while it is open. If the work outlasts the session, call renew_lease before expires_at.",
    "5. Before pushing or merging, call verify_lease_token with your token; if it is not valid, stop.",
    "6. If you are told LEASE LOST (a warning, or the first line of any answer), stop working on that issue at once: someone else has it now.",
    "7. When the pull request is open (or you give up), call release_lease with a short note saying what you did.",
  ].join("\n");
}

export function registerWorkPrompt(server: McpServer): void {
  server.registerPrompt(
    "work_on_next_issue",
    {
      title: "Work on the next ready issue",
      description: "Claim the next ready issue of a repository (or of an owner), work on it under its lease, and release it when done.",
      argsSchema: {
        repo: z.string().describe("owner/repo, or an owner's login for every repository of it the app serves"),
        labels: z.string().describe("Only issues with all of these labels, comma-separated (optional)").optional(),
      },
    },
    ({ repo, labels }) => ({
      description: `Work on the next ready issue of ${repo}`,
      messages: [{ role: "user", content: { type: "text", text: workPromptText(repo, labels) } }],
    }),
  );
}
