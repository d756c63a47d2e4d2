/**
 * The reply of a handoff (issue 22): a lease that ended (released, by its
 * holder or a maintainer, or expired) passed to the first in line in the
 * same transaction. Every path that ends a lease writes this reply in place
 * of its own when the ledger says it handed the lease on: it says how the
 * last tenure ended and mentions the new holder, the one place the app
 * mentions someone who did not ask (they were waiting for exactly this).
 */
import type { Lease } from "../ledger/leases/lease-types.js";
import { leaseView, type Reply } from "../commands/reply.js";

/** What a reply of outcome `acquired` carries to be the handoff's (spread over the reply the path would have written). */
export function handoffExtra(ended: Lease | null, how: "released" | "expired"): Partial<Reply> {
  const previous = leaseView(ended);
  return { op: "handoff", newTenure: true, mentionHolder: true, ...(previous ? { previous: { lease: previous, ended: how } } : {}) };
}

/** The handoff's reply as decided before the ledger answers (the sweeper, issue events, a claim that finds a lease run out): the new tenure and the one that ended are filled from the answer. */
export function handoffTemplate(base: Omit<Reply, "op" | "outcome" | "lease">, how: "released" | "expired"): Reply {
  return { ...base, outcome: "acquired", lease: null, ...handoffExtra(null, how), op: "handoff" };
}
