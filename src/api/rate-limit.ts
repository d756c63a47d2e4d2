/**
 * Token buckets: per caller once a token is known (its GitHub account, and
 * for a bot what its installation token reaches: identity.ts `callerKey`),
 * so that one client (or one leaked token) cannot flood the ledger and,
 * through it, GitHub, nor another installation of a shared bot account use
 * up its limit; and per client address (client-address.ts) for what comes before
 * an identity is known: tokens GitHub refused (each cost a call to GitHub;
 * lookup-gate.ts), the board's listing and its pages. `perMinute`
 * tokens are added a minute, up to `burst`; a request takes one. Past it
 * the answer is 429 with the seconds to wait in `Retry-After`. In memory,
 * per replica: behind N replicas a caller gets up to N times the rate.
 */
export interface RateLimitSettings {
  /** Requests a caller may make per minute on average; 0: no limit. */
  perMinute: number;
  /** Requests it may make at once after a quiet spell. */
  burst: number;
}

/** Every limit of the API and the board (from the environment: settings/http-settings.ts). */
export interface ApiRateLimits extends RateLimitSettings {
  /** Identity look-ups GitHub refused (or did not answer), per client address (API_UNKNOWN_TOKEN_LIMIT; lookup-gate.ts). */
  unknownTokens: RateLimitSettings;
  /** The listing (GET /api/v1/leases) and the board's pages, per client address (API_ADDRESS_RATE_LIMIT). */
  perAddress: RateLimitSettings;
  /** Proxies in front of the app whose X-Forwarded-For is believed (TRUST_PROXY_HOPS); 0: the header is ignored. */
  trustProxyHops: number;
}

/** A request refused by a limit before its work: answered 429 with `Retry-After: retryAfter`. */
export class RateLimited extends Error {
  constructor(
    readonly retryAfter: number,
    what: string,
  ) {
    super(`${what}; try again in ${retryAfter} s`);
    this.name = "RateLimited";
  }
}

const MAX_BUCKETS = 100_000;

export class RateLimiter<K extends string | number = number> {
  private readonly buckets = new Map<K, { tokens: number; at: number }>();

  constructor(
    private readonly settings: RateLimitSettings,
    private readonly clock: () => number = Date.now,
  ) {}

  /** Takes one request of `key`'s; returns 0 when allowed, else the seconds until one is. */
  take(key: K): number {
    const { perMinute, burst } = this.settings;
    if (perMinute <= 0) return 0;
    const now = this.clock();
    const perMs = perMinute / 60_000;
    const bucket = this.buckets.get(key) ?? { tokens: burst, at: now };
    bucket.tokens = Math.min(burst, bucket.tokens + (now - bucket.at) * perMs);
    bucket.at = now;
    // Re-inserted: the Map's first key is the one least recently seen, dropped when there are too many.
    this.buckets.delete(key);
    this.buckets.set(key, bucket);
    if (this.buckets.size > MAX_BUCKETS) this.buckets.delete(this.buckets.keys().next().value!);
    if (bucket.tokens >= 1) {
      bucket.tokens -= 1;
      return 0;
    }
    return Math.max(1, Math.ceil((1 - bucket.tokens) / perMs / 1000));
  }
}
