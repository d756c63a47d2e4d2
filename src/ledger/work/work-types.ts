/** The ledger's types for leases that follow the work (the rules in work-rules.ts, the plans in work-plans.ts). */
import type { Lease, Ttl } from "../leases/lease-types.js";
import type { NewEffect } from "../outbox/outbox-types.js";

/**
 * What a lease gets when its work no longer holds it (the last pull request
 * holding it closed unmerged, or its exempt label went): the repository's
 * `default_ttl` from that moment, and a reminder `remindBefore` ahead of the
 * new expiry (none when null, or when the term is no longer than that).
 */
export interface Resume {
  ttl: Ttl;
  remindBefore: number | null;
}

/** A lease a work operation changed, and how (the outcome of its `follow` history row). */
export interface Followed {
  lease: Lease;
  change: "suspended" | "resumed" | "linked" | "renewed";
}

export interface LinkPullOptions {
  resume: Resume;
  /**
   * When the pull request closed or stopped closing the issues (ms; default
   * `now`): a lease resumed gets `resume.ttl` from then, so an effect applied
   * late does not lengthen it.
   */
  at?: number;
  /** The effect written under the issue of each lease that changed, in the same transaction. */
  effect?: NewEffect;
}

export interface LinkPullResult {
  outcome: "linked";
  changed: Followed[];
}

/** What a renewal by activity needs of the repository's config, asked only when there is a lease it could renew. */
export interface ActivityPolicy {
  /** As `AcquireOptions.remindBefore`: the new term's reminder, none when the term is no longer than this. */
  remindBefore: number | null;
  /** The term of a lease taken before the ledger recorded term lengths (the repository's `default_ttl`). */
  fallbackTtl: Ttl;
}

export interface ActivityOptions {
  /** The webhook delivery id, recorded when something was renewed: a redelivery renews nothing more. */
  delivery?: string;
  /** The repository's policy; null: `renew_on_activity` is off. Not called when nothing could be renewed. */
  policy: () => Promise<ActivityPolicy | null>;
}

/** `renewed`: the leases renewed (silently: no effect is ever written); `none`: nothing to renew. */
export interface ActivityResult {
  outcome: "renewed" | "none";
  renewed: Lease[];
}

export interface ExemptOptions {
  delivery?: string;
  resume: Resume;
}

/** `suspended`: the lease no longer expires; `resumed`: it got `resume.ttl` from now; `unchanged`: it already was so, or there is no live lease. */
export interface ExemptResult {
  outcome: "suspended" | "resumed" | "unchanged";
  lease: Lease | null;
}
