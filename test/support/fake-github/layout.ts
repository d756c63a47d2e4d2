/**
 * GitHub's two layouts, and where each serves what (github/github-urls.ts
 * is the app's side of it):
 *
 * - `github.com`: REST at the root (`https://api.github.com/repos/…`), GraphQL at `/graphql`;
 * - `enterprise` (GitHub Enterprise Server): REST under `/api/v3`, GraphQL at
 *   `/api/graphql`, beside it: `/api/v3/graphql` and `/graphql` are 404s.
 *
 * The web pages (`/login/oauth/…`, the board's sign-in) are at the root in
 * both. A request anywhere else matches no route: 404, recorded as
 * unmatched, which fails the test that sent it (strict-fake.ts).
 */
export type Layout = "github.com" | "enterprise";

export const LAYOUTS: Record<Layout, { rest: string; graphql: string }> = {
  "github.com": { rest: "", graphql: "/graphql" },
  enterprise: { rest: "/api/v3", graphql: "/api/graphql" },
};

/** The route table's name for GraphQL's endpoint, whatever the layout. */
export const GRAPHQL_ROUTE = "/graphql";

const WEB = /^\/login\//;

/** The layout tests get unless they ask: FAKE_GITHUB_LAYOUT (the vitest project that runs the whole-path tests again), else Enterprise Server's. */
export function defaultLayout(): Layout {
  const asked = process.env.FAKE_GITHUB_LAYOUT;
  if (asked === undefined || asked === "") return "enterprise";
  if (asked === "github.com" || asked === "enterprise") return asked;
  throw new Error(`FAKE_GITHUB_LAYOUT is ${JSON.stringify(asked)}: "github.com" or "enterprise"`);
}

/** The path as the route table knows it (layout prefix gone, GraphQL as GRAPHQL_ROUTE), or null where this layout serves nothing. */
export function routePath(layout: Layout, rawPath: string): string | null {
  if (WEB.test(rawPath)) return rawPath;
  const { rest, graphql } = LAYOUTS[layout];
  if (rawPath === graphql) return GRAPHQL_ROUTE;
  if (rest === "") return rawPath.startsWith("/api/") ? null : rawPath;
  if (!rawPath.startsWith(`${rest}/`)) return null;
  const path = rawPath.slice(rest.length);
  return path === GRAPHQL_ROUTE || WEB.test(path) ? null : path;
}

/** The environment that points the app's process at GitHub on `host` in `layout`: GHE_HOST (Enterprise Server), or GITHUB_API_URL. */
export function appEnvFor(host: string, layout: Layout): Record<string, string> {
  return layout === "enterprise" ? { GHE_HOST: host, GHE_PROTOCOL: "http" } : { GITHUB_API_URL: `http://${host}` };
}

/** The REST base URL of GitHub on `host` in `layout`, for an Octokit's baseUrl. */
export function restUrlFor(host: string, layout: Layout): string {
  return `http://${host}${LAYOUTS[layout].rest}`;
}
