/**
 * How the drainer applies a `webhook` effect: the events' sender POSTs it
 * (never GitHub's port, so no budget slot is taken), and a failure is
 * retried or given up on by what the receiver answered
 * (nextAfterDeliveryFailure), never by GitHub's rules.
 *
 * Logs name the target's host, never its URL: a chat's incoming-webhook URL
 * is itself the credential to post there.
 */
import type { Logger } from "pino";
import type { Effect, EffectFence } from "../ledger/outbox/outbox-types.js";
import type { OutboxStore } from "../ledger/outbox/outbox-roles.js";
import { DeliveryError, type SendEvent } from "../events/send-event.js";
import { nextAfterDeliveryFailure, type RetryPolicy } from "./after-failure.js";
import type { WebhookPayload } from "./effects.js";

/**
 * Applies a webhook effect: sends it and completes it, or records its
 * failure (a retry with backoff, or parked). Answers what became of the
 * attempt; throws when aborted (its lock was lost, or the app is stopping)
 * and what the ledger throws. Without a sender (no `EVENTS_WEBHOOK_SECRET`)
 * the effect is parked, to be tried again after a restart.
 */
export async function applyWebhook(
  effect: Effect,
  fence: EffectFence,
  signal: AbortSignal,
  o: WebhookApplying,
): Promise<"completed" | "retried" | "parked" | "lost_lock"> {
  try {
    if (o.sendEvent === null) throw new DeliveryError("EVENTS_WEBHOOK_SECRET is not set, so webhooks are not sent", null, null, true);
    await o.sendEvent(effect.payload as WebhookPayload, signal);
  } catch (error) {
    if (signal.aborted) throw error;
    const { outcome, current } = await webhookFailed(effect, fence, error, o);
    return current ? outcome : "lost_lock";
  }
  if (await o.ledger.completeEffect(fence, o.clock())) return "completed";
  o.log.warn(deliveryFields(effect), "outbox: a webhook delivery's lock was lost before it was completed");
  return "lost_lock";
}

/** What applying a webhook effect needs of the drainer. */
export type WebhookApplying = {
  ledger: Pick<OutboxStore, "failEffect" | "completeEffect">;
  clock: () => number;
  log: Pick<Logger, "warn" | "error">;
  sendEvent: SendEvent | null;
} & Omit<RetryPolicy, "minPauseMs">;

/** What to log of a delivery: where and what, without the URL. */
export function deliveryFields(effect: Effect): Record<string, unknown> {
  const p = effect.payload as WebhookPayload;
  let host = "?";
  try {
    host = new URL(p.url).host;
  } catch {
    // A URL that does not parse was refused by the sender; "?" says so.
  }
  return { effect: effect.id, attempt: effect.attempts, installation: p.installation, repo: p.event.repo, event: p.event.id, type: p.event.type, delivery: p.delivery, host };
}

/** Records a failed delivery: a retry with backoff, or parked. Answers the outcome, and whether this attempt was still the effect's. */
async function webhookFailed(effect: Effect, fence: EffectFence, error: unknown, o: WebhookApplying): Promise<{ outcome: "retried" | "parked"; current: boolean }> {
  const now = o.clock();
  const failure = error instanceof DeliveryError ? error : new DeliveryError(String((error as Error)?.message ?? error), null);
  const message = failure.message.slice(0, 500);
  const where = { ...deliveryFields(effect), status: failure.status };
  const next = nextAfterDeliveryFailure(failure, effect.attempts, now, o);
  if (next.action === "park") {
    o.log.error({ ...where, error: message }, "outbox: webhook delivery given up (parked); it is tried again on restart");
    return { outcome: "parked", current: await o.ledger.failEffect(fence, now, message, null) };
  }
  o.log.warn({ ...where, retryAt: next.at, error: message }, "outbox: webhook delivery failed; will retry");
  return { outcome: "retried", current: await o.ledger.failEffect(fence, now, message, next.at) };
}
