/**
 * Requests per identity: a token bucket per GitHub account, so that one
 * client (or one leaked token) cannot flood the ledger and, through it,
 * GitHub. `perMinute` tokens are added a minute, up to `burst`; a request
 * takes one. Past it the API answers 429 with the seconds to wait in
 * `Retry-After`. In memory, per replica: behind N replicas an account gets
 * up to N times the rate.
 */
export interface RateLimitSettings {
  /** Requests an identity may make per minute on average; 0: no limit. */
  perMinute: number;
  /** Requests it may make at once after a quiet spell. */
  burst: number;
}

/** From API_RATE_LIMIT (requests per minute per identity, default 120; 0 turns the limit off) and API_RATE_BURST (default 60). */
export function rateLimitSettings(env: NodeJS.ProcessEnv): RateLimitSettings {
  const number = (name: string, fallback: number) => {
    const raw = env[name];
    if (raw === undefined || raw === "") return fallback;
    const n = Number(raw);
    if (!Number.isFinite(n) || n < 0) throw new Error(`${name} must be a number of requests, 0 or more; it is "${raw}"`);
    return n;
  };
  const perMinute = number("API_RATE_LIMIT", 120);
  return { perMinute, burst: Math.max(1, number("API_RATE_BURST", Math.min(60, Math.max(1, perMinute)))) };
}

const MAX_BUCKETS = 100_000;

export class RateLimiter {
  private readonly buckets = new Map<number, { tokens: number; at: number }>();

  constructor(
    private readonly settings: RateLimitSettings,
    private readonly clock: () => number = Date.now,
  ) {}

  /** Takes one request of `identity`'s; returns 0 when allowed, else the seconds until one is. */
  take(identity: number): number {
    const { perMinute, burst } = this.settings;
    if (perMinute <= 0) return 0;
    const now = this.clock();
    const perMs = perMinute / 60_000;
    const bucket = this.buckets.get(identity) ?? { tokens: burst, at: now };
    bucket.tokens = Math.min(burst, bucket.tokens + (now - bucket.at) * perMs);
    bucket.at = now;
    // Re-inserted: the Map's first key is the one least recently seen, dropped when there are too many.
    this.buckets.delete(identity);
    this.buckets.set(identity, bucket);
    if (this.buckets.size > MAX_BUCKETS) this.buckets.delete(this.buckets.keys().next().value!);
    if (bucket.tokens >= 1) {
      bucket.tokens -= 1;
      return 0;
    }
    return Math.max(1, Math.ceil((1 - bucket.tokens) / perMs / 1000));
  }
}
