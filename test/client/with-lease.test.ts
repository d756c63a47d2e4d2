/**
 * withLease with fake timers and a scripted API: when it renews (every third
 * of the TTL), when it aborts the function's signal (a refused renewal at
 * once; failing renewals only once the expiry has passed), and that it
 * releases whenever the function settles. No test waits on the wall clock.
 * The API here has no event stream (it answers 404, as an older app does):
 * these are the renewals alone; test/client/with-lease-watch.test.ts has the
 * stream.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { LeaseClient, LeaseHeldError, LeaseLostError } from "@issue-leases/client";
import { EVENTS_PATH, leaseJson, NO_STREAM, notEvents, scriptedFetch, type StubAnswer, type StubRequest } from "./api-stub.js";

const T0 = Date.parse("2026-12-01T12:00:00Z");
const SECOND = 1000;
const bot = { login: "deploy-bot[bot]", id: 41898282, instance: "worker-3" };
const REF = "octo-org/widgets#12";

beforeEach(() => {
  vi.useFakeTimers({ now: T0 });
});
afterEach(() => {
  vi.useRealTimers();
});

/**
 * A scripted API holding one lease: claims take it for `ttl`, renewals
 * extend it from now, releases end it. `renewal` may answer a renewal
 * differently (refuse it, fail it).
 */
function api(renewal?: (req: StubRequest, n: number) => StubAnswer | null) {
  let renewals = 0;
  let expires = 0;
  const ttlOf = (req: StubRequest) => {
    const ttl = (req.body as { ttl?: string } | undefined)?.ttl ?? "30s";
    return Number(/^(\d+)s$/.exec(ttl)![1]) * SECOND;
  };
  const iso = (t: number) => new Date(t).toISOString();
  // An app without the event stream: the renewals alone notice (its requests are left out of `requests`).
  const { fetch, requests } = scriptedFetch((req) => {
    if (req.path === EVENTS_PATH) return NO_STREAM;
    if (req.method === "POST") {
      expires = Date.now() + ttlOf(req);
      return { status: 200, json: leaseJson("acquired", bot, 3, iso(expires)) };
    }
    if (req.method === "PATCH") {
      const scripted = renewal?.(req, renewals++);
      if (scripted) return scripted;
      expires = Date.now() + ttlOf(req);
      return { status: 200, json: leaseJson("renewed", bot, 3, iso(expires)) };
    }
    if (req.method === "DELETE") return { status: 200, json: leaseJson("released", bot, 3, iso(expires)) };
    throw new Error(`unexpected ${req.method} ${req.path}`);
  }, notEvents);
  const client = new LeaseClient({ baseUrl: "https://leases.test", token: "t", fetch, retry: { minDelayMs: 10, maxDelayMs: 10, retries: 1 } });
  return { client, requests };
}

/** A deferred the test settles: the function under lease runs until then. */
function gate<T = string>() {
  let settle!: (v: T) => void;
  let fail!: (e: unknown) => void;
  const promise = new Promise<T>((resolve, reject) => {
    settle = resolve;
    fail = reject;
  });
  return { promise, settle, fail };
}

describe("withLease", () => {
  it("claims, renews every third of the TTL while the function runs, releases after, and returns its value", async () => {
    const { client, requests } = api();
    const work = gate();
    let signal: AbortSignal | undefined;
    const done = client.withLease(REF, { ttl: "30s", instance: "worker-3" }, async (lease, s) => {
      signal = s;
      expect(lease).toMatchObject({ outcome: "acquired", token: 3, holder: bot });
      return work.promise;
    });
    await vi.advanceTimersByTimeAsync(35 * SECOND);
    expect(requests.map((r) => [r.method, (r.at - T0) / SECOND])).toEqual([
      ["POST", 0],
      ["PATCH", 10],
      ["PATCH", 20],
      ["PATCH", 30],
    ]);
    // Each renewal asks for the same TTL, as the same instance, with a key of its own.
    const patches = requests.filter((r) => r.method === "PATCH");
    expect(patches.map((r) => r.body)).toEqual(Array(3).fill({ ttl: "30s", instance: "worker-3" }));
    expect(new Set(patches.map((r) => r.headers["idempotency-key"])).size).toBe(3);

    work.settle("merged");
    expect(await done).toBe("merged");
    expect(signal!.aborted).toBe(false);
    const last = requests.at(-1)!;
    expect(last.method).toBe("DELETE");
    expect(last.query.get("instance")).toBe("worker-3");
    // Nothing renews once the function has settled.
    const count = requests.length;
    await vi.advanceTimersByTimeAsync(120 * SECOND);
    expect(requests).toHaveLength(count);
  });

  it("aborts the signal as soon as a renewal is refused, makes no release, and rejects with LeaseLostError", async () => {
    const { client, requests } = api((_req, n) => (n === 1 ? { status: 409, json: leaseJson("not_holder", null, null, null) } : null));
    let signal: AbortSignal | undefined;
    const done = client.withLease(REF, { ttl: "30s" }, (_lease, s) => {
      signal = s;
      // A function that stops when told, as fetch or a child process would.
      return new Promise((_resolve, reject) => s.addEventListener("abort", () => reject(s.reason), { once: true }));
    });
    const outcome = done.catch((e: unknown) => e);
    await vi.advanceTimersByTimeAsync(10 * SECOND + 1);
    expect(signal!.aborted).toBe(false);
    await vi.advanceTimersByTimeAsync(10 * SECOND);
    expect(signal!.aborted).toBe(true);
    const error = await outcome;
    expect(error).toBeInstanceOf(LeaseLostError);
    expect(error).toMatchObject({ reason: "not_holder", ref: REF, token: 3 });
    expect(signal!.reason).toBe(error);
    expect(requests.map((r) => r.method)).toEqual(["POST", "PATCH", "PATCH"]);
  });

  it("rejects with LeaseLostError when the lease was lost, even if the function returned", async () => {
    const { client } = api(() => ({ status: 403, json: { error: { code: "forbidden", message: "max_ttl is 10s now", reason: "max_ttl" } } }));
    const work = gate();
    const done = client.withLease(REF, { ttl: "30s" }, () => work.promise).catch((e: unknown) => e);
    await vi.advanceTimersByTimeAsync(11 * SECOND);
    work.settle("done anyway");
    const error = await done;
    expect(error).toBeInstanceOf(LeaseLostError);
    expect(error).toMatchObject({ reason: "refused" });
    expect((error as Error).message).toContain("max_ttl is 10s now");
  });

  it("keeps renewing through failures, and aborts only once the expiry has passed", async () => {
    // Every renewal fails from the first: the lease taken at 0 s for 30 s ends at 30 s.
    const errors: string[] = [];
    const { client, requests } = api(() => ({ status: 503 }));
    let signal: AbortSignal | undefined;
    const work = gate();
    const done = client
      .withLease(REF, { ttl: "30s", onError: (e, during) => errors.push(`${during}: ${(e as Error).message}`) }, (_l, s) => {
        signal = s;
        return work.promise;
      })
      .catch((e: unknown) => e);
    await vi.advanceTimersByTimeAsync(30 * SECOND - 1);
    expect(signal!.aborted).toBe(false);
    const attempts = requests.filter((r) => r.method === "PATCH");
    // Tried again and again from 10 s on, each round with the same key: one heartbeat, never answered.
    expect(attempts.length).toBeGreaterThan(4);
    expect(new Set(attempts.map((r) => r.headers["idempotency-key"])).size).toBe(1);
    expect(errors[0]).toMatch(/^renew: PATCH .*HTTP 503/);
    await vi.advanceTimersByTimeAsync(2);
    expect(signal!.aborted).toBe(true);
    expect(signal!.reason).toMatchObject({ reason: "expired" });
    expect((signal!.reason as Error).message).toMatch(/renewals failed until it expired.*HTTP 503/);
    work.settle("late");
    expect(await done).toBeInstanceOf(LeaseLostError);
    expect(requests.at(-1)!.method).toBe("PATCH");
  });

  it("a renewal that fails then succeeds loses nothing, and the next renewal is a third of the TTL later", async () => {
    const { client, requests } = api((_req, n) => (n < 2 ? { status: 500 } : null));
    const work = gate();
    let signal: AbortSignal | undefined;
    const done = client.withLease(REF, { ttl: "30s" }, (_l, s) => {
      signal = s;
      return work.promise;
    });
    await vi.advanceTimersByTimeAsync(25 * SECOND);
    const patches = requests.filter((r) => r.method === "PATCH");
    // The first renewal's two attempts (the client retries once) failed; its next round, with the same key, succeeded.
    expect(patches).toHaveLength(4);
    expect(patches[0]!.at - T0).toBe(10 * SECOND);
    expect(new Set(patches.slice(0, 3).map((r) => r.headers["idempotency-key"])).size).toBe(1);
    const renewedAt = patches[2]!.at;
    expect(renewedAt - T0).toBeLessThan(11 * SECOND);
    // The next heartbeat comes a third of the TTL after that renewal was sent.
    expect(patches[3]!.at - renewedAt).toBe(10 * SECOND);
    expect(patches[3]!.headers["idempotency-key"]).not.toBe(patches[0]!.headers["idempotency-key"]);
    expect(signal!.aborted).toBe(false);
    work.settle("ok");
    expect(await done).toBe("ok");
  });

  it("releases when the function throws, and rethrows its error", async () => {
    const { client, requests } = api();
    const failure = new Error("tests failed");
    await expect(
      client.withLease(REF, { ttl: "30s", instance: "worker-3" }, async () => {
        throw failure;
      }),
    ).rejects.toBe(failure);
    expect(requests.map((r) => [r.method, r.query.get("instance")])).toEqual([
      ["POST", null],
      ["DELETE", "worker-3"],
    ]);
  });

  it("a held issue rejects with LeaseHeldError before the function runs", async () => {
    const { fetch, requests } = scriptedFetch(() => ({ status: 409, json: leaseJson("held", { login: "alice", id: 11 }, 7, "2026-12-08T12:00:00Z") }));
    const client = new LeaseClient({ baseUrl: "https://leases.test", token: "t", fetch });
    const fn = vi.fn();
    const error = await client.withLease(REF, { ttl: "30s" }, fn).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(LeaseHeldError);
    expect(error).toMatchObject({ holder: { login: "alice" }, token: 7 });
    expect(fn).not.toHaveBeenCalled();
    expect(requests).toHaveLength(1);
  });

  it("the caller's own signal aborts the function's, and the lease is still released", async () => {
    const { client, requests } = api();
    const outer = new AbortController();
    const done = client
      .withLease(REF, { ttl: "30s", signal: outer.signal }, (_l, s) => new Promise((_r, reject) => s.addEventListener("abort", () => reject(s.reason))))
      .catch((e: unknown) => e);
    await vi.advanceTimersByTimeAsync(SECOND);
    outer.abort(new Error("SIGTERM"));
    expect(await done).toMatchObject({ message: "SIGTERM" });
    expect(requests.map((r) => r.method)).toEqual(["POST", "DELETE"]);
  });

  it("renews at renewEveryMs when that is sooner than a third of the TTL", async () => {
    const { client, requests } = api();
    const work = gate();
    const done = client.withLease(REF, { ttl: "3000s", renewEveryMs: 2 * SECOND }, () => work.promise);
    await vi.advanceTimersByTimeAsync(7 * SECOND);
    expect(requests.filter((r) => r.method === "PATCH")).toHaveLength(3);
    work.settle("ok");
    await done;
  });

  it("counts the expiry from when the renewal was sent, not from the server's clock, when the server's runs ahead", async () => {
    // The server's clock is an hour ahead: its expires_at is an hour later than the lease really lasts for the client.
    const { fetch, requests } = scriptedFetch((req) => {
      if (req.path === EVENTS_PATH) return NO_STREAM;
      const json = leaseJson(req.method === "POST" ? "acquired" : "renewed", bot, 3, new Date(Date.now() + 3_600_000 + 30 * SECOND).toISOString());
      return req.method === "DELETE" ? { status: 200, json: { ...json, outcome: "released" } } : { status: 200, json };
    }, notEvents);
    const client = new LeaseClient({ baseUrl: "https://leases.test", token: "t", fetch });
    const work = gate();
    const done = client.withLease(REF, { ttl: "30s" }, () => work.promise);
    await vi.advanceTimersByTimeAsync(10 * SECOND);
    expect(requests.map((r) => r.method)).toEqual(["POST", "PATCH"]);
    work.settle("ok");
    await done;
  });
});

describe("withLease with a long lease", () => {
  it("does not renew in a loop when a third of the TTL is past setTimeout's limit (24.8 days)", async () => {
    const { client, requests } = api();
    const work = gate();
    const DAY = 86_400 * SECOND;
    const done = client.withLease(REF, { ttl: `${100 * 86_400}s` }, () => work.promise);
    await vi.advanceTimersByTimeAsync(24 * DAY);
    expect(requests.map((r) => r.method)).toEqual(["POST"]);
    // setTimeout's longest wait, then a renewal: early for a 100-day lease, which is harmless.
    await vi.advanceTimersByTimeAsync(1 * DAY);
    expect(requests.map((r) => r.method)).toEqual(["POST", "PATCH"]);
    work.settle("ok");
    await done;
  });
});
