/**
 * One claim, renewal or release, whichever way it came (a comment or the
 * HTTP API): the repository's rules (a broken config, `min_ttl`/`max_ttl`,
 * closed issues, `bots`, `claimers`, `max_leases_per_holder`, the reply
 * budget) and ONE ledger transaction that decides, records the delivery and
 * writes its effects. Both paths go through here, so a lease taken one way
 * is held against the other with the same tokens; they differ only in the
 * reply they ask for (`LeaseTarget.reply`) and in what they show on GitHub.
 */
import { type ConfigResult, DEFAULT_CONFIG } from "../config/config.js";
import type { Config } from "../config/schema.js";
import type { EventCause } from "../ledger/events/event-types.js";
import type { AcquireResult, Holder, IssueKey, Lease, NoteResult, ReleaseResult, RenewResult } from "../ledger/leases/lease-types.js";
import type { NewEffect } from "../ledger/outbox/outbox-types.js";
import type { LeaseBook, ReplyBudget } from "../ledger/leases/lease-roles.js";
import { type ClaimPolicyDeps, decideClaim, limitReason } from "./policies.js";
import { reflectEffect } from "../outbox/effects.js";
import { type LeaseView, leaseView, type Outcome, type Reply } from "../github/render.js";
import { repliesPerHour, withinBudget } from "./reply-limit.js";
import { carriesExemptLabel } from "../config/work-policy.js";
import type { QueueAsk } from "../ledger/queue/queue-types.js";
import { handoffExtra, handoffReply } from "./handoff.js";
import { type LeaseResult, leaseResultOf, type Rule } from "./lease-result.js";
import { mayClaim, remindBefore, ttlRefusal } from "./lease-rules.js";

/** Who asks: a holder (with the instance an API client named), its account type and its association with the repository. */
export interface LeaseActor extends Holder {
  /** GitHub's account type: "User", "Bot", "Organization". */
  type: string;
  /** GitHub's `author_association` with the repository (OWNER, MEMBER, COLLABORATOR, CONTRIBUTOR, NONE…). */
  association: string;
  /** GitHub said (asked first) the actor may write: an assignment's event carries no association; `claimers` is met, replies unlimited. */
  writer?: boolean;
}

/** The reply to post for an outcome, or null to post none. */
export type ReplyFor = (outcome: Outcome, lease: LeaseView | null, extra?: Partial<Reply>) => Reply | null;

export interface LeaseTarget {
  /** The webhook delivery id, or the API's idempotency key: a second operation with it changes nothing and answers the first's result. */
  delivery?: string;
  /** Record `delivery` only with a lease acquired (`next`, which tries one issue after another under one id). */
  recordAcquiredOnly?: boolean;
  installation: number;
  repo: { id: number; owner: string; name: string };
  /**
   * `state` and labels as GitHub last showed them (a label the issue already
   * had is not the app's to remove); `createdAt` (ms) and `authorId`: when and
   * by whom it was opened (`author_first`).
   */
  issue: { number: number; labels: string[]; state?: string; createdAt?: number; authorId?: number };
  actor: LeaseActor;
  reply: ReplyFor;
  /**
   * Show on GitHub only a tenure that begins or ends (the API): a renewal, a
   * claim by the holder (which extends the same tenure), a release of
   * nothing and a refusal write no effect at all. A heartbeat every few
   * minutes must not notify anyone.
   */
  changesOnly?: boolean;
  /** What the event showed GitHub did to an assignee (assignment as a claim): the outbox does not do it again. */
  shown?: { login: string; assigned: boolean };
  /** Whether to wait in line when the issue is held: the API says (`?wait=true`), whatever the repository's `queue` says; absent, `queue` decides. */
  wait?: boolean;
  /** What the lease events of this command say brought them about (`api`); absent, the operation's own (`command` for a claim, renewal or release). */
  cause?: EventCause;
}

export interface LeaseDeps extends Partial<ClaimPolicyDeps> {
  ledger: LeaseBook;
  now: number;
}

export class LeaseCommand {
  readonly key: IssueKey;
  private readonly holder: Holder;
  /** Replies per hour the actor may get here; a broken config still limits, by the default: its error reply is no way around the limit. */
  private readonly limit: number;

  constructor(
    private readonly t: LeaseTarget,
    private readonly config: ConfigResult,
    private readonly deps: LeaseDeps,
  ) {
    this.key = { repoId: t.repo.id, repo: `${t.repo.owner}/${t.repo.name}`, issue: t.issue.number };
    const { id, login, instance } = t.actor;
    this.holder = instance === undefined ? { id, login } : { id, login, instance };
    this.limit = t.actor.writer ? 0 : repliesPerHour(t.actor.association, config.ok ? config.config : DEFAULT_CONFIG);
  }

  /** The refusal of a broken config, which every command gets until it is fixed; null when the config is good. */
  configRefusal(): Promise<LeaseResult> | null {
    return this.config.ok ? null : this.refuse("invalid", "config", this.config.error);
  }

  /** `target`: the login a `/claim @user` gives the lease to (by someone with write permission). */
  async claim(asked: number | null, target?: string): Promise<LeaseResult> {
    if (!this.config.ok) return this.configRefusal()!;
    const config = this.config.config;
    const ttl = asked ?? config.defaultTtl;
    const range = ttlRefusal(asked, config, "claim");
    if (range) return this.refuse("invalid", "ttl", range);
    // Closing ends a lease, so a lease taken on a closed issue would stand for work nobody can do.
    if (this.t.issue.state === "closed") {
      return this.refuse("forbidden", "closed", "This issue is closed, so it cannot be claimed. Reopen it first if there is work left.");
    }
    const refusal = mayClaim(this.t.actor, config);
    if (refusal) return this.refuse("forbidden", refusal.rule, refusal.reason);
    // Whom the lease goes to (`/claim @user`), `author_first`, and the limits the transaction checks (policies.ts).
    const { now } = this.deps;
    const claim = await decideClaim({ installation: this.t.installation, actor: this.holder, issue: this.t.issue, target }, config, now, {
      permission: this.deps.permission ?? (async () => "none"),
      ...(this.deps.account ? { account: this.deps.account } : {}),
    });
    if (!claim.ok) return this.refuse(claim.outcome, claim.rule, claim.reason);
    const given = claim.assignedBy !== undefined ? { assignedBy: claim.assignedBy, mentionHolder: true } : {};
    const quiet = this.t.changesOnly === true;
    const waits = this.t.wait ?? config.queue;
    const applied = await this.deps.ledger.acquire(this.key, claim.holder, ttl, now, {
      ...(waits ? { queue: this.queueAsk(claim.holder, ttl, config) } : {}),
      maxPerHolder: config.maxLeasesPerHolder,
      countInReview: config.countInReview,
      remindBefore: remindBefore(ttl, config),
      policies: claim.policies,
      ...(claim.assignedBy !== undefined ? { actor: this.holder } : {}),
      exempt: carriesExemptLabel(this.t.issue.labels, config),
      ...this.budgeted((res: AcquireResult) => {
        if (res.outcome === "acquired") {
          if (quiet && !res.newTenure) return [];
          return this.effect(this.t.reply("acquired", leaseView(res.lease), { newTenure: res.newTenure, ...given }), true, config);
        }
        // The lease had run out unswept and this claim handed it to the first in line: their reply, as the sweep's would have been.
        const handed = res.outcome !== "limit" && res.handedOver ? this.effect(this.handedOverReply(res.lease, res.handedOver), true, config) : [];
        if (quiet) return handed;
        if (res.outcome === "held") return [...handed, ...this.effect(this.t.reply("held", leaseView(res.lease)), false)];
        if (res.outcome === "queued") {
          const placed = claim.assignedBy !== undefined ? { waiter: claim.holder.login, assignedBy: claim.assignedBy } : {};
          const place = { position: res.position, queuedUntil: res.until, ...placed };
          return [...handed, ...this.effect(this.t.reply("queued", leaseView(res.lease), place), false)];
        }
        return this.effect(this.t.reply("forbidden", null, { reason: limitReason(this.key, res) }), false);
      }),
    });
    return leaseResultOf(applied, undefined, this.key);
  }
  async renew(asked: number | null): Promise<LeaseResult> {
    if (!this.config.ok) return this.configRefusal()!;
    const config = this.config.config;
    const ttl = asked ?? config.defaultTtl;
    const range = ttlRefusal(asked, config, "renew");
    if (range) return this.refuse("invalid", "ttl", range);
    const quiet = this.t.changesOnly === true;
    const applied = await this.deps.ledger.renew(this.key, this.holder, ttl, this.deps.now, {
      remindBefore: remindBefore(ttl, config),
      ...this.budgeted((res: RenewResult) => {
        if (quiet) return [];
        return res.outcome === "renewed"
          ? this.effect(this.t.reply("renewed", leaseView(res.lease)), true, config)
          : this.effect(this.t.reply("not_holder", leaseView(res.lease)), false);
      }),
    });
    return leaseResultOf(applied);
  }

  /** Ends the actor's own lease. Releasing when nothing is held succeeds (a retrying client must not fail). */
  async release(): Promise<LeaseResult> {
    if (!this.config.ok) return this.configRefusal()!;
    const config = this.config.config;
    const quiet = this.t.changesOnly === true;
    const applied = await this.deps.ledger.release(
      this.key,
      this.holder,
      this.deps.now,
      this.budgeted((res: ReleaseResult) => {
        // The first in line got it: a tenure began, which even the API shows.
        if (res.outcome === "released" && res.handoff) {
          return this.effect(this.t.reply("acquired", leaseView(res.handoff), handoffExtra(res.lease, "released")), true, config);
        }
        if (quiet && (res.outcome !== "released" || res.lease === null)) return [];
        return this.effect(this.t.reply(res.outcome, leaseView(res.lease)), res.outcome === "released", config);
      }),
    );
    return leaseResultOf(applied);
  }

  /** The reply of a lease that expired before the sweep ended it, handed to the first in line by this claim's transaction. */
  private handedOverReply(handoff: Lease, expired: Lease): Reply {
    return handoffReply({ issue: this.key.issue, at: this.deps.now, command: null, actor: null, ignored: 0 }, handoff, expired, "expired");
  }

  /**
   * What waiting in line asks: the place's time (`queue_place_ttl`), the
   * author first when `author_first` is set, and the lease's reminder.
   */
  private queueAsk(holder: Holder, ttl: number | null, config: Config): QueueAsk {
    const author = config.authorFirst !== null && this.t.issue.authorId !== undefined && this.t.issue.authorId === holder.id;
    return { placeTtl: config.queuePlaceTtl, authorFirst: author, remindBefore: remindBefore(ttl, config) };
  }

  /**
   * A command that changes no lease (a refusal, or `/lease`): recorded with
   * its delivery, its reply written with it. A refusal keeps its rule and
   * reason in the ledger, so that a retry answers the same.
   */
  async refuse(outcome: "invalid" | "forbidden", rule: Rule, reason: string): Promise<LeaseResult> {
    return leaseResultOf(await this.note(outcome, { reason, rule }, { outcome, rule, reason }));
  }

  /** Records a command that changes no lease, with its reply (`extra`) and what a retry must answer the same (`detail`). */
  note(outcome: Outcome, extra: Partial<Reply> = {}, detail?: Record<string, string>) {
    return this.deps.ledger.note(this.key, this.holder, this.deps.now, {
      outcome,
      ...(detail ? { detail } : {}),
      ...this.budgeted((res: NoteResult) => (this.t.changesOnly ? [] : this.effect(this.t.reply(outcome, leaseView(res.lease), extra), false))),
    });
  }

  /** A ledger call's options: the delivery, the events' cause and installation, and effects held to the actor's reply budget. */
  budgeted<R>(effects: (res: R) => NewEffect[]) {
    return {
      ...(this.t.delivery !== undefined ? { delivery: this.t.delivery } : {}),
      ...(this.t.cause !== undefined ? { cause: this.t.cause } : {}),
      installation: this.t.installation,
      ...(this.t.recordAcquiredOnly ? { recordIf: (res: R) => (res as { outcome?: string }).outcome === "acquired" } : {}),
      repliesPerHour: this.limit,
      // Only what posts counts toward the budget, when only changes are shown.
      ...(this.t.changesOnly ? { countsReply: (res: R) => effects(res).length > 0 } : {}),
      effects: (res: R, budget: ReplyBudget) => withinBudget(effects(res), budget, this.limit),
    };
  }

  /** The reflect effect of a reply and whether labels and assignee follow the ledger; none when there is neither. */
  effect(reply: Reply | null, reconcile: boolean, config?: Config): NewEffect[] {
    if (reply === null && !reconcile) return [];
    const { t } = this;
    const shown = reconcile && t.shown ? { assignee: t.shown } : {};
    const fields = { reconcile, reply, ...(config ? { labels: config.labels, assign: config.assign, snapshot: t.issue.labels } : {}), ...shown };
    return [reflectEffect(t.installation, this.key.repo, fields)];
  }
}
