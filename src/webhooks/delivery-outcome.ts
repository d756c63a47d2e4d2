/**
 * What became of each webhook delivery, for the metrics. A delivery runs
 * several handlers (its event's, its action's, and those for any event), and
 * no single one knows what became of it: the webhook router
 * (webhook-router.ts) counts a delivery's handlers as they start and end,
 * and tells its outcome once the last has ended; one that failed is told by
 * Probot's `onError`, which sees the delivery whole.
 *
 * What the handlers did is learnt from the ledger, not from the handlers:
 * the metered ledger (metrics/metered-ledger.ts) notes, in the delivery's
 * async context, each operation that carried a delivery id, and whether it
 * was a duplicate.
 */
import { AsyncLocalStorage } from "node:async_hooks";

/** What became of one webhook delivery: `rejected` is one refused for its signature, before any handler ran. */
export type DeliveryOutcome = "handled" | "duplicate" | "ignored" | "failed" | "rejected";

/** A delivery's event as GitHub named it (any value: it came from the request). */
export interface DeliveredEvent {
  name: unknown;
  action: unknown;
}

/** Told what became of each delivery, once; `event` null for a delivery refused unverified, which names whatever event it likes. */
export type DeliveryWatch = (outcome: DeliveryOutcome, event: DeliveredEvent | null) => void;

/** One delivery's handlers, as they run. */
export class DeliveryScope {
  started = 0;
  ended = 0;
  failed = false;
  /** A ledger operation applied the delivery. */
  applied = false;
  /** A ledger operation found the delivery recorded already. */
  duplicate = false;

  constructor(
    /** Handlers that will run for it: those of its event, its action and any event. */
    readonly handlers: number,
    readonly event: DeliveredEvent,
  ) {}

  get outcome(): DeliveryOutcome {
    if (this.failed) return "failed";
    if (this.applied) return "handled";
    return this.duplicate ? "duplicate" : "ignored";
  }
}

const current = new AsyncLocalStorage<DeliveryScope>();

/** Runs a handler of the delivery `scope` in its async context, where the ledger's notes reach it. */
export function inDelivery<T>(scope: DeliveryScope, work: () => T): T {
  return current.run(scope, work);
}

/** Called by the metered ledger after an operation that answers `duplicate`; nothing outside a delivery. */
export function noteDelivery(duplicate: boolean): void {
  const scope = current.getStore();
  if (!scope) return;
  if (duplicate) scope.duplicate = true;
  else scope.applied = true;
}
