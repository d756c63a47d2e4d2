/**
 * The issues whose readiness an issue's change moves (issue 39): those it
 * blocks (GitHub's issue dependencies), and its parent (sub-issues). When a
 * blocker closes, GitHub sends `issues.closed` for the blocker only; the
 * issues it blocked change their `issue_dependencies_summary` without an
 * event of their own, so the app reads them: `GET
 * /repos/{owner}/{repo}/issues/{issue_number}/dependencies/blocking` lists
 * them (each in GitHub's issue JSON, its summary as it is now); a
 * sub-issue's close changes its parent's `sub_issues_summary` the same way,
 * and the parent is read where the sub-issue's `parent_issue_url` points
 * (`GET /repos/{owner}/{repo}/issues/{issue_number}`: Enterprise Server
 * 3.19 has no `…/parent`).
 */
import type { ProbotOctokit } from "probot";
import type { IssueJson } from "./issue-snapshot.js";

type Request = { request: { fetch: typeof fetch } };
type Repo = { owner: string; repo: string };

/** One page (from 1) of the issues `issue` blocks, 100 at most; `more`: GitHub names a next page. */
export async function readBlockedIssues(octokit: ProbotOctokit, r: Repo, issue: number, page: number, request: Request): Promise<{ issues: IssueJson[]; more: boolean }> {
  const res = await octokit.rest.issues.listDependenciesBlocking({ ...r, issue_number: issue, per_page: 100, page, ...request });
  return { issues: res.data as IssueJson[], more: /rel="next"/.test(String(res.headers.link ?? "")) };
}

/** The issue as GitHub shows it now, or null when it is gone (404, 410). */
export async function readIssue(octokit: ProbotOctokit, r: Repo, issue: number, request: Request): Promise<IssueJson | null> {
  try {
    const res = await octokit.rest.issues.get({ ...r, issue_number: issue, ...request });
    return res.data as IssueJson;
  } catch (error) {
    const status = (error as { status?: number }).status;
    if (status === 404 || status === 410) return null;
    throw error;
  }
}

/** The repository and number a `parent_issue_url` names (`…/repos/{owner}/{repo}/issues/{number}`, either layout), or null. */
export function issueOfUrl(url: string | null | undefined): { owner: string; repo: string; issue: number } | null {
  const m = /\/repos\/([^/]+)\/([^/]+)\/issues\/(\d+)$/.exec(url ?? "");
  return m ? { owner: decodeURIComponent(m[1]!), repo: decodeURIComponent(m[2]!), issue: Number(m[3]) } : null;
}
