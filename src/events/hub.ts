/**
 * The stream's one reader of the ledger per process: however many clients
 * are connected, the events are read once, in the ledger's order, and handed
 * to each client (event-stream.ts), which writes them or queues them, never
 * waiting: a slow client never holds up the hub or the others.
 *
 * It reads `eventsAfter(position)` when the ledger says events were
 * committed (`watchEvents`: this process's, and on PostgreSQL every
 * replica's), and every `pollMs` as well, in case a notice was missed. It
 * also beats the clients' heartbeat. `position` is the last event handed
 * out: a client attached now gets, from the hub, every event after it
 * (stream-replay.ts reads those up to it from the ledger).
 */
import { LEASE_EVENT_TYPES, type LeaseEventType, type StoredEvent } from "../ledger/events/event-types.js";
import type { EventLog } from "../ledger/events/event-roles.js";
import type { PublicRepos } from "./public-repos.js";
import { eventFrame } from "./sse.js";

/** An event as the hub hands it out: with whether anyone may see it, and its frame, made once for every client. */
export interface HubEvent {
  stored: StoredEvent;
  public: boolean;
  frame: string;
}

/** A client of the hub. Each call must return at once (write, queue, or give up the client). */
export interface Subscriber {
  /** The next events, in order: those read together come together, so that a client can write them at once. */
  deliver(events: readonly HubEvent[]): void;
  heartbeat(): void;
  /** The hub is closing: end the stream cleanly. */
  close(): void;
}

export type HubLog = Pick<EventLog, "eventsAfter" | "lastEventPos" | "watchEvents">;

export interface EventHubOptions {
  events: HubLog;
  publicRepos: PublicRepos;
  /** How often the ledger is read without a notice; default 5 s. */
  pollMs?: number;
  /** How often each client gets `: keep-alive`; default 15 s. */
  heartbeatMs?: number;
  /** Events read at once; default 500. */
  pageSize?: number;
  /** A read that failed (it is tried again at the next notice or poll). */
  onError?: (error: unknown) => void;
}

/** The hub's counters, for /metrics. */
export interface HubCounters {
  /** Events read from the ledger, by type, since the hub started. */
  eventsRead: Record<LeaseEventType, number>;
  /** Streams connected now. */
  clients: number;
  /** Streams ended because their client did not keep up (buffer full). */
  clientsDropped: number;
}

export class EventHub {
  readonly events: HubLog;
  readonly publicRepos: PublicRepos;
  private readonly o: Required<Pick<EventHubOptions, "pollMs" | "heartbeatMs" | "pageSize" | "onError">>;
  private readonly subscribers = new Set<Subscriber>();
  private readonly read = Object.fromEntries(LEASE_EVENT_TYPES.map((t) => [t, 0])) as Record<LeaseEventType, number>;
  private dropped = 0;
  private pos = -1;
  private reading: Promise<void> | null = null;
  private again = false;
  private closed = false;
  private starting: Promise<boolean> | null = null;
  private timers: NodeJS.Timeout[] = [];
  private unwatch: (() => void) | null = null;

  constructor(o: EventHubOptions) {
    this.events = o.events;
    this.publicRepos = o.publicRepos;
    this.o = { pollMs: 5_000, heartbeatMs: 15_000, pageSize: 500, onError: () => undefined, ...o };
  }

  /** The last event handed out; -1 until the hub has read where the ledger is. */
  get position(): number {
    return this.pos;
  }

  /** Whether clients may attach: started, its position read, not closed. */
  get ready(): boolean {
    return this.pos >= 0 && !this.closed;
  }

  /**
   * Subscribes to the ledger's notices, starts the poll and the heartbeat,
   * and reads where the ledger is. When the ledger does not answer, the
   * poll tries again; `ready` says when it did.
   */
  start(): Promise<boolean> {
    if (this.timers.length === 0 && !this.closed) {
      this.unwatch = this.events.watchEvents(() => this.wake());
      this.timers.push(
        setInterval(() => this.wake(), this.o.pollMs).unref(),
        setInterval(() => this.beat(), this.o.heartbeatMs).unref(),
      );
    }
    return this.begin();
  }

  /** Reads the ledger's position, once; resolves to whether the hub is ready. */
  private begin(): Promise<boolean> {
    if (this.pos >= 0 || this.closed) return Promise.resolve(this.ready);
    this.starting ??= this.events.lastEventPos().then(
      (pos) => {
        if (this.pos < 0) this.pos = pos;
        return this.ready;
      },
      (error: unknown) => {
        this.o.onError(error);
        this.starting = null;
        return false;
      },
    );
    return this.starting;
  }

  /**
   * Adds a client; answers the hub's position: the client gets every event
   * after it through `deliver`, in order, and nothing up to it.
   */
  attach(subscriber: Subscriber): number {
    if (!this.ready) throw new Error("the event hub is not ready");
    this.subscribers.add(subscriber);
    return this.pos;
  }

  /** Removes a client; `dropped`: it was too slow, and is counted. */
  detach(subscriber: Subscriber, dropped = false): void {
    if (this.subscribers.delete(subscriber) && dropped) this.dropped++;
  }

  counters(): HubCounters {
    return { eventsRead: { ...this.read }, clients: this.subscribers.size, clientsDropped: this.dropped };
  }

  /** Reads what the ledger has after the position, now (or right after the read in progress). */
  wake(): Promise<void> {
    if (this.closed) return Promise.resolve();
    if (this.pos < 0) return this.begin().then(() => undefined);
    if (this.reading) {
      this.again = true;
      return this.reading;
    }
    this.reading = this.pump().finally(() => (this.reading = null));
    return this.reading;
  }

  private async pump(): Promise<void> {
    try {
      do {
        this.again = false;
        for (;;) {
          const page = await this.events.eventsAfter(this.pos, { limit: this.o.pageSize });
          const open = page.length > 0 ? await this.publicRepos.of(page) : new Set<number>();
          if (this.closed) return;
          const fresh: HubEvent[] = [];
          for (const stored of page) {
            // The ledger answers in its order; an event at or below the position was handed out already.
            if (stored.pos <= this.pos) continue;
            this.pos = stored.pos;
            this.read[stored.event.type] = (this.read[stored.event.type] ?? 0) + 1;
            fresh.push({ stored, public: open.has(stored.repoId), frame: eventFrame(stored.event) });
          }
          if (fresh.length > 0) this.fanOut(fresh);
          if (page.length < this.o.pageSize) break;
        }
      } while (this.again && !this.closed);
    } catch (error) {
      this.o.onError(error);
    }
  }

  private fanOut(events: readonly HubEvent[]): void {
    for (const s of [...this.subscribers]) s.deliver(events);
  }

  private beat(): void {
    for (const s of [...this.subscribers]) s.heartbeat();
  }

  /** Stops reading and ends every stream cleanly (the clients reconnect, to this replica's successor or another). */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    for (const t of this.timers) clearInterval(t);
    this.timers = [];
    this.unwatch?.();
    this.unwatch = null;
    const subscribers = [...this.subscribers];
    this.subscribers.clear();
    for (const s of subscribers) s.close();
    await this.reading;
  }
}
