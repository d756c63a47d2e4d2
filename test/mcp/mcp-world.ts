/**
 * What the MCP tests share: the real server (built, a child process) on a
 * fresh SQLite ledger whose repository's inventory is filled beforehand
 * (so that `next` has issues to hand out), the fake GitHub that knows the
 * agents' tokens, and the official SDK's `Client` over either transport:
 * stdio against the built CLI (`node bin/issue-leases.mjs mcp`), or
 * Streamable HTTP against the server's `/mcp`.
 */
import { join } from "node:path";
import type { Readable } from "node:stream";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import type { IssueSnapshot } from "../../src/ledger/inventory/inventory-types.js";
import { SqliteLedger } from "../../src/ledger/sqlite/sqlite-ledger.js";
import { maintainer, REPO } from "../support/payloads.js";
import { ROOT, type ServerProcess } from "../support/server-process.js";
import { FULL } from "../e2e/issue-view.js";
import type { LiveApp } from "../e2e/live-app.js";

export const AGENT_TOKEN = "ghp_mcp_agent_token_e2e";
export const AGENT = { login: "mcp-agent", id: 6001 };
export const OTHER_TOKEN = "ghp_mcp_other_token_e2e";
export const OTHER = { login: "other-agent", id: 6002 };
export const BIN = join(ROOT, "bin/issue-leases.mjs");
/** Open issues in the inventory: 1 to ISSUES. */
export const ISSUES = 30;

/** The repository's open issues in the inventory, one fill recorded: `next` walks them without asking GitHub. */
export async function prefill(dbFile: string, open = ISSUES): Promise<void> {
  const ledger = new SqliteLedger(dbFile);
  const now = Date.now();
  try {
    await ledger.rememberRepo({ repoId: REPO.id, repo: FULL, installation: 1 }, now);
    const batch: IssueSnapshot[] = [];
    for (let n = 1; n <= open; n++) {
      batch.push({
        repoId: REPO.id,
        issue: n,
        title: `Issue number ${n}`,
        labels: n % 2 === 0 ? ["bug"] : ["enhancement"],
        assignees: [],
        milestone: null,
        author: { id: 50, login: "someone" },
        createdAt: now - 100 * 86_400_000 + n * 60_000,
        state: "open",
        blockedByOpen: null,
        openSubIssues: null,
        updatedAt: now - 86_400_000,
      });
    }
    await ledger.rememberIssues(batch, now);
    await ledger.markFilled({ repoId: REPO.id, filledAt: now, issues: open }, now);
  } finally {
    await ledger.close();
  }
}

/** The tokens, a maintainer, a repository that allows short leases, its inventory; then the server. */
export async function startWorld(live: LiveApp, env: Record<string, string> = {}): Promise<ServerProcess> {
  live.fake.addRepo(FULL, { id: REPO.id });
  live.fake.addToken(AGENT_TOKEN, AGENT);
  live.fake.addToken(OTHER_TOKEN, OTHER);
  live.fake.setPermission(FULL, maintainer.login, "write");
  live.fake.setConfigFile(FULL, ".github/issue-leases.yml", "min_ttl: 1s\n");
  await prefill(live.dbFile);
  return live.start({ INVENTORY_RECONCILE: "off", EVENTS_POLL_MS: "200", ...env });
}

export interface Connected {
  client: Client;
  /** Everything the server process wrote to stderr (stdio only). */
  stderr(): string;
  close(): Promise<void>;
}

/** The SDK's client over stdio, the built CLI as the host would launch it. */
export async function stdioClient(env: Record<string, string>, args: string[] = [], name = "test-host"): Promise<Connected> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [BIN, "mcp", ...args],
    env: { PATH: process.env.PATH ?? "", ...env },
    cwd: ROOT,
    stderr: "pipe",
  });
  let stderr = "";
  (transport.stderr as Readable | null)?.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
  const client = new Client({ name, version: "1.0.0" });
  const errors: Error[] = [];
  // A line on stdout that is not JSON-RPC is reported here by the SDK's transport.
  client.onerror = (error) => errors.push(error);
  await client.connect(transport);
  return {
    client,
    stderr: () => stderr + errors.map((e) => `\n[client error] ${e.message}`).join(""),
    close: () => client.close(),
  };
}

/** The SDK's client over Streamable HTTP to the server's /mcp, with `token` as bearer. */
export async function httpClient(server: ServerProcess, token: string, query = "", name = "test-host"): Promise<Connected> {
  const transport = new StreamableHTTPClientTransport(new URL(`${server.url}/mcp${query}`), {
    requestInit: { headers: { authorization: `Bearer ${token}` } },
  });
  const client = new Client({ name, version: "1.0.0" });
  await client.connect(transport);
  return {
    client,
    stderr: () => "",
    async close() {
      await transport.terminateSession().catch(() => undefined);
      await client.close();
    },
  };
}

export function stdioEnv(server: ServerProcess, token = AGENT_TOKEN): Record<string, string> {
  return { ISSUE_LEASES_URL: server.url, GITHUB_TOKEN: token };
}

/** A tool's result, typed. */
export async function call(client: Client, name: string, args: Record<string, unknown> = {}): Promise<CallToolResult> {
  return (await client.callTool({ name, arguments: args })) as CallToolResult;
}

/** A result's text, all of it. */
export function text(result: CallToolResult): string {
  return result.content.map((c) => (c.type === "text" ? c.text : "")).join("\n");
}
