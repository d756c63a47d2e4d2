/**
 * The few GitHub calls the app makes, as one narrow port. The outbox drainer
 * and the command handler depend on this interface, not on Octokit, and every
 * call states how it treats GitHub's "already done" answers (a label that is
 * already gone, a label that already exists): applying an effect twice must
 * be harmless. Octokit's implementation is octokit-port.ts; what an effect
 * writes through (fence, budget, batch) is effect-port.ts.
 */
import type { ClosingIssues } from "./closing-issues.js";
import type { IssueJson } from "./issue-snapshot.js";
import type { GraphqlPort } from "./graphql-port.js";

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
