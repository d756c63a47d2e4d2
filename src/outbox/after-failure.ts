/**
 * What the outbox does after an attempt at an effect failed, as a pure
 * function of the error and the attempt: wait out a rate limit (that
 * installation only), drop an effect whose issue is gone, park one that
 * retrying cannot fix or that failed too often, or retry with backoff.
 */
import { type HttpError, httpStatus } from "../github/github-port.js";

export type NextStep =
  | { action: "pause"; waitMs: number }
  | { action: "drop" }
  | { action: "park" }
  | { action: "retry"; at: number };

export interface RetryPolicy {
  maxAttempts: number;
  /** First retry delay; doubles per attempt up to `maxBackoffMs`. */
  backoffMs: number;
  maxBackoffMs: number;
  random: () => number;
}

/** How long GitHub asks us to wait, in ms, or null when the error is not a rate limit. */
export function rateLimitWait(error: unknown, now: number): number | null {
  const status = httpStatus(error);
  if (status !== 403 && status !== 429) return null;
  const headers = (error as HttpError).response?.headers ?? {};
  const retryAfter = Number(headers["retry-after"]);
  if (headers["retry-after"] !== undefined && Number.isFinite(retryAfter)) return Math.max(0, retryAfter * 1000);
  if (String(headers["x-ratelimit-remaining"]) === "0") {
    const reset = Number(headers["x-ratelimit-reset"]) * 1000;
    if (Number.isFinite(reset)) return Math.max(1000, reset - now);
  }
  const message = String((error as HttpError).message ?? "");
  if (/secondary rate limit|abuse/i.test(message)) return 60_000;
  return status === 429 ? 60_000 : null;
}

export function nextAfterFailure(error: unknown, attempts: number, now: number, policy: RetryPolicy): NextStep {
  const wait = rateLimitWait(error, now);
  if (wait !== null) return { action: "pause", waitMs: wait };
  const status = httpStatus(error);
  // The issue, the repository or the installation is gone: nothing to show it on.
  if (status === 404 || status === 410) return { action: "drop" };
  const permanent = status !== null && status >= 400 && status < 500 && status !== 408;
  if (permanent || attempts >= policy.maxAttempts) return { action: "park" };
  const delay = Math.min(policy.maxBackoffMs, policy.backoffMs * 2 ** (attempts - 1));
  return { action: "retry", at: now + Math.round(delay * (0.5 + policy.random() / 2)) };
}
