/**
 * The two GraphQL questions the app asks with a caller's own token
 * (caller-port.ts): who the token is (`viewer`, which answers for user
 * tokens, personal access tokens and installation tokens alike; REST
 * `GET /user` refuses the last), and what GitHub's moderation would let it
 * do on an issue (`viewerCanReact`, the lock, the interaction limit: the
 * API's moderation, api/moderation.ts).
 */
import { GitHubUnavailable } from "./github-unavailable.js";

export const VIEWER = "query { viewer { __typename login databaseId } }";

export const MODERATION = `query($owner: String!, $name: String!, $number: Int!) {
  repository(owner: $owner, name: $name) {
    interactionAbility { limit expiresAt }
    issueOrPullRequest(number: $number) {
      ... on Issue { locked activeLockReason viewerCanReact }
      ... on PullRequest { locked activeLockReason viewerCanReact }
    }
  }
}`;

/** The account behind a token, as GitHub's `viewer` names it. */
export interface Viewer {
  /** The account's numeric id. */
  id: number;
  login: string;
  /** "Bot" for GitHub App installation tokens, else "User". */
  type: "User" | "Bot";
}

/** What GitHub said of the issue, to the caller's token. */
export interface Seen {
  /** null: GitHub did not say (the issue is not there for this token, or the answer had no such field). */
  canReact: boolean | null;
  locked: boolean;
  lockReason: string | null;
  /** The interaction limit in force, as GitHub names it (e.g. COLLABORATORS_ONLY), when GitHub shows it to the caller. */
  limit: { limit: string; expiresAt: number | null } | null;
  /** GitHub refused the query's fields to this token (FORBIDDEN, INSUFFICIENT_SCOPES). */
  forbidden: boolean;
}

/** GraphQL error types that answer the question (the token may not see it), rather than leave it open. */
const ACCESS_ERRORS = new Set(["FORBIDDEN", "INSUFFICIENT_SCOPES", "NOT_FOUND"]);

/** A document POSTed with the caller's token; a request that gets no answer throws GitHubUnavailable(`what`). */
async function post(graphqlUrl: string, token: string, body: { query: string; variables?: Record<string, unknown> }, timeoutMs: number, what: string): Promise<Response> {
  try {
    return await fetch(graphqlUrl, {
      method: "POST",
      headers: { authorization: `bearer ${token}`, "content-type": "application/json", "user-agent": "issue-leases" },
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(timeoutMs),
    });
  } catch (error) {
    throw new GitHubUnavailable(what, error);
  }
}

/** The viewer of `token`, or null when GitHub refuses the token (401). Throws GitHubUnavailable when GitHub does not answer. */
export async function askViewer(graphqlUrl: string, token: string, timeoutMs: number): Promise<Viewer | null> {
  const res = await post(graphqlUrl, token, { query: VIEWER }, timeoutMs, "who the token is");
  // 401 only: a 403 is GitHub's rate limit, which says nothing of the token.
  if (res.status === 401) {
    await res.arrayBuffer();
    return null;
  }
  if (!res.ok) {
    await res.arrayBuffer();
    throw new GitHubUnavailable(`who the token is (HTTP ${res.status})`);
  }
  const answer = (await res.json().catch(() => null)) as { data?: { viewer?: { __typename?: string; login?: string; databaseId?: number } } } | null;
  const viewer = answer?.data?.viewer;
  if (!viewer || typeof viewer.login !== "string" || typeof viewer.databaseId !== "number") {
    throw new GitHubUnavailable("who the token is (no viewer in the answer)");
  }
  return { id: viewer.databaseId, login: viewer.login, type: viewer.__typename === "Bot" ? "Bot" : "User" };
}

/**
 * What GitHub's moderation says of issue `issue` of `repo` to `token`.
 * Throws GitHubUnavailable when GitHub does not answer the question (an
 * error that is not about the token's access, with no verdict).
 */
export async function askModeration(graphqlUrl: string, token: string, repo: { owner: string; name: string }, issue: number, timeoutMs: number): Promise<Seen> {
  const what = "whether the caller may act on the issue";
  const res = await post(graphqlUrl, token, { query: MODERATION, variables: { owner: repo.owner, name: repo.name, number: issue } }, timeoutMs, what);
  const body = (await res.json().catch(() => null)) as GraphQLAnswer | null;
  if (!res.ok) throw new GitHubUnavailable(`${what} (HTTP ${res.status})`);
  const repository = body?.data?.repository;
  const subject = repository?.issueOrPullRequest;
  const errors = body?.errors ?? [];
  // No verdict, and an error that is not about this token's access (RATE_LIMITED, a timeout, an outage): GitHub
  // did not answer the question, which must not be taken as a yes and kept for minutes.
  const unanswered = errors.filter((e) => !ACCESS_ERRORS.has(e.type ?? ""));
  if (typeof subject?.viewerCanReact !== "boolean" && unanswered.length > 0) {
    throw new GitHubUnavailable(`${what} (GitHub answered ${unanswered.map((e) => e.type ?? "an error").join(", ")})`);
  }
  const expires = Date.parse(repository?.interactionAbility?.expiresAt ?? "");
  return {
    canReact: typeof subject?.viewerCanReact === "boolean" ? subject.viewerCanReact : null,
    locked: subject?.locked === true,
    lockReason: typeof subject?.activeLockReason === "string" ? subject.activeLockReason : null,
    limit: typeof repository?.interactionAbility?.limit === "string"
      ? { limit: repository.interactionAbility.limit, expiresAt: Number.isFinite(expires) ? expires : null }
      : null,
    // A field GitHub would not show this token, on the issue itself: the token may not read it, let alone write.
    forbidden:
      typeof subject?.viewerCanReact !== "boolean" &&
      errors.some((e) => (e.type === "FORBIDDEN" || e.type === "INSUFFICIENT_SCOPES") && !(e.path ?? []).includes("interactionAbility")),
  };
}

interface GraphQLAnswer {
  data?: {
    repository?: {
      interactionAbility?: { limit?: string; expiresAt?: string | null } | null;
      issueOrPullRequest?: { locked?: boolean; activeLockReason?: string | null; viewerCanReact?: boolean } | null;
    } | null;
  } | null;
  errors?: Array<{ type?: string; path?: Array<string | number>; message?: string }>;
}
