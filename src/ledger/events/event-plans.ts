/**
 * Which ledger change makes which lease event (event-types.ts), written once
 * for both stores: the operations (lease-plans.ts, queue-plans.ts,
 * work-plans.ts) say what they changed, and these yield the `event` steps in
 * the same transaction, so that an event is committed with its change or not
 * at all. A redelivery, a refusal, a note, a reminder or a rename changes no
 * lease and makes no event.
 *
 * - a new tenure: `lease.acquired`; the holder's claim on their own lease, a
 *   renewal, a renewal by activity: `lease.renewed`
 * - the holder's release: `lease.released`; a release by anyone else (a
 *   maintainer, a close, the label taken off): `lease.ended`; the sweep:
 *   `lease.expired`
 * - the first in line handed the lease: `lease.handed_off` (the new tenure),
 *   after the event of the tenure that ended
 * - a lease that ran out before the sweep came and that another operation
 *   ends (a claim over it, a release of it): `lease.expired` first, as the
 *   sweep would have written, so that every tenure gets its ending once
 * - a lease its work holds or lets go of (a pull request, an exempt label):
 *   `lease.renewed`, its `expires_at` changed, cause `work`
 */
import { decide } from "../leases/decide.js";
import type { EventCause, LeaseEventType } from "./event-types.js";
import { ask, type IssueRow, type Step } from "../plan.js";
import type { Holder, IssueKey, Lease } from "../leases/lease-types.js";

/** An event an operation decided on; its cause, when absent, is the operation's. */
export interface EventSpec {
  type: LeaseEventType;
  lease: Lease;
  cause?: EventCause;
}

/** What an operation's events share: who made the change, when, why by default, and the installation if the caller knows it. */
export interface EventContext {
  actor: Holder | null;
  now: number;
  cause: EventCause;
  installation: number | null;
}

/** Writes `specs`, in order: the ending of a tenure before the one that follows it. */
export function* writeEvents(specs: readonly EventSpec[], ctx: EventContext): Generator<Step, void, unknown> {
  for (const spec of specs) {
    const expiry = spec.type === "lease.expired";
    const event = {
      type: spec.type,
      lease: spec.lease,
      actor: expiry ? null : ctx.actor,
      cause: spec.cause ?? ctx.cause,
      at: ctx.now,
      installation: ctx.installation,
    };
    yield* ask({ op: "event", event });
  }
}

/** The row's tenure when it ran out and the sweep has not ended it yet; null otherwise. */
export function unsweptTenure(key: IssueKey, row: IssueRow, now: number): Lease | null {
  if (row.rule?.holder == null || decide.live(key, row.rule, now) !== null) return null;
  const ended = decide.expire(key, row.rule, row.rule.token, now);
  return ended.outcome === "expired" ? ended.lease : null;
}

/** A tenure that ran out unswept, ended by this operation: its `lease.expired`, as the sweep's. */
export function expiredEvents(key: IssueKey, row: IssueRow, now: number): EventSpec[] {
  const lease = unsweptTenure(key, row, now);
  return lease ? [{ type: "lease.expired", lease, cause: "expiry" }] : [];
}

/**
 * The events of a tenure that ends (`ending`: released, ended or expired):
 * the lease that ended, or the one that had run out unswept when the
 * operation found none live; then the handoff's new tenure, if any.
 */
export function endingEvents(key: IssueKey, row: IssueRow, ending: LeaseEventType, ended: Lease | null, handoff: Lease | undefined, now: number): EventSpec[] {
  const specs: EventSpec[] = ended ? [{ type: ending, lease: ended }] : expiredEvents(key, row, now);
  if (handoff) specs.push({ type: "lease.handed_off", lease: handoff, cause: "handoff" });
  return specs;
}

/** A claim's: a new tenure (after the end of one that ran out unswept, as the sweep would have written it), or the holder's own lease renewed. */
export function claimEvents(key: IssueKey, row: IssueRow, lease: Lease, newTenure: boolean, now: number): EventSpec[] {
  if (!newTenure) return [{ type: "lease.renewed", lease }];
  return [...expiredEvents(key, row, now), { type: "lease.acquired", lease }];
}

/** Another's claim found the lease run out unswept and handed it to the first in line. */
export function handedOverEvents(expired: Lease, handoff: Lease): EventSpec[] {
  return [
    { type: "lease.expired", lease: expired, cause: "expiry" },
    { type: "lease.handed_off", lease: handoff, cause: "handoff" },
  ];
}
