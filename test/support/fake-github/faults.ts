/**
 * What a test arms to make the fake misbehave: writes that fail (before or
 * after they are applied) or meet a secondary rate limit (REST's 403, or
 * GraphQL's 200 RATE_LIMITED for a mutation document), reads that fail,
 * and the content limit GitHub puts on content-creating requests.
 * server.ts asks here before it runs a handler.
 */
export type Fault =
  | { kind: "fail"; status: number }
  | { kind: "applied-then-fail"; status: number }
  | { kind: "rate-limit"; retryAfter: number }
  | { kind: "graphql-rate-limit" };

export class Faults {
  private faults: Fault[] = [];
  private readFaults: Array<{ path: RegExp; status: number }> = [];
  /** GraphQL mutation documents still to answer RATE_LIMITED (200, as GitHub's GraphQL does), before any other write fault. */
  private graphqlLimited = 0;
  /** GitHub's content limits (80 a minute and 500 an hour), each with the arrival times it admitted within its window. */
  private contentLimits: Array<{ max: number; windowMs: number; window: number[] }> = [];
  /** GitHub's points a minute (900 for REST: a write 5, a read 1), with what it admitted within its window. */
  private pointsLimit: { max: number; windowMs: number; window: Array<{ at: number; points: number }>; used: number } | null = null;

  /** Drops pending faults and the content limit's window; keeps the limit's setting. */
  clear(): void {
    this.faults = [];
    this.readFaults = [];
    this.graphqlLimited = 0;
    for (const limit of this.contentLimits) limit.window = [];
    if (this.pointsLimit) Object.assign(this.pointsLimit, { window: [], used: 0 });
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

  rateLimitNextGraphql(n: number): void {
    this.graphqlLimited += n;
  }

  setContentLimits(limits: Array<{ max: number; windowMs: number }>): void {
    this.contentLimits = limits.map((l) => ({ ...l, window: [] }));
  }

  /** The fault the next write meets, in the order armed; a GraphQL mutation document meets GraphQL's rate limit first. */
  writeFault(mutation: boolean): Fault | undefined {
    if (mutation && this.graphqlLimited > 0) {
      this.graphqlLimited--;
      return { kind: "graphql-rate-limit" };
    }
    return this.faults.shift();
  }

  readFault(path: string): Fault | undefined {
    const i = this.readFaults.findIndex((f) => f.path.test(path));
    if (i < 0) return undefined;
    const [f] = this.readFaults.splice(i, 1);
    return { kind: "fail", status: f!.status };
  }

  setPointsLimit(limit: { max: number; windowMs: number } | null): void {
    this.pointsLimit = limit ? { ...limit, window: [], used: 0 } : null;
  }

  /** Null when the points limit admits a request of `points` (and counts it); otherwise seconds until enough free. */
  admitPoints(at: number, points: number): number | null {
    const limit = this.pointsLimit;
    if (!limit) return null;
    while (limit.window.length > 0 && limit.window[0]!.at <= at - limit.windowMs) limit.used -= limit.window.shift()!.points;
    if (limit.used + points > limit.max) return Math.max(1, Math.ceil(((limit.window[0]?.at ?? at) + limit.windowMs - at) / 1000));
    limit.window.push({ at, points });
    limit.used += points;
    return null;
  }

  /** Null when every limit admits it (and it is counted in each); otherwise seconds until a slot frees. */
  admitContent(at: number): number | null {
    let wait: number | null = null;
    for (const limit of this.contentLimits) {
      const window = limit.window;
      while (window.length > 0 && window[0]! <= at - limit.windowMs) window.shift();
      if (window.length >= limit.max) {
        const oldest = window[window.length - limit.max] ?? at;
        wait = Math.max(wait ?? 1, Math.ceil((oldest + limit.windowMs - at) / 1000));
      }
    }
    if (wait !== null) return wait;
    for (const limit of this.contentLimits) limit.window.push(at);
    return null;
  }
}
