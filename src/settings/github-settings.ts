/**
 * Where GitHub is, and the limits the app keeps with it, from the
 * environment: GITHUB_API_URL, GHE_HOST and GHE_PROTOCOL; GITHUB_CONTENT_*,
 * GITHUB_MIN_PAUSE_S, GITHUB_WRITES and LABEL_LINGER_S.
 */
import { type BudgetSettings, DEFAULT_BUDGET, DEFAULT_LABEL_LINGER_MS, type GithubWrites } from "../github/budget-settings.js";
import { GITHUB_COM_API } from "../github/github-urls.js";
import { numberSetting } from "./parse-number.js";
import { type Env, SettingError } from "./setting-row.js";
import { rawValue } from "./settings-table.js";

/**
 * The REST base URL the environment names: `GITHUB_API_URL` (github.com's
 * layout on another host, such as GHE.com's `https://api.NAME.ghe.com`, or
 * Enterprise Server's `https://HOST/api/v3`), else Probot's `GHE_HOST` and
 * `GHE_PROTOCOL` (Enterprise Server), else github.com. Throws a message
 * naming the variable to fix.
 */
export function githubApiUrl(env: Env): string {
  const api = rawValue(env, "GITHUB_API_URL")?.trim();
  const host = rawValue(env, "GHE_HOST")?.trim();
  if (api) {
    if (host) {
      throw new SettingError(
        `both GITHUB_API_URL (${api}) and GHE_HOST (${host}) are set: set GHE_HOST for GitHub Enterprise Server, ` +
          "or GITHUB_API_URL for another address of the API, not both",
      );
    }
    let url: URL;
    try {
      url = new URL(api);
    } catch {
      throw new SettingError(`GITHUB_API_URL is ${JSON.stringify(api)}, not a URL: set it to e.g. https://api.NAME.ghe.com or https://HOST/api/v3`);
    }
    if ((url.protocol !== "https:" && url.protocol !== "http:") || url.search || url.hash || url.username) {
      throw new SettingError(`GITHUB_API_URL is ${JSON.stringify(api)}: give the API's base address only, such as https://api.NAME.ghe.com`);
    }
    return api.replace(/\/+$/, "");
  }
  if (!host) return GITHUB_COM_API;
  const protocol = rawValue(env, "GHE_PROTOCOL")?.trim() || "https";
  if (protocol !== "https" && protocol !== "http") throw new SettingError(`GHE_PROTOCOL is ${JSON.stringify(protocol)}: set it to https (the default) or http`);
  if (/[/:?#@\s]/.test(host.replace(/:\d+$/, ""))) {
    throw new SettingError(`GHE_HOST is ${JSON.stringify(host)}: give the host name only (github.example.com), without a scheme or a path`);
  }
  return `${protocol}://${host}/api/v3`;
}

/**
 * From GITHUB_CONTENT_PER_MINUTE (default 80, at most GitHub's 80) and
 * GITHUB_CONTENT_PER_HOUR (default 500, at most GitHub's 500): lower them
 * to share an installation with other apps or among replicas.
 * GITHUB_MIN_PAUSE_S (default 60): the least a secondary limit pauses an
 * installation.
 */
export function budgetSettings(env: Env): Pick<BudgetSettings, "contentPerMinute" | "contentPerHour"> & { minPauseMs: number } {
  const upTo = (max: number) => ({ whole: true, min: 1, max, what: `a whole number from 1 to ${max}` });
  return {
    contentPerMinute: numberSetting(env, "GITHUB_CONTENT_PER_MINUTE", DEFAULT_BUDGET.contentPerMinute, upTo(80)),
    contentPerHour: numberSetting(env, "GITHUB_CONTENT_PER_HOUR", DEFAULT_BUDGET.contentPerHour, upTo(500)),
    minPauseMs: numberSetting(env, "GITHUB_MIN_PAUSE_S", 60, upTo(3600)) * 1000,
  };
}

/**
 * From LABEL_LINGER_S (default 86400, a day; 0 to 2592000): how long, on the
 * GraphQL path, a holder or token label that no live lease calls for stays
 * in the repository before it is deleted, so that the next claim that calls
 * for it adds it in its one document rather than creating it first.
 */
export function labelLingerMs(env: Env): number {
  const most = 30 * 86_400;
  return numberSetting(env, "LABEL_LINGER_S", DEFAULT_LABEL_LINGER_MS / 1000, { whole: true, min: 0, max: most, what: `a whole number of seconds from 0 to ${most}` }) * 1000;
}

/**
 * From GITHUB_WRITES: `graphql` (one mutation document per command) or
 * `rest` (a request per label, assignee and reply, for a GitHub Enterprise
 * Server that lacks a mutation).
 */
export function githubWrites(env: Env, fallback: GithubWrites): GithubWrites {
  const raw = rawValue(env, "GITHUB_WRITES");
  if (raw === undefined || raw === "") return fallback;
  if (raw === "graphql" || raw === "rest") return raw;
  throw new SettingError(`GITHUB_WRITES must be "graphql" or "rest"; it is "${raw}"`);
}
