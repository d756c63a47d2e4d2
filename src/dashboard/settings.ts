/**
 * The board's settings (read from the environment in
 * settings/board-settings.ts):
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
