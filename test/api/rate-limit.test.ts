/** The token buckets, with the clock injected, their settings from the environment, and the client's address they count by. */
import type { IncomingMessage } from "node:http";
import { describe, expect, it } from "vitest";
import { addressKey, clientAddress } from "../../src/api/client-address.js";
import { RateLimiter } from "../../src/api/rate-limit.js";
import { rateLimitSettings } from "../../src/settings/http-settings.js";

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
    expect(rateLimitSettings({})).toMatchObject({ perMinute: 120, burst: 60 });
    expect(rateLimitSettings({ API_RATE_LIMIT: "30" })).toMatchObject({ perMinute: 30, burst: 30 });
    expect(rateLimitSettings({ API_RATE_LIMIT: "600", API_RATE_BURST: "100" })).toMatchObject({ perMinute: 600, burst: 100 });
    expect(rateLimitSettings({ API_RATE_LIMIT: "0" }).perMinute).toBe(0);
    expect(() => rateLimitSettings({ API_RATE_LIMIT: "lots" })).toThrow(/API_RATE_LIMIT must be a number/);
    expect(() => rateLimitSettings({ API_RATE_BURST: "-1" })).toThrow(/API_RATE_BURST/);
  });

  it("reads the limits per address and the proxies trusted, refusing what is not a number", () => {
    expect(rateLimitSettings({})).toMatchObject({ unknownTokens: { perMinute: 20, burst: 10 }, perAddress: { perMinute: 120, burst: 60 }, trustProxyHops: 0 });
    expect(rateLimitSettings({ API_UNKNOWN_TOKEN_LIMIT: "3", API_ADDRESS_RATE_LIMIT: "0", TRUST_PROXY_HOPS: "1" })).toMatchObject({
      unknownTokens: { perMinute: 3, burst: 3 },
      perAddress: { perMinute: 0 },
      trustProxyHops: 1,
    });
    expect(() => rateLimitSettings({ TRUST_PROXY_HOPS: "1.5" })).toThrow(/TRUST_PROXY_HOPS must be a whole number/);
    expect(() => rateLimitSettings({ API_ADDRESS_RATE_LIMIT: "many" })).toThrow(/API_ADDRESS_RATE_LIMIT must be a number/);
  });
});

describe("clientAddress", () => {
  const req = (remote: string, forwarded?: string) =>
    ({ socket: { remoteAddress: remote }, headers: forwarded === undefined ? {} : { "x-forwarded-for": forwarded } }) as unknown as IncomingMessage;

  it("ignores X-Forwarded-For unless proxies are trusted: anyone can send one", () => {
    expect(clientAddress(req("198.51.100.7", "203.0.113.1"), 0)).toBe("198.51.100.7");
  });

  it("behind N trusted proxies, takes the Nth entry from the right, never what the client wrote left of it", () => {
    expect(clientAddress(req("10.0.0.2", "203.0.113.1"), 1)).toBe("203.0.113.1");
    expect(clientAddress(req("10.0.0.2", "6.6.6.6, 203.0.113.1"), 1)).toBe("203.0.113.1");
    expect(clientAddress(req("10.0.0.3", "6.6.6.6, 203.0.113.1, 10.0.0.2"), 2)).toBe("203.0.113.1");
    // No header: the peer.
    expect(clientAddress(req("10.0.0.2"), 1)).toBe("10.0.0.2");
  });

  it("counts IPv6 by its /64 and IPv4 mapped into IPv6 as IPv4", () => {
    expect(addressKey("2001:db8:1:2:aaaa::1")).toBe("2001:db8:1:2::/64");
    expect(addressKey("2001:db8:1:2:bbbb:cccc:dddd:eeee")).toBe("2001:db8:1:2::/64");
    expect(addressKey("2001:db8::1")).toBe("2001:db8:0:0::/64");
    expect(addressKey("::1")).toBe("0:0:0:0::/64");
    expect(addressKey("::ffff:192.0.2.5")).toBe("192.0.2.5");
  });
});
