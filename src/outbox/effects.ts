/**
 * The effects the outbox applies, as their producers (handlers, the sweeper,
 * the CLI, the pull request check) write them: each kind, its payload, and
 * its one builder, so that a producer needs nothing of the drain loop and
 * every payload of a kind is written the same way (outbox rows are compared
 * as JSON: the builders keep their fields' order).
 */
import { createHash } from "node:crypto";
import type { Holder } from "../ledger/leases/lease-types.js";
import type { NewEffect } from "../ledger/outbox/outbox-types.js";
import type { CaseEffect } from "../ledger/leases/effect-cases.js";
import type { StoredEvent } from "../ledger/events/event-types.js";
import type { Resume } from "../ledger/work/work-types.js";
import type { LabelTemplates } from "../github/labels.js";
import type { Reply } from "../commands/reply.js";
import type { BudgetMet, ReplyFill } from "../github/reply-fill.js";
import type { CheckRun } from "../github/github-port.js";
import type { WebhookDelivery } from "../events/send-event.js";
import { deliveryId, type WebhookFormat } from "../events/webhook-body.js";

/** Make the issue show the ledger's truth (labels and assignee), then post the reply, if any (reflector.ts). */
export const REFLECT = "reflect";

/** Post the lease check of a pull request, evaluated against the ledger when applied (pull-check.ts). */
export const CHECK = "check";

/** Post the config check of a commit, decided when its push or pull request came: a file at a commit does not change (config-check.ts). */
export const CONFIG_CHECK = "config_check";

export interface ReflectPayload {
  owner: string;
  repo: string;
  /** Label templates in force when the command ran; absent for sweeps (the last applied ones are used). */
  labels?: LabelTemplates;
  assign?: boolean;
  /** The issue's labels as the webhook saw them: a label the issue already had is not the app's to remove. */
  snapshot?: string[];
  /**
   * Labels a person took off the issue (or deleted from the repository) by
   * hand: no longer on the issue, whatever the app last applied. Carried by
   * the effect, not written into the reflection by the webhook handler, so
   * that it is applied in the issue's effect order (an effect in flight
   * would write its reflection over the handler's).
   */
  removed?: string[];
  /**
   * What an `issues.assigned` or `issues.unassigned` read as a claim or a
   * release showed (leasing/handle-assignment.ts): GitHub has that login
   * assigned, or not, whatever the app last did; so the app neither assigns
   * someone GitHub shows assigned nor unassigns someone no longer assigned.
   * Carried by the effect, like `removed`, to be applied in the issue's order.
   */
  assignee?: { login: string; assigned: boolean };
  /** Reconcile labels and assignee (false for replies to refused commands: nothing changed). */
  reconcile: boolean;
  /**
   * The issue is gone (transferred, deleted): post nothing and touch nothing
   * on it, but delete from the repository the holder and token labels it
   * carried that no other live lease uses; then forget it.
   */
  gone?: boolean;
  reply: Reply | null;
  /** What of `reply` the ledger's answer gives (`decided`, written by the transaction with `budget`): github/reply-fill.ts. */
  fill?: ReplyFill;
  decided?: unknown;
  budget?: BudgetMet;
  /**
   * false: what changed is only what holds the lease (a pull request, see
   * pull-check.ts), not who holds it nor its token, so the open pull
   * requests that close the issue are not checked again. Default true.
   */
  recheck?: boolean;
}

/** The pull request as its latest event showed it. */
export interface PullSeen {
  headSha: string;
  author: { id: number; login: string };
  tokenAll: number | null;
  tokenByIssue: Array<[number, number]>;
  requireLease: boolean;
  /** The repository's config when the event came, for the leases this pull request holds: what they get when it lets go, and their labels. */
  work?: PullWork;
}

/** What a pull request's effects need of the config for the leases it holds (absent on records from before). */
export interface PullWork {
  resume: Resume;
  labels: LabelTemplates;
  assign: boolean;
}

/** What the lease check remembers of a pull request: its last event, and the issues it closed when last read. */
export interface PullRecord extends PullSeen {
  refs: number[];
}

export interface CheckPayload {
  owner: string;
  repo: string;
  pull: number;
  /** From a pull request event: what to remember (null: it was closed). Absent on a re-check after a lease change. */
  seen?: PullSeen | null;
  /** With `seen: null`: who opened it, when it closed, and what a lease it held gets now. */
  closed?: { author: Holder; at: number; work: PullWork };
}

/** `owner/name` as the payloads carry it: apart, as GitHub's API takes it. */
function ownerAndName(repo: string): { owner: string; repo: string } {
  const [owner = "", name = ""] = repo.split("/");
  return { owner, repo: name };
}

/**
 * A `reflect` effect on repository `repo` (`owner/name`). Its `priority` is
 * its tier in GitHub's budget (github/budget.ts): 0, the default, a reply to
 * a command; 1 a notice (sweeps); and one without a reply is label-only
 * work, 2, unless given.
 */
export function reflectEffect(
  installation: number,
  repo: string,
  fields: Omit<ReflectPayload, "owner" | "repo">,
  priority?: number,
): NewEffect {
  const payload: ReflectPayload = { ...ownerAndName(repo), ...fields };
  const tier = priority ?? (fields.reply === null ? 2 : undefined);
  return { installation, kind: REFLECT, payload, ...(tier !== undefined ? { priority: tier } : {}) };
}

/**
 * A `reflect` effect as a decision gives it for one case of the ledger's
 * answer (ledger/leases/effect-cases.ts). `fill`: what of its reply the
 * answer gives; the answer is then written with it, so that a reply to
 * complete never goes without what completes it. `budgeted`: how the actor's
 * reply budget bears on it.
 */
export function reflectCase(
  installation: number,
  repo: string,
  fields: Omit<ReflectPayload, "owner" | "repo" | "fill" | "decided" | "budget">,
  fill?: ReplyFill,
  opts: { priority?: number; budgeted?: "keep" | "drop" } = {},
): CaseEffect {
  const completes = fill !== undefined && fields.reply !== null;
  const effect = reflectEffect(installation, repo, completes ? { ...fields, fill } : fields, opts.priority);
  return { effect, ...(completes ? { withResult: true } : {}), ...(opts.budgeted ? { budgeted: opts.budgeted } : {}) };
}

/** A `check` effect of pull request `pull` of repository `repo` (`owner/name`); `seen` absent for a re-check after a lease change. */
export function checkEffect(installation: number, repo: string, pull: number, seen?: PullSeen | null, closed?: CheckPayload["closed"]): NewEffect {
  const payload: CheckPayload = { ...ownerAndName(repo), pull, ...(seen !== undefined ? { seen } : {}), ...(closed ? { closed } : {}) };
  return { installation, kind: CHECK, payload };
}

export interface ConfigCheckPayload {
  owner: string;
  repo: string;
  run: CheckRun;
}

/** A `config_check` effect on repository `repo` (`owner/name`): the check run, as it will be posted. */
export function configCheckEffect(installation: number, repo: string, run: CheckRun): NewEffect {
  const payload: ConfigCheckPayload = { ...ownerAndName(repo), run };
  return { installation, kind: CONFIG_CHECK, payload };
}

/**
 * Send a lease event to an outgoing webhook target (webhook-delivery.ts):
 * POSTed by the events' sender, never through GitHub's port, so it takes
 * none of GitHub's budget.
 */
export const WEBHOOK = "webhook";

/**
 * The outbox's partition of an installation's webhook effects: the
 * installation's id, negated. Not the installation's own partition, so that
 * no rate limit or budget of GitHub's holds them back; one per installation,
 * so that the drainer can hold back the deliveries of an installation that
 * has its share of the sender in hand (drainer.ts) and take another's.
 * Deliveries queued before partitions per installation are in partition 0.
 */
export function webhookPartition(installation: number): number {
  return -installation;
}

/** A webhook effect's payload: the delivery as the sender sends it (its installation's key signs it). */
export type WebhookPayload = WebhookDelivery;

/**
 * The outbox applies one key's effects in order, oldest first, and an issue's
 * key is `(repoId, issue number)`. A delivery queued there would hold up the
 * issue's labels and replies while its receiver is slow or down. So each
 * target of a repository has a key of its own, `(repoId, lane)`, its lane a
 * negative number (no issue has one) from the target's URL: one target's
 * deliveries go in order, and wait for nothing else.
 */
export function webhookLane(url: string): number {
  return -(1 + (createHash("sha256").update(url).digest().readUInt32BE(0) % 2 ** 31));
}

/** An event's delivery to one target, with the outbox key it is queued under. */
export function webhookEffect(stored: StoredEvent, target: { url: string; format: WebhookFormat }): { repoId: number; issue: number; effect: NewEffect } {
  const payload: WebhookPayload = {
    url: target.url,
    format: target.format,
    delivery: deliveryId(stored.event.id, target.url, target.format),
    event: stored.event,
    installation: stored.installation,
  };
  // After replies to commands (0), beside notices: GitHub's tiers do not apply to it (see webhookPartition).
  return { repoId: stored.repoId, issue: webhookLane(target.url), effect: { installation: webhookPartition(stored.installation), kind: WEBHOOK, payload, priority: 1 } };
}
