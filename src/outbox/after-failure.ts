/**
 * What the outbox does after an attempt at an effect failed, as a pure
 * function of the error and the attempt: wait out a rate limit (that
 * installation only), drop an effect whose issue is gone, park one that
 * retrying cannot fix or that failed too often (or that met a 404 GitHub
 * did not pin on the issue: the app's GitHub address is wrong), or retry
 * with backoff.
 */
import { type HttpError, httpStatus } from "../github/github-port.js";
import { TOO_MANY_REQUESTS } from "../github/timed-fetch.js";
import { isGraphqlUrl } from "../github/github-urls.js";

export type NextStep =
  | { action: "pause"; waitMs: number }
  | { action: "drop" }
  | { action: "park"; misconfigured?: string }
  | { action: "retry"; at: number };

export interface RetryPolicy {
  maxAttempts: number;
  /** First retry delay; doubles per attempt up to `maxBackoffMs`. */
  backoffMs: number;
  maxBackoffMs: number;
  random: () => number;
  /** The least a secondary limit pauses an installation for, whatever GitHub's `retry-after` says (GitHub: a minute). */
  minPauseMs: number;
}

/** How GitHub words a secondary rate limit in an error's message. */
const SECONDARY = /secondary rate limit|abuse/i;

/** A GraphQL answer of 200 whose errors say a rate limit (`RATE_LIMITED`, or a secondary limit's message). */
function graphqlRateLimited(error: unknown): boolean {
  const errors = (error as { errors?: unknown } | null)?.errors;
  if (!Array.isArray(errors)) return false;
  return errors.some((e: { type?: unknown; message?: unknown }) => e?.type === "RATE_LIMITED" || SECONDARY.test(String(e?.message ?? "")));
}

/**
 * How long GitHub asks us to wait, in ms, or null when the error is not a
 * rate limit. A secondary limit (403 or 429 with `retry-after`, or saying
 * so, or a GraphQL answer of 200 with a `RATE_LIMITED` error) waits at least
 * `minPauseMs`; the primary limit spent waits for its reset.
 */
export function rateLimitWait(error: unknown, now: number, minPauseMs = 60_000): number | null {
  if (graphqlRateLimited(error)) return minPauseMs;
  const headers = (error as HttpError).response?.headers ?? {};
  // A 429 the port told as a 403, so that Octokit would not retry it at once.
  const status = headers[TOO_MANY_REQUESTS] === "429" ? 429 : httpStatus(error);
  if (status !== 403 && status !== 429) return null;
  const retryAfter = Number(headers["retry-after"]);
  if (headers["retry-after"] !== undefined && Number.isFinite(retryAfter)) return Math.max(minPauseMs, retryAfter * 1000);
  if (String(headers["x-ratelimit-remaining"]) === "0") {
    const reset = Number(headers["x-ratelimit-reset"]) * 1000;
    if (Number.isFinite(reset)) return Math.max(1000, reset - now);
  }
  const message = String((error as HttpError).message ?? "");
  if (SECONDARY.test(message)) return minPauseMs;
  return status === 429 ? minPauseMs : null;
}

/** A request to what an effect is shown on: the repository's (its issues, labels, checks), or the installation's token. */
const REPO_OR_INSTALLATION = /\/(?:repos\/[^/]+\/[^/]+(?:\/|$)|app\/installations\/\d+\/access_tokens$)/;

/**
 * What a 404 (or 410) says: `gone` when GitHub says the issue, the
 * repository or the installation is gone (GraphQL's NOT_FOUND on that node,
 * which the port tells as a 404 with no request of its own, or GitHub's own
 * JSON answer to the repository's or the installation's REST path);
 * otherwise what to fix: a 404 from GraphQL's endpoint itself, or from a
 * path that is not the repository's, or that is not GitHub's JSON, is a
 * wrong address for GitHub, and nothing is gone.
 */
export function notFoundMeaning(error: unknown): "gone" | { misconfigured: string } {
  const url = (error as { request?: { url?: unknown } } | null)?.request?.url;
  if (typeof url !== "string") return "gone";
  const path = url.replace(/^[a-z]+:\/\/[^/]+/i, "").replace(/\?.*$/, "");
  const data = (error as { response?: { data?: unknown } }).response?.data;
  const githubJson = typeof data === "object" && data !== null && typeof (data as { message?: unknown }).message === "string";
  if (!isGraphqlUrl(url) && REPO_OR_INSTALLATION.test(path) && githubJson) return "gone";
  const what = isGraphqlUrl(url) ? "GitHub's GraphQL endpoint" : "a GitHub path the effect did not expect";
  return {
    misconfigured:
      `${what} answered ${httpStatus(error)} at ${url.replace(/\?.*$/, "")}: check GHE_HOST, GHE_PROTOCOL and GITHUB_API_URL ` +
      "(Enterprise Server serves REST at https://HOST/api/v3 and GraphQL at https://HOST/api/graphql); " +
      "parked effects are applied again when the app restarts",
  };
}

export function nextAfterFailure(error: unknown, attempts: number, now: number, policy: RetryPolicy): NextStep {
  const wait = rateLimitWait(error, now, policy.minPauseMs);
  if (wait !== null) return { action: "pause", waitMs: wait };
  const status = httpStatus(error);
  if (status === 404 || status === 410) {
    const meaning = notFoundMeaning(error);
    // The issue, the repository or the installation is gone: nothing to show it on.
    if (meaning === "gone") return { action: "drop" };
    return { action: "park", misconfigured: meaning.misconfigured };
  }
  const permanent = status !== null && status >= 400 && status < 500 && status !== 408;
  if (permanent || attempts >= policy.maxAttempts) return { action: "park" };
  const delay = Math.min(policy.maxBackoffMs, policy.backoffMs * 2 ** (attempts - 1));
  return { action: "retry", at: now + Math.round(delay * (0.5 + policy.random() / 2)) };
}

/**
 * What the outbox does after a webhook delivery failed (its receiver is not
 * GitHub: no installation is paused, and nothing is dropped as gone). A
 * receiver that did not answer, answered 5xx, 408 or 429 is tried again with
 * backoff (a `Retry-After` waited out, within `maxBackoffMs`, and so is the
 * end of a receiver's hold: a delivery held back, unsent, is retried when the
 * hold is over, or later by its own backoff); any other
 * answer (a 4xx, a redirect, which is not followed) and a refused target are
 * given up on (parked): sending the same body again would get the same answer.
 */
export function nextAfterDeliveryFailure(
  failure: { status: number | null; retryAfterMs: number | null; refused: boolean },
  attempts: number,
  now: number,
  policy: Omit<RetryPolicy, "minPauseMs">,
): Extract<NextStep, { action: "park" | "retry" }> {
  const { status } = failure;
  const again = !failure.refused && (status === null || status >= 500 || status === 408 || status === 429);
  if (!again || attempts >= policy.maxAttempts) return { action: "park" };
  const backoff = Math.round(Math.min(policy.maxBackoffMs, policy.backoffMs * 2 ** (attempts - 1)) * (0.5 + policy.random() / 2));
  const asked = Math.min(policy.maxBackoffMs, failure.retryAfterMs ?? 0);
  return { action: "retry", at: now + Math.max(backoff, asked) };
}
