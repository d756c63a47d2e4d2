/**
 * Pull request events feed the lease check: each one is a single ledger
 * transaction that queues a `check` effect carrying what the event showed
 * (head, author, `Lease-Token` lines, the repository's rule). Which issues
 * the pull request closes is read from GitHub when the effect is applied
 * (outbox/pull-check.ts), so that GitHub's answer, slow or not, never holds
 * up a delivery, and a body full of references costs one transaction here.
 * The same effect records which leases the pull request holds (its author's,
 * on the issues it closes); a closed one lets them go when its effect is
 * applied, with `default_ttl` from the moment it closed.
 */
import { leaseTokens } from "../checks/lease-check.js";
import type { ConfigResult } from "../config/config.js";
import type { Config } from "../config/schema.js";
import type { Holder, IssueKey } from "../ledger/leases/lease-types.js";
import type { LeaseBook } from "../ledger/leases/lease-roles.js";
import type { Reflections } from "../ledger/outbox/outbox-roles.js";
import { checkEffect, type CheckPayload, type PullSeen, type PullWork } from "../outbox/effects.js";
import { always } from "../ledger/leases/effect-cases.js";
import { pullLinks } from "../outbox/pull-check.js";
import { resumeOf } from "../config/work-policy.js";

export interface PullRequestEvent {
  delivery: string;
  installation: number;
  repo: { id: number; owner: string; name: string };
  number: number;
  body: string;
  author: Holder;
  headSha: string;
  open: boolean;
}

function workOf(config: Config): PullWork {
  return { resume: resumeOf(config), labels: config.labels, assign: config.assign };
}

/** Queues the pull request's check, or forgets it once closed. Returns whether an effect was queued. */
export async function handlePullRequest(
  ev: PullRequestEvent,
  deps: { ledger: LeaseBook & Reflections; now: number; config: () => Promise<ConfigResult> },
): Promise<boolean> {
  const { ledger, now } = deps;
  let seen: PullSeen | null = null;
  let closed: CheckPayload["closed"];
  if (ev.open) {
    const config = await deps.config();
    const tokens = leaseTokens(ev.body);
    seen = {
      headSha: ev.headSha,
      author: ev.author,
      tokenAll: tokens.all,
      tokenByIssue: [...tokens.byIssue],
      requireLease: config.ok ? config.config.requireLeaseForPullRequests : false,
      ...(config.ok ? { work: workOf(config.config) } : {}),
    };
  } else {
    const known = (await pullLinks(ledger, ev.repo.id, ev.number)).pull;
    if (!known) return false; // never checked: nothing to forget
    // The leases it held get `default_ttl` from now, the moment it closed, however late the effect is applied.
    const config = await deps.config();
    const work = config.ok ? workOf(config.config) : known.work;
    if (work) closed = { author: ev.author, at: now, work };
  }
  const key: IssueKey = { repoId: ev.repo.id, repo: `${ev.repo.owner}/${ev.repo.name}`, issue: ev.number };
  const res = await ledger.note(key, ev.author, now, {
    delivery: ev.delivery,
    outcome: ev.open ? "check" : "check_closed",
    effects: always(checkEffect(ev.installation, key.repo, ev.number, seen, closed)),
  });
  return !res.duplicate;
}

/**
 * "Re-run" on a pull request's lease check (check_run.rerequested, delivery
 * `delivery`): its check queued again, on what the app last saw of it.
 * Returns whether it was queued (not for a redelivery).
 */
export async function rerunPullCheck(ledger: Pick<LeaseBook, "note">, installation: number, key: IssueKey, actor: Holder, delivery: string, now: number): Promise<boolean> {
  const res = await ledger.note(key, actor, now, {
    delivery,
    outcome: "check",
    effects: always(checkEffect(installation, key.repo, key.issue)),
  });
  return !res.duplicate;
}

/** After a lease on `key` changed: queue a check for every open pull request that closes the issue. */
export async function recheckPullRequests(ledger: LeaseBook & Reflections, installation: number, key: IssueKey, now: number): Promise<number> {
  const pulls = (await pullLinks(ledger, key.repoId, key.issue)).closedBy ?? [];
  for (const pull of pulls) {
    await ledger.note({ ...key, issue: pull }, null, now, {
      outcome: "check",
      effects: always(checkEffect(installation, key.repo, pull)),
    });
  }
  return pulls.length;
}
