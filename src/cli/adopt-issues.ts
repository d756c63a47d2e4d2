/**
 * What `issue-leases adopt` does with the issues GitHub lists as assigned:
 * each open issue whose first assignee holds no live lease there gets one,
 * from now, through the ledger's own acquire (one transaction each, its
 * history row and its outbox effect written with it), as if an operator had
 * typed `/claim @assignee` on it. Only the issues' labels and assignee
 * follow, through the outbox, as for any claim; a reply only when asked.
 *
 * Each adoption carries a delivery id of its issue and the issue's latest
 * token (`adopt:<repo id>#<issue>:<token>`), shown by `issue-leases
 * history`: two runs at once adopt an issue once, and a later run finds the
 * live lease and leaves it.
 */
import type { Config } from "../config/schema.js";
import { carriesExemptLabel } from "../config/work-policy.js";
import type { BoardMemory } from "../ledger/board/board-roles.js";
import type { LeaseBook, LeaseReads } from "../ledger/leases/lease-roles.js";
import type { RepoMemory, RepoInfo } from "../ledger/repos/repo-memory.js";
import type { IssueKey, Lease, Ttl } from "../ledger/leases/lease-types.js";
import type { CaseEffect } from "../ledger/leases/effect-cases.js";
import { remindBefore } from "../leasing/lease-rules.js";
import { labelKind } from "../github/labels.js";
import type { Reply } from "../commands/reply.js";
import { reflectCase } from "../outbox/effects.js";
import { OPERATOR } from "./operator-release.js";

/** An open issue (or pull request) as GitHub lists it with its assignees. */
export interface AssignedIssue {
  number: number;
  title: string;
  labels: string[];
  /** In GitHub's order: the first is adopted. */
  assignees: Array<{ id: number; login: string; type: string }>;
  pull: boolean;
}

export interface AdoptPlan {
  ttl: Ttl;
  config: Config;
  /** Post a reply on each issue adopted (default: none). */
  reply: boolean;
}

export interface Adopted {
  issue: number;
  lease: Lease;
  /** Further assignees: they stay assigned, and hold nothing. */
  others: string[];
}

export interface Skipped {
  issue: number;
  reason: string;
}

export interface AdoptReport {
  adopted: Adopted[];
  skipped: Skipped[];
}

type AdoptLedger = LeaseBook & LeaseReads & RepoMemory & BoardMemory;

export async function adoptIssues(ledger: AdoptLedger, info: RepoInfo, issues: AssignedIssue[], plan: AdoptPlan, now: number): Promise<AdoptReport> {
  // The sweeper ends these leases later, from the ledger alone: it needs the installation.
  await ledger.rememberRepo(info, now);
  const report: AdoptReport = { adopted: [], skipped: [] };
  for (const issue of issues) {
    const outcome = await adoptOne(ledger, info, issue, plan, now);
    if ("reason" in outcome) report.skipped.push(outcome);
    else report.adopted.push(outcome);
  }
  return report;
}

async function adoptOne(ledger: AdoptLedger, info: RepoInfo, issue: AssignedIssue, plan: AdoptPlan, now: number): Promise<Adopted | Skipped> {
  const skip = (reason: string): Skipped => ({ issue: issue.number, reason });
  if (issue.pull) return skip("a pull request");
  const [first, ...others] = issue.assignees;
  if (first === undefined) return skip("no assignee");
  const { config } = plan;
  if (!config.bots && first.type === "Bot") return skip(`assigned to ${first.login}, a bot, and bots may not hold leases here (bots: false)`);
  const key: IssueKey = { repoId: info.repoId, repo: info.repo, issue: issue.number };
  const live = await ledger.current(key, now);
  if (live) return skip(held(live));

  const holder = { id: first.id, login: first.login };
  const delivery = `adopt:${info.repoId}#${issue.number}:${(await ledger.latestToken(key)) ?? 0}`;
  const res = await ledger.acquire(key, holder, plan.ttl, now, {
    delivery,
    actor: OPERATOR,
    // An operator of the app gave it (the event's actor), not a command on GitHub.
    cause: "maintainer",
    installation: info.installation,
    remindBefore: remindBefore(plan.ttl, config),
    exempt: carriesExemptLabel(issue.labels, config),
    // The issue's own labels (not the app's), so that later claims count this lease under `limits_by_label`; no limit is checked here.
    policies: { labels: issue.labels.filter((name) => labelKind(config.labels, name) === null) },
    // Only a new tenure shows: a lease the assignee claimed meanwhile is theirs, and shown already.
    effects: { acquired: [adoptEffect(info, issue, plan, now)] },
  });
  if (res.duplicate) return skip("adopted by another run of adopt at the same time");
  if (res.outcome !== "acquired") return skip(res.outcome === "held" ? held(res.lease) : `refused: ${res.outcome}`);
  // Claimed by the assignee between the two reads: theirs stands (renewed from now, as a claim of their own would be).
  if (!res.newTenure) return skip(held(res.lease));
  await ledger.rememberCard({ repoId: info.repoId, issue: issue.number, title: issue.title, labels: issue.labels }, now, false);
  return { issue: issue.number, lease: res.lease, others: others.map((a) => a.login) };
}

function held(lease: Lease): string {
  return `already leased by ${lease.holder.login} (token ${lease.token})`;
}

/** Labels and assignee as for any claim; the reply only when asked, after replies to commands (a batch must not hold them up). */
function adoptEffect(info: RepoInfo, issue: AssignedIssue, plan: AdoptPlan, now: number): CaseEffect {
  const reply: Reply | null = plan.reply
    ? {
        op: "claim",
        outcome: "acquired",
        issue: issue.number,
        at: now,
        command: null,
        actor: OPERATOR.login,
        // The lease the claim begins, from the ledger's answer (github/reply-fill.ts).
        lease: null,
        newTenure: true,
        ignored: 0,
        mentionHolder: true,
        reason: "This issue was assigned to you before this app came: an operator of the app made that assignment a lease.",
      }
    : null;
  const { labels, assign } = plan.config;
  return reflectCase(info.installation, info.repo, { reconcile: true, reply, labels, assign, snapshot: issue.labels }, { lease: "lease" }, reply === null ? {} : { priority: 1 });
}
