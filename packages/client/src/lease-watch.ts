/**
 * The watch `withLease` keeps beside its renewals: the app's event stream,
 * filtered to the lease's repository and to the caller's own leases, read
 * until an event says the lease ended (a maintainer's release, an expiry,
 * the issue closed, a handoff), so that the work is stopped within moments
 * instead of at the next renewal, up to a third of the TTL later.
 *
 * The stream starts after the claim, so an end in between would be missed:
 * each connection that starts afresh (not resuming with `Last-Event-ID`),
 * and each notice of the app that events may be missing (`stream.gap`), is
 * followed by one `verify` of the lease. When the stream is down or not
 * served (an app without it answers 404), the renewals alone notice, as
 * they always did; the watch tries the stream again, less and less often.
 */
import type { EventFilter, EventsOptions, LeaseEvent } from "./event-types.js";
import { pause } from "./http.js";
import type { ParsedRef } from "./issue-ref.js";
import type { IssueRef, LeaseAnswer, VerifyResult } from "./types.js";

/** The calls the watch makes: a `LeaseClient`. */
export interface WatchCalls {
  events(filter: EventFilter, options: EventsOptions): AsyncIterable<LeaseEvent>;
  verify(ref: IssueRef, token: number, options: { instance?: string; signal?: AbortSignal }): Promise<VerifyResult>;
}

/**
 * What `withLease`'s `onWatch` is told, for a debug log: the stream is open
 * (`resumed`: from the last event seen, replaying what was missed), or it is
 * down and tried again after `retryInMs` (renewals alone notice meanwhile).
 */
export type WatchState = { state: "open"; resumed: boolean } | { state: "down"; error: unknown; retryInMs: number };

/** How the lease was found ended: an event of the stream, or the check made when the stream opened (the lease as it is now). */
export type Ended = { event: LeaseEvent } | { checked: LeaseAnswer | null };

export interface Watch {
  client: WatchCalls;
  ref: ParsedRef;
  token: number;
  instance: string | undefined;
  stop: AbortSignal;
  onWatch: ((state: WatchState) => void) | undefined;
  ended(how: Ended): void;
}

/** An app that answers the stream with an error (404: it has none) is asked again after this, doubling up to the most. */
const RETRY_MIN_MS = 30_000;
const RETRY_MAX_MS = 10 * 60_000;

const ENDING = new Set(["lease.released", "lease.expired", "lease.ended", "lease.handed_off"]);

/**
 * Whether `event` ends the tenure `token` of the issue: an ending event of
 * that tenure, or any event of a later one (tokens of an issue only go up,
 * so a later tenure means this one is over).
 */
export function endsLease(event: LeaseEvent, ref: ParsedRef, token: number): boolean {
  if (event.repo.toLowerCase() !== `${ref.owner}/${ref.repo}`.toLowerCase() || event.issue !== ref.issue) return false;
  if (event.token > token) return true;
  return event.token === token && ENDING.has(event.type);
}

/** Watches until stopped, or until the lease is found ended (told once through `ended`); never rejects. */
export async function watchLease(w: Watch): Promise<void> {
  const filter: EventFilter = { repo: { owner: w.ref.owner, repo: w.ref.repo }, holder: "@me" };
  const checks: Promise<void>[] = [];
  let lastEventId: string | undefined;
  let delay = RETRY_MIN_MS;
  try {
    while (!w.stop.aborted) {
      try {
        const events = w.client.events(filter, {
          signal: w.stop,
          ...(lastEventId !== undefined ? { lastEventId } : {}),
          onOpen: (info) => {
            delay = RETRY_MIN_MS;
            w.onWatch?.({ state: "open", resumed: info.lastEventId !== null });
            if (info.lastEventId === null) checks.push(check(w));
          },
          // Events may have been missed (no longer kept, or the app does not know the id): the lease is checked.
          onGap: () => checks.push(check(w)),
          onError: (error, retryInMs) => w.onWatch?.({ state: "down", error, retryInMs }),
        });
        for await (const event of events) {
          lastEventId = event.id;
          if (endsLease(event, w.ref, w.token)) return w.ended({ event });
        }
      } catch (error) {
        if (w.stop.aborted) return;
        w.onWatch?.({ state: "down", error, retryInMs: delay });
        if (!(await pause(delay, w.stop))) return;
        delay = Math.min(delay * 2, RETRY_MAX_MS);
      }
    }
  } finally {
    await Promise.all(checks);
  }
}

/** The lease as it is once the stream is open: an end before the stream was listened to is not missed. */
async function check(w: Watch): Promise<void> {
  try {
    const answer = await w.client.verify(w.ref, w.token, { instance: w.instance, signal: w.stop });
    if (!answer.valid && !w.stop.aborted) w.ended({ checked: answer.lease });
  } catch {
    // Nothing learnt: the renewals still notice.
  }
}
