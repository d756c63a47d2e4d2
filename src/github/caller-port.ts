/**
 * What the app asks GitHub with a caller's own token (a bot's or a
 * person's, on the API, the event stream, the MCP server and the board's
 * JSON listing), one narrow port per caller:
 *
 * - who the token is (`ViewerGitHub`: api/identity.ts), and which
 *   repositories an installation token reaches (`ReachGitHub`:
 *   api/token-scope.ts);
 * - whether GitHub's moderation would let it comment on an issue
 *   (`ModerationGitHub`: api/moderation.ts);
 * - what it sees of a repository and an issue (`RepoSightGitHub`: api/access.ts).
 *
 * GraphQL's questions are caller-graphql.ts, the REST reads caller-rest.ts.
 * The token is sent to GitHub, never kept or logged; each call throws
 * GitHubUnavailable when GitHub does not answer (5xx, the network, a
 * time-out, its rate limit).
 */
import { askModeration, askViewer, type Seen, type Viewer } from "./caller-graphql.js";
import { callerGet, listReachedPage, type ReachedPage } from "./caller-rest.js";
import { GitHubUnavailable } from "./github-unavailable.js";
import type { GitHubUrls } from "./github-urls.js";

export { PER_PAGE as REACH_PER_PAGE, type ReachedPage } from "./caller-rest.js";
export type { Seen, Viewer } from "./caller-graphql.js";

export interface ViewerGitHub {
  /** The account behind `token` (GraphQL `viewer`), or null when GitHub refuses the token (401). */
  viewer(token: string): Promise<Viewer | null>;
}

export interface ReachGitHub {
  /**
   * Page `page` (from 1, REACH_PER_PAGE a page) of the repositories an
   * installation token reaches (`GET /installation/repositories`): "refused"
   * when GitHub refuses the token (401), "none" for a token that is not an
   * installation's (403, 404).
   */
  reachedPage(token: string, page: number): Promise<ReachedPage | "refused" | "none">;
}

export interface ModerationGitHub {
  /** What GitHub's moderation says of the issue to `token` (GraphQL: `viewerCanReact`, the lock, the interaction limit). */
  moderation(token: string, repo: { owner: string; name: string }, issue: number): Promise<Seen>;
}

/** A repository as `GET /repos/{owner}/{repo}` shows it to a token. */
export interface SeenRepository {
  id: number;
  name: string;
  owner: { login: string; type?: string };
  private?: boolean;
  open_issues_count?: number;
}

export interface RepoSightGitHub {
  /** `GET /repos/{owner}/{name}` (following a rename), or null when the token may not see it (401, 403, 404, 410). */
  repository(token: string, owner: string, name: string): Promise<SeenRepository | null>;
  /** Whether the token may read the repository's issues (`GET /repos/{owner}/{name}/issues?per_page=1`). */
  readsIssues(token: string, owner: string, name: string): Promise<boolean>;
  /**
   * The issue's JSON (`GET /repos/{owner}/{name}/issues/{number}`), or null when
   * the token may not read it or it moved (a transferred issue answers 301: not
   * this repository's any more).
   */
  issue(token: string, owner: string, name: string, number: number): Promise<unknown>;
}

export type CallerGitHub = ViewerGitHub & ReachGitHub & ModerationGitHub & RepoSightGitHub;

/** How long GitHub may take to answer a caller's question, by default. */
export const CALLER_TIMEOUT_MS = 10_000;

const path = (owner: string, name: string) => `/repos/${encodeURIComponent(owner)}/${encodeURIComponent(name)}`;

/** The calls with a caller's token to the GitHub at `urls` (github-urls.ts), each given `timeoutMs` to answer. */
export function callerGitHub(urls: Pick<GitHubUrls, "rest" | "graphql">, o: { timeoutMs?: number } = {}): CallerGitHub {
  const timeoutMs = o.timeoutMs ?? CALLER_TIMEOUT_MS;
  return {
    viewer: (token) => askViewer(urls.graphql, token, timeoutMs),
    reachedPage: (token, page) => listReachedPage(urls.rest, token, page, timeoutMs),
    moderation: (token, repo, issue) => askModeration(urls.graphql, token, repo, issue, timeoutMs),
    async repository(token, owner, name) {
      const what = "whether the caller sees the repository";
      const body = (await callerGet(urls.rest, token, path(owner, name), what, timeoutMs)) as {
        id?: number;
        name?: string;
        private?: boolean;
        open_issues_count?: number;
        owner?: { login?: string; type?: string };
      } | null;
      if (body === null) return null;
      if (typeof body.id !== "number" || typeof body.name !== "string" || typeof body.owner?.login !== "string") {
        throw new GitHubUnavailable(`${what} (an answer without the repository)`);
      }
      return body as SeenRepository;
    },
    async readsIssues(token, owner, name) {
      return (await callerGet(urls.rest, token, `${path(owner, name)}/issues?per_page=1`, "whether the caller may read the repository's issues", timeoutMs)) !== null;
    },
    // Read on every claim: Node's own http client (github-get.ts), and a redirect is not followed.
    issue: (token, owner, name, number) => callerGet(urls.rest, token, `${path(owner, name)}/issues/${number}`, "the issue", timeoutMs, "manual"),
  };
}
