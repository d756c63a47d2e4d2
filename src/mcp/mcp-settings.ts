/**
 * The MCP server's settings on the app's own server, from the environment
 * (see .env.example):
 *
 * - `MCP=off`: no `/mcp` route (it answers 404, as any unknown path); default on.
 * - `MCP_SESSIONS_MAX`: sessions open at once on this replica (default 1000);
 *   `MCP_SESSIONS_PER_CALLER`: those of one caller, an account (and for a bot,
 *   what its token reaches), wherever it connects from (default 100: a
 *   fleet's agents sharing one token). Past either, `initialize` is answered 429.
 * - `MCP_SESSION_IDLE`: a session that has neither a request nor an open
 *   stream for this long is taken for a dead agent's and ended, its leases
 *   left to expire (default 30m; the durations of the comments).
 */
import { parseDuration } from "../commands/parse-duration.js";

export interface McpSettings {
  enabled: boolean;
  maxSessions: number;
  maxSessionsPerCaller: number;
  idleMs: number;
}

function whole(env: NodeJS.ProcessEnv, name: string, fallback: number): number {
  const raw = env[name]?.trim();
  if (raw === undefined || raw === "") return fallback;
  const n = Number(raw);
  if (!Number.isSafeInteger(n) || n < 0) throw new Error(`${name} must be a whole number of sessions, 0 or more; it is "${env[name]}"`);
  return n;
}

export function mcpSettings(env: NodeJS.ProcessEnv): McpSettings {
  const mcp = env.MCP?.trim().toLowerCase();
  if (mcp !== undefined && mcp !== "" && mcp !== "on" && mcp !== "off") throw new Error(`MCP must be on or off; it is "${env.MCP}"`);
  const idle = env.MCP_SESSION_IDLE?.trim();
  const idleMs = idle === undefined || idle === "" ? 30 * 60_000 : parseDuration(idle);
  if (idleMs === null || idleMs < 1_000) throw new Error(`MCP_SESSION_IDLE must be a duration of a second or more (30s, 10m, 1h); it is "${env.MCP_SESSION_IDLE}"`);
  return {
    enabled: mcp !== "off",
    maxSessions: whole(env, "MCP_SESSIONS_MAX", 1_000),
    maxSessionsPerCaller: whole(env, "MCP_SESSIONS_PER_CALLER", 100),
    idleMs,
  };
}
