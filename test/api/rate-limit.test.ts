/** The per-identity token bucket, with the clock injected, and its settings from the environment. */
import { describe, expect, it } from "vitest";
import { RateLimiter, rateLimitSettings } from "../../src/api/rate-limit.js";

describe("RateLimiter", () => {
  it("allows a burst, then one request per 60/perMinute seconds, saying how long to wait", () => {
    let now = 0;
    const limiter = new RateLimiter({ perMinute: 60, burst: 3 }, () => now);
    expect([1, 2, 3].map(() => limiter.take(7))).toEqual([0, 0, 0]);
    expect(limiter.take(7)).toBe(1);
    now += 999;
    expect(limiter.take(7)).toBe(1);
    now += 2;
    expect(limiter.take(7)).toBe(0);
    // Another identity has its own bucket.
    expect(limiter.take(8)).toBe(0);
    // A quiet spell refills up to the burst, no more.
    now += 3_600_000;
    expect([1, 2, 3, 4].map(() => limiter.take(7))).toEqual([0, 0, 0, 1]);
  });

  it("0 requests per minute is no limit", () => {
    const limiter = new RateLimiter({ perMinute: 0, burst: 1 });
    expect(Array.from({ length: 1000 }, () => limiter.take(1)).every((w) => w === 0)).toBe(true);
  });

  it("reads API_RATE_LIMIT and API_RATE_BURST, refusing what is not a number", () => {
    expect(rateLimitSettings({})).toEqual({ perMinute: 120, burst: 60 });
    expect(rateLimitSettings({ API_RATE_LIMIT: "30" })).toEqual({ perMinute: 30, burst: 30 });
    expect(rateLimitSettings({ API_RATE_LIMIT: "600", API_RATE_BURST: "100" })).toEqual({ perMinute: 600, burst: 100 });
    expect(rateLimitSettings({ API_RATE_LIMIT: "0" }).perMinute).toBe(0);
    expect(() => rateLimitSettings({ API_RATE_LIMIT: "lots" })).toThrow(/API_RATE_LIMIT must be a number/);
    expect(() => rateLimitSettings({ API_RATE_BURST: "-1" })).toThrow(/API_RATE_BURST/);
  });
});
