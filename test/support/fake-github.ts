/**
 * An in-process fake of the slice of the GitHub REST API that issue-leases
 * uses, and of its GraphQL API (a few queries, and the mutations on labels,
 * assignees and comments), for end-to-end tests, fault tests and benchmarks.
 *
 * It speaks HTTP (node:http only) so the real app, Octokit plugins included
 * (auth, retry, throttling, config), runs unmodified against it: point the
 * app's process at it with `fake.appEnv()` (GHE_HOST or GITHUB_API_URL), or
 * give an Octokit `baseUrl: fake.baseUrl`. It serves one of GitHub's two
 * layouts (fake-github/layout.ts), only where GitHub serves it: Enterprise
 * Server's (REST under `/api/v3`, GraphQL at `/api/graphql`; the default)
 * or github.com's (REST at the root, GraphQL at `/graphql`), chosen by
 * `layout` or FAKE_GITHUB_LAYOUT. A request anywhere else is a 404,
 * recorded as unmatched, and fails the test that sent it (strict-fake.ts).
 *
 * Behaviour copied from GitHub because the app depends on it:
 * - label names compare case-insensitively, are limited to 50 characters,
 *   and adding a missing label to an issue creates it (color "ededed");
 * - deleting a repo label removes it from every issue;
 * - assignees without access are dropped silently (see `refuseAssignee`);
 * - list endpoints paginate with `per_page`/`page` and a `Link` header;
 * - secondary rate limits answer 403 with a `retry-after` header and a
 *   message Octokit's throttling plugin recognises;
 * - GraphQL runs a document's aliased mutations in order, each on its own: a
 *   failed one answers null under its alias and an error with GitHub's
 *   `type` (NOT_FOUND, ...), the others still apply. Its node ids are the
 *   `node_id`s REST answers carry (a user's `U_<userId(login)>` resolves once
 *   the state mentions the login, e.g. after `setPermission`). A mutation
 *   document is one write and one content-creating request, however many
 *   mutations it holds; a query is a read. Every document is checked
 *   against GitHub's published schema.
 *
 * Repos and issues spring into existence on first use, so a test only seeds
 * what it asserts on. Handlers run synchronously once the body is read, so
 * each request is atomic, as GitHub's writes are.
 *
 * The fake lives in fake-github/: server.ts (HTTP, recording, faults),
 * route-table.ts and routes.ts (matching, and the routes in order), state.ts
 * and json-shapes.ts (the data and GitHub's JSON for it), and the handlers
 * by area (*-routes.ts). GraphQL is graphql.ts (the endpoint and its two
 * queries), graphql-schema.ts (GitHub's schema, which checks every
 * document), graphql-mutations.ts (the mutations, run by graphql-js on the
 * state with the REST routes' code) and graphql-nodes.ts (node ids and
 * GitHub's GraphQL objects). Everyone imports it from here.
 */
import { FakeGitHubServer } from "./fake-github/server.js";
import type { FakeGitHub, FakeGitHubOptions, RecordedRequest } from "./fake-github/types.js";

export { userId } from "./fake-github/json-shapes.js";
export { appEnvFor, defaultLayout, type Layout, restUrlFor } from "./fake-github/layout.js";
export type {
  FakeGitHub,
  FakeGitHubOptions,
  IssueSeed,
  Permission,
  PullRequestSeed,
  RecordedRequest,
  InteractionLimit,
  TokenSeed,
} from "./fake-github/types.js";

/** Every fake this process started and has not closed, for strict-fake.ts. */
const liveFakes = new Set<FakeGitHub>();
/** Unmatched requests of fakes closed before strict-fake.ts looked (a test file's own afterEach closes them first). */
const closedUntaken: string[] = [];

const described = (fake: FakeGitHub) => (r: RecordedRequest) => `${r.method} ${r.path}${r.query ? `?${r.query}` : ""} (${r.status}, ${fake.layout} layout)`;

/** The unmatched requests no test took, of every fake of this process, since the last call; for strict-fake.ts. */
export function untakenUnmatched(): string[] {
  return [...closedUntaken.splice(0), ...[...liveFakes].flatMap((fake) => fake.takeUnmatched().map(described(fake)))];
}

export async function startFakeGitHub(opts: FakeGitHubOptions = {}): Promise<FakeGitHub> {
  const fake = new FakeGitHubServer(opts);
  await fake.listen(opts.port ?? 0);
  liveFakes.add(fake);
  const close = fake.close.bind(fake);
  fake.close = () => {
    if (liveFakes.delete(fake)) closedUntaken.push(...fake.takeUnmatched().map(described(fake)));
    return close();
  };
  return fake;
}
