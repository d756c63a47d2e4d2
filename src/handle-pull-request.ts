/**
 * Pull request events feed the lease check: each one is a single ledger
 * transaction that queues a `check` effect carrying what the event showed
 * (head, author, `Lease-Token` lines, the repository's rule). Which issues
 * the pull request closes is read from GitHub when the effect is applied
 * (reflect/pull-check.ts), so that GitHub's answer, slow or not, never holds
 * up a delivery, and a body full of references costs one transaction here.
 */
import { leaseTokens } from "./checks/lease-check.js";
import type { ConfigResult } from "./config.js";
import type { Holder, IssueKey, Ledger, NewEffect } from "./ledger/types.js";
import { CHECK, type CheckPayload, type PullSeen, pullLinks } from "./reflect/pull-check.js";

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

function checkEffect(installation: number, owner: string, repo: string, pull: number, seen?: PullSeen | null): NewEffect[] {
  const payload: CheckPayload = { owner, repo, pull, ...(seen !== undefined ? { seen } : {}) };
  return [{ installation, kind: CHECK, payload }];
}

/** Queues the pull request's check, or forgets it once closed. Returns whether an effect was queued. */
export async function handlePullRequest(
  ev: PullRequestEvent,
  deps: { ledger: Ledger; now: number; config: () => Promise<ConfigResult> },
): Promise<boolean> {
  const { ledger, now } = deps;
  let seen: PullSeen | null = null;
  if (ev.open) {
    const config = await deps.config();
    const tokens = leaseTokens(ev.body);
    seen = {
      headSha: ev.headSha,
      author: ev.author,
      tokenAll: tokens.all,
      tokenByIssue: [...tokens.byIssue],
      requireLease: config.ok ? config.config.requireLeaseForPullRequests : false,
    };
  } else if (!(await pullLinks(ledger, ev.repo.id, ev.number)).pull) {
    return false; // never checked: nothing to forget
  }
  const key: IssueKey = { repoId: ev.repo.id, repo: `${ev.repo.owner}/${ev.repo.name}`, issue: ev.number };
  const res = await ledger.note(key, ev.author, now, {
    delivery: ev.delivery,
    outcome: ev.open ? "check" : "check_closed",
    effects: () => checkEffect(ev.installation, ev.repo.owner, ev.repo.name, ev.number, seen),
  });
  return !res.duplicate;
}

/** After a lease on `key` changed: queue a check for every open pull request that closes the issue. */
export async function recheckPullRequests(ledger: Ledger, installation: number, key: IssueKey, now: number): Promise<number> {
  const pulls = (await pullLinks(ledger, key.repoId, key.issue)).closedBy ?? [];
  const [owner = "", repo = ""] = key.repo.split("/");
  for (const pull of pulls) {
    await ledger.note({ ...key, issue: pull }, null, now, {
      outcome: "check",
      effects: () => checkEffect(installation, owner, repo, pull),
    });
  }
  return pulls.length;
}
