/**
 * The board's settings, from the environment (see .env.example):
 *
 * - `DASHBOARD`: `on` (the default) or `off`. Off: no page, no sign-in; the
 *   JSON listing at /api/v1/leases stays, as part of the API.
 * - `GITHUB_CLIENT_ID`, `GITHUB_CLIENT_SECRET`: the GitHub App's client id
 *   and a client secret, for "Sign in with GitHub". Without them the board
 *   shows public repositories only, to everyone.
 * - `SESSION_SECRET`: the key that signs session cookies; default derived
 *   from GITHUB_CLIENT_SECRET, so that every replica signs alike.
 * - `PUBLIC_URL`: the app's public address (`https://leases.example.com`):
 *   the sign-in's callback URL is `PUBLIC_URL/oauth/callback`, and cookies are
 *   Secure when it is https. Without it both follow the request (its Host,
 *   and https when a proxy says `X-Forwarded-Proto: https`).
 * - `GHE_HOST`, `GHE_PROTOCOL` (GitHub Enterprise Server) or `GITHUB_API_URL`
 *   (the tests' fake GitHub, GHE.com), as for the rest of the app
 *   (github/github-urls.ts); github.com otherwise.
 */
import { hkdfSync } from "node:crypto";
import { githubApiUrl, githubUrls } from "../github/github-urls.js";
import { StartupError } from "../startup/startup-error.js";

export interface GitHubHosts {
  /** Where people and the OAuth pages are: https://github.com, or the GHE host. */
  web: string;
  /** The REST API: https://api.github.com, or the GHE host's /api/v3. */
  api: string;
}

export interface DashboardSettings {
  /** Whether the HTML board and sign-in are served. */
  page: boolean;
  /** Sign-in, when the app's client id and secret are set. */
  oauth: { clientId: string; clientSecret: string } | null;
  /** Signs session and sign-in cookies; null without sign-in. */
  sessionKey: Buffer | null;
  baseUrl: URL | null;
  github: GitHubHosts;
}

export function githubHosts(env: NodeJS.ProcessEnv): GitHubHosts {
  const urls = githubUrls(githubApiUrl(env));
  return { web: urls.web, api: urls.rest };
}

export function dashboardSettings(env: NodeJS.ProcessEnv): DashboardSettings {
  const mode = (env.DASHBOARD ?? "").trim().toLowerCase() || "on";
  if (mode !== "on" && mode !== "off") {
    throw new StartupError(`DASHBOARD is ${JSON.stringify(env.DASHBOARD)}: set it to "on" (the default) or "off"`);
  }
  const clientId = env.GITHUB_CLIENT_ID?.trim() ?? "";
  const clientSecret = env.GITHUB_CLIENT_SECRET?.trim() ?? "";
  if ((clientId === "") !== (clientSecret === "")) {
    throw new StartupError(
      `${clientId ? "GITHUB_CLIENT_SECRET" : "GITHUB_CLIENT_ID"} is empty: "Sign in with GitHub" needs both GITHUB_CLIENT_ID and ` +
        "GITHUB_CLIENT_SECRET from the GitHub App's settings (or neither, for a board of public repositories only)",
    );
  }
  let baseUrl: URL | null = null;
  const base = env.PUBLIC_URL?.trim();
  if (base) {
    try {
      baseUrl = new URL(base);
    } catch {
      throw new StartupError(`PUBLIC_URL is ${JSON.stringify(base)}: give the app's public address, such as https://leases.example.com`);
    }
    if (baseUrl.protocol !== "https:" && baseUrl.protocol !== "http:") {
      throw new StartupError(`PUBLIC_URL is ${JSON.stringify(base)}: it must start with https:// (or http:// for a local test)`);
    }
  }
  const oauth = clientId ? { clientId, clientSecret } : null;
  const secret = env.SESSION_SECRET?.trim() || clientSecret;
  return {
    page: mode === "on",
    oauth,
    sessionKey: oauth ? Buffer.from(hkdfSync("sha256", secret, "issue-leases", "board session cookies", 32)) : null,
    baseUrl,
    github: githubHosts(env),
  };
}
