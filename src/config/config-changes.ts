/**
 * Whether a push or a pull request changes `.github/issue-leases.yml`, for
 * the config check (config-check.ts). A push says which files its commits
 * added and modified: asking costs nothing, so a push that does not touch
 * the file costs no request. A pull request's files are read from GitHub, a
 * page of 100 at a time, stopping at the page that has it, and no further
 * than `PULL_FILES_PAGES` pages: the webhook's delivery waits for them.
 *
 * In an organisation's `.github` repository the file is the organisation's
 * own (Probot reads it there, at the same path): the same check applies.
 */
import type { InstallationGitHub } from "../github/installation-port.js";
import { CONFIG_FILE } from "./config.js";

/** What the check needs of a `push` payload. */
export interface PushSeen {
  after: string;
  deleted?: boolean;
  commits?: Array<{ added?: string[]; modified?: string[] }>;
}

/** GitHub lists at most this many commits in a push's payload; a push with as many may have more. */
const PUSH_COMMITS_LISTED = 2048;

/** Pages of a pull request's files read at most (100 each): a pull request changing more files is checked only by its pushes. */
export const PULL_FILES_PAGES = 10;

/** Whether a push leaves the file added or changed at `after` (a push that may list fewer commits than it has: maybe). */
export function pushChangesConfig(push: PushSeen): boolean {
  if (push.deleted || /^0+$/.test(push.after)) return false;
  const commits = push.commits ?? [];
  if (commits.length >= PUSH_COMMITS_LISTED) return true;
  return commits.some((c) => [c.added, c.modified].some((files) => files?.includes(CONFIG_FILE) ?? false));
}

/** What the check asks GitHub of a pull request: its files, a page at a time. */
export type PullFilesGitHub = Pick<InstallationGitHub, "pullFiles">;

/**
 * Whether pull request `pull` adds or changes the file, from its files as
 * GitHub lists them; `changedFiles` (the payload's count) says how many
 * pages there are. GitHub's errors are thrown.
 */
export async function pullChangesConfig(github: PullFilesGitHub, owner: string, repo: string, pull: number, changedFiles: number): Promise<boolean> {
  const pages = Math.min(PULL_FILES_PAGES, Math.max(1, Math.ceil(changedFiles / 100)));
  for (let page = 1; page <= pages; page++) {
    const data = await github.pullFiles({ owner, repo }, pull, page);
    if (data.some((f) => f.filename === CONFIG_FILE && f.status !== "removed" && f.status !== "unchanged")) return true;
    if (data.length < 100) return false;
  }
  return false;
}
