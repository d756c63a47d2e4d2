/**
 * A session's ear on the app's lease events: one stream of the caller's own
 * leases (`GET /api/v1/events?holder=@me`), open from the session's first
 * lease to its end, so that a lease someone else ends (a maintainer's
 * release, a handoff, the sweep's expiry) is told to the agent within
 * moments rather than at the next renewal, a third of the TTL later.
 *
 * The client's stream connects again by itself, with `Last-Event-ID`; a
 * stream that starts afresh, or says events may be missing (`stream.gap`),
 * is followed by a check of every lease held (`recheck`), as `withLease`'s
 * watch does. An app that refuses the stream (404, 401) is asked again
 * less and less often; the renewals still notice meanwhile.
 */
import type { LeaseClient, LeaseEvent } from "@issue-leases/client";

export interface SessionWatch {
  client: Pick<LeaseClient, "events">;
  stop: AbortSignal;
  event(event: LeaseEvent): void;
  /** The stream (re)started without resuming, or may have missed events: check the leases held. */
  recheck(): void;
  /** The stream is open (for a log line). */
  open(resumed: boolean): void;
  /** The stream is down (for a log line). */
  down(error: unknown): void;
}

const RETRY_MIN_MS = 30_000;
const RETRY_MAX_MS = 10 * 60_000;

/** Watches until stopped; never rejects. */
export async function watchSession(w: SessionWatch): Promise<void> {
  let lastEventId: string | undefined;
  let delay = RETRY_MIN_MS;
  while (!w.stop.aborted) {
    try {
      const events = w.client.events(
        { holder: "@me" },
        {
          signal: w.stop,
          ...(lastEventId !== undefined ? { lastEventId } : {}),
          onOpen: (info) => {
            delay = RETRY_MIN_MS;
            w.open(info.lastEventId !== null);
            if (info.lastEventId === null) w.recheck();
          },
          onGap: () => w.recheck(),
          onError: (error) => w.down(error),
        },
      );
      for await (const event of events) {
        lastEventId = event.id;
        w.event(event);
      }
    } catch (error) {
      if (w.stop.aborted) return;
      w.down(error);
      const waited = await new Promise<boolean>((resolve) => {
        const timer = setTimeout(() => resolve(true), delay);
        w.stop.addEventListener("abort", () => (clearTimeout(timer), resolve(false)), { once: true });
      });
      if (!waited) return;
      delay = Math.min(delay * 2, RETRY_MAX_MS);
    }
  }
}
