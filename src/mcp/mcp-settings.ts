/**
 * The MCP server's settings on the app's own server (read from the
 * environment in settings/http-settings.ts):
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
export interface McpSettings {
  enabled: boolean;
  maxSessions: number;
  maxSessionsPerCaller: number;
  idleMs: number;
}
