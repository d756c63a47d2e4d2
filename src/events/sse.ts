/**
 * The stream's wire format, Server-Sent Events (the WHATWG `EventSource`
 * format): each lease event as `id:`, `event:` and `data:` lines and a blank
 * line; comments (lines starting with `:`) for the heartbeat, which every
 * client ignores. The event's JSON is one line (JSON.stringify writes no
 * newline), so one `data:` line carries it.
 */
import type { LeaseEvent } from "../ledger/events/event-types.js";

/** Tells an `EventSource` to wait this long before it reconnects after the stream ends. */
export const RETRY_MS = 3_000;

/** The stream's first bytes: the reconnection delay. Sent at once, so that the client knows it is connected. */
export const OPENING = `retry: ${RETRY_MS}\n\n`;

export const HEARTBEAT = ": keep-alive\n\n";

/** The name of the notice sent when events the client asked for may no longer be kept (stream-replay.ts). */
export const GAP_EVENT = "stream.gap";

export function eventFrame(event: LeaseEvent): string {
  return `id: ${event.id}\nevent: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`;
}

/**
 * The notice that events after `after` may be missing: without an `id:`
 * line, so that the client's Last-Event-ID stays the last event it got.
 */
export function gapFrame(after: number, reason: "pruned" | "unknown"): string {
  const message =
    reason === "pruned"
      ? `events after ${after} may be missing: they are kept for a limited time; the stream resumes at the oldest kept`
      : `no event ${after} was ever written here; the stream starts from now`;
  return `event: ${GAP_EVENT}\ndata: ${JSON.stringify({ after: String(after), reason, message })}\n\n`;
}
