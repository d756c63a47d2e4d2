/**
 * `/mcp`: the lease tools on the app's own server, over MCP's Streamable
 * HTTP transport, for agent hosts that take a remote server by its URL.
 *
 * Authorization is the API's: `Authorization: Bearer <GitHub token>` on
 * every request, the same identity look-up (cached by the token's hash,
 * GitHub's refusals remembered, the unknown tokens limited per address),
 * a 401 with `WWW-Authenticate: Bearer` for none or a refused one. Each
 * tool call is an API request made in this process (in-process-fetch.ts),
 * so access, GitHub's moderation and the caller's rate limit are exactly
 * the API's, each tool call counted once. MCP's own messages (initialize,
 * the lists, pings, the notification stream) read neither the ledger nor
 * GitHub, and are not counted: the sessions they make are bounded per
 * caller and in all instead (http-sessions.ts). A session
 * belongs to the caller that began it: another caller's request for it is
 * answered as for none (404).
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { isInitializeRequest } from "@modelcontextprotocol/sdk/types.js";
import type { ApiDeps } from "../api/api-deps.js";
import { clientAddress } from "../api/client-address.js";
import { bearerToken, callerKey, GitHubUnavailable, type Identity } from "../api/identity.js";
import { RateLimited } from "../api/rate-limit.js";
import { INSTANCE_PATTERN } from "../api/requests.js";
import { readCappedBody, TOO_LARGE } from "../webhooks/read-capped-body.js";
import { type HttpHandler, inProcessServer, type Peer } from "./in-process-fetch.js";
import { McpSessions, type SessionLog } from "./http-sessions.js";
import type { McpSettings } from "./mcp-settings.js";

export const MCP_PATH = "/mcp";
const MAX_BODY_BYTES = 256 * 1024;

export interface McpRouteDeps {
  /** The API's parts (serve-api.ts): its identities, rate limiter and trusted proxies. */
  api: () => Promise<Pick<ApiDeps, "identities" | "trustProxyHops">>;
  /** The app's HTTP handlers, which serve the sessions' API requests. */
  handlers: () => readonly HttpHandler[];
  settings: McpSettings;
  version: string;
  clock: () => number;
  log: SessionLog & { error(obj: object, msg: string): void };
}

export interface McpRoute {
  handle(req: IncomingMessage, res: ServerResponse): Promise<boolean>;
  /** Ends every session (their leases kept, to expire). */
  close(): Promise<void>;
}

export function mcpRoute(deps: McpRouteDeps): McpRoute {
  const api = inProcessServer(deps.handlers, (error) => deps.log.error({ err: error }, "MCP: an API request failed"));
  const sessions = new McpSessions({ settings: deps.settings, api, version: deps.version, log: deps.log, clock: deps.clock });
  return {
    async handle(req, res) {
      const url = new URL(req.url ?? "/", "http://localhost");
      if (url.pathname !== MCP_PATH || !deps.settings.enabled) return false;
      try {
        await serve(deps, sessions, req, res, url);
      } catch (error) {
        deps.log.error({ err: error }, "MCP: a request failed");
        if (!res.headersSent) rpcError(res, 500, -32603, "Internal error");
      }
      return true;
    },
    close: () => sessions.close(),
  };
}

async function serve(deps: McpRouteDeps, sessions: McpSessions, req: IncomingMessage, res: ServerResponse, url: URL): Promise<void> {
  const method = (req.method ?? "GET").toUpperCase();
  if (method !== "POST" && method !== "GET" && method !== "DELETE") {
    return rpcError(res, 405, -32000, "Use POST, GET or DELETE.", { allow: "POST, GET, DELETE" });
  }
  const token = bearerToken(req);
  if (token === null || token === "malformed") {
    req.resume();
    return rpcError(res, 401, -32001, "Send a GitHub token: `Authorization: Bearer <token>`.", { "www-authenticate": 'Bearer realm="issue-leases"' });
  }
  const { identities, trustProxyHops } = await deps.api();
  const address = clientAddress(req, trustProxyHops);
  let who: Identity | null;
  try {
    who = await identities.who(token, address);
  } catch (error) {
    req.resume();
    if (error instanceof RateLimited) return rpcError(res, 429, -32000, `${error.message}.`, { "retry-after": String(error.retryAfter) });
    if (error instanceof GitHubUnavailable) return rpcError(res, 502, -32000, `${error.message}; try again.`, { "retry-after": "5" });
    throw error;
  }
  if (!who) {
    req.resume();
    return rpcError(res, 401, -32001, "GitHub does not accept this token.", { "www-authenticate": 'Bearer realm="issue-leases", error="invalid_token"' });
  }
  const caller = callerKey(who);

  let body: unknown;
  if (method === "POST") {
    const raw = await readCappedBody(req, MAX_BODY_BYTES);
    if (raw === TOO_LARGE) return rpcError(res, 413, -32600, `The body is over ${MAX_BODY_BYTES} bytes.`);
    try {
      body = JSON.parse(raw.toString("utf8"));
    } catch {
      return rpcError(res, 400, -32700, "Parse error: the body is not JSON.");
    }
  } else {
    req.resume();
  }
  const messages = Array.isArray(body) ? body : [body];
  const forwarded = req.headers["x-forwarded-for"];
  const peer: Peer = {
    address: req.socket.remoteAddress ?? "",
    ...(forwarded !== undefined ? { forwardedFor: Array.isArray(forwarded) ? forwarded.join(", ") : forwarded } : {}),
  };

  const id = req.headers["mcp-session-id"];
  if (typeof id === "string") {
    const session = sessions.find(id, caller);
    if (!session) return rpcError(res, 404, -32001, "Session not found: start a new one with initialize.");
    session.token = token;
    session.peer = peer;
    session.touch();
    if (method === "GET") {
      session.streams(1);
      res.once("close", () => session.streams(-1));
    }
    return session.transport.handleRequest(req, res, body);
  }
  if (method !== "POST" || !messages.some((m) => isInitializeRequest(m))) {
    return rpcError(res, 400, -32000, "Bad request: no Mcp-Session-Id header; begin a session with initialize.");
  }
  const instance = url.searchParams.get("instance") ?? undefined;
  if (instance !== undefined && !INSTANCE_PATTERN.test(instance)) {
    return rpcError(res, 400, -32602, "`instance` must be 1 to 40 letters, digits, `.`, `_` or `-`.");
  }
  const keep = /^(1|true)$/i.test(url.searchParams.get("keep_leases") ?? "");
  const session = sessions.start(caller, token, peer, { keep, ...(instance !== undefined ? { instance } : {}) });
  if (!session) {
    return rpcError(res, 429, -32000, "Too many MCP sessions open for this account (or on this server); end one (DELETE), or try again later.", { "retry-after": "10" });
  }
  await session.transport.handleRequest(req, res, body);
  await session.abandon();
}

function rpcError(res: ServerResponse, status: number, code: number, message: string, headers: Record<string, string> = {}): void {
  const text = JSON.stringify({ jsonrpc: "2.0", error: { code, message }, id: null });
  res.writeHead(status, { "content-type": "application/json", "cache-control": "no-store", "content-length": Buffer.byteLength(text), ...headers }).end(text);
}
