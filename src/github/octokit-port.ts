/**
 * The GitHub port (github-port.ts) over an installation's Octokit: each call
 * one request (or one paginated read), sent through `timedFetch`, GitHub's
 * "already done" answers taken as done.
 */
import type { ProbotOctokit } from "probot";
import { readClosingIssues } from "./closing-issues.js";
import type { IssueJson } from "./issue-snapshot.js";
import { readBlockedIssues, readIssue } from "./issue-relations.js";
import { graphqlPort } from "./graphql-port.js";
import { type GitHubPort, httpStatus, type Permission } from "./github-port.js";
import { REQUEST_TIMEOUT_MS, type ResponseObserver, timedFetch } from "./timed-fetch.js";

async function ignoring<T>(statuses: number[], call: () => Promise<T>): Promise<T | undefined> {
  try {
    return await call();
  } catch (error) {
    if (statuses.includes(httpStatus(error) ?? -1)) return undefined;
    throw error;
  }
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
