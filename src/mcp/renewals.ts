/**
 * One lease's heartbeat while an MCP session holds it, as the client's
 * `withLease` keeps one: a renewal every third of the time left, each with
 * one idempotency key through its retries; a refusal (someone else holds
 * it, a 403, a 404) loses the lease at once, and failures that last until
 * the expiry lose it then. An open-ended lease (held by a pull request or
 * an exempt label) has nothing to renew.
 */
import { LeaseApiError, LeaseConflictError, type LeaseAnswer, type LostReason, ttlMs } from "@issue-leases/client";

export interface Renewal {
  /** One renewal; the session's client retries it itself (network, 5xx, 429) before it rejects. */
  renew(signal: AbortSignal): Promise<LeaseAnswer>;
  /** The TTL the lease was asked with, if any. */
  ttl: string | undefined;
  stop: AbortSignal;
  renewed(lease: LeaseAnswer): void;
  lost(reason: LostReason, cause: unknown): void;
  /** A renewal that failed and will be tried again (for a log line). */
  failed(error: unknown): void;
}

/** Renewals fail over to this pause at first, doubling up to a third of the period. */
const RETRY_FLOOR_MS = 250;
/** setTimeout's longest wait. */
const MAX_TIMER_MS = 2 ** 31 - 1;

/** Renews until stopped or lost, starting from `first` (the claim's answer, sent at `sentAt`); never rejects. */
export async function keepRenewing(first: LeaseAnswer, sentAt: number, r: Renewal): Promise<void> {
  let expiry = expiryOf(first, sentAt, r.ttl);
  for (;;) {
    if (expiry === null) return;
    const until = expiry;
    const period = Math.min(MAX_TIMER_MS, Math.max(0, (expiry - Date.now()) / 3));
    if (!(await pause(period, r.stop))) return;
    let round = 0;
    for (;;) {
      const at = Date.now();
      try {
        const lease = await r.renew(r.stop);
        expiry = expiryOf(lease, at, r.ttl);
        r.renewed(lease);
        break;
      } catch (error) {
        if (r.stop.aborted) return;
        const refused = refusal(error);
        if (refused) return r.lost(refused, error);
        if (Date.now() >= until) return r.lost("expired", error);
        r.failed(error);
      }
      const wait = Math.min(Math.max(RETRY_FLOOR_MS, period / 3), RETRY_FLOOR_MS * 2 ** round++, Math.max(0, until - Date.now()));
      if (!(await pause(wait, r.stop))) return;
    }
  }
}

/** Why a renewal's error means the lease is gone, or null when trying again may help. */
function refusal(error: unknown): LostReason | null {
  if (error instanceof LeaseConflictError) return "not_holder";
  if (error instanceof LeaseApiError && [400, 403, 404, 410, 422].includes(error.status)) return "refused";
  return null;
}

/** When the lease ends on this machine's clock: the earlier of the server's expiry and `sentAt` plus the TTL asked; null when open-ended. */
export function expiryOf(answer: LeaseAnswer, sentAt: number, ttl: string | undefined): number | null {
  if (answer.expires_at === null) return null;
  const server = Date.parse(answer.expires_at);
  const asked = ttl === undefined ? null : ttlMs(ttl);
  const candidates = [server, asked === null ? Number.NaN : sentAt + asked].filter((t) => !Number.isNaN(t));
  return candidates.length === 0 ? null : Math.min(...candidates);
}

/** Waits `ms`; false when `signal` was aborted first. */
function pause(ms: number, signal: AbortSignal): Promise<boolean> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve(false);
    const done = (ok: boolean) => {
      clearTimeout(timer);
      signal.removeEventListener("abort", onAbort);
      resolve(ok);
    };
    const onAbort = () => done(false);
    const timer = setTimeout(() => done(true), ms);
    signal.addEventListener("abort", onAbort, { once: true });
  });
}
