/**
 * What the launcher needs before there is an app (startup/start.ts), read
 * whether the app is registered or not: the HTTP server's address, where
 * webhooks come in, the logs, and whether APP_ID is set. Probot reads the
 * same variables itself from the environment it is handed.
 */
import { githubApiUrl } from "./github-settings.js";
import { type Env, SettingError } from "./setting-row.js";
import { givenValue, rawValue } from "./settings-table.js";

export interface LogSettings {
  level: string;
  format: "json" | "pretty";
  levelInString: boolean;
  messageKey: string;
  sentryDsn: string | undefined;
}

export interface ServerSettings {
  port: number;
  /** Undefined: Probot's default, localhost. */
  host: string | undefined;
  /** Where GitHub's deliveries are taken besides `/` (WEBHOOK_PATH). */
  webhookPath: string;
  /** A smee.io channel to forward deliveries from (WEBHOOK_PROXY_URL). */
  webhookProxy: string | undefined;
  /** NODE_ENV=production. */
  production: boolean;
  /** APP_ID is set: the app runs; else Probot's setup page to register it. */
  registered: boolean;
  log: LogSettings;
  /** GITHUB_API_URL's REST base, when set: Probot knows only github.com and GHE_HOST, so its Octokit is given this one. */
  apiUrl: string | null;
  /** The REST base, whichever variable names it (github.com by default). */
  githubApiUrl: string;
}

export const DEFAULT_WEBHOOK_PATH = "/api/github/webhooks";

/** Throws SettingError naming the first variable that is wrong (PORT, WEBHOOK_PATH, then where GitHub is). */
export function serverSettings(env: Env): ServerSettings {
  const port = rawValue(env, "PORT");
  if (port && !/^\d+$/.test(port.trim())) throw new SettingError(`PORT is "${port}", not a port number: set PORT to e.g. 3000`);
  const webhookPath = givenValue(env, "WEBHOOK_PATH") ?? DEFAULT_WEBHOOK_PATH;
  if (!webhookPath.startsWith("/")) throw new SettingError(`WEBHOOK_PATH is ${JSON.stringify(webhookPath)}: give a path, such as ${DEFAULT_WEBHOOK_PATH}`);
  const production = rawValue(env, "NODE_ENV") === "production";
  const format = rawValue(env, "LOG_FORMAT");
  const api = githubApiUrl(env);
  return {
    port: Number(port) || 3000,
    host: rawValue(env, "HOST") || undefined,
    webhookPath,
    webhookProxy: rawValue(env, "WEBHOOK_PROXY_URL") || undefined,
    production,
    registered: Boolean(rawValue(env, "APP_ID")),
    // As Probot's `run` reads them (probot/lib/bin/read-env-options.js).
    log: {
      level: rawValue(env, "LOG_LEVEL") || "info",
      format: format ? (format === "pretty" ? "pretty" : "json") : production ? "json" : "pretty",
      levelInString: rawValue(env, "LOG_LEVEL_IN_STRING") === "true",
      messageKey: rawValue(env, "LOG_MESSAGE_KEY") || "msg",
      sentryDsn: rawValue(env, "SENTRY_DSN"),
    },
    apiUrl: givenValue(env, "GITHUB_API_URL") ? api : null,
    githubApiUrl: api,
  };
}
