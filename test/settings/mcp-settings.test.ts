/** The MCP server's settings from the environment: defaults, and a wrong value named before anything starts. */
import { describe, expect, it } from "vitest";
import { mcpSettings } from "../../src/settings/http-settings.js";

describe("mcpSettings", () => {
  it("is on, with 1000 sessions, 100 per caller and 30 minutes of idleness, unless told otherwise", () => {
    expect(mcpSettings({})).toEqual({ enabled: true, maxSessions: 1000, maxSessionsPerCaller: 100, idleMs: 30 * 60_000 });
    expect(mcpSettings({ MCP: "off", MCP_SESSIONS_MAX: "5", MCP_SESSIONS_PER_CALLER: "2", MCP_SESSION_IDLE: "90s" })).toEqual({
      enabled: false,
      maxSessions: 5,
      maxSessionsPerCaller: 2,
      idleMs: 90_000,
    });
  });

  it("names the variable and its value when it is wrong", () => {
    expect(() => mcpSettings({ MCP: "maybe" })).toThrow('MCP must be on or off; it is "maybe"');
    expect(() => mcpSettings({ MCP_SESSIONS_PER_CALLER: "-1" })).toThrow('MCP_SESSIONS_PER_CALLER must be a whole number of sessions, 0 or more; it is "-1"');
    expect(() => mcpSettings({ MCP_SESSION_IDLE: "soon" })).toThrow(/^MCP_SESSION_IDLE must be a duration of a second or more/);
  });
});
