/**
 * GitHub's issue dependencies and sub-issues, into the inventory the moment
 * GitHub says so (issue 39): so that `next` does not hand out an issue
 * blocked a minute ago, nor pass over one unblocked.
 *
 * - `issue_dependencies` (blocked_by_added/removed, sent for the blocked
 *   issue, `repository` its repository; blocking_added/removed, for the
 *   blocking one, the blocked issue's repository in `blocked_issue_repo`):
 *   the blocked issue is written as the payload shows it, its
 *   `issue_dependencies_summary` counting the open issues that block it.
 * - `sub_issues` (sub_issue_added/removed, for the parent, `repository` its
 *   repository; parent_issue_added/removed, for the sub-issue, the parent's
 *   repository in `parent_issue_repo`): the parent, its `sub_issues_summary`
 *   counting its open sub-issues.
 *
 * An open blocker (an open sub-issue) just added counts at least one, whatever
 * the payload's summary says: an issue is never handed out because GitHub
 * counted before the change. An issue of a repository the app does not serve
 * is left alone. Closing a blocker is an `issues.closed` of the blocker
 * (inventory-routes.ts).
 */
import type { WebhookRouter } from "./webhook-router.js";
import { type IssueJson, issueSnapshot } from "../github/issue-snapshot.js";
import type { Inventory } from "../ledger/inventory/inventory-roles.js";
import type { RepoMemory } from "../ledger/repos/repo-memory.js";

const DEPENDENCY_ACTIONS = ["blocked_by_added", "blocked_by_removed", "blocking_added", "blocking_removed"] as const;
const SUB_ISSUE_ACTIONS = ["sub_issue_added", "sub_issue_removed", "parent_issue_added", "parent_issue_removed"] as const;

interface RepoRef {
  id: number;
  full_name: string;
}

/** What a relation event changes: the issue whose readiness it moves, its repository, and whether an open one was added. */
interface Change {
  repo: RepoRef | undefined;
  issue: IssueJson;
  /** The other end was added, and is open: the issue is blocked (a parent) by at least one. */
  openAdded: boolean;
}

export interface RelationRouteDeps {
  ledger: Inventory & Pick<RepoMemory, "repoInfo">;
  clock: () => number;
  track: <T>(work: () => Promise<T>) => Promise<T>;
  log: { warn(o: object, m: string): void };
}

export function routeRelations(app: WebhookRouter, deps: RelationRouteDeps): void {
  const { ledger, clock, track } = deps;
  const write = (delivered: RepoRef | undefined, change: Change, field: "blockedByOpen" | "openSubIssues") =>
    track(async () => {
      const { repo, issue } = change;
      if (!repo) return;
      // The delivery's own repository is served; another (a cross-repository relation) only when the app knows it.
      if (repo.id !== delivered?.id && (await ledger.repoInfo(repo.id)) === null) return;
      const snap = issueSnapshot(repo.id, issue);
      if (!snap || snap.state !== "open") return;
      if (change.openAdded) snap[field] = Math.max(snap[field] ?? 0, 1);
      try {
        await ledger.rememberIssues([snap], clock());
      } catch (error) {
        // The next event of the issue, or the next reconcile, writes it again.
        deps.log.warn({ err: error, repo: repo.full_name, issue: issue.number }, "the inventory could not remember this issue's relations");
      }
    });

  app.on(
    DEPENDENCY_ACTIONS.map((a) => `issue_dependencies.${a}` as const),
    (context) => {
      const p = context.payload;
      const blockedRepo = "blocked_issue_repo" in p ? p.blocked_issue_repo : p.repository;
      const added = p.action === "blocked_by_added" || p.action === "blocking_added";
      const change = { repo: blockedRepo, issue: p.blocked_issue as IssueJson, openAdded: added && p.blocking_issue.state === "open" };
      return write(p.repository, change, "blockedByOpen");
    },
  );

  app.on(
    SUB_ISSUE_ACTIONS.map((a) => `sub_issues.${a}` as const),
    (context) => {
      const p = context.payload;
      const parentRepo = "parent_issue_repo" in p ? p.parent_issue_repo : p.repository;
      const added = p.action === "sub_issue_added" || p.action === "parent_issue_added";
      const change = { repo: parentRepo, issue: p.parent_issue as IssueJson, openAdded: added && p.sub_issue.state === "open" };
      return write(p.repository, change, "openSubIssues");
    },
  );
}
