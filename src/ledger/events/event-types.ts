/**
 * Lease events (issue 23): one per ledger change, written in the same
 * transaction as the change, so that none is lost or invented. Other tools
 * read them from the stream (`GET /api/v1/events`), signed outgoing
 * webhooks and the CLI (`issue-leases events`). The JSON of `LeaseEvent` is
 * the public shape: its fields and their order are what the README shows.
 */

export type LeaseEventType =
  | "lease.acquired"
  | "lease.renewed"
  | "lease.released"
  | "lease.expired"
  | "lease.ended"
  | "lease.handed_off";

export const LEASE_EVENT_TYPES: readonly LeaseEventType[] = [
  "lease.acquired",
  "lease.renewed",
  "lease.released",
  "lease.expired",
  "lease.ended",
  "lease.handed_off",
];

/**
 * What brought the change about: a comment's command, the API, the sweep of
 * an expiry, a maintainer's release, the issue closed, the `claimed` label
 * taken off by hand, the wait list's handoff, or the lease following its
 * work (the holder's activity renewed it, a pull request that closes the
 * issue or an exempt label now holds it, or let go of it): no command asked.
 */
export type EventCause = "command" | "api" | "expiry" | "maintainer" | "close" | "label_removed" | "handoff" | "work";

export const EVENT_CAUSES: readonly EventCause[] = ["command", "api", "expiry", "maintainer", "close", "label_removed", "handoff", "work"];

/** An event as other tools see it (the stream's `data:`, a webhook's body, the CLI's JSON). */
export interface LeaseEvent {
  /** The event's position in the ledger's one order, as a decimal string: the stream's `id:` and `Last-Event-ID`. */
  id: string;
  /** Per installation: only goes up (never reused, never reset). */
  seq: number;
  type: LeaseEventType;
  /** When the change was made (ISO 8601). */
  at: string;
  /** owner/name */
  repo: string;
  issue: number;
  /** The lease the event is about, also for the ones that end it. */
  holder: { login: string; id: number; instance: string | null };
  token: number;
  expires_at: string | null;
  /** Who made the change; null for an expiry. */
  actor: { login: string; id: number } | null;
  cause: EventCause;
}

/** An event as the ledger keeps it: with what decides who may see it and where it goes. */
export interface StoredEvent {
  /** The global position (`event.id` as a number). */
  pos: number;
  installation: number;
  repoId: number;
  event: LeaseEvent;
}

