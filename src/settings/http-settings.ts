/**
 * What the app serves over HTTP besides webhooks, from the environment: the
 * API's rate limits, the event stream's, MCP's, and /metrics.
 */
import type { ApiRateLimits } from "../api/rate-limit.js";
import { parseDuration } from "../commands/parse-duration.js";
import { DEFAULT_BUFFER_BYTES } from "../events/event-stream.js";
import type { EventStreamSettings } from "../events/stream-settings.js";
import type { McpSettings } from "../mcp/mcp-settings.js";
import type { MetricsSettings } from "../metrics/app-metrics.js";
import { type NumberRule, numberSetting } from "./parse-number.js";
import { type Env, SettingError } from "./setting-row.js";
import { givenValue, rawValue } from "./settings-table.js";

const requests: NumberRule = { whole: false, min: 0, what: "a number of requests, 0 or more" };
const whole = (unit: string, min: number): NumberRule => ({ whole: true, min, what: `a whole number of ${unit}, ${min} or more` });

/**
 * From API_RATE_LIMIT (requests per minute per identity, default 120; 0 turns the limit off) and API_RATE_BURST (default 60);
 * API_UNKNOWN_TOKEN_LIMIT (tokens GitHub refused per minute per address, default 20, burst 10); API_ADDRESS_RATE_LIMIT (listing and
 * board requests per minute per address, default 120, burst 60); TRUST_PROXY_HOPS (default 0).
 */
export function rateLimitSettings(env: Env): ApiRateLimits {
  const perMinute = numberSetting(env, "API_RATE_LIMIT", 120, requests);
  const unknown = numberSetting(env, "API_UNKNOWN_TOKEN_LIMIT", 20, requests);
  const address = numberSetting(env, "API_ADDRESS_RATE_LIMIT", 120, requests);
  const hops = numberSetting(env, "TRUST_PROXY_HOPS", 0, whole("proxies", 0));
  const burstOf = (n: number, most: number) => Math.max(1, Math.min(most, n));
  return {
    perMinute,
    burst: Math.max(1, numberSetting(env, "API_RATE_BURST", burstOf(perMinute, 60), requests)),
    unknownTokens: { perMinute: unknown, burst: burstOf(unknown, 10) },
    perAddress: { perMinute: address, burst: burstOf(address, 60) },
    trustProxyHops: hops,
  };
}

export function eventStreamSettings(env: Env): EventStreamSettings {
  return {
    heartbeatMs: numberSetting(env, "EVENTS_HEARTBEAT_MS", 15_000, whole("milliseconds", 10)),
    pollMs: numberSetting(env, "EVENTS_POLL_MS", 5_000, whole("milliseconds", 10)),
    maxStreams: numberSetting(env, "EVENTS_STREAMS_MAX", 1_000, whole("streams", 0)),
    maxStreamsPerAddress: numberSetting(env, "EVENTS_STREAMS_PER_ADDRESS", 10, whole("streams", 0)),
    maxStreamsPerCaller: numberSetting(env, "EVENTS_STREAMS_PER_CALLER", 100, whole("streams", 0)),
    clientBufferBytes: numberSetting(env, "EVENTS_CLIENT_BUFFER_BYTES", DEFAULT_BUFFER_BYTES, whole("bytes", 1_024)),
  };
}

export function mcpSettings(env: Env): McpSettings {
  const mcp = rawValue(env, "MCP")?.trim().toLowerCase();
  if (mcp !== undefined && mcp !== "" && mcp !== "on" && mcp !== "off") throw new SettingError(`MCP must be on or off; it is "${rawValue(env, "MCP")}"`);
  const idle = givenValue(env, "MCP_SESSION_IDLE");
  const idleMs = idle === undefined ? 30 * 60_000 : parseDuration(idle);
  if (idleMs === null || idleMs < 1_000) {
    throw new SettingError(`MCP_SESSION_IDLE must be a duration of a second or more (30s, 10m, 1h); it is "${rawValue(env, "MCP_SESSION_IDLE")}"`);
  }
  return {
    enabled: mcp !== "off",
    maxSessions: numberSetting(env, "MCP_SESSIONS_MAX", 1_000, whole("sessions", 0)),
    maxSessionsPerCaller: numberSetting(env, "MCP_SESSIONS_PER_CALLER", 100, whole("sessions", 0)),
    idleMs,
  };
}

/** On with `METRICS=1` (served openly) or `METRICS_TOKEN` (a bearer token required); null: off. */
export function metricsSettings(env: Env): MetricsSettings | null {
  const token = givenValue(env, "METRICS_TOKEN");
  if (token) return { token };
  const metrics = rawValue(env, "METRICS");
  if (metrics === "1" || metrics?.toLowerCase() === "true") return { token: null };
  return null;
}
