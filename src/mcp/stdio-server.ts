/**
 * `issue-leases mcp`: the MCP server an agent host launches, over stdio.
 * Standard output carries the protocol and nothing else (a host reads
 * every line of it as JSON-RPC); what the server has to say goes to
 * standard error, without the token. One process is one session: it ends
 * cleanly when standard input closes or on SIGTERM or SIGINT (the leases
 * are released then, unless kept), and a process that is killed leaves
 * its leases to expire.
 */
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import type { LeaseClient } from "@issue-leases/client";
import { instanceFor, mcpSession } from "./mcp-server.js";

export interface StdioOptions {
  client: LeaseClient;
  /** Where the calls go, for the "unreachable" refusal: `ISSUE_LEASES_URL (https://…)`. */
  where: string;
  /** `--instance`; default the host's name (from its `initialize`) and a random suffix. */
  instance?: string;
  keepOnClose: boolean;
  version: string;
  /** A line for standard error. */
  log(line: string): void;
  stdin?: NodeJS.ReadableStream;
  stdout?: NodeJS.WritableStream;
  /** End cleanly on SIGTERM and SIGINT (default true). */
  signals?: boolean;
}

/** Serves until the host goes away; resolves once the session's leases are released (or kept). */
export async function serveStdio(o: StdioOptions): Promise<void> {
  const stdin = o.stdin ?? process.stdin;
  let instance = o.instance;
  const { server, session } = mcpSession({
    client: o.client,
    // Named on first use, after the host's `initialize` said who it is.
    instance: () => (instance ??= instanceFor(server.server.getClientVersion()?.name)),
    keepOnClose: o.keepOnClose,
    service: { where: o.where },
    version: o.version,
    log: (level, message) => o.log(`issue-leases mcp: ${level === "warn" ? "warning: " : ""}${message}`),
    onNotifyError: (error) => o.log(`issue-leases mcp: a notification was not sent: ${(error as Error).message}`),
  });
  const transport = new StdioServerTransport(stdin as never, (o.stdout ?? process.stdout) as never);
  let done!: () => void;
  const ended = new Promise<void>((resolve) => (done = resolve));
  let closing = false;
  const close = (why: string) => {
    if (closing) return;
    closing = true;
    o.log(`issue-leases mcp: ${why}: ending the session`);
    void session
      .close()
      .then(() => server.close())
      .catch((error: unknown) => o.log(`issue-leases mcp: closing failed: ${(error as Error).message}`))
      .finally(done);
  };
  transport.onerror = (error) => o.log(`issue-leases mcp: ${error.message}`);
  stdin.once("end", () => close("standard input closed"));
  stdin.once("close", () => close("standard input closed"));
  const onSignal = (signal: NodeJS.Signals) => close(`${signal}`);
  if (o.signals !== false) {
    process.once("SIGTERM", onSignal);
    process.once("SIGINT", onSignal);
  }
  await server.connect(transport);
  o.log(`issue-leases mcp: serving on stdio; calls go to ${o.where}`);
  await ended;
  process.off("SIGTERM", onSignal);
  process.off("SIGINT", onSignal);
}
