/**
 * Server-Sent Events as a client reads them, for the stream's tests: a
 * parser written from the WHATWG format (fields, comments, blank-line
 * dispatch, chunks cut anywhere), a Writable that parses what the hub
 * writes, and a client over real HTTP that can stop reading.
 */
import { request, type IncomingHttpHeaders } from "node:http";
import { Writable } from "node:stream";
import { waitFor } from "./server-process.js";

/** One dispatched block: an event (with `data`), or a block of comments only. */
export interface SseFrame {
  id?: string;
  event?: string;
  data?: string;
  retry?: number;
  comments: string[];
}

export class SseParser {
  private rest = "";
  private frame: SseFrame = { comments: [] };

  /** Frames completed by `chunk`. */
  push(chunk: string): SseFrame[] {
    this.rest += chunk;
    const done: SseFrame[] = [];
    for (;;) {
      const nl = this.rest.search(/\r\n|\r|\n/);
      if (nl < 0) break;
      const line = this.rest.slice(0, nl);
      this.rest = this.rest.slice(nl + (this.rest.startsWith("\r\n", nl) ? 2 : 1));
      if (line === "") {
        const f = this.frame;
        if (f.data !== undefined || f.comments.length > 0 || f.retry !== undefined || f.id !== undefined) done.push(f);
        this.frame = { comments: [] };
        continue;
      }
      if (line.startsWith(":")) {
        this.frame.comments.push(line.slice(1).trim());
        continue;
      }
      const colon = line.indexOf(":");
      const field = colon < 0 ? line : line.slice(0, colon);
      const value = colon < 0 ? "" : line.slice(colon + 1).replace(/^ /, "");
      if (field === "data") this.frame.data = this.frame.data === undefined ? value : `${this.frame.data}\n${value}`;
      else if (field === "id") this.frame.id = value;
      else if (field === "event") this.frame.event = value;
      else if (field === "retry") this.frame.retry = Number(value);
    }
    return done;
  }
}

/** What a client got so far. */
export class SseLog {
  readonly frames: SseFrame[] = [];
  private readonly parser = new SseParser();

  take(chunk: string): void {
    this.frames.push(...this.parser.push(chunk));
  }

  /** The lease events (frames with an id), their data parsed. */
  get events(): Array<{ id: string; event: string; data: Record<string, any> }> {
    return this.frames.filter((f) => f.id !== undefined && f.data !== undefined).map((f) => ({ id: f.id!, event: f.event!, data: JSON.parse(f.data!) }));
  }

  get ids(): number[] {
    return this.events.map((e) => Number(e.id));
  }

  /** Frames with data and no id: notices such as `stream.gap`. */
  get notices(): Array<{ event: string; data: Record<string, any> }> {
    return this.frames.filter((f) => f.id === undefined && f.data !== undefined).map((f) => ({ event: f.event ?? "message", data: JSON.parse(f.data!) }));
  }

  get comments(): string[] {
    return this.frames.flatMap((f) => f.comments);
  }
}

/** A Writable that parses what is written; `stall()`: it stops taking writes (a client that does not read). */
export class SseSink extends Writable {
  readonly log = new SseLog();
  private stalled = false;
  closedBy: "end" | "destroy" | null = null;

  constructor(highWaterMark = 16 * 1024) {
    super({ highWaterMark, decodeStrings: false });
    this.on("finish", () => (this.closedBy ??= "end"));
    this.on("close", () => (this.closedBy ??= "destroy"));
  }

  stall(): void {
    this.stalled = true;
  }

  override _write(chunk: unknown, _encoding: BufferEncoding, callback: (error?: Error | null) => void): void {
    if (this.stalled) return; // never calls back: writableLength grows
    this.log.take(String(chunk));
    callback();
  }
}

export interface SseClient {
  status: number;
  headers: IncomingHttpHeaders;
  /** The JSON body of an answer that was not a stream. */
  body: any;
  log: SseLog;
  /** Settles when the server ended the response (or cut it: `cut` true). */
  ended: Promise<{ cut: boolean }>;
  /** Stops reading (the socket is paused: the server's writes pile up). */
  pause(): void;
  close(): void;
  waitForEvents(count: number, timeoutMs?: number): Promise<void>;
}

/** GET `url` as an EventSource would (Accept: text/event-stream), over a connection of its own. */
export function openEvents(url: string, headers: Record<string, string> = {}): Promise<SseClient> {
  return new Promise((resolve, reject) => {
    const req = request(url, { headers: { accept: "text/event-stream", ...headers }, agent: false });
    req.on("error", reject);
    req.on("response", (res) => {
      const log = new SseLog();
      let text = "";
      const ended = new Promise<{ cut: boolean }>((done) => {
        res.on("end", () => done({ cut: false }));
        res.on("aborted", () => done({ cut: true }));
        res.on("error", () => done({ cut: true }));
        res.on("close", () => done({ cut: !res.complete }));
      });
      res.setEncoding("utf8");
      const client: SseClient = {
        status: res.statusCode ?? 0,
        headers: res.headers,
        body: undefined,
        log,
        ended,
        pause: () => {
          res.pause();
          res.socket.pause();
        },
        close: () => {
          req.destroy();
          res.destroy();
        },
        waitForEvents: async (count, timeoutMs = 30_000) => {
          await waitFor(`${count} events`, () => log.events.length >= count, timeoutMs, 20);
        },
      };
      if (client.status !== 200) {
        res.on("data", (c: string) => (text += c));
        res.on("end", () => {
          client.body = text === "" ? undefined : JSON.parse(text);
          resolve(client);
        });
        return;
      }
      res.on("data", (c: string) => log.take(c));
      resolve(client);
    });
    req.end();
  });
}
