/**
 * Where GitHub is, in the one place that knows GitHub's two layouts:
 *
 * - github.com (and GitHub Enterprise Cloud with data residency, `api.NAME.ghe.com`):
 *   REST at `https://api.github.com/…`, GraphQL at `https://api.github.com/graphql`,
 *   web pages (sign-in) at `https://github.com`;
 * - GitHub Enterprise Server: REST at `https://HOST/api/v3/…`, GraphQL at
 *   `https://HOST/api/graphql` (beside `/api/v3`, not under it), web pages at `https://HOST`.
 *
 * The REST base URL tells which: one that ends in `/api/v3` is Enterprise
 * Server's, as Octokit's own `graphql()` decides. Every request the app
 * sends to GitHub takes its URL from here: a GraphQL document sent to
 * `POST /graphql` relative to Enterprise Server's REST base reaches
 * `/api/v3/graphql`, which GitHub answers 404.
 */

export type GitHubLayout = "github.com" | "enterprise-server";

export interface GitHubUrls {
  layout: GitHubLayout;
  /** The REST API's base, without a trailing slash. */
  rest: string;
  /** The GraphQL endpoint. */
  graphql: string;
  /** Where people and the OAuth pages are. */
  web: string;
}

export const GITHUB_COM_API = "https://api.github.com";

const ENTERPRISE_REST = /\/api\/v3$/;

/** GitHub's URLs, from the REST base URL the app's Octokit uses. */
export function githubUrls(restBase: string): GitHubUrls {
  const rest = restBase.replace(/\/+$/, "");
  const url = new URL(rest);
  if (ENTERPRISE_REST.test(url.pathname)) {
    const root = rest.replace(ENTERPRISE_REST, "");
    return { layout: "enterprise-server", rest, graphql: `${root}/api/graphql`, web: root };
  }
  // api.github.com -> github.com, api.NAME.ghe.com -> NAME.ghe.com; any other host (a proxy, the tests' fake) serves both.
  const web = url.hostname.startsWith("api.") ? `${url.protocol}//${url.host.slice("api.".length)}` : url.origin;
  return { layout: "github.com", rest, graphql: `${rest}/graphql`, web };
}

/** Whether `url` (a full request URL) is GitHub's GraphQL endpoint in either layout. */
export function isGraphqlUrl(url: string): boolean {
  return /\/graphql(?:\?|$)/.test(url);
}

/**
 * The REST base URL the environment names: `GITHUB_API_URL` (github.com's
 * layout on another host, such as GHE.com's `https://api.NAME.ghe.com`, or
 * Enterprise Server's `https://HOST/api/v3`), else Probot's `GHE_HOST` and
 * `GHE_PROTOCOL` (Enterprise Server), else github.com. Throws a message
 * naming the variable to fix.
 */
export function githubApiUrl(env: NodeJS.ProcessEnv): string {
  const api = env.GITHUB_API_URL?.trim();
  const host = env.GHE_HOST?.trim();
  if (api) {
    if (host) {
      throw new Error(
        `both GITHUB_API_URL (${api}) and GHE_HOST (${host}) are set: set GHE_HOST for GitHub Enterprise Server, ` +
          "or GITHUB_API_URL for another address of the API, not both",
      );
    }
    let url: URL;
    try {
      url = new URL(api);
    } catch {
      throw new Error(`GITHUB_API_URL is ${JSON.stringify(api)}, not a URL: set it to e.g. https://api.NAME.ghe.com or https://HOST/api/v3`);
    }
    if ((url.protocol !== "https:" && url.protocol !== "http:") || url.search || url.hash || url.username) {
      throw new Error(`GITHUB_API_URL is ${JSON.stringify(api)}: give the API's base address only, such as https://api.NAME.ghe.com`);
    }
    return api.replace(/\/+$/, "");
  }
  if (!host) return GITHUB_COM_API;
  const protocol = env.GHE_PROTOCOL?.trim() || "https";
  if (protocol !== "https" && protocol !== "http") throw new Error(`GHE_PROTOCOL is ${JSON.stringify(protocol)}: set it to https (the default) or http`);
  if (/[/:?#@\s]/.test(host.replace(/:\d+$/, ""))) {
    throw new Error(`GHE_HOST is ${JSON.stringify(host)}: give the host name only (github.example.com), without a scheme or a path`);
  }
  return `${protocol}://${host}/api/v3`;
}
