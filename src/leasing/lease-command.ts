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
import type { Holder, IssueKey, Ttl } from "../ledger/leases/lease-types.js";
import type { AcquireOptions, ClaimPolicies, LeaseBook } from "../ledger/leases/lease-roles.js";
import { type ClaimPolicyDeps, decideClaim } from "./policies.js";
import type { Outcome, Reply } from "../commands/reply.js";
import type { LeaseTarget } from "./lease-target.js";
import { repliesPerHour } from "./reply-limit.js";
import { carriesExemptLabel } from "../config/work-policy.js";
import type { QueueAsk } from "../ledger/queue/queue-types.js";
import { type LeaseResult, leaseResultOf, type Rule } from "./lease-result.js";
import { mayClaim, remindBefore, ttlRefusal } from "./lease-rules.js";
import { applyDecision, claimEffects, commandOptions, type Decision, type Deciding, quietOr, releaseEffects, renewEffects } from "./lease-decision.js";

export interface LeaseDeps extends Partial<ClaimPolicyDeps> {
  ledger: LeaseBook;
  now: number;
}

export class LeaseCommand {
  readonly key: IssueKey;
  private readonly holder: Holder;
  /**
   * Who decides, for the pure decisions (lease-decision.ts): with the replies
   * per hour the actor may get here; a broken config still limits, by the
   * default: its error reply is no way around the limit.
   */
  readonly deciding: Deciding;

  constructor(
    private readonly t: LeaseTarget,
    private readonly config: ConfigResult,
    private readonly deps: LeaseDeps,
  ) {
    this.key = { repoId: t.repo.id, repo: `${t.repo.owner}/${t.repo.name}`, issue: t.issue.number };
    const { id, login, instance } = t.actor;
    this.holder = instance === undefined ? { id, login } : { id, login, instance };
    const limit = t.actor.writer ? 0 : repliesPerHour(t.actor.association, config.ok ? config.config : DEFAULT_CONFIG);
    this.deciding = { t, key: this.key, limit, now: deps.now };
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
    return this.apply(this.claimDecision(claim, ttl, config));
  }

  /** The claim's decision, once the rules before the transaction let it through: the lease to ask for, and the effects of each answer. */
  claimDecision(claim: { holder: Holder; policies: ClaimPolicies; assignedBy?: string }, ttl: Ttl, config: Config): Decision {
    const given = claim.assignedBy !== undefined ? { assignedBy: claim.assignedBy, mentionHolder: true } : {};
    const placed = claim.assignedBy !== undefined ? { waiter: claim.holder.login, assignedBy: claim.assignedBy } : {};
    const waits = this.t.wait ?? config.queue;
    const opts: AcquireOptions = {
      ...(waits ? { queue: this.queueAsk(claim.holder, ttl, config) } : {}),
      maxPerHolder: config.maxLeasesPerHolder,
      countInReview: config.countInReview,
      remindBefore: remindBefore(ttl, config),
      policies: claim.policies,
      ...(claim.assignedBy !== undefined ? { actor: this.holder } : {}),
      exempt: carriesExemptLabel(this.t.issue.labels, config),
      ...commandOptions(this.deciding, claimEffects(this.deciding, config, given, placed)),
    };
    return { op: "acquire", holder: claim.holder, ttl, opts };
  }

  async renew(asked: number | null): Promise<LeaseResult> {
    if (!this.config.ok) return this.configRefusal()!;
    const config = this.config.config;
    const ttl = asked ?? config.defaultTtl;
    const range = ttlRefusal(asked, config, "renew");
    if (range) return this.refuse("invalid", "ttl", range);
    const opts = { remindBefore: remindBefore(ttl, config), ...commandOptions(this.deciding, renewEffects(this.deciding, config)) };
    return this.apply({ op: "renew", holder: this.holder, ttl, opts });
  }

  /** Ends the actor's own lease. Releasing when nothing is held succeeds (a retrying client must not fail). */
  async release(): Promise<LeaseResult> {
    if (!this.config.ok) return this.configRefusal()!;
    return this.apply({ op: "release", holder: this.holder, opts: commandOptions(this.deciding, releaseEffects(this.deciding, this.config.config)) });
  }

  /** Applies a decision in one transaction, and reads the answer as the command's outcome. */
  async apply(decision: Decision): Promise<LeaseResult> {
    return leaseResultOf(await applyDecision(this.deps.ledger, this.key, this.deps.now, decision), undefined, this.key);
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
    return applyDecision(this.deps.ledger, this.key, this.deps.now, this.noteDecision(outcome, extra, detail));
  }

  /** The decision of a command that changes no lease: a note, and its reply for whatever lease stands. */
  noteDecision(outcome: Outcome, extra: Partial<Reply> = {}, detail?: Record<string, string>): Decision {
    const effects = { noted: quietOr(this.deciding, outcome, false, undefined, extra) };
    return { op: "note", actor: this.holder, opts: { outcome, ...(detail ? { detail } : {}), ...commandOptions(this.deciding, effects) } };
  }
}
