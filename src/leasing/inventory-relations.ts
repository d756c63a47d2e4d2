/**
 * The issues whose readiness moves when another closes or reopens (issue
 * 39): those it blocks, and its parent. GitHub sends `issues.closed` for the
 * blocker only; the issues it blocked change their count of open blockers
 * without an event of their own, so an issue whose last blocker closed would
 * stay out of `next` until the next reconcile. When the closed (or reopened)
 * issue blocks others (its `issue_dependencies_summary`), they are read
 * from GitHub's list of them, each with its summary as it is now; when it is
 * a sub-issue (`parent_issue_url`), its parent is read. Each request takes a
 * slot of the installation's budget, in the tier above fills. An issue in a
 * repository the app does not serve is left alone.
 */
import type { GitHubBudget } from "../github/budget.js";
import { READ } from "../github/budget-settings.js";
import type { GitHubPort } from "../github/github-port.js";
import { issueOfUrl } from "../github/issue-relations.js";
import { type IssueJson, issueSnapshot } from "../github/issue-snapshot.js";
import type { IssueSnapshot } from "../ledger/inventory/inventory-types.js";
import type { Inventory } from "../ledger/inventory/inventory-roles.js";
import type { RepoMemory, RepoInfo } from "../ledger/repos/repo-memory.js";

/** What the relations ask GitHub: the issues one blocks, and an issue. */
export type RelationsGitHub = Pick<GitHubPort, "blockedIssues" | "issue">;

export interface RelationDeps {
  ledger: Inventory & Pick<RepoMemory, "findRepo">;
  clock: () => number;
  github: (installation: number) => Promise<RelationsGitHub>;
  /** The installation's budget of GitHub requests; null: none (tests with GitHub's pacing off). */
  budget: GitHubBudget | null;
}

/** Above fills (2), below replies to commands (0): what becomes ready should be seen before a reconcile's pages. */
const RELATION_TIER = 1;
/** Pages of issues one issue blocks read at most: 1,000 issues. */
const MAX_BLOCKED_PAGES = 10;

/** Whether GitHub says the issue blocks others (open or closed ones: either may now be unblocked or blocked again). */
export function blocksOthers(issue: IssueJson): boolean {
  const s = issue.issue_dependencies_summary;
  return (s?.blocking ?? 0) > 0 || (s?.total_blocking ?? 0) > 0;
}

/** `owner/name` of an API repository URL (`…/repos/{owner}/{repo}`, either layout), or null. */
function repoOfUrl(url: string | undefined): string | null {
  const m = /\/repos\/([^/]+)\/([^/]+)$/.exec(url ?? "");
  return m ? `${decodeURIComponent(m[1]!)}/${decodeURIComponent(m[2]!)}` : null;
}

export class InventoryRelations {
  constructor(private readonly deps: RelationDeps) {}

  /**
   * `issue` of `at` was closed or reopened: the issues it blocks and its
   * parent, read from GitHub and remembered. Returns how many were written
   * (0, and no request, when it has neither).
   */
  async afterStateChange(at: RepoInfo, issue: IssueJson): Promise<number> {
    const parent = issueOfUrl(issue.parent_issue_url);
    if (!blocksOthers(issue) && !parent) return 0;
    const port = await this.deps.github(at.installation);
    const [owner, repo] = at.repo.split("/") as [string, string];
    const snaps: IssueSnapshot[] = [];
    if (blocksOthers(issue)) {
      for (let page = 1; page <= MAX_BLOCKED_PAGES; page++) {
        const listed = await this.read(at.installation, () => port.blockedIssues({ owner, repo }, issue.number, page));
        for (const json of listed.issues) await this.add(snaps, at, repoOfUrl(json.repository_url), json);
        if (!listed.more) break;
      }
    }
    if (parent) {
      const json = await this.read(at.installation, () => port.issue({ owner: parent.owner, repo: parent.repo }, parent.issue));
      if (json) await this.add(snaps, at, `${parent.owner}/${parent.repo}`, json);
    }
    return this.deps.ledger.rememberIssues(snaps, this.deps.clock());
  }

  /** The issue's snapshot, when its repository is one the app serves. */
  private async add(snaps: IssueSnapshot[], at: RepoInfo, full: string | null, json: IssueJson): Promise<void> {
    if (full === null) return;
    const repoId = full.toLowerCase() === at.repo.toLowerCase() ? at.repoId : ((await this.deps.ledger.findRepo(full))?.repoId ?? null);
    const snap = repoId === null ? null : issueSnapshot(repoId, json);
    if (snap) snaps.push(snap);
  }

  private async read<T>(installation: number, call: () => Promise<T>): Promise<T> {
    const slot = this.deps.budget ? await this.deps.budget.acquire(installation, RELATION_TIER, READ) : null;
    try {
      return await call();
    } finally {
      slot?.release();
    }
  }
}
