/**
 * Counts webhook deliveries by outcome. A delivery runs several handlers
 * (its event's, and the one for any event), so no single handler knows what
 * became of it: the count is taken around Probot's webhooks `receive` (tests)
 * and `verifyAndReceive` (the HTTP middleware), which see the delivery whole.
 *
 * What the handlers did is learnt from the ledger, not from the handlers: the
 * metered ledger notes, in the delivery's async context, each operation that
 * carried a delivery id, and whether it was a duplicate.
 */
import { AsyncLocalStorage } from "node:async_hooks";
import type { Probot } from "probot";
import { type AppMetrics, type DeliveryOutcome, eventLabel } from "./app-metrics.js";

interface DeliveryScope {
  /** A ledger operation applied this delivery. */
  applied: boolean;
  /** A ledger operation found the delivery recorded already. */
  duplicate: boolean;
}

const scope = new AsyncLocalStorage<DeliveryScope>();

/** Called by the metered ledger after an operation that answers `duplicate`; nothing outside a delivery. */
export function noteDelivery(duplicate: boolean): void {
  const s = scope.getStore();
  if (!s) return;
  if (duplicate) s.duplicate = true;
  else s.applied = true;
}

function outcomeOf(s: DeliveryScope): DeliveryOutcome {
  if (s.applied) return "handled";
  return s.duplicate ? "duplicate" : "ignored";
}

/** A signature that did not match: verifyAndReceive rejects with status 400 before any handler ran. */
function rejected(error: unknown): boolean {
  const first = (error as { errors?: unknown[] } | null)?.errors?.[0] as { status?: number; message?: string } | undefined;
  return first?.status === 400 && /signature does not match/.test(first.message ?? "");
}

type Webhooks = Probot["webhooks"];

export function meterDeliveries(webhooks: Webhooks, metrics: AppMetrics): void {
  const receive = webhooks.receive;
  const verifyAndReceive = webhooks.verifyAndReceive;
  webhooks.receive = (event) => run(metrics, () => eventLabel(event.name, (event.payload as { action?: unknown }).action), () => receive(event));
  webhooks.verifyAndReceive = (event) =>
    run(
      metrics,
      () => {
        // The payload is a string here; its action is read only once the signature is known good.
        let action: unknown;
        try {
          action = (JSON.parse(typeof event.payload === "string" ? event.payload : "{}") as { action?: unknown }).action;
        } catch {
          action = undefined;
        }
        return eventLabel(event.name, action);
      },
      () => verifyAndReceive(event),
    );
}

async function run(metrics: AppMetrics, event: () => string, work: () => Promise<void>): Promise<void> {
  const s: DeliveryScope = { applied: false, duplicate: false };
  try {
    await scope.run(s, work);
  } catch (error) {
    // An unsigned or forged request names whatever event it likes: not a label.
    if (rejected(error)) metrics.delivery("unverified", "rejected");
    else metrics.delivery(event(), "failed");
    throw error;
  }
  metrics.delivery(event(), outcomeOf(s));
}
