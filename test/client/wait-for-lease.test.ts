/**
 * `waitForLease` with a scripted API and fake timers: a 202 puts the caller
 * in line, the status is polled with a doubling pause, the claim is asked
 * again when the lease changes hands (answering the lease once it is the
 * caller's) or halfway to `queued_until` (keeping the place), and giving up
 * (a timeout, the caller's signal) leaves the line with a DELETE. No test
 * waits on the wall clock; `Math.random` is pinned so that pauses are exact.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { LeaseClient, LeaseHeldError, LeaseWaitTimeoutError, type QueuedAnswer } from "@issue-leases/client";
import { LEASE_PATH, leaseJson, scriptedFetch, type StubAnswer, type StubRequest } from "./api-stub.js";

const T0 = Date.parse("2026-12-02T12:00:00Z");
const SECOND = 1000;
const REF = "octo-org/widgets#12";
const bot = { login: "deploy-bot[bot]", id: 41898282, instance: "w-3" };
const alice = { login: "alice", id: 11 };
const iso = (t: number) => new Date(t).toISOString();

beforeEach(() => {
  vi.useFakeTimers({ now: T0 });
  // The jitter's top: each pause is exactly the backoff's.
  vi.spyOn(Math, "random").mockReturnValue(1);
});
afterEach(() => {
  vi.useRealTimers();
  vi.restoreAllMocks();
});

const aliceHolds = () => leaseJson("status", alice, 4, iso(T0 + 3600 * SECOND));

function queued(position: number, placeMs: number): StubAnswer {
  return {
    status: 202,
    json: { outcome: "queued", repo: "octo-org/widgets", issue: 12, position, queued_until: iso(Date.now() + placeMs), lease: aliceHolds() },
  };
}

/** A scripted API: `post` answers each POST (n-th), `status` each GET; a DELETE leaves the line. Anything else fails the test. */
function api(post: (n: number) => StubAnswer, status: (n: number) => StubAnswer = () => ({ status: 200, json: aliceHolds() })) {
  let posts = 0;
  let gets = 0;
  const { fetch, requests } = scriptedFetch((req: StubRequest) => {
    if (req.path !== LEASE_PATH) throw new Error(`unexpected ${req.method} ${req.path}`);
    if (req.method === "POST" && req.query.get("wait") === "true") return post(posts++);
    if (req.method === "GET") return status(gets++);
    if (req.method === "DELETE") return { status: 200, json: { ...leaseJson("left_queue", alice, 4, null) } };
    throw new Error(`unexpected ${req.method} ${req.path}?${req.query}`);
  });
  const client = new LeaseClient({ baseUrl: "https://leases.test", token: "t", fetch, retry: { minDelayMs: 10, maxDelayMs: 10, retries: 1 } });
  const seen = () => requests.map((r) => `${r.method} +${(r.at - T0) / SECOND}s`);
  return { client, requests, seen };
}

describe("waitForLease", () => {
  it("takes a free issue at once, as a claim does", async () => {
    const { client, seen, requests } = api(() => ({ status: 200, json: leaseJson("acquired", bot, 5, iso(T0 + 60 * SECOND)) }));
    const lease = await client.waitForLease(REF, { ttl: "1m", instance: "w-3" });
    expect(lease).toMatchObject({ outcome: "acquired", token: 5 });
    expect(seen()).toEqual(["POST +0s"]);
    expect(requests[0]!.body).toEqual({ ttl: "1m", instance: "w-3" });
  });

  it("waits in line on a 202, polls the status with a doubling pause, and asks again once the lease has changed hands", async () => {
    // Alice releases after 5 s: the lease passes to the caller (token 5).
    const handedOver = () => Date.now() >= T0 + 5 * SECOND;
    const { client, seen, requests } = api(
      (n) => (n === 0 ? queued(2, 3600 * SECOND) : { status: 200, json: leaseJson("acquired", bot, 5, iso(Date.now() + 60 * SECOND)) }),
      () => ({ status: 200, json: handedOver() ? leaseJson("status", bot, 5, iso(T0 + 65 * SECOND)) : aliceHolds() }),
    );
    const places: QueuedAnswer[] = [];
    const done = client.waitForLease(REF, { ttl: "1m", instance: "w-3", pollMs: SECOND, onQueued: (p) => places.push(p) });
    await vi.advanceTimersByTimeAsync(10 * SECOND);
    const lease = await done;
    expect(lease).toMatchObject({ outcome: "acquired", token: 5, holder: { login: "deploy-bot[bot]" } });
    expect(seen()).toEqual(["POST +0s", "GET +1s", "GET +3s", "GET +7s", "POST +7s"]);
    expect(requests.filter((r) => r.method === "POST").every((r) => r.query.get("wait") === "true")).toBe(true);
    expect(places.map((p) => p.position)).toEqual([2]);
  });

  it("renews its place halfway to queued_until, with a new idempotency key, and polls again from the shortest pause", async () => {
    const { client, seen, requests } = api((n) => queued(n === 0 ? 3 : 2, 10 * SECOND));
    const places: number[] = [];
    const stop = new AbortController();
    const done = client.waitForLease(REF, { pollMs: SECOND, onQueued: (p) => places.push(p.position), signal: stop.signal }).catch((e: unknown) => e);
    await vi.advanceTimersByTimeAsync(7 * SECOND);
    stop.abort();
    await done;
    expect(seen().slice(0, 5)).toEqual(["POST +0s", "GET +1s", "GET +3s", "POST +5s", "GET +6s"]);
    expect(places).toEqual([3, 2]);
    const [first, second] = requests.filter((r) => r.method === "POST").map((r) => r.headers["idempotency-key"]);
    expect(second).not.toBe(first);
  });

  it("gives up after timeoutMs: leaves the line with a DELETE and rejects with LeaseWaitTimeoutError, a LeaseHeldError", async () => {
    const { client, seen, requests } = api(() => queued(2, 3600 * SECOND));
    const done = client.waitForLease(REF, { instance: "w-3", pollMs: SECOND, timeoutMs: 5 * SECOND }).catch((e: unknown) => e);
    await vi.advanceTimersByTimeAsync(6 * SECOND);
    const error = await done;
    expect(error).toBeInstanceOf(LeaseWaitTimeoutError);
    expect(error).toBeInstanceOf(LeaseHeldError);
    expect(error).toMatchObject({ position: 2, waitedMs: 5 * SECOND, holder: { login: "alice" }, token: 4 });
    expect((error as Error).message).toBe(`gave up waiting for ${REF} after 5 s (2nd in line): ${REF} is held by alice with token 4, until ${iso(T0 + 3600 * SECOND)}`);
    expect(seen()).toEqual(["POST +0s", "GET +1s", "GET +3s", "DELETE +5s"]);
    expect(requests.at(-1)!.query.get("instance")).toBe("w-3");
  });

  it("leaves the line when the caller's signal aborts, and rejects with its reason", async () => {
    const { client, seen } = api(() => queued(1, 3600 * SECOND));
    const stop = new AbortController();
    const done = client.waitForLease(REF, { pollMs: SECOND, signal: stop.signal }).catch((e: unknown) => e);
    await vi.advanceTimersByTimeAsync(2 * SECOND);
    stop.abort(new Error("shutting down"));
    await vi.advanceTimersByTimeAsync(SECOND);
    expect(await done).toEqual(new Error("shutting down"));
    expect(seen()).toEqual(["POST +0s", "GET +1s", "DELETE +2s"]);
  });

  it("leaves the line when a poll fails for good, and rejects with that failure", async () => {
    const { client, seen } = api(
      () => queued(1, 3600 * SECOND),
      () => ({ status: 404, json: { error: { code: "not_found", message: "Not Found" } } }),
    );
    const done = client.waitForLease(REF, { pollMs: SECOND }).catch((e: unknown) => e);
    await vi.advanceTimersByTimeAsync(2 * SECOND);
    expect(await done).toMatchObject({ status: 404, code: "not_found" });
    expect(seen()).toEqual(["POST +0s", "GET +1s", "DELETE +1s"]);
  });

  it("a refusal of the claim itself (403) is thrown at once, with nothing to leave", async () => {
    const { client, seen } = api(() => ({ status: 403, json: { error: { code: "forbidden", message: "closed", reason: "closed" } } }));
    await expect(client.waitForLease(REF)).rejects.toMatchObject({ status: 403, reason: "closed" });
    expect(seen()).toEqual(["POST +0s"]);
  });
});

describe("release by someone in line", () => {
  it("answers left_queue with the live lease's holder, token and expiry, as every answer names them", async () => {
    const lease = aliceHolds();
    const { fetch } = scriptedFetch(() => ({ status: 200, json: { outcome: "left_queue", repo: "octo-org/widgets", issue: 12, lease: { ...lease, outcome: undefined } } }));
    const client = new LeaseClient({ baseUrl: "https://leases.test", token: "t", fetch });
    const answer = await client.release(REF, { instance: "w-3" });
    expect(answer).toMatchObject({ outcome: "left_queue", holder: { login: "alice", id: 11 }, token: 4, expires_at: lease.expires_at });
    expect(answer.lease).toMatchObject({ holder: { login: "alice" }, token: 4 });
  });
});
