/**
 * What a lease command came to, as the API, `next` and the webhooks answer
 * it: the outcome, the rule that refused it, and whether it was a redelivery.
 * Read back from any ledger result, so that a retry answers the first.
 */
import type { IssueKey, Lease, LedgerResult } from "../ledger/leases/lease-types.js";
import { limitReason } from "../github/limit-reason.js";

/** Which rule refused a command: `reason` in the API's 403 and 422 answers. */
export type Rule =
  | "config"
  | "syntax"
  | "ttl"
  | "closed"
  | "bots"
  | "claimers"
  | "max_leases_per_holder"
  | "limits_by_label"
  | "max_leases_per_holder_in_org"
  | "author_first"
  | "account"
  | "permission";

export type LeaseOutcome =
  | { outcome: "acquired"; lease: Lease; newTenure: boolean }
  | { outcome: "renewed"; lease: Lease }
  /** `handoff`: the first in line got the lease that was released. */
  | { outcome: "released"; lease: Lease | null; handoff?: Lease }
  | { outcome: "held" | "not_holder" | "left_queue"; lease: Lease | null }
  /** Waiting in line: the place (1 for the first), until when it lasts, and the live lease it waits for. */
  | { outcome: "queued"; lease: Lease; position: number; until: number }
  | { outcome: "invalid" | "forbidden"; lease: Lease | null; rule: Rule; reason: string }
  | { outcome: "status"; lease: Lease | null };

/** An outcome, and whether its delivery had been applied before (a redelivery, an idempotent retry): then it is the first one's. */
export type LeaseResult = LeaseOutcome & { duplicate: boolean };

/**
 * What a ledger result means as a command's outcome. Takes any result the
 * ledger recorded: a retry with a delivery id answers the first result,
 * whichever operation it came from.
 */
export function leaseResultOf(raw: unknown, duplicate = (raw as { duplicate?: boolean }).duplicate === true, key?: IssueKey): LeaseResult {
  const r = raw as LedgerResult;
  switch (r.outcome) {
    case "acquired":
      return { outcome: "acquired", lease: r.lease, newTenure: r.newTenure, duplicate };
    case "limit":
      return {
        outcome: "forbidden",
        rule: r.scope?.kind === "label" ? "limits_by_label" : r.scope?.kind === "org" ? "max_leases_per_holder_in_org" : "max_leases_per_holder",
        reason: limitReason(key ?? { repoId: r.held[0]?.repoId ?? 0, repo: "", issue: 0 }, r),
        lease: null,
        duplicate,
      };
    case "renewed":
      return { outcome: "renewed", lease: r.lease, duplicate };
    case "released":
      return { outcome: "released", lease: r.lease, ...(r.handoff ? { handoff: r.handoff } : {}), duplicate };
    case "queued":
      return { outcome: "queued", lease: r.lease, position: r.position, until: r.until, duplicate };
    case "held":
    case "not_holder":
    case "left_queue":
      return { outcome: r.outcome, lease: r.lease, duplicate };
    case "noted": {
      const d = r.detail;
      if (d && (d.outcome === "invalid" || d.outcome === "forbidden")) {
        return { outcome: d.outcome, rule: d.rule as Rule, reason: d.reason ?? "", lease: r.lease, duplicate };
      }
      return { outcome: "status", lease: r.lease, duplicate };
    }
    default:
      // Expiries, reminders, stale force releases: never recorded with a command's delivery id.
      return { outcome: "status", lease: "lease" in r ? r.lease : null, duplicate };
  }
}
