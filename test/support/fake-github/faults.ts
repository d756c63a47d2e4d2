/**
 * What a test arms to make the fake misbehave: writes that fail (before or
 * after they are applied) or meet a secondary rate limit, reads that fail,
 * and the content limit GitHub puts on content-creating requests.
 * server.ts asks here before it runs a handler.
 */
export type Fault = { kind: "fail"; status: number } | { kind: "applied-then-fail"; status: number } | { kind: "rate-limit"; retryAfter: number };

export class Faults {
  private faults: Fault[] = [];
  private readFaults: Array<{ path: RegExp; status: number }> = [];
  private contentLimit: { max: number; windowMs: number } | null = null;
  /** Arrival times of content-creating requests admitted within the window. */
  private contentWindow: number[] = [];

  /** Drops pending faults and the content limit's window; keeps the limit's setting. */
  clear(): void {
    this.faults = [];
    this.readFaults = [];
    this.contentWindow = [];
  }

  failNextWritesAfterApplying(n: number, status: number): void {
    for (let i = 0; i < n; i++) this.faults.push({ kind: "applied-then-fail", status });
  }

  failNextReads(path: RegExp, n: number, status: number): void {
    for (let i = 0; i < n; i++) this.readFaults.push({ path, status });
  }

  failNextWrites(n: number, status: number): void {
    for (let i = 0; i < n; i++) this.faults.push({ kind: "fail", status });
  }

  rateLimitNextWrites(n: number, retryAfterSeconds: number): void {
    for (let i = 0; i < n; i++) this.faults.push({ kind: "rate-limit", retryAfter: retryAfterSeconds });
  }

  setContentLimit(opts: { max: number; windowMs: number } | null): void {
    this.contentLimit = opts;
    this.contentWindow = [];
  }

  /** The fault the next write meets, in the order armed. */
  writeFault(): Fault | undefined {
    return this.faults.shift();
  }

  readFault(path: string): Fault | undefined {
    const i = this.readFaults.findIndex((f) => f.path.test(path));
    if (i < 0) return undefined;
    const [f] = this.readFaults.splice(i, 1);
    return { kind: "fail", status: f!.status };
  }

  /** Null when admitted; otherwise seconds until a slot frees. */
  admitContent(at: number): number | null {
    const limit = this.contentLimit;
    if (!limit) return null;
    const window = this.contentWindow;
    while (window.length > 0 && window[0]! <= at - limit.windowMs) window.shift();
    if (window.length >= limit.max) {
      const oldest = window[window.length - limit.max] ?? at;
      return Math.max(1, Math.ceil((oldest + limit.windowMs - at) / 1000));
    }
    window.push(at);
    return null;
  }
}
