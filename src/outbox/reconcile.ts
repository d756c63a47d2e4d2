/**
 * An issue's labels and assignee made to show the ledger's truth (a
 * `reflect` effect that reconciles; reflector.ts): labels the lease calls
 * for added inside the repository's turn, labels it no longer calls for
 * taken off (and deleted from the repository where the app made them), and
 * the assignee moved to the holder. What the issue shows afterwards is the
 * reflection returned, for the reflector to save.
 */
import type { IssueKey, Lease } from "../ledger/leases/lease-types.js";
import type { LeaseReads } from "../ledger/leases/lease-roles.js";
import type { Reflections } from "../ledger/outbox/outbox-roles.js";
import type { GitHubPort, Repo } from "../github/github-port.js";
import { desiredLabels, LABEL_STYLE, type LabelTemplates } from "../github/labels.js";
import { among, type RepoLabels, type RepoLabelTurn, same, stopLingering } from "./repo-labels.js";
import type { RepoReflection } from "./repo-turns.js";
import type { Reflection } from "./reflection.js";

/** How the reflector takes a repository's turn (RepoTurns.run), and saves the issue's reflection. */
export type Turn = RepoLabelTurn;
export interface ReflectContext {
  turn: Turn;
  save: (reflection: Reflection) => Promise<void>;
  /** How long holder and token labels no lease calls for linger in the repository (repo-labels.ts); 0: deleted at once. */
  lingerMs: number;
}

/** The issue's labels and assignee reconciled to the ledger's lease, through `github`; the reflection it ends with, and the lease. */
export async function reconcile(
  d: { ledger: LeaseReads & Reflections; clock: () => number; labels: RepoLabels },
  key: IssueKey,
  r: Repo,
  github: GitHubPort,
  o: {
    templates: LabelTemplates;
    assign: boolean;
    prior: Reflection | null;
    snapshot: string[];
    removed: string[];
    seen?: { login: string; assigned: boolean };
    signal: AbortSignal;
  },
  ctx: ReflectContext,
): Promise<{ reflection: Reflection; current: Lease | null }> {
  const { ledger, clock } = d;
  const { templates, prior, snapshot, removed, signal } = o;
  const present = prior?.labels ?? [];
  // What the app put there, less what a person took off by hand since: a
  // label the lease still calls for is added again. Without this, a label
  // removed by hand (ending the lease, or on an issue whose lease had ended)
  // stayed "applied" in the reflection, and a new lease on the issue,
  // claimed before the release was drained, never got it back.
  const shown = present.filter((name) => !among(removed, name));
  // A label the issue had before the app showed the lease is not the app's: neither added nor taken off. One the
  // app deleted from the repository (another issue's effect, when no live lease used it) is on no issue any more,
  // whatever this issue's reflection says: a lease that calls for it again gets it back.
  const missing = (lease: Lease | null, deleted: readonly string[]) =>
    desiredLabels(templates, lease).filter((d) => (!among(shown, d.name) || among(deleted, d.name)) && !among(snapshot, d.name));
  let current = await ledger.current(key, clock());
  const added: string[] = [];
  // The repository's memory is read only when the issue's own reflection finds nothing missing and the lease
  // calls for labels: a free issue (a release, an expiry) needs no read.
  const deletedInRepo = async () => ((await ledger.getReflection(key.repoId, 0)) as Partial<RepoReflection> | null)?.deleted ?? [];
  if (missing(current, []).length > 0 || (current !== null && missing(current, await deletedInRepo()).length > 0)) {
    await ctx.turn(key.repoId, github, signal, async (repo, github) => {
      // Decided again in the turn: the lease may have ended while this waited for it.
      current = await ledger.current(key, clock());
      const toAdd = missing(current, repo.deleted);
      if (toAdd.length === 0) return;
      for (const d of toAdd) {
        if (d.kind === "claimed") {
          // Created once per repository with a colour and a description; one that exists already is fine.
          if (!among(repo.created, d.name)) {
            await github.createLabel(r, d.name, LABEL_STYLE.claimed.color, LABEL_STYLE.claimed.description);
            repo.created.push(d.name);
          }
        } else if (d.kind !== "review" && !among(repo.made, d.name) && !among(repo.foreign, d.name)) {
          // (The in-review label, one name per repository, is created by GitHub when first added, and never deleted.)
          // New to the app: a label that exists already was not made by the app, and is never deleted by it.
          // One the app deleted is known to be absent.
          const exists = !among(repo.deleted, d.name) && (await github.labelExists(r, d.name));
          (exists ? repo.foreign : repo.made).push(d.name);
        }
      }
      // Adding a label brings it back to the repository (GitHub creates it), or ends its lingering there.
      repo.deleted = repo.deleted.filter((name) => !toAdd.some((d) => same(d.name, name)));
      stopLingering(repo, toAdd.map((d) => d.name));
      await github.addLabels(r, key.issue, toAdd.map((d) => d.name));
      added.push(...toAdd.map((d) => d.name));
    });
  }
  const desired = desiredLabels(templates, current).map((d) => d.name);
  // From `present`, removed ones included: a holder or token label taken off by hand may still need deleting from the repository.
  const toRemove = present.filter((name) => !among(desired, name));
  const { lingerMs } = ctx;
  if (toRemove.length > 0) await d.labels.remove(key, r, github, templates, toRemove, { issueGone: false, signal, lingerMs }, ctx.turn);
  // Nothing taken off this issue: only labels that lingered out are looked at (RepoLabels.deleteUnused).
  else if (d.labels.hasUnused((await ledger.getReflection(key.repoId, 0)) as Partial<RepoReflection> | null, lingerMs, false)) {
    await ctx.turn(key.repoId, github, signal, (repo, github) => d.labels.deleteUnused(key, r, repo, github, templates, lingerMs, false));
  }

  let assignee = prior?.assignee ?? null;
  let refused = prior?.refused ?? null;
  const want = o.assign && current ? current.holder.login : null;
  // What the event showed of GitHub's assignees (an assignment read as a claim or a release): not done again.
  const { seen } = o;
  if (seen && !seen.assigned && same(assignee, seen.login)) assignee = null;
  if (assignee && !same(assignee, want)) {
    await github.removeAssignee(r, key.issue, assignee);
    assignee = null;
  }
  if (seen?.assigned && want && same(seen.login, want)) [assignee, refused] = [want, null];
  if (want && !same(assignee, want) && !same(refused, want)) {
    if (await github.addAssignee(r, key.issue, want)) assignee = want;
    else refused = want;
  }
  if (!want) refused = null;
  const labels = desired.filter((name) => among(shown, name) || among(added, name));
  return { reflection: { labels, assignee, refused, templates, assign: o.assign, ...(prior?.nodeId ? { nodeId: prior.nodeId } : {}) }, current };
}
