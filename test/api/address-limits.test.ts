/**
 * The limits per client address, against the real server behind one
 * trusted proxy (TRUST_PROXY_HOPS=1, X-Forwarded-For naming the client):
 * tokens GitHub has not been asked about cost a GitHub call each, so past
 * API_UNKNOWN_TOKEN_LIMIT tokens GitHub refused they are answered 429
 * without one, while a known token goes on; the listing and the board's pages answer 429 past
 * API_ADDRESS_RATE_LIMIT. Each address has its own buckets.
 */
import { describe, expect, it } from "vitest";
import { REPO } from "../support/payloads.js";
import { FULL } from "../e2e/issue-view.js";
import { withLiveApp } from "../e2e/live-app.js";
import { call, leasePath } from "./api-calls.js";
import { checkAnswer } from "./openapi-check.js";

const BOT = { token: "ghs_limitsBotTokenXXXXXXXXXXXXXXXXXXXXXXX", login: "agent[bot]", id: 4501 };
const from = (address: string) => ({ "x-forwarded-for": address });

describe("limits per client address", () => {
  it("tokens GitHub refused are limited per address without asking GitHub past the limit, known ones are not; the listing and the board answer 429 with Retry-After", () =>
    withLiveApp(async (live) => {
      live.fake.addRepo(FULL, { id: REPO.id });
      live.fake.addToken(BOT.token, BOT);
      const server = await live.start({ API_UNKNOWN_TOKEN_LIMIT: "3", API_ADDRESS_RATE_LIMIT: "4", TRUST_PROXY_HOPS: "1" });
      const asked = () => live.fake.requests.filter((r) => r.path.endsWith("/graphql")).length;
      const a = from("203.0.113.1");

      expect((await call(server, "GET", leasePath(1), { token: BOT.token, headers: a })).status).toBe(200);
      // The known token took nothing of the limit, which counts the tokens GitHub refused: three, then 429.
      for (let i = 0; i < 3; i++) expect((await call(server, "GET", leasePath(1), { token: `ghp_random${i}`, headers: a })).status).toBe(401);
      const before = asked();
      const over = await call(server, "GET", leasePath(1), { token: "ghp_random9", headers: a });
      expect([over.status, over.body.error.code]).toEqual([429, "rate_limited"]);
      expect(over.body.error.message).toContain("Too many tokens GitHub refused from this address");
      expect(Number(over.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
      expect(asked()).toBe(before);
      // The known token is answered from the cache, and a token already refused stays a 401.
      expect((await call(server, "GET", leasePath(1), { token: BOT.token, headers: a })).status).toBe(200);
      expect((await call(server, "GET", leasePath(1), { token: "ghp_random0", headers: a })).status).toBe(401);
      // Another client behind the proxy has its own bucket; a client's own X-Forwarded-For entries change nothing.
      expect((await call(server, "GET", leasePath(1), { token: "ghp_random8", headers: from("203.0.113.2") })).status).toBe(401);
      expect((await call(server, "GET", leasePath(1), { token: "ghp_random7", headers: from("198.51.100.1, 203.0.113.1") })).status).toBe(429);

      // The listing: four, then 429 (JSON, as the API's errors are) with Retry-After.
      const listing = async (headers: Record<string, string>, path = "/api/v1/leases") => {
        const res = await fetch(`${server.url}${path}`, { headers });
        const text = await res.text();
        return { status: res.status, retryAfter: res.headers.get("retry-after"), type: res.headers.get("content-type"), text };
      };
      const answers = [];
      for (let i = 0; i < 5; i++) answers.push(await listing(a));
      expect(answers.map((r) => r.status)).toEqual([200, 200, 200, 200, 429]);
      const limited = answers[4]!;
      checkAnswer("GET", "/api/v1/leases", 429, JSON.parse(limited.text));
      expect(JSON.parse(limited.text).error.code).toBe("rate_limited");
      expect(Number(limited.retryAfter)).toBeGreaterThanOrEqual(1);
      // The board's pages share the address's bucket.
      const page = await listing(a, "/leases");
      expect([page.status, page.type]).toEqual([429, "text/plain; charset=utf-8"]);
      expect(Number(page.retryAfter)).toBeGreaterThanOrEqual(1);
      expect((await listing(from("203.0.113.2"), "/leases")).status).toBe(200);
      expect(live.fake.unmatched).toEqual([]);
    }), 120_000);
});
