/**
 * Pull request events feed the lease check. The pull request's closing
 * references and `Lease-Token` lines are remembered, and a `check` effect is
 * queued; the drainer evaluates it against the ledger when it applies it, so
 * a check always reports the leases as they are when it is posted.
 *
 * What is remembered lives in the drainer's reflections, under negative
 * issue numbers (issue and pull request numbers share one sequence, so they
 * never collide): `-P` holds pull request P's record, `-I` the open pull
 * requests that close issue I. A lease change on I then re-checks exactly
 * those pull requests, without asking GitHub which pull requests exist.
 */
import { closingReferences, leaseTokens } from "./checks/lease-check.js";
import type { ConfigResult } from "./config.js";
import type { Holder, IssueKey, Ledger, NewEffect } from "./ledger/types.js";
import { CHECK, type CheckPayload, type PullRecord } from "./reflect/drainer.js";

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

interface Links {
  pull?: PullRecord;
  closedBy?: number[];
}

async function links(ledger: Ledger, repoId: number, n: number): Promise<Links> {
  return ((await ledger.getReflection(repoId, -n)) as Links | null) ?? {};
}

function checkEffect(installation: number, owner: string, repo: string, pull: number): NewEffect[] {
  const payload: CheckPayload = { owner, repo, pull };
  return [{ installation, kind: CHECK, payload }];
}

/** Remembers the pull request's references and queues its check. Returns whether a check was queued. */
export async function handlePullRequest(
  ev: PullRequestEvent,
  deps: { ledger: Ledger; now: number; config: () => Promise<ConfigResult> },
): Promise<boolean> {
  const { ledger, now } = deps;
  const full = `${ev.repo.owner}/${ev.repo.name}`;
  const before = (await links(ledger, ev.repo.id, ev.number)).pull?.refs ?? [];
  const refs = ev.open ? closingReferences(ev.body, full) : [];

  // Keep each issue's list of the open pull requests that close it.
  for (const issue of new Set([...before, ...refs])) {
    const l = await links(ledger, ev.repo.id, issue);
    const closedBy = (l.closedBy ?? []).filter((p) => p !== ev.number);
    if (refs.includes(issue)) closedBy.push(ev.number);
    await ledger.putReflection(ev.repo.id, -issue, { ...l, closedBy }, now);
  }
  if (!ev.open) {
    await ledger.putReflection(ev.repo.id, -ev.number, {}, now);
    return false;
  }

  const config = await deps.config();
  const tokens = leaseTokens(ev.body);
  const pull: PullRecord = {
    headSha: ev.headSha,
    author: ev.author,
    refs,
    tokenAll: tokens.all,
    tokenByIssue: [...tokens.byIssue],
    requireLease: config.ok ? config.config.requireLeaseForPullRequests : false,
  };
  const self = await links(ledger, ev.repo.id, ev.number);
  await ledger.putReflection(ev.repo.id, -ev.number, { ...self, pull }, now);

  const key: IssueKey = { repoId: ev.repo.id, repo: full, issue: ev.number };
  const res = await ledger.note(key, ev.author, now, {
    delivery: ev.delivery,
    outcome: "check",
    effects: () => checkEffect(ev.installation, ev.repo.owner, ev.repo.name, ev.number),
  });
  return !res.duplicate;
}

/** After a lease on `key` changed: queue a check for every open pull request that closes the issue. */
export async function recheckPullRequests(ledger: Ledger, installation: number, key: IssueKey, now: number): Promise<number> {
  const pulls = (await links(ledger, key.repoId, key.issue)).closedBy ?? [];
  const [owner = "", repo = ""] = key.repo.split("/");
  for (const pull of pulls) {
    await ledger.note({ ...key, issue: pull }, null, now, {
      outcome: "check",
      effects: () => checkEffect(installation, owner, repo, pull),
    });
  }
  return pulls.length;
}
