/**
 * Clients of GET /api/v1/events for the events benchmark: `count`
 * connections of their own, each reading the stream as an EventSource does
 * (frames split at blank lines, whatever the chunks). Light on this
 * process's CPU, which the server shares: only the first client parses each
 * event's JSON (which change it is); the others note its id. Each event's
 * time is when the last client got it. A client that gets an id out of
 * order, or whose stream ends, fails the benchmark.
 */
import { type ClientRequest, request } from "node:http";
import { performance } from "node:perf_hooks";

export interface Delivered {
  id: number;
  issue: number;
  type: string;
  /** When the last client got it (performance.now()). */
  lastAt: number;
}

export class StreamClients {
  private readonly requests: ClientRequest[] = [];
  /** How many clients got each id not yet drained, and what it is (from the first client). */
  private readonly pending = new Map<number, { got: number; issue?: number; type?: string; lastAt?: number }>();
  private readonly done: Delivered[] = [];
  private readonly counts: number[];
  private readonly last: number[];
  private failure: Error | null = null;
  private closing = false;

  constructor(
    private readonly url: string,
    private readonly count: number,
  ) {
    this.counts = Array<number>(count).fill(0);
    this.last = Array<number>(count).fill(0);
  }

  /** Events every client has got. */
  get received(): number {
    return Math.min(...this.counts);
  }

  /** Connects every client; resolves once each has its stream's first bytes. */
  async open(): Promise<void> {
    await Promise.all(Array.from({ length: this.count }, (_, i) => this.connect(i)));
  }

  private connect(i: number): Promise<void> {
    return new Promise((resolve, reject) => {
      const req = request(this.url, { headers: { accept: "text/event-stream" }, agent: false });
      this.requests.push(req);
      req.on("error", (error) => {
        if (!this.closing) this.failure ??= error;
        reject(error);
      });
      req.on("response", (res) => {
        if (res.statusCode !== 200) {
          reject(new Error(`client ${i}: GET /api/v1/events answered ${res.statusCode}`));
          return;
        }
        res.setEncoding("utf8");
        let rest = "";
        let opened = false;
        res.on("data", (chunk: string) => {
          rest += chunk;
          const end = rest.lastIndexOf("\n\n");
          if (end < 0) return;
          const frames = rest.slice(0, end);
          rest = rest.slice(end + 2);
          if (!opened) {
            opened = true;
            resolve();
          }
          this.take(i, frames);
        });
        res.on("close", () => {
          if (!this.closing) this.failure ??= new Error(`client ${i}: the server ended its stream`);
        });
      });
      req.end();
    });
  }

  private take(client: number, frames: string): void {
    const now = performance.now();
    for (const m of frames.matchAll(/^id: (\d+)\nevent: ([\w.]+)\ndata: (.*)$/gm)) {
      const id = Number(m[1]);
      if (id <= this.last[client]!) this.failure ??= new Error(`client ${client}: id ${id} after ${this.last[client]}`);
      this.last[client] = id;
      this.counts[client]!++;
      let entry = this.pending.get(id);
      if (!entry) this.pending.set(id, (entry = { got: 0 }));
      if (client === 0) {
        entry.issue = (JSON.parse(m[3]!) as { issue: number }).issue;
        entry.type = m[2]!;
      }
      if (++entry.got === this.count) {
        this.pending.delete(id);
        this.done.push({ id, issue: entry.issue ?? -1, type: entry.type ?? "", lastAt: now });
      }
    }
  }

  /** Waits until every client has `total` events. */
  async allReceived(total: number, timeoutMs = 120_000): Promise<void> {
    const deadline = performance.now() + timeoutMs;
    while (this.received < total) {
      if (this.failure) throw this.failure;
      if (performance.now() > deadline) throw new Error(`the clients got ${this.received} of ${total} events within ${timeoutMs} ms`);
      // Polled, not spun: this process shares the machine's cores with the server.
      await new Promise((r) => setTimeout(r, 5));
    }
    if (this.failure) throw this.failure;
  }

  /** The events every client got since the last call. */
  drain(): Delivered[] {
    return this.done.splice(0);
  }

  close(): void {
    this.closing = true;
    for (const r of this.requests) r.destroy();
  }
}
