/**
 * One client's stream: attached to the hub, it first replays what the
 * client missed (stream-replay.ts) while the hub's events wait in a queue,
 * then writes each event as the hub hands it out, filtered (stream-filter.ts).
 *
 * A client that does not read fills its buffer (what it left unread, and
 * what waits in the queue): past `maxBufferedBytes` it is dropped (the
 * connection is cut), so that it never holds up the hub, the others, or the
 * process's memory. It then reconnects with its Last-Event-ID and replays
 * from the ledger.
 */
import type { EventHub, HubEvent, Subscriber } from "./hub.js";
import { HEARTBEAT, OPENING } from "./sse.js";
import { passes, type StreamFilter } from "./stream-filter.js";
import { replay } from "./stream-replay.js";

/** The HTTP response as the stream writes it (a ServerResponse, after its headers; any Writable in tests). */
export interface StreamOutput {
  write(chunk: string): boolean;
  end(): unknown;
  destroy(): unknown;
  readonly writableLength: number;
  once(event: "drain" | "close", listener: () => void): unknown;
  off(event: "drain" | "close", listener: () => void): unknown;
}

/** Why a stream ended: the client left, it was too slow, the replay failed, or the hub closed (shutdown). */
export type StreamEnd = "closed" | "dropped" | "failed" | "shutdown";

export const DEFAULT_BUFFER_BYTES = 1024 * 1024;

export interface EventStreamOptions {
  hub: EventHub;
  out: StreamOutput;
  filter: StreamFilter;
  /** Unread bytes (the response's buffer and the queue) past which the client is dropped; default 1 MiB. */
  maxBufferedBytes?: number;
  /** Events read at once in a replay; default 500. */
  pageSize?: number;
  onEnd?: (how: StreamEnd, error?: unknown) => void;
}

export class EventStream implements Subscriber {
  private state: "new" | "replaying" | "live" | "ended" = "new";
  private filter: StreamFilter;
  private readonly queue: HubEvent[] = [];
  private queuedBytes = 0;
  /** The client has every event (that passes its filter) up to here. */
  private upTo = 0;
  private readonly max: number;

  constructor(private readonly o: EventStreamOptions) {
    this.filter = o.filter;
    this.max = o.maxBufferedBytes ?? DEFAULT_BUFFER_BYTES;
  }

  get ended(): boolean {
    return this.state === "ended";
  }

  /**
   * Attaches to the hub and replays what came after `lastEventId` (null:
   * nothing, live from now). Resolves once live, or ended.
   */
  async open(lastEventId: number | null): Promise<void> {
    if (this.state !== "new") return;
    this.state = "replaying";
    this.o.out.write(OPENING);
    try {
      const at = this.o.hub.attach(this);
      this.upTo = await replay({
        events: this.o.hub.events,
        publicRepos: this.o.hub.publicRepos,
        filter: this.filter,
        after: lastEventId,
        upTo: at,
        write: (frame) => this.writeWaiting(frame),
        ...(this.o.pageSize ? { pageSize: this.o.pageSize } : {}),
      });
    } catch (error) {
      this.finish("failed", error);
      return;
    }
    if (this.ended) return;
    this.state = "live";
    this.queuedBytes = 0;
    this.send(this.queue.splice(0));
  }

  /** Narrows or widens what the client may see (its access was checked again). */
  restrict(visible: ReadonlySet<number>): void {
    this.filter = { ...this.filter, visible };
  }

  deliver(events: readonly HubEvent[]): void {
    if (this.state === "live") this.send(events);
    else if (this.state === "replaying") {
      for (const e of events) {
        this.queue.push(e);
        this.queuedBytes += e.frame.length;
      }
      if (this.queuedBytes + this.o.out.writableLength > this.max) this.finish("dropped");
    }
  }

  heartbeat(): void {
    if (this.state === "replaying" || this.state === "live") this.write(HEARTBEAT);
  }

  /** The hub is closing: the response ends cleanly. */
  close(): void {
    this.finish("shutdown");
  }

  /** The client went away (the response closed). */
  stop(): void {
    this.finish("closed");
  }

  /** Writes the events the client may see and has not had, in one write. */
  private send(events: readonly HubEvent[]): void {
    let frames = "";
    for (const e of events) {
      if (e.stored.pos <= this.upTo) continue;
      this.upTo = e.stored.pos;
      if (passes(this.filter, e.stored, e.public)) frames += e.frame;
    }
    if (frames !== "") this.write(frames);
  }

  private write(frame: string): void {
    this.o.out.write(frame);
    if (this.o.out.writableLength + this.queuedBytes > this.max) this.finish("dropped");
  }

  /** A replay's write: waits while the client has not taken what it was sent (the replay is its own, nobody waits for it). */
  private async writeWaiting(frame: string): Promise<boolean> {
    if (this.ended) return false;
    if (this.o.out.write(frame)) return true;
    await new Promise<void>((resolve) => {
      const done = () => {
        this.o.out.off("drain", done);
        this.o.out.off("close", done);
        resolve();
      };
      this.o.out.once("drain", done);
      this.o.out.once("close", done);
    });
    return !this.ended;
  }

  private finish(how: StreamEnd, error?: unknown): void {
    if (this.ended) return;
    this.state = "ended";
    this.queue.length = 0;
    this.queuedBytes = 0;
    this.o.hub.detach(this, how === "dropped");
    if (how === "dropped") this.o.out.destroy();
    else if (how !== "closed") this.o.out.end();
    this.o.onEnd?.(how, error);
  }
}
