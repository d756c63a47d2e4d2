/**
 * Pure parsers for what an operator types to name a repository
 * (`owner/name`) or an issue (`owner/name#N`), with GitHub's rules for the
 * characters of owners and repository names.
 */

export interface IssueRef {
  /** `owner/name` as typed; looked up case-insensitively. */
  repo: string;
  issue: number;
}

const REPO = /^([A-Za-z0-9](?:[A-Za-z0-9-]{0,38}))\/([A-Za-z0-9._-]{1,100})$/;
const ISSUE = /^(.+)#([0-9]+)$/;

/** `owner/name`, or null when it is not one. */
export function parseRepoName(text: string): string | null {
  const m = REPO.exec(text);
  if (!m || m[2] === "." || m[2] === "..") return null;
  return `${m[1]}/${m[2]}`;
}

/** `owner/name#N` with N a positive issue number, or null when it is not one. */
export function parseIssueRef(text: string): IssueRef | null {
  const m = ISSUE.exec(text);
  if (!m) return null;
  const repo = parseRepoName(m[1]!);
  const issue = Number(m[2]);
  if (repo === null || !Number.isSafeInteger(issue) || issue < 1) return null;
  return { repo, issue };
}
