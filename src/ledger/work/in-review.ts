/**
 * "In review": a live lease whose holder has an open pull request that closes
 * its issue (`heldBy.pulls` not empty; the lease row's `pulls` column not
 * NULL). The one definition, in SQL and in code, of what `count_in_review`
 * and every per-holder limit leave out when it is false.
 */
import type { Lease } from "../leases/lease-types.js";

/**
 * SQL, both backends: the lease row (of table alias `alias`, if given) is in
 * review. Rows are written so that `pulls` is NULL, never an empty list, when
 * there is none (work-rules.ts `pullsColumn`).
 */
export function inReviewSql(alias?: string): string {
  return `${alias ? `${alias}.` : ""}pulls IS NOT NULL`;
}

/** The same test on a lease read. */
export function inReview(lease: Lease): boolean {
  return lease.heldBy.kind !== "time" && lease.heldBy.pulls.length > 0;
}
