/**
 * A command's decision as a value: the one ledger operation it asks for,
 * with what, and for each case the ledger's answer may come to, the effects
 * to write (its reply, as far as the handler knows it, and whether labels
 * and assignee follow). Made by pure functions from the command, the config
 * and the time; the ledger applies it in one transaction (`applyDecision`),
 * choosing the case's effects and writing the answer with them, so that the
 * outbox completes each reply from it (github/reply-fill.ts). Nothing calls
 * back from the transaction into here.
 */
import type { Config } from "../config/schema.js";
import type { CaseEffect, EffectCases } from "../ledger/leases/effect-cases.js";
import type { AcquireOptions, ForceReleaseOptions, LeaseBook, NoteOptions, OpOptions, RenewOptions } from "../ledger/leases/lease-roles.js";
import type { Applied, Holder, IssueKey, LedgerResult, ReleaseResult, Ttl } from "../ledger/leases/lease-types.js";
import { reflectCase } from "../outbox/effects.js";
import type { Outcome, Reply } from "../commands/reply.js";
import type { ReplyFill } from "../github/reply-fill.js";
import { handoffExtra, handoffTemplate } from "./handoff.js";
import type { LeaseTarget } from "./lease-target.js";

/** The ledger operation a command asks for, and with what (its effects among the options). */
export type Decision =
  | { op: "acquire"; holder: Holder; ttl: Ttl; opts: AcquireOptions }
  | { op: "renew"; holder: Holder; ttl: Ttl; opts: RenewOptions }
  | { op: "release"; holder: Holder; opts: OpOptions<ReleaseResult> }
  | { op: "forceRelease"; actor: Holder; opts: ForceReleaseOptions }
  | { op: "note"; actor: Holder; opts: NoteOptions };

/** Applies a decision: its operation, one transaction. */
export function applyDecision(ledger: LeaseBook, key: IssueKey, now: number, d: Decision): Promise<Applied<LedgerResult>> {
  switch (d.op) {
    case "acquire":
      return ledger.acquire(key, d.holder, d.ttl, now, d.opts);
    case "renew":
      return ledger.renew(key, d.holder, d.ttl, now, d.opts);
    case "release":
      return ledger.release(key, d.holder, now, d.opts);
    case "forceRelease":
      return ledger.forceRelease(key, d.actor, now, d.opts);
    case "note":
      return ledger.note(key, d.actor, now, d.opts);
  }
}

/** Who decides, and for what: the command's target, its issue's key, the actor's replies per hour (0: no limit) and the time. */
export interface Deciding {
  t: LeaseTarget;
  key: IssueKey;
  limit: number;
  now: number;
}

/** The options every operation of a command takes: its delivery, its events' cause and installation, its reply budget, and `effects`. */
export function commandOptions(d: Deciding, effects: EffectCases) {
  const { t } = d;
  return {
    ...(t.delivery !== undefined ? { delivery: t.delivery } : {}),
    ...(t.cause !== undefined ? { cause: t.cause } : {}),
    installation: t.installation,
    ...(t.recordAcquiredOnly ? { recordOnly: ["acquired"] } : {}),
    repliesPerHour: d.limit,
    // Only what posts counts toward the budget, when only changes are shown.
    ...(t.changesOnly ? { countsOnlyPosts: true } : {}),
    effects,
  };
}

/**
 * The reflect effect of a reply and whether labels and assignee follow the
 * ledger, under the actor's reply budget; none when there is neither. `fill`:
 * what of the reply the ledger's answer gives (its lease, unless told).
 */
export function replyEffect(d: Deciding, reply: Reply | null, reconcile: boolean, config?: Config, fill: ReplyFill = { lease: "lease" }): CaseEffect[] {
  if (reply === null && !reconcile) return [];
  const { t } = d;
  const shown = reconcile && t.shown ? { assignee: t.shown } : {};
  const fields = { reconcile, reply, ...(config ? { labels: config.labels, assign: config.assign, snapshot: t.issue.labels } : {}), ...shown };
  return [reflectCase(t.installation, d.key.repo, fields, fill, { budgeted: reconcile ? "keep" : "drop" })];
}

/** The reply of the first in line, handed the lease the actor released: the reply to their command, as a handoff. */
export function releasedHandoff(d: Deciding, config: Config): CaseEffect[] {
  return replyEffect(d, d.t.reply("acquired", null, handoffExtra(null, "released")), true, config, { lease: "handoff", previous: { from: "lease", ended: "released" } });
}

/** The reply of the first in line, handed a lease that had run out before the sweep ended it: as the sweep's would have been. */
export function expiredHandoff(d: Deciding, config: Config): CaseEffect[] {
  const reply = handoffTemplate({ issue: d.key.issue, at: d.now, command: null, actor: null, ignored: 0 }, "expired");
  return replyEffect(d, reply, true, config, { lease: "lease", previous: { from: "handedOver", ended: "expired" } });
}

/** The reply `outcome` for the answer's lease, `extra` added; none when quiet. */
export function quietOr(d: Deciding, outcome: Outcome, reconcile: boolean, config?: Config, extra?: Partial<Reply>): CaseEffect[] {
  return d.t.changesOnly ? [] : replyEffect(d, d.t.reply(outcome, null, extra), reconcile, config);
}

/** A claim's effects, by case: `given` marks a lease given by a maintainer (`/claim @user`), `placed` who waits when not the actor. */
export function claimEffects(d: Deciding, config: Config, given: Partial<Reply>, placed: Partial<Reply>): EffectCases {
  const quiet = d.t.changesOnly === true;
  const acquired = (newTenure: boolean) =>
    quiet && !newTenure ? [] : replyEffect(d, d.t.reply("acquired", null, { newTenure, ...given }), true, config);
  // The lease had run out unswept and this claim handed it to the first in line: their reply, as the sweep's would have been.
  const handed = expiredHandoff(d, config);
  const held = quietOr(d, "held", false);
  const queued = quiet ? [] : replyEffect(d, d.t.reply("queued", null, { position: 0, queuedUntil: 0, ...placed }), false, undefined, { lease: "lease", place: true });
  return {
    acquired: acquired(true),
    "acquired.again": acquired(false),
    held,
    "held.handedOver": [...handed, ...held],
    queued,
    "queued.handedOver": [...handed, ...queued],
    limit: quiet ? [] : replyEffect(d, d.t.reply("forbidden", null, { reason: "" }), false, undefined, { limitIn: d.key.repoId }),
  };
}

/** A renewal's effects, by case. */
export function renewEffects(d: Deciding, config: Config): EffectCases {
  return { renewed: quietOr(d, "renewed", true, config), not_holder: quietOr(d, "not_holder", false) };
}

/** A release's effects, by case: the first in line handed the lease is a tenure that begins, which even the API shows. */
export function releaseEffects(d: Deciding, config: Config): EffectCases {
  return {
    "released.handoff": releasedHandoff(d, config),
    released: replyEffect(d, d.t.reply("released", null), true, config),
    "released.nothing": quietOr(d, "released", true, config),
    not_holder: quietOr(d, "not_holder", false, config),
    left_queue: quietOr(d, "left_queue", false, config),
  };
}
