/**
 * Wiring of what keeps the inventory of open issues (issue 22): every
 * `issues` event writes the issue as its payload shows it (an older payload
 * never overwrites a newer one; deleted or transferred, it is gone), an
 * install or a repository added is filled from GitHub's issue list, and a
 * repository removed is forgotten. A repository the app served before the
 * inventory existed is filled by the next reconcile pass (one runs at start),
 * or by the first `next` on it (api/next.ts).
 *
 * Dependencies and sub-issues (issue 39) as GitHub says them: an
 * `issue_dependencies` event writes the blocked issue, a `sub_issues` event
 * the parent, each as the payload shows it (its summary after the change),
 * and an issue closed or reopened has the issues it blocks and its parent
 * read again (inventory-relations.ts): GitHub sends them no event of their
 * own. Whether a pull request closes an issue is the ledger's pull links,
 * kept by the lease check: nothing to route here.
 */
import type { WebhookRouter } from "./webhook-router.js";
import { type IssueJson, issueSnapshot } from "../github/issue-snapshot.js";
import type { InventoryFiller } from "../leasing/inventory-fill.js";
import type { InventoryRelations } from "../leasing/inventory-relations.js";
import type { Inventory } from "../ledger/inventory/inventory-roles.js";
import type { RepoMemory } from "../ledger/repos/repo-memory.js";
import type { IssueSnapshot } from "../ledger/inventory/inventory-types.js";
import { routeRelations } from "./relation-routes.js";

export interface InventoryRouteDeps {
  ledger: Inventory & Pick<RepoMemory, "repoInfo">;
  clock: () => number;
  track: <T>(work: () => Promise<T>) => Promise<T>;
  filler: InventoryFiller;
  relations: InventoryRelations;
  rememberRepo: (repoId: number, full: string, installation: number) => Promise<void>;
  log: { warn(o: object, m: string): void };
}

const ISSUE_ACTIONS = [
  "opened", "edited", "labeled", "unlabeled", "assigned", "unassigned", "milestoned", "demilestoned", "closed", "reopened", "transferred", "deleted",
] as const;

interface RepoRef {
  id: number;
  full_name: string;
}

export function routeInventory(app: WebhookRouter, deps: InventoryRouteDeps): void {
  const { ledger, clock, track, filler } = deps;
  app.on(
    ISSUE_ACTIONS.map((a) => `issues.${a}` as const),
    (context) =>
      track(async () => {
        const { repository, action } = context.payload;
        const issue = context.payload.issue as IssueJson;
        const gone = action === "deleted" || action === "transferred";
        const snap: IssueSnapshot | null =
          issueSnapshot(repository.id, issue, gone ? "gone" : undefined) ??
          // A gone issue needs no times to be gone.
          (gone ? { ...emptySnapshot(repository.id, issue.number), updatedAt: clock() } : null);
        if (!snap) return;
        try {
          await ledger.rememberIssues([snap], clock());
        } catch (error) {
          // The next event of the issue, or the next reconcile, writes it again.
          deps.log.warn({ err: error, repo: repository.full_name, issue: issue.number }, "the inventory could not remember this issue");
        }
        const installation = context.payload.installation?.id;
        if ((action !== "closed" && action !== "reopened") || installation === undefined) return;
        try {
          await deps.relations.afterStateChange({ repoId: repository.id, repo: repository.full_name, installation }, issue);
        } catch (error) {
          // What it blocks and its parent are corrected by the next reconcile.
          deps.log.warn({ err: error, repo: repository.full_name, issue: issue.number }, "the inventory could not read the issues this one blocks or its parent");
        }
      }),
  );

  routeRelations(app, deps);

  const fillAll = (repos: RepoRef[] | undefined, installation: number) =>
    track(async () => {
      for (const repo of repos ?? []) {
        await deps.rememberRepo(repo.id, repo.full_name, installation);
        filler.request({ repoId: repo.id, repo: repo.full_name, installation });
      }
    });
  const forget = (repos: RepoRef[] | undefined) =>
    track(async () => {
      await ledger.forgetInventory((repos ?? []).map((r) => r.id), clock());
    });

  app.on("installation.created", (context) => fillAll(context.payload.repositories, context.payload.installation.id));
  app.on("installation_repositories.added", (context) => fillAll(context.payload.repositories_added, context.payload.installation.id));
  app.on("installation_repositories.removed", (context) => forget(context.payload.repositories_removed));
  app.on("installation.deleted", (context) => forget(context.payload.repositories));
}

function emptySnapshot(repoId: number, issue: number): IssueSnapshot {
  return {
    repoId, issue, title: "", labels: [], assignees: [], milestone: null, author: null, createdAt: 0, state: "gone",
    blockedByOpen: null, openSubIssues: null, updatedAt: 0,
  };
}
