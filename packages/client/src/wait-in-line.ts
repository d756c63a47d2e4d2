/**
 * `waitForLease`: a claim that waits in the issue's line instead of failing
 * when someone else holds it. The app hands the lease to the first in line
 * when it is released or expires, in the same transaction; the client only
 * has to notice. So it asks `POST …/lease?wait=true` (a lease at once when
 * the issue is free, else `202` and a place in line), then polls the status
 * (a read) with a backoff, and asks again, which answers the lease once it
 * is the caller's, only when the lease has changed hands or the place must
 * be renewed (halfway to its `queued_until`). Comparing holders needs no
 * knowledge of who the caller is: the write says.
 *
 * Giving up (the timeout, the caller's signal, or a failure once in line)
 * leaves the line with a DELETE, so that the lease is not handed to a
 * caller who is gone; a DELETE by someone who got the lease meanwhile
 * releases it, which is what giving up means then.
 */
import { LeaseWaitTimeoutError } from "./errors.js";
import { MAX_TIMER_MS, sleep } from "./http.js";
import { type ParsedRef, parseRef } from "./issue-ref.js";
import type { IssueRef, LeaseAnswer, LeaseStatus, LeaseView, QueuedAnswer, Ttl, WaitOptions } from "./types.js";

/** The calls `waitForLease` makes: a `LeaseClient`. */
export interface QueueCalls {
  claimOrQueue(ref: IssueRef, options: { ttl?: Ttl; instance?: string; signal?: AbortSignal }): Promise<LeaseAnswer | QueuedAnswer>;
  status(ref: IssueRef, options: { signal?: AbortSignal }): Promise<LeaseStatus>;
  release(ref: IssueRef, options: { instance?: string }): Promise<LeaseAnswer>;
}

const DEFAULT_POLL_MS = 1_000;
const DEFAULT_MAX_POLL_MS = 30_000;
/** When `queued_until` cannot be read, the place is renewed this often. */
const FALLBACK_RENEW_MS = 10 * 60_000;

export async function waitForLease(client: QueueCalls, ref: IssueRef, options: WaitOptions = {}): Promise<LeaseAnswer> {
  const parsed = parseRef(ref);
  const { ttl, instance } = options;
  const pollMs = Math.max(1, options.pollMs ?? DEFAULT_POLL_MS);
  const maxPollMs = Math.max(pollMs, options.maxPollMs ?? DEFAULT_MAX_POLL_MS);
  const started = Date.now();

  const timeout = new AbortController();
  const timer = options.timeoutMs === undefined ? undefined : setTimeout(() => timeout.abort(), Math.min(Math.max(0, options.timeoutMs), MAX_TIMER_MS));
  const signal = options.signal ? AbortSignal.any([options.signal, timeout.signal]) : timeout.signal;

  let place: QueuedAnswer | null = null;
  try {
    for (;;) {
      const sentAt = Date.now();
      const answer = await client.claimOrQueue(parsed, { ttl, instance, signal });
      if (answer.outcome !== "queued") return answer;
      place = answer;
      options.onQueued?.(answer);
      // Never sooner than a poll: a place whose end is already near must not turn into a loop of writes.
      const deadline = Math.max(renewAt(answer, sentAt), Date.now() + pollMs);
      await pollUntilChanged(client, parsed, answer, deadline, { pollMs, maxPollMs, signal });
    }
  } catch (error) {
    // Gone from the line before anything is thrown: a lease handed to a caller who left would sit unused until it
    // expires. Also when cancelled during the first request, which may have put the caller in line all the same.
    if (place !== null || signal.aborted) {
      try {
        await client.release(parsed, { instance });
      } catch {
        // The place ends at its queued_until.
      }
    }
    if (timeout.signal.aborted && !options.signal?.aborted) {
      throw new LeaseWaitTimeoutError(place?.lease ?? freeLease(parsed), Date.now() - started, place);
    }
    if (signal.aborted && options.signal?.aborted) throw options.signal.reason;
    throw error;
  } finally {
    clearTimeout(timer);
  }
}

/** When to ask again to keep the place: halfway to its end, on the client's clock from when the request was sent. */
function renewAt(place: QueuedAnswer, sentAt: number): number {
  const until = Date.parse(place.queued_until);
  const now = Date.now();
  if (Number.isNaN(until)) return now + FALLBACK_RENEW_MS;
  return sentAt + Math.max(0, until - now) / 2;
}

/** Polls the status until the lease has changed hands or `deadline` has come; a backoff that doubles while nothing happens. */
async function pollUntilChanged(
  client: QueueCalls,
  ref: ParsedRef,
  place: QueuedAnswer,
  deadline: number,
  o: { pollMs: number; maxPollMs: number; signal: AbortSignal },
): Promise<void> {
  for (let pause = o.pollMs; ; pause = Math.min(o.maxPollMs, pause * 2)) {
    const left = deadline - Date.now();
    if (left <= 0) return;
    // Jitter: many waiters of one issue spread their polls out.
    await sleep(Math.min(left, Math.round(pause / 2 + (Math.random() * pause) / 2)), o.signal);
    if (Date.now() >= deadline) return;
    const now = await client.status(ref, { signal: o.signal });
    if (!sameLease(place.lease, now)) return;
  }
}

/** Whether `b` is still the lease `a` was; a free issue never is (asking again takes it). */
function sameLease(a: LeaseView, b: LeaseView): boolean {
  return b.holder !== null && a.token === b.token && a.holder?.id === b.holder?.id && (a.holder?.instance ?? null) === (b.holder?.instance ?? null);
}

function freeLease(ref: ParsedRef): LeaseView {
  return { repo: `${ref.owner}/${ref.repo}`, issue: ref.issue, holder: null, token: null, expires_at: null };
}
