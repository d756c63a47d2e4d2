/**
 * The few GitHub calls the app makes, as one narrow port. The outbox drainer
 * and the command handler depend on this interface, not on Octokit, and every
 * call states how it treats GitHub's "already done" answers (a label that is
 * already gone, a label that already exists): applying an effect twice must
 * be harmless.
 */
import type { ProbotOctokit } from "probot";
import { type ClosingIssues, readClosingIssues } from "./closing-issues.js";
import type { IssueJson } from "./issue-snapshot.js";
import { readBlockedIssues, readIssue } from "./issue-relations.js";
import { type GraphqlPort, graphqlPort } from "./graphql-port.js";

export interface Repo {
  owner: string;
  repo: string;
}

export type Permission = "admin" | "maintain" | "write" | "triage" | "read" | "none";

/** Whether a permission GitHub gave may act on someone else's lease: write, maintain or admin. */
export function isWriter(permission: Permission): boolean {
  return permission === "write" || permission === "maintain" || permission === "admin";
}

/** The GraphQL calls are optional: a port without them (a test's, or GITHUB_WRITES=rest) writes through REST. */
export interface GitHubPort extends Partial<GraphqlPort> {
  /** Adds labels to an issue; GitHub creates missing ones. */
  addLabels(r: Repo, issue: number, names: string[]): Promise<void>;
  /** Removes a label from an issue; absent is fine. */
  removeIssueLabel(r: Repo, issue: number, name: string): Promise<void>;
  /** Deletes a label from the repository (and so from every issue); absent is fine. */
  deleteRepoLabel(r: Repo, name: string): Promise<void>;
  /** Creates a repository label; one that exists already is fine. */
  createLabel(r: Repo, name: string, color: string, description: string): Promise<void>;
  /** Assigns a login; false when GitHub silently refused (bots, people without access). */
  addAssignee(r: Repo, issue: number, login: string): Promise<boolean>;
  removeAssignee(r: Repo, issue: number, login: string): Promise<void>;
  createComment(r: Repo, issue: number, body: string): Promise<void>;
  /**
   * Whether one of the app's own comments on the issue contains `needle` (a
   * read, used only when retrying). Other people's comments are not looked
   * at: anyone can write the same text.
   */
  hasOwnComment(r: Repo, issue: number, needle: string): Promise<boolean>;
  /** Whether the repository has a label of that name (a read). */
  labelExists(r: Repo, name: string): Promise<boolean>;
  permission(r: Repo, login: string): Promise<Permission>;
  /** The account with that login (`GET /users/{login}`): its numeric id and type; null when there is none. */
  account(login: string): Promise<{ id: number; login: string; type: string } | null>;
  createCheckRun(r: Repo, check: CheckRun): Promise<void>;
  /** Open pull requests of the repository (number, body, author, head sha). */
  openPullRequests(r: Repo): Promise<PullRequestInfo[]>;
  /** What GitHub will close when the pull request is merged (a read; see closing-issues.ts). */
  closingIssues(r: Repo, pull: number): Promise<ClosingIssues>;
  /**
   * One page (`page` from 1) of the repository's open issues, 100 at most,
   * oldest first, pull requests included (GitHub lists them too): one
   * request. `more`: GitHub names a next page.
   */
  openIssues(r: Repo, page: number): Promise<{ issues: IssueJson[]; more: boolean; lastPage?: number }>;
  /** One page (from 1) of the issues `issue` blocks, in GitHub's issue JSON (issue-relations.ts): one request. */
  blockedIssues(r: Repo, issue: number, page: number): Promise<{ issues: IssueJson[]; more: boolean }>;
  /** The issue in GitHub's JSON, or null when it is gone (404, 410): one request. */
  issue(r: Repo, issue: number): Promise<IssueJson | null>;
}

export interface CheckRun {
  name: string;
  headSha: string;
  conclusion: "success" | "failure" | "neutral";
  title: string;
  summary: string;
  /** Problems marked on lines of files of the commit (at most 50, GitHub's limit per request). */
  annotations?: CheckAnnotation[];
}

/** A mark on one line of a file of the checked commit, as GitHub shows it beside the file's diff. */
export interface CheckAnnotation {
  path: string;
  line: number;
  column: number;
  message: string;
}

export interface PullRequestInfo {
  number: number;
  body: string;
  author: { id: number; login: string };
  headSha: string;
}

/** An HTTP error as Octokit raises it. */
export interface HttpError {
  status: number;
  response?: { headers?: Record<string, string | number | undefined> };
  message?: string;
}

export function httpStatus(error: unknown): number | null {
  const status = (error as HttpError | null)?.status;
  return typeof status === "number" ? status : null;
}

async function ignoring<T>(statuses: number[], call: () => Promise<T>): Promise<T | undefined> {
  try {
    return await call();
  } catch (error) {
    if (statuses.includes(httpStatus(error) ?? -1)) return undefined;
    throw error;
  }
}

/** A request gives up after this long on the wire: a hung connection must not hold an effect forever. */
export const REQUEST_TIMEOUT_MS = 30_000;

/**
 * `fetch` with a time limit that starts when the request is sent. Probot's
 * throttling plugin holds a request in its installation's queue (writes 1 s
 * apart, comments 3 s apart) before sending it, so a limit set when the call
 * is made would abort requests that never reached GitHub, and the retry
 * plugin would queue them again, doomed. Each attempt gets its own limit.
 */
export function timedFetch(timeoutMs = REQUEST_TIMEOUT_MS, onResponse?: ResponseObserver): typeof fetch {
  return (input, init) => {
    const limit = AbortSignal.timeout(timeoutMs);
    // globalThis.fetch at call time, not at import: test interceptors replace it.
    const sent = globalThis.fetch(input, { ...init, signal: init?.signal ? AbortSignal.any([init.signal, limit]) : limit });
    if (!onResponse) return sent.then(noRetryOn429);
    const method = init?.method ?? (input instanceof Request ? input.method : "GET");
    const url = typeof input === "string" ? input : input instanceof URL ? input.href : input.url;
    return sent.then(
      (response) => {
        onResponse(method, url, response.status, init?.body);
        return noRetryOn429(response);
      },
      (error: unknown) => {
        onResponse(method, url, null, init?.body);
        throw error;
      },
    );
  };
}

/** The header a 429 answer carries once it is told as a 403 (see `noRetryOn429`). */
export const TOO_MANY_REQUESTS = "x-issue-leases-status";

/**
 * A 429 (GitHub's other answer to a secondary rate limit) told as a 403:
 * Octokit's retry plugin retries a 429 within seconds (it leaves 403 alone),
 * where GitHub asks for at least a minute. The outbox pauses the installation
 * instead (after-failure.ts reads the header).
 */
function noRetryOn429(response: Response): Response {
  if (response.status !== 429) return response;
  const headers = new Headers(response.headers);
  headers.set(TOO_MANY_REQUESTS, "429");
  return new Response(response.body, { status: 403, statusText: "Forbidden", headers });
}

/**
 * Told of every request sent through the port: its answer's status, or null
 * when none came (network error, timeout), and its body as sent (a GraphQL
 * document's tells a query, a read, from a mutation, a write).
 */
export type ResponseObserver = (method: string, url: string, status: number | null, body?: unknown) => void;

/** The port, failing every call once `signal` is aborted (an effect whose lock another process took). */
export function fenced(port: GitHubPort, signal: AbortSignal): GitHubPort {
  return aroundEachCall(port, (_name, call) => {
    signal.throwIfAborted();
    return call();
  });
}

/** The port with `around` about each of its calls: `name` is the call's, `call` makes it with the arguments given. */
export function aroundEachCall(port: GitHubPort, around: (name: keyof GitHubPort, call: () => unknown) => unknown): GitHubPort {
  return new Proxy(port, {
    get(target, prop, receiver) {
      const value = Reflect.get(target, prop, receiver) as unknown;
      if (typeof value !== "function") return value;
      return (...args: unknown[]) => around(prop as keyof GitHubPort, () => (value as (...a: unknown[]) => unknown).apply(target, args));
    },
  });
}

export interface PortOptions {
  /** The app's id: its own comments carry it in `performed_via_github_app`. */
  appId?: number;
  timeoutMs?: number;
  /** Sees every request and its status (for metrics). */
  onResponse?: ResponseObserver;
}

export function octokitPort(octokit: ProbotOctokit, opts: PortOptions = {}): GitHubPort {
  const fetch = timedFetch(opts.timeoutMs, opts.onResponse);
  const request = () => ({ request: { fetch } });
  return {
    ...graphqlPort(octokit, fetch),
    async addLabels(r, issue, labels) {
      await octokit.rest.issues.addLabels({ ...r, issue_number: issue, labels, ...request() });
    },
    async removeIssueLabel(r, issue, name) {
      await ignoring([404], () => octokit.rest.issues.removeLabel({ ...r, issue_number: issue, name, ...request() }));
    },
    async deleteRepoLabel(r, name) {
      await ignoring([404], () => octokit.rest.issues.deleteLabel({ ...r, name, ...request() }));
    },
    async createLabel(r, name, color, description) {
      await ignoring([422], () => octokit.rest.issues.createLabel({ ...r, name, color, description, ...request() }));
    },
    async addAssignee(r, issue, login) {
      const { data } = await octokit.rest.issues.addAssignees({ ...r, issue_number: issue, assignees: [login], ...request() });
      return (data.assignees ?? []).some((a) => a?.login.toLowerCase() === login.toLowerCase());
    },
    async removeAssignee(r, issue, login) {
      await octokit.rest.issues.removeAssignees({ ...r, issue_number: issue, assignees: [login], ...request() });
    },
    async createComment(r, issue, body) {
      // Not retried by Octokit's retry plugin: a 5xx or a timeout may come
      // after GitHub posted the comment, and the plugin would post it again
      // blindly. The failure goes to the drainer instead, whose next attempt
      // looks for the reply's marker before posting.
      await octokit.rest.issues.createComment({ ...r, issue_number: issue, body, request: { fetch, retries: 0 } });
    },
    async hasOwnComment(r, issue, needle) {
      const comments = await octokit.paginate(octokit.rest.issues.listComments, {
        ...r,
        issue_number: issue,
        per_page: 100,
        ...request(),
      });
      return comments.some(
        (c) => opts.appId !== undefined && c.performed_via_github_app?.id === opts.appId && (c.body ?? "").includes(needle),
      );
    },
    async labelExists(r, name) {
      try {
        await octokit.rest.issues.getLabel({ ...r, name, ...request() });
        return true;
      } catch (error) {
        if (httpStatus(error) === 404) return false;
        throw error;
      }
    },
    async permission(r, login) {
      try {
        const { data } = await octokit.rest.repos.getCollaboratorPermissionLevel({ ...r, username: login, ...request() });
        const role = (data.role_name ?? data.permission) as string;
        return (["admin", "maintain", "write", "triage", "read"].includes(role) ? role : data.permission) as Permission;
      } catch (error) {
        if (httpStatus(error) === 404) return "none";
        throw error;
      }
    },
    async account(login) {
      try {
        const { data } = await octokit.rest.users.getByUsername({ username: login, ...request() });
        return { id: data.id, login: data.login, type: data.type };
      } catch (error) {
        if (httpStatus(error) === 404) return null;
        throw error;
      }
    },
    async createCheckRun(r, check) {
      await octokit.rest.checks.create({
        ...r,
        name: check.name,
        head_sha: check.headSha,
        status: "completed",
        conclusion: check.conclusion,
        output: {
          title: check.title,
          summary: check.summary,
          ...(check.annotations?.length
            ? {
                annotations: check.annotations.slice(0, 50).map((a) => ({
                  path: a.path,
                  start_line: a.line,
                  end_line: a.line,
                  start_column: a.column,
                  end_column: a.column,
                  annotation_level: "failure" as const,
                  message: a.message,
                })),
              }
            : {}),
        },
        ...request(),
      });
    },
    async openPullRequests(r) {
      const pulls = await octokit.paginate(octokit.rest.pulls.list, { ...r, state: "open", per_page: 100, ...request() });
      return pulls.map((p) => ({
        number: p.number,
        body: p.body ?? "",
        author: { id: p.user?.id ?? 0, login: p.user?.login ?? "" },
        headSha: p.head.sha,
      }));
    },
    async closingIssues(r, pull) {
      return readClosingIssues(octokit, r, pull, REQUEST_TIMEOUT_MS, opts.onResponse && fetch);
    },
    async openIssues(r, page) {
      // Oldest first: an issue opened during a fill lands on a later page rather than shifting the pages already read.
      const res = await octokit.rest.issues.listForRepo({ ...r, state: "open", sort: "created", direction: "asc", per_page: 100, page, ...request() });
      const link = String(res.headers.link ?? "");
      const last = /[?&]page=(\d+)[^>]*>;\s*rel="last"/.exec(link);
      return { issues: res.data as IssueJson[], more: /rel="next"/.test(link), ...(last ? { lastPage: Number(last[1]) } : {}) };
    },
    blockedIssues: (r, issue, page) => readBlockedIssues(octokit, r, issue, page, request()),
    issue: (r, issue) => readIssue(octokit, r, issue, request()),
  };
}
