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
