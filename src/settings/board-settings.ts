/**
 * The board's settings from the environment (dashboard/settings.ts says
 * what each is for): DASHBOARD, GITHUB_CLIENT_ID and GITHUB_CLIENT_SECRET,
 * SESSION_SECRET, PUBLIC_URL, and where GitHub is.
 */
import { hkdfSync } from "node:crypto";
import type { DashboardSettings, GitHubHosts } from "../dashboard/settings.js";
import { githubUrls } from "../github/github-urls.js";
import { githubApiUrl } from "./github-settings.js";
import { type Env, SettingError } from "./setting-row.js";
import { rawValue } from "./settings-table.js";

export function githubHosts(env: Env): GitHubHosts {
  const urls = githubUrls(githubApiUrl(env));
  return { web: urls.web, api: urls.rest };
}

export function dashboardSettings(env: Env): DashboardSettings {
  const dashboard = rawValue(env, "DASHBOARD");
  const mode = (dashboard ?? "").trim().toLowerCase() || "on";
  if (mode !== "on" && mode !== "off") {
    throw new SettingError(`DASHBOARD is ${JSON.stringify(dashboard)}: set it to "on" (the default) or "off"`);
  }
  const clientId = rawValue(env, "GITHUB_CLIENT_ID")?.trim() ?? "";
  const clientSecret = rawValue(env, "GITHUB_CLIENT_SECRET")?.trim() ?? "";
  if ((clientId === "") !== (clientSecret === "")) {
    throw new SettingError(
      `${clientId ? "GITHUB_CLIENT_SECRET" : "GITHUB_CLIENT_ID"} is empty: "Sign in with GitHub" needs both GITHUB_CLIENT_ID and ` +
        "GITHUB_CLIENT_SECRET from the GitHub App's settings (or neither, for a board of public repositories only)",
    );
  }
  let baseUrl: URL | null = null;
  const base = rawValue(env, "PUBLIC_URL")?.trim();
  if (base) {
    try {
      baseUrl = new URL(base);
    } catch {
      throw new SettingError(`PUBLIC_URL is ${JSON.stringify(base)}: give the app's public address, such as https://leases.example.com`);
    }
    if (baseUrl.protocol !== "https:" && baseUrl.protocol !== "http:") {
      throw new SettingError(`PUBLIC_URL is ${JSON.stringify(base)}: it must start with https:// (or http:// for a local test)`);
    }
  }
  const oauth = clientId ? { clientId, clientSecret } : null;
  const secret = rawValue(env, "SESSION_SECRET")?.trim() || clientSecret;
  return {
    page: mode === "on",
    oauth,
    sessionKey: oauth ? Buffer.from(hkdfSync("sha256", secret, "issue-leases", "board session cookies", 32)) : null,
    baseUrl,
    github: githubHosts(env),
  };
}
