/**
 * Lease events as the app's stream sends them (`GET /api/v1/events`): one
 * per change of a lease, in the ledger's one order. The same shape as the
 * app's own (src/ledger/event-types.ts, which this package may not import;
 * test/client/event-types.test.ts checks the two agree).
 */

export type LeaseEventType =
  | "lease.acquired"
  | "lease.renewed"
  | "lease.released"
  | "lease.expired"
  | "lease.ended"
  | "lease.handed_off";

/**
 * What brought the change about: a comment's command, the API, the sweep of
 * an expiry, a maintainer's release, the issue closed, the `claimed` label
 * taken off by hand, the wait list's handoff, or the lease following its
 * work (the holder's activity renewed it, a pull request that closes the
 * issue or an exempt label now holds it, or let go of it): no command asked.
 */
export type EventCause = "command" | "api" | "expiry" | "maintainer" | "close" | "label_removed" | "handoff" | "work";

/** One event: the stream's `data:`, a webhook's body, the CLI's JSON. */
export interface LeaseEvent {
  /** The event's position in the ledger's one order, as a decimal string: the stream's `id:` and `Last-Event-ID`. */
  id: string;
  /** Per installation: only goes up. */
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

/** Which events `events` asks the stream for; every filter is optional. */
export interface EventFilter {
  /** One repository's events: `"owner/name"` or `{ owner, repo }`. */
  repo?: string | { owner: string; repo: string };
  /** `"@me"`: only the events of leases the token's account holds. */
  holder?: "@me";
}

export interface EventsOptions {
  /** Closes the stream: the iteration ends (without an error). */
  signal?: AbortSignal;
  /** Resume after this event (its `id`): the app first replays every later event it still keeps. */
  lastEventId?: string;
  /** Told each time a connection is open; `lastEventId` is what it resumed from (null: from now). */
  onOpen?: (info: { lastEventId: string | null }) => void;
  /**
   * Told when the app says events may be missing before what follows (its
   * `stream.gap` notice): those after `lastEventId` are no longer kept, or
   * it never wrote that id (the stream then starts from now).
   */
  onGap?: (gap: StreamGap) => void;
  /** Told of each connection that failed or ended; the stream connects again after `retryInMs`. */
  onError?: (error: unknown, retryInMs: number) => void;
  /** A connection that receives nothing (not even the app's heartbeat, every 15 s) for this long is dropped and made again (default 45 s). */
  idleTimeoutMs?: number;
  /** The first wait before connecting again (default 1 s, or what the app's `retry:` says); it doubles while connecting fails. */
  minDelayMs?: number;
  /** The longest wait before connecting again (default 30 s). */
  maxDelayMs?: number;
}

/** The app's notice that events after `after` may be missing (`pruned`: no longer kept; `unknown`: an id it never wrote). */
export interface StreamGap {
  after: string;
  reason: string;
  message: string;
}
