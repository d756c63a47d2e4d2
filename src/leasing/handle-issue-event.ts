/**
 * Issue events that end or restore a lease without a command: an issue
 * closed (a merged pull request included), transferred or deleted, and a
 * person removing the app's labels by hand.
 */
import type { ConfigResult } from "../config/config.js";
import type { Holder, IssueKey } from "../ledger/leases/lease-types.js";
import type { NewEffect } from "../ledger/outbox/outbox-types.js";
import type { LeaseBook, LeaseReads } from "../ledger/leases/lease-roles.js";
import type { Reflections } from "../ledger/outbox/outbox-roles.js";
import { reflectCase, type ReflectPayload, reflectEffect } from "../outbox/effects.js";
import { isWriter, type Permission } from "../github/github-port.js";
import { desiredLabels, labelKind } from "../github/labels.js";
import type { Reply } from "../commands/reply.js";
import type { ReplyFill } from "../github/reply-fill.js";
import { always, type CaseEffect } from "../ledger/leases/effect-cases.js";
import { decide } from "../ledger/leases/decide.js";
import { handoffTemplate } from "./handoff.js";

export interface IssueEvent {
  delivery: string;
  installation: number;
  repo: { id: number; owner: string; name: string };
  issue: number;
  actor: Holder;
  /** When GitHub says it happened (closed_at, or updated_at), ms, whole seconds; the ledger ignores an event older than the live tenure. */
  at?: number;
}

function reflect(ev: IssueEvent, reply: Reply | null, extra: Partial<ReflectPayload> = {}): NewEffect {
  return reflectEffect(ev.installation, `${ev.repo.owner}/${ev.repo.name}`, { reconcile: true, reply, ...extra });
}

/** A reply the ledger's answer completes: the lease it ended, or the one it handed on (github/reply-fill.ts). */
function completed(ev: IssueEvent, reply: Reply, extra: Partial<ReflectPayload>, fill: ReplyFill = { lease: "lease" }, budgeted?: "keep"): CaseEffect[] {
  return [reflectCase(ev.installation, `${ev.repo.owner}/${ev.repo.name}`, { reconcile: true, reply, ...extra }, fill, budgeted ? { budgeted } : {})];
}

function keyOf(ev: { repo: { id: number; owner?: string; name?: string; full?: string }; issue: number }): IssueKey {
  return { repoId: ev.repo.id, repo: ev.repo.full ?? `${ev.repo.owner}/${ev.repo.name}`, issue: ev.issue };
}

/**
 * Closing an issue ends its lease: the work is done (or abandoned). Nothing
 * is posted when there was no lease. A close that GitHub's stamp (whole
 * seconds) cannot place before or after the live tenure's start is checked
 * with GitHub (`issueOpen`): a close delivered late, after the issue was
 * reopened and claimed again in the same second, ends nothing.
 */
export async function handleIssueClosed(
  ev: IssueEvent & { merged: boolean },
  deps: { ledger: LeaseBook & LeaseReads; now: number; issueOpen: () => Promise<boolean> },
): Promise<boolean> {
  const key = keyOf(ev);
  const seen = await deps.ledger.current(key, deps.now);
  // A line waits only for a held issue, but one whose lease ran out before the sweep still has it: the close ends it too.
  if (!seen && (await deps.ledger.queue(key, deps.now)).length === 0) return false;
  // Asked of GitHub only then: any other close is placed by its stamp alone. A read that
  // fails fails the delivery (GitHub lists it, to redeliver): a guess either way could take a
  // newer holder's lease, or keep one on a closed issue.
  const near = seen !== null && ev.at !== undefined && decide.eventBeside(ev.at, seen.acquiredAt) === "near";
  const undone = near ? await deps.issueOpen() : undefined;
  const res = await deps.ledger.forceRelease(key, ev.actor, deps.now, {
    delivery: ev.delivery,
    cause: "close",
    installation: ev.installation,
    // The tenure read here, whose start the close was placed beside: one that began since is newer than the close.
    ...(seen ? { ifToken: seen.token } : {}),
    eventAt: ev.at,
    ...(undone !== undefined ? { undone } : {}),
    // The work is done: nobody in line is handed it, and the line ends.
    closing: true,
    effects: {
      released: completed(ev, { op: "release", outcome: "released", issue: ev.issue, at: deps.now, command: null, actor: null, lease: null, ignored: 0, reason: closedReason(ev.merged) }, {}),
    },
  });
  return !res.duplicate && res.outcome === "released" && res.lease !== null;
}

/** Why a lease ended when its issue closed (the reply's reason line). */
export function closedReason(merged: boolean): string {
  return merged ? "The pull request was merged, so its lease ended." : "The issue was closed, so its lease ended.";
}

/**
 * A transferred or deleted issue: the lease ends in the ledger, and nothing
 * is posted where the issue no longer is. Its holder and token labels stay
 * in the repository, though: the outbox deletes them there when no other
 * live lease uses them, as it does when a lease ends on an issue.
 */
export async function handleIssueGone(ev: IssueEvent, deps: { ledger: LeaseBook & LeaseReads; now: number }): Promise<boolean> {
  const key = keyOf(ev);
  if (!(await deps.ledger.current(key, deps.now)) && (await deps.ledger.queue(key, deps.now)).length === 0) return false;
  const res = await deps.ledger.forceRelease(key, ev.actor, deps.now, {
    delivery: ev.delivery,
    // Gone from the repository: it ends as a close ends it.
    cause: "close",
    installation: ev.installation,
    closing: true,
    effects: { released: [{ effect: reflect(ev, null, { reconcile: false, gone: true }) }] },
  });
  return !res.duplicate && res.lease !== null;
}

/**
 * A person removed one of the app's labels from an issue with a live lease.
 * Labels are how maintainers see leases, so removing one by hand is read as
 * "end this lease": done by the holder or by someone with write, maintain or
 * admin permission, the lease is released (with a reply saying so). Anyone
 * else (triage permission lets people edit labels) cannot end another's
 * lease: the labels are put back, with a reply saying why.
 */
export async function handleLabelRemoved(
  ev: IssueEvent & { label: string },
  deps: {
    ledger: LeaseBook & LeaseReads & Reflections;
    now: number;
    config: () => Promise<ConfigResult>;
    permission: (login: string) => Promise<Permission>;
  },
): Promise<boolean> {
  const { ledger, now } = deps;
  const key = keyOf(ev);
  const lease = await ledger.current(key, now);
  if (!lease) return removedWithoutLease(ev, ledger, now);
  // Removed before this tenure began (a late or redelivered event): not about this lease.
  if (ev.at !== undefined && decide.eventBeside(ev.at, lease.acquiredAt) === "before") return false;
  const config = await deps.config();
  if (!config.ok) return false;
  const templates = config.config.labels;
  const kind = labelKind(templates, ev.label);
  if (kind === null) return false;
  // The in-review label shows what holds the lease, not the lease: taking it off ends nothing, and it comes back while the pull request is open.
  if (kind === "review") return removedWithoutLease(ev, ledger, now, false);
  const ours = desiredLabels(templates, lease).some((d) => d.name.toLowerCase() === ev.label.toLowerCase());
  // An earlier tenure's label (its removal from the issue is queued already): ends nothing.
  if (!ours) return removedWithoutLease(ev, ledger, now);

  const base: Omit<Reply, "outcome" | "lease"> = {
    op: "release",
    issue: ev.issue,
    at: now,
    command: null,
    actor: ev.actor.login,
    ignored: 0,
  };
  const isHolder = lease.holder.id === ev.actor.id;
  // Gone from the issue: a lease claimed again before this is applied gets it back.
  const shown = { labels: templates, assign: config.config.assign, removed: [ev.label] };
  if (isHolder || isWriter(await deps.permission(ev.actor.login))) {
    const res = await ledger.forceRelease(key, ev.actor, now, {
      delivery: ev.delivery,
      cause: "label_removed",
      installation: ev.installation,
      // The tenure whose label was removed, and when: one that changed hands since is not ended.
      ifToken: lease.token,
      eventAt: ev.at,
      effects: {
        "released.handoff": completed(ev, handoffTemplate(base, "released"), shown, { lease: "handoff", previous: { from: "lease", ended: "released" } }),
        released: completed(ev, { ...base, outcome: "released", lease: null, mentionHolder: !isHolder, reason: "Removing the lease's label by hand ended the lease." }, shown),
      },
    });
    return !res.duplicate;
  }
  // Put the label back: the effect says it is gone, so that reconciling adds it again.
  // Someone without write permission: their removals count against their replies, as their commands do.
  const limit = config.config.maxRepliesPerHour;
  const res = await ledger.note(key, ev.actor, now, {
    delivery: ev.delivery,
    outcome: "forbidden",
    repliesPerHour: limit,
    effects: {
      noted: completed(
        ev,
        {
          ...base,
          outcome: "forbidden",
          lease: null,
          reason: "The lease's labels were put back: only the holder, or someone with write, maintain or admin permission, can end a lease (by removing its label, or with `/release @holder`).",
        },
        shown,
        { lease: "lease" },
        "keep",
      ),
    },
  });
  return !res.duplicate;
}

/**
 * One of the app's labels was taken off an issue whose live lease it does
 * not show (the lease ended, and the effect that takes its labels off is
 * still queued). Nothing ends, and nothing is posted; but if the app counts
 * the label as on the issue, a reconcile is queued that knows it is gone,
 * after the queued effects: otherwise a lease claimed again before they are
 * applied would be shown without it (the app adds only what it thinks is
 * missing). Recorded as a `note`, so that a redelivery queues nothing.
 */
async function removedWithoutLease(ev: IssueEvent & { label: string }, ledger: LeaseBook & Reflections, now: number, recheck = true): Promise<boolean> {
  const key = keyOf(ev);
  const prior = (await ledger.getReflection(key.repoId, key.issue)) as { labels?: string[] } | null;
  if (!prior?.labels?.some((n) => n.toLowerCase() === ev.label.toLowerCase())) return false;
  const res = await ledger.note(key, ev.actor, now, {
    delivery: ev.delivery,
    outcome: "unlabeled",
    // `recheck: false` when the lease did not change (its in-review label): no pull request needs checking again.
    effects: always(reflect(ev, null, { removed: [ev.label], ...(recheck ? {} : { recheck: false }) })),
  });
  return !res.duplicate;
}
