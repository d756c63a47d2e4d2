/**
 * `issue-leases force-release`: an operator ends a lease from the command line.
 * It is a force release like any other (the same ledger transaction, the
 * same outbox effect as an issue being closed), so the running app updates
 * labels and assignee and posts the reply; the CLI never talks to GitHub.
 */
import type { Holder, IssueKey, Lease } from "../ledger/leases/lease-types.js";
import type { CaseEffect, EffectCases } from "../ledger/leases/effect-cases.js";
import type { ReplyFill } from "../github/reply-fill.js";
import type { RepoInfo } from "../ledger/repos/repo-memory.js";
import type { LeaseBook, LeaseReads } from "../ledger/leases/lease-roles.js";
import { reflectCase } from "../outbox/effects.js";
import { handoffExtra } from "../leasing/handoff.js";
import { leaseView, type Reply } from "../commands/reply.js";

/**
 * Who the ledger's history records as the actor of an operator's release.
 * Id 0 is no GitHub account (their ids start at 1), so it never matches a
 * holder, and history reads "operator" for anything done from the CLI.
 */
export const OPERATOR: Holder = { id: 0, login: "operator" };

/** The operator's reason is posted on the issue: kept to one short paragraph. */
export const MAX_REASON = 300;

/**
 * One line of at most `MAX_REASON` characters. Mentions and HTML are
 * neutralised when the reply is rendered (`safeText`); newlines are folded
 * here so the reason cannot start markdown blocks of its own.
 */
export function cleanReason(reason: string): string {
  const line = reason.replace(/\s+/g, " ").trim();
  return line.length > MAX_REASON ? `${line.slice(0, MAX_REASON - 1).trimEnd()}…` : line;
}

/**
 * The outbox effects of an operator's release, by case: reconcile labels and
 * assignee, and say why on the issue. The reply names the lease as it was
 * read (`lease`); the ledger's answer gives the one the transaction ended,
 * and the first in line's when it was handed on (github/reply-fill.ts).
 */
export function operatorReleaseEffects(info: RepoInfo, lease: Lease, reason: string, now: number): EffectCases {
  const released: Reply = {
    op: "release",
    outcome: "released",
    issue: lease.issue,
    at: now,
    command: null,
    actor: OPERATOR.login,
    lease: leaseView(lease),
    ignored: 0,
    // The holder did not release it: tell them.
    mentionHolder: true,
    reason: `Released from the command line by an operator of this app. Reason: ${reason}`,
  };
  // The first in line got it: the handoff's reply, which says why the last tenure ended.
  const handoff: Reply = { ...released, ...handoffExtra(lease, "released"), outcome: "acquired" };
  const effect = (reply: Reply, fill: ReplyFill): CaseEffect => reflectCase(info.installation, info.repo, { reconcile: true, reply }, fill);
  return {
    released: [effect(released, { lease: "lease" })],
    "released.handoff": [effect(handoff, { lease: "handoff", previous: { from: "lease", ended: "released" } })],
  };
}

/** What the release did: the tenure it ended, or null when the issue had no live lease (nothing queued). */
export async function operatorRelease(
  ledger: LeaseBook & LeaseReads,
  info: RepoInfo,
  issue: number,
  reason: string,
  now: number,
): Promise<Lease | null> {
  const key: IssueKey = { repoId: info.repoId, repo: info.repo, issue };
  // Nothing to release: record nothing, queue nothing (as for a closed issue without a lease).
  const current = await ledger.current(key, now);
  if (!current) return null;
  const text = cleanReason(reason);
  const res = await ledger.forceRelease(key, OPERATOR, now, {
    cause: "maintainer",
    installation: info.installation,
    // Decided in the transaction: the lease may have ended since `current`.
    effects: operatorReleaseEffects(info, current, text, now),
  });
  return res.lease;
}
