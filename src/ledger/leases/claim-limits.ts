/**
 * What counts toward a claim limit, in one place for every limit (a holder's
 * leases in the repository, under a label, across the organisation) and both
 * backends: sqlite/policies.ts and postgres/policies.ts build their queries
 * from `countsTowardLimits`, so that a rule about which leases count (a lease
 * in review, say) is written once and bears on every limit.
 */
import { inReviewSql } from "../work/in-review.js";
import type { ClaimPolicies } from "./lease-options.js";
import { liveSql } from "./tenure-rules.js";

/**
 * The SQL condition a row of `leases` (aliased `lease`) meets when it counts
 * toward a limit at `now` (an SQL expression): a live lease, and when
 * `countInReview` is false (the config's `count_in_review`) one not in
 * review (in-review.ts).
 */
export function countsTowardLimits(lease: string, now: string, countInReview = true): string {
  const live = liveSql(now, lease);
  return countInReview ? live : `${live} AND NOT (${inReviewSql(lease)})`;
}

/** GitHub's label names ignore case: the ledger keeps them lower-cased (and trimmed). */
export function labelKey(label: string): string {
  return label.trim().toLowerCase();
}

/** A claim's labels to remember: distinct keys, at most GitHub's 100 labels per issue. */
export function labelKeys(policies: ClaimPolicies | undefined): string[] {
  return [...new Set((policies?.labels ?? []).map(labelKey).filter((key) => key !== ""))].slice(0, 100);
}

/** The label limits that bear on a claim: those over 0 of labels the issue carries, in the config's order. */
export function labelLimits(policies: ClaimPolicies | undefined): Array<{ label: string; key: string; limit: number }> {
  const carried = new Set(labelKeys(policies));
  return (policies?.byLabel ?? [])
    .filter((l) => l.limit > 0 && carried.has(labelKey(l.label)))
    .map((l) => ({ label: l.label, key: labelKey(l.label), limit: l.limit }));
}

/** Whether an acquire must check any limit at all (and, on PostgreSQL, take the holder's lock). */
export function limitsApply(maxPerHolder: number, policies: ClaimPolicies | undefined): { repo: boolean; org: boolean } {
  return {
    repo: maxPerHolder > 0 || labelLimits(policies).length > 0,
    org: (policies?.org?.limit ?? 0) > 0,
  };
}
