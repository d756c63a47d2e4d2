/**
 * `issue-leases mcp`: the lease tools as an MCP server over stdio, for agent
 * hosts (src/mcp/stdio-server.ts). It reads what `agent` reads
 * (ISSUE_LEASES_URL, GH_TOKEN or GITHUB_TOKEN, ISSUE_LEASES_ALLOW_HTTP) and
 * writes nothing to standard output but the protocol: its help and its
 * errors go to standard error.
 */
import { parseArgs } from "node:util";
import { keepAliveFetch } from "../mcp/keep-alive-fetch.js";
import { MCP_RETRY } from "../mcp/mcp-server.js";
import { serveStdio } from "../mcp/stdio-server.js";
import { type AgentIo, clientFor, instanceOption } from "./agent-args.js";
import { AGENT_EXIT, AgentError } from "./agent-exit.js";

export const MCP_HELP = `Usage: issue-leases mcp [--instance NAME] [--keep-leases] [--url URL]

An MCP server over stdio (the transport agent hosts launch): the lease tools
claim_issue, claim_next_issue, renew_lease, release_lease, lease_status,
my_leases and verify_lease_token, the prompt work_on_next_issue, and a
resource lease://owner/repo/issues/N per lease the session holds.

The session (this process) renews its leases at a third of their TTL and
releases them when it ends cleanly (standard input closed, SIGTERM, SIGINT);
a process that is killed leaves them to expire. Standard output carries the
protocol only; logs go to standard error, never the token.

Environment:
  ISSUE_LEASES_URL   the app's URL, e.g. https://leases.example.com (or --url URL);
                     http:// only to this machine, unless ISSUE_LEASES_ALLOW_HTTP=1
  GH_TOKEN, GITHUB_TOKEN  a GitHub token: a user's, a personal access token or an
                     installation token; sent to the app only

Options:
  --instance NAME    this session's holder name (default: the host's name and a
                     random suffix, so that agents sharing a token are separate holders)
  --keep-leases      leave the leases to expire instead of releasing them at the end
  --url URL          the app's URL, instead of $ISSUE_LEASES_URL
  -h, --help         this help (on standard error)`;

export interface McpIo extends AgentIo {
  version: string;
  stdin?: NodeJS.ReadableStream;
  stdout?: NodeJS.WritableStream;
}

export async function runMcpCli(args: string[], io: McpIo): Promise<number> {
  let values: Record<string, string | boolean | undefined>;
  try {
    ({ values } = parseArgs({
      args,
      options: { instance: { type: "string" }, "keep-leases": { type: "boolean" }, url: { type: "string" }, help: { type: "boolean", short: "h" } },
      strict: true,
      allowPositionals: false,
    }));
  } catch (error) {
    io.err(`issue-leases mcp: ${(error as Error).message}; see \`issue-leases mcp --help\``);
    return AGENT_EXIT.usage;
  }
  if (values.help) {
    io.err(MCP_HELP);
    return AGENT_EXIT.ok;
  }
  try {
    const instance = instanceOption(values, "mcp");
    if (instance !== undefined && !/^[A-Za-z0-9._-]{1,40}$/.test(instance)) {
      throw new AgentError("--instance must be 1 to 40 letters, digits, `.`, `_` or `-`", AGENT_EXIT.usage);
    }
    const client = clientFor(values, { ...io, retry: io.retry ?? MCP_RETRY, fetch: io.fetch ?? keepAliveFetch() });
    const url = typeof values.url === "string" ? values.url : io.env.ISSUE_LEASES_URL!;
    // Without a user or password the URL may carry.
    const shown = new URL(url);
    const where = `${typeof values.url === "string" ? "--url" : "ISSUE_LEASES_URL"} ${shown.origin}${shown.pathname === "/" ? "" : shown.pathname}`;
    await serveStdio({
      client,
      where,
      ...(instance !== undefined ? { instance } : {}),
      keepOnClose: values["keep-leases"] === true,
      version: io.version,
      log: io.err,
      ...(io.stdin ? { stdin: io.stdin } : {}),
      ...(io.stdout ? { stdout: io.stdout } : {}),
    });
    return AGENT_EXIT.ok;
  } catch (error) {
    if (error instanceof AgentError) {
      io.err(`issue-leases mcp: ${error.message}`);
      return error.exitCode;
    }
    io.err(`issue-leases mcp: ${(error as Error).message}`);
    return AGENT_EXIT.failure;
  }
}
