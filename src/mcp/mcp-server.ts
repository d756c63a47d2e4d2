/**
 * One MCP server per session, over either transport: the lease tools
 * (lease-tools.ts), the `work_on_next_issue` prompt (work-prompt.ts), a
 * resource per lease the session holds (`lease://owner/repo/issues/N`), and
 * what the session tells the client unasked: a lease someone else ended is a
 * logging message (level `warning`) and `notifications/resources/updated`
 * for that lease's URI, at once; a lease that came from a place in line is a
 * logging message (`notice`).
 */
import { randomBytes } from "node:crypto";
import { McpServer, ResourceTemplate } from "@modelcontextprotocol/sdk/server/mcp.js";
import { SubscribeRequestSchema, UnsubscribeRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import type { LeaseAnswer, RetryOptions } from "@issue-leases/client";
import { LeaseSession, type SessionOptions } from "./lease-session.js";
import { issueOf, registerLeaseTools } from "./lease-tools.js";
import type { ServiceName } from "./tool-results.js";
import type { LostLease } from "./tool-schemas.js";
import { registerWorkPrompt } from "./work-prompt.js";

export const SERVER_NAME = "issue-leases";

/** A session's calls: a few quick retries; a Retry-After past 5 s is the agent's to wait (its refusal says how long). */
export const MCP_RETRY: RetryOptions = { retries: 2, maxRetryAfterMs: 5_000, timeoutMs: 15_000 };

/** The host's name as an instance: what the API accepts (1 to 40 of `A-Za-z0-9._-`), then a random suffix. */
export function instanceFor(clientName: string | undefined): string {
  const base = (clientName ?? "mcp").replace(/[^A-Za-z0-9._-]+/g, "-").replace(/^-+|-+$/g, "").slice(0, 32) || "mcp";
  return `${base}-${randomBytes(3).toString("hex")}`;
}

/** A lease's resource URI: `lease://owner/repo/issues/12`. */
export function leaseUri(lease: { repo: string; issue: number }): string {
  return `lease://${lease.repo}/issues/${lease.issue}`;
}

export interface McpSession {
  server: McpServer;
  session: LeaseSession;
}

export function mcpSession(
  o: Omit<SessionOptions, "lost" | "gained"> & { service: ServiceName; version: string; onNotifyError?: (error: unknown) => void },
): McpSession {
  const server = new McpServer(
    { name: SERVER_NAME, version: o.version },
    {
      capabilities: { logging: {}, resources: { subscribe: true, listChanged: true } },
      instructions:
        "Leases on GitHub issues, so that agents never work on the same issue. Claim with claim_next_issue (or claim_issue), put the " +
        "`Lease-Token:` line you are given in each commit and in the pull request, and release_lease when done. This session renews " +
        "your leases while it is open; if a lease is taken from you, you get a warning and the next answer says so first: stop that work.",
    },
  );
  const notified = (work: Promise<void>) => void work.catch((error: unknown) => o.onNotifyError?.(error));
  const session = new LeaseSession({
    ...o,
    lost: (lease: LostLease) => {
      if (!server.isConnected()) return;
      notified(server.sendLoggingMessage({ level: "warning", logger: SERVER_NAME, data: `LEASE LOST: ${lease.message}. Stop working on ${lease.repo}#${lease.issue}.` }));
      notified(server.server.sendResourceUpdated({ uri: leaseUri(lease) }));
    },
    gained: (lease: LeaseAnswer) => {
      if (!server.isConnected()) return;
      const line = lease.token === null ? "" : ` Put "Lease-Token: ${lease.token} #${lease.issue}" in each commit.`;
      notified(server.sendLoggingMessage({ level: "notice", logger: SERVER_NAME, data: `The lease of ${lease.repo}#${lease.issue} passed to you from the line (token ${lease.token}).${line}` }));
      notified(server.server.sendResourceUpdated({ uri: leaseUri(lease) }));
      server.sendResourceListChanged();
    },
  });

  registerLeaseTools(server, session, o.service);
  registerWorkPrompt(server);
  server.registerResource(
    "lease",
    new ResourceTemplate("lease://{owner}/{repo}/issues/{issue}", {
      list: () => ({
        resources: session.leases().map((l) => ({ uri: leaseUri(l), name: `${l.repo}#${l.issue}`, mimeType: "application/json", description: "A lease this session holds" })),
      }),
    }),
    { title: "An issue's lease", description: "The live lease of an issue (holder, token, expiry) and its line, as lease_status answers it.", mimeType: "application/json" },
    async (uri, vars) => {
      const ref = issueOf(`${String(vars.owner)}/${String(vars.repo)}#${String(vars.issue)}`);
      const status = await session.client.status(ref);
      return { contents: [{ uri: uri.href, mimeType: "application/json", text: JSON.stringify(status) }] };
    },
  );
  // Every lease of the session is told of when it ends, subscribed or not: these only acknowledge.
  server.server.setRequestHandler(SubscribeRequestSchema, () => ({}));
  server.server.setRequestHandler(UnsubscribeRequestSchema, () => ({}));
  return { server, session };
}
