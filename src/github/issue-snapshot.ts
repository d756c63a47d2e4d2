/**
 * An issue as GitHub's JSON shows it (a webhook's `issue`, or an item of
 * `GET /repos/{owner}/{repo}/issues`: the same shape), reduced to what the
 * inventory keeps. Blocked-by and sub-issue counts are read where GitHub
 * gives them (`issue_dependencies_summary`, `sub_issues_summary`), null
 * otherwise.
 */
import type { IssueSnapshot } from "../ledger/inventory/inventory-types.js";

/** The fields read, each optional: payloads of older GitHub versions lack the newer ones. */
export interface IssueJson {
  number: number;
  title?: string;
  state?: string;
  labels?: Array<{ name?: string } | string>;
  assignees?: Array<{ id: number; login: string } | null> | null;
  assignee?: { id: number; login: string } | null;
  milestone?: { title?: string } | null;
  user?: { id: number; login: string } | null;
  created_at?: string;
  updated_at?: string;
  pull_request?: unknown;
  sub_issues_summary?: { total?: number; completed?: number } | null;
  issue_dependencies_summary?: { blocked_by?: number; blocking?: number; total_blocking?: number } | null;
  /** GitHub's API URL of the repository: which one an issue listed among another's dependencies is in. */
  repository_url?: string;
  /** The parent's API URL, for a sub-issue (GitHub's REST issue JSON). */
  parent_issue_url?: string | null;
}

const ms = (iso: string | undefined): number | null => {
  const t = iso ? Date.parse(iso) : NaN;
  return Number.isFinite(t) ? t : null;
};

/**
 * The snapshot, or null for a pull request (the issue list returns both) or
 * JSON without its times. `state` overrides the issue's own (a deleted or
 * transferred issue is "gone").
 */
export function issueSnapshot(repoId: number, issue: IssueJson, state?: IssueSnapshot["state"]): IssueSnapshot | null {
  if (issue.pull_request) return null;
  const createdAt = ms(issue.created_at);
  const updatedAt = ms(issue.updated_at);
  if (createdAt === null || updatedAt === null || typeof issue.number !== "number") return null;
  const assignees = (issue.assignees ?? (issue.assignee ? [issue.assignee] : [])).filter((a): a is { id: number; login: string } => !!a);
  const subs = issue.sub_issues_summary;
  const blocked = issue.issue_dependencies_summary?.blocked_by;
  return {
    repoId,
    issue: issue.number,
    title: issue.title ?? "",
    labels: (issue.labels ?? []).map((l) => (typeof l === "string" ? l : (l.name ?? ""))).filter((l) => l !== ""),
    assignees: assignees.map((a) => ({ id: a.id, login: a.login })),
    milestone: issue.milestone?.title ?? null,
    author: issue.user ? { id: issue.user.id, login: issue.user.login } : null,
    createdAt,
    state: state ?? (issue.state === "closed" ? "closed" : "open"),
    blockedByOpen: typeof blocked === "number" ? blocked : null,
    openSubIssues: subs && typeof subs.total === "number" ? Math.max(0, subs.total - (subs.completed ?? 0)) : null,
    updatedAt,
  };
}
