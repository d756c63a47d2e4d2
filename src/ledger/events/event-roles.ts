/** The lease events as their readers use them: the stream's hub, the outgoing webhooks' dispatcher, the CLI, retention. */
import type { NewEffect } from "../outbox/outbox-types.js";
import type { StoredEvent } from "./event-types.js";

/**
 * The lease events (event-types.ts), written by the lease operations in their
 * own transactions; read here in their one order (`pos`), which on every store
 * is the order their transactions committed in, so that a reader that has
 * seen `pos` never later finds an event below it.
 */
export interface EventLog {
  /** Events after position `after` (0: from the first kept), in order, at most `limit` (default 500); only of `repoIds` when given. */
  eventsAfter(after: number, opts?: { limit?: number; repoIds?: readonly number[] }): Promise<StoredEvent[]>;
  /** Events made at or after `since` (ms), in order, at most `limit` (default 500): the CLI's `events --since`. */
  eventsSince(since: number, limit?: number): Promise<StoredEvent[]>;
  /** The highest position written so far; 0 when none. */
  lastEventPos(): Promise<number>;
  /**
   * Calls `listener` soon after events are committed: this process's, and on
   * PostgreSQL every replica's (LISTEN/NOTIFY); also after the watch
   * reconnects, since a notice may have been missed. The listener then reads
   * `eventsAfter`. Returns the unsubscribe.
   */
  watchEvents(listener: () => void): () => void;
  /** Deletes events made before `before` (ms), keeping the positions and sequences of later ones; answers how many. */
  pruneEvents(before: number): Promise<number>;
  /** The named reader's position (0 when it has none): the outgoing webhooks' dispatcher keeps one. */
  eventCursor(name: string): Promise<number>;
  /**
   * In one transaction: when `name`'s position is still `from`, moves it to
   * `to` and queues `effects` in the outbox; answers whether it did (false:
   * another replica moved it first, and nothing was written).
   */
  advanceEventCursor(name: string, from: number, to: number, effects: Array<{ repoId: number; issue: number; effect: NewEffect }>, now: number): Promise<boolean>;
}
