/**
 * Every setting of the app, typed: what `issueLeases({ settings })` is
 * given (app.ts). Parsed once at start-up from the environment; tests and
 * benchmarks that embed the app take `appSettings({})`, every default.
 */
import type { ApiRateLimits } from "../api/rate-limit.js";
import type { DashboardSettings } from "../dashboard/settings.js";
import type { EventStreamSettings } from "../events/stream-settings.js";
import type { BudgetSettings, GithubWrites } from "../github/budget-settings.js";
import type { McpSettings } from "../mcp/mcp-settings.js";
import type { MetricsSettings } from "../metrics/app-metrics.js";
import { dashboardSettings } from "./board-settings.js";
import { type DatabaseSettings, databaseSettings } from "./database-settings.js";
import { budgetSettings, githubWrites, labelLingerMs } from "./github-settings.js";
import { eventStreamSettings, mcpSettings, metricsSettings, rateLimitSettings } from "./http-settings.js";
import { DEFAULT_WEBHOOK_PATH } from "./server-settings.js";
import { type Env, SettingError } from "./setting-row.js";
import { givenValue, rawValue } from "./settings-table.js";
import { eventsKeepMs, type OutgoingWebhooks, outgoingWebhooks, workSettings, type WorkSettings } from "./work-settings.js";

export interface AppSettings extends WorkSettings {
  /** The GitHub App's id (APP_ID), to recognise its own comments; null: not given (tests). */
  appId: number | null;
  /** Where GitHub's deliveries are taken besides `/` (WEBHOOK_PATH). */
  webhookPath: string;
  database: DatabaseSettings;
  /** How effects write to GitHub (GITHUB_WRITES). */
  writes: GithubWrites;
  /** GitHub's limits per installation, and the least pause after a secondary limit. */
  budget: Pick<BudgetSettings, "contentPerMinute" | "contentPerHour"> & { minPauseMs: number };
  labelLingerMs: number;
  webhooks: OutgoingWebhooks;
  /** GET /metrics; null: off, and nothing is metered. */
  metrics: MetricsSettings | null;
  rateLimit: ApiRateLimits;
  streams: EventStreamSettings;
  mcp: McpSettings;
  dashboard: DashboardSettings;
}

/**
 * Throws SettingError (or DatabaseConfigError) naming the first variable
 * that is wrong: APP_ID, the API's limits and EVENTS_KEEP first, as the
 * start always checked them, then the rest.
 */
export function appSettings(env: Env): AppSettings {
  const id = rawValue(env, "APP_ID");
  if (id && !/^\d+$/.test(id.trim())) throw new SettingError(`APP_ID is "${id}", not a number: copy the App ID from the GitHub App's settings page`);
  const rateLimit = rateLimitSettings(env);
  eventsKeepMs(env);
  return {
    appId: id ? Number(id) : null,
    webhookPath: givenValue(env, "WEBHOOK_PATH") ?? DEFAULT_WEBHOOK_PATH,
    database: databaseSettings(env),
    writes: githubWrites(env, "graphql"),
    budget: budgetSettings(env),
    labelLingerMs: labelLingerMs(env),
    ...workSettings(env),
    webhooks: outgoingWebhooks(env),
    metrics: metricsSettings(env),
    rateLimit,
    streams: eventStreamSettings(env),
    mcp: mcpSettings(env),
    dashboard: dashboardSettings(env),
  };
}
