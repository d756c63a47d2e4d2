/**
 * What tests and benchmarks see of the fake GitHub: its options, the
 * requests it records, the seeds it takes and the `FakeGitHub` handle
 * `startFakeGitHub` returns (fake-github.ts).
 */
import type { Layout } from "./layout.js";
import type { InteractionLimit } from "./records.js";

export type { InteractionLimit, Layout };
export type Permission = "admin" | "maintain" | "write" | "triage" | "read" | "none";

export interface FakeGitHubOptions {
  /** Default 1; comments it posts carry performed_via_github_app {id: appId, slug}. */
  appId?: number;
  /** Default "issue-leases"; the bot login is `${slug}[bot]`. */
  appSlug?: string;
  /** Default 0 (a free port). */
  port?: number;
  /** Default 1; the id served by the installation endpoints. */
  installationId?: number;
  /** Clock for timestamps and the content limit window; default Date.now. */
  now?: () => number;
  /** Which of GitHub's layouts it serves (layout.ts); default FAKE_GITHUB_LAYOUT, else "enterprise". */
  layout?: Layout;
}

export interface RecordedRequest {
  method: string;
  /**
   * Path as GitHub's routes name it, without the layout's prefix (`/api/v3`) and the query string, still
   * percent-encoded; GraphQL's is `/graphql` in both layouts. An unmatched request keeps the path it was sent to.
   */
  path: string;
  /** Query string without the leading "?", or "". */
  query: string;
  status: number;
  /** The parsed JSON request body, or undefined when there was none. */
  body: unknown;
  /** Arrival time, from the fake's clock. */
  at: number;
  /** The app's comments the request posted (`owner/name#issue`): a REST POST's, or a GraphQL document's addComment. */
  posted?: string[];
}

export interface PullRequestSeed {
  number: number;
  body?: string;
  user: string;
  headSha: string;
  title?: string;
  headRef?: string;
  state?: "open" | "closed";
  draft?: boolean;
}

export interface IssueSeed {
  title?: string;
  body?: string;
  user?: string;
  state?: "open" | "closed";
  labels?: string[];
  assignees?: string[];
  /** The issues that block it (GitHub's issue dependencies), replacing those it had; `repo` defaults to its own. */
  blockedBy?: Array<{ repo?: string; issue: number }>;
  /** Its parent (GitHub's sub-issues), or null for none; `repo` defaults to its own. */
  parent?: { repo?: string; issue: number } | null;
}

/** An API caller's token, as addToken takes it. */
export interface TokenSeed {
  login: string;
  id: number;
  type?: "User" | "Bot";
  /** The repositories it sees; default all. With `installation`: the repositories its installation reaches. */
  repos?: string[];
  /**
   * An installation token's installation (a GitHub App's bot, `github-actions[bot]`'s `GITHUB_TOKEN`), as GitHub
   * tells it apart: `GET /installation/repositories` lists `repos`, and, as GitHub shows public repositories to any
   * token, it also sees and reads public repositories outside them, without being let to comment on or react to their
   * issues (GraphQL `viewerCanReact` false). Without it, a bot's token sees `repos` only, as before.
   */
  installation?: number;
  /**
   * What it may do with issues; default "write". Another app's installation token with only metadata (or checks)
   * access is "none": it sees a repository but GitHub answers 403 for its issues.
   */
  issues?: "none" | "read" | "write";
  /** An account created within the day: an `existing_users` interaction limit shuts it out. */
  newAccount?: boolean;
}

export interface FakeGitHub {
  /** "http://127.0.0.1:PORT" */
  url: string;
  /** "127.0.0.1:PORT", for GHE_HOST. */
  host: string;
  /** The REST API's base, for Octokit's baseUrl: url + "/api/v3" (Enterprise Server), or url (github.com). */
  baseUrl: string;
  /** GraphQL's endpoint: url + "/api/graphql" (Enterprise Server), or url + "/graphql" (github.com). */
  graphqlUrl: string;
  /** Which of GitHub's layouts it serves. */
  layout: Layout;
  /**
   * The environment that points the app's process at it: GHE_HOST and GHE_PROTOCOL=http (Enterprise Server), or
   * GITHUB_API_URL (github.com's layout on this host).
   */
  appEnv(): Record<string, string>;
  /** Every request except installation-token requests, in the order answered. */
  requests: RecordedRequest[];
  /**
   * Requests no route matched (a path or a layout GitHub does not serve, a GraphQL document outside its schema);
   * tests assert this stays empty, and strict-fake.ts fails any test that leaves one untaken.
   */
  unmatched: RecordedRequest[];
  /** The routes it serves in its layout, as GitHub's OpenAPI description names them (`GET /repos/{owner}/{repo}`); GraphQL's is `POST /graphql`. */
  routeList(): string[];
  /** The unmatched requests since the last call (reset() keeps them): a test that sends one on purpose takes it. */
  takeUnmatched(): RecordedRequest[];
  close(): Promise<void>;
  /**
   * Clears repos, seeded users, pending faults, request logs, `refused` and
   * the content limit's window. Keeps `delayMs` and the content limit
   * setting, which describe the server rather than its data.
   */
  reset(): void;

  addRepo(repo: string, opts?: { id?: number; defaultBranch?: string; private?: boolean }): void;
  addIssue(repo: string, issue: number, seed?: IssueSeed): void;
  addPullRequest(repo: string, pr: PullRequestSeed): void;
  repoLabels(repo: string): Array<{ name: string; color: string; description: string | null }>;
  issueLabels(repo: string, issue: number): string[];
  assignees(repo: string, issue: number): string[];
  comments(repo: string, issue: number): Array<{ id: number; body: string; user: string }>;
  /** Seeds a comment (default author "octocat") and returns its id. */
  addComment(repo: string, issue: number, body: string, user?: string): number;
  checkRuns(repo: string): Array<{ id: number; name: string; head_sha: string; status: string; conclusion: string | null; output: unknown }>;
  /** Users never set read as "read", like anyone on a public repo. */
  setPermission(repo: string, login: string, permission: Permission): void;
  setOrgMember(org: string, login: string): void;
  /** Served by the contents API; null removes the file. */
  setConfigFile(repo: string, path: string, content: string | null): void;
  /** GitHub silently drops assignees without access: this login is never assigned. */
  refuseAssignee(login: string): void;

  /** The next n writes answer `status` (default 500) and change nothing. */
  failNextWrites(n: number, status?: number): void;
  /** The next n writes are applied, but answer `status` (default 502), as a gateway that lost GitHub's answer does. */
  failNextWritesAfterApplying(n: number, status?: number): void;
  /** The next `n` reads whose path matches `path` answer `status` (default 500); reads are never faulted otherwise. */
  failNextReads(path: RegExp, n: number, status?: number): void;
  /** The next n writes answer 403 secondary rate limit with `retry-after`. */
  rateLimitNextWrites(n: number, retryAfterSeconds: number): void;
  /**
   * The next n GraphQL mutation documents answer as GitHub's GraphQL does
   * over a rate limit: HTTP 200, `data: null` and one error of type
   * RATE_LIMITED, and change nothing. They meet this before any fault armed
   * with the methods above; queries never do.
   */
  rateLimitNextGraphql(n: number): void;
  /**
   * Content-creating requests (POST of comments, labels, issue labels,
   * assignees, check runs, and GraphQL mutation documents, each counted once
   * however many mutations it holds) beyond `max` within a sliding
   * `windowMs` answer 403 secondary rate limit, with retry-after = seconds
   * until a slot frees.
   */
  setContentLimit(opts: { max: number; windowMs: number } | null): void;
  /** GitHub's limits together (80 a minute and 500 an hour): a request over any of them is refused, and counted in none. */
  setContentLimits(limits: Array<{ max: number; windowMs: number }>): void;
  /**
   * GitHub's points a minute (900 for REST): a write (a GraphQL mutation document included) costs 5, a read (a GraphQL
   * query) 1; a request over it is refused 403 secondary rate limit.
   */
  setPointsLimit(limit: { max: number; windowMs: number } | null): void;
  /** Requests refused by the content limit. */
  refused: number;
  /**
   * Successful (status < 400) write requests recorded; a GraphQL mutation document is one write, counted when GitHub
   * ran it (even if some of its mutations failed), not when the schema or RATE_LIMITED refused it.
   */
  writeCount(): number;
  /** Artificial latency per request, before it is handled. */
  delayMs: number;

  /**
   * API callers (issue 10): registers a token GitHub would accept, the
   * account it is (GraphQL `viewer`), and which repositories it sees
   * (`GET /repos/{owner}/{repo}` answers 404 for others, as GitHub does for
   * a private repository; default: all; an installation token's: TokenSeed's
   * `installation`). Unregistered tokens other than the app's are refused by
   * `viewer` (401).
   */
  addToken(token: string, who: TokenSeed): void;
  /** The app is not installed on this repository: `GET /repos/{owner}/{repo}/installation` answers 404. */
  uninstall(repo: string): void;

  // --- GitHub's moderation, which the API applies as GitHub applies it to comments.
  /** Locks the issue's conversation (reason: GitHub's `active_lock_reason`, e.g. "too heated"), or unlocks it (`locked: false`). */
  lockIssue(repo: string, issue: number, locked?: boolean, reason?: string | null): void;
  /** The user or organisation `owner` blocks `login`: they may not comment on (or react to) its repositories' issues. */
  block(owner: string, login: string): void;
  /** An interaction limit on a repository (`owner/name`) or on all of an owner's (`owner`); null lifts it. */
  setInteractionLimit(target: string, limit: InteractionLimit | null): void;

  // --- Users signing in to the board (OAuth web flow) and what their tokens see.
  /** The GitHub App's client id and secret the OAuth endpoints accept. */
  setOAuthApp(clientId: string, clientSecret: string): void;
  /** Who is signed in to GitHub in the browser: /login/oauth/authorize sends them straight back with a code (null: nobody; 401). */
  signInAs(login: string | null): void;
  /** The app's installations a user can access, and the repositories each gives them. */
  setUserInstallations(login: string, installations: Array<{ id: number; repos: Array<{ repo: string; private: boolean }> }>): void;
  /** User tokens handed out by the OAuth exchange and not revoked. */
  liveUserTokens(): string[];
}
