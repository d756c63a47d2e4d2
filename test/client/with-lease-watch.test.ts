/**
 * withLease watching the app's event stream beside its renewals, against a
 * small lease API with a stream on 127.0.0.1: an event ending its lease
 * aborts the function within a second although the renewals (TTL 1 h) would
 * not notice for twenty minutes; events that end nothing of its own are
 * ignored; an end before the stream was listened to is caught by the check
 * made when it opens; a stream that drops is resumed with Last-Event-ID; a
 * stream the app does not serve (404) leaves the renewals alone to notice,
 * the work unharmed; `watch: false` asks no stream.
 */
import { afterEach, describe, expect, it } from "vitest";
import { LeaseClient, LeaseLostError, type WatchState } from "@issue-leases/client";
import { LEASE_PATH, leaseJson, NO_STREAM, type StubAnswer, type StubRequest } from "./api-stub.js";
import { leaseEvent, type StreamHandler, type StreamStub, startStreamStub, waitFor } from "./sse-stub.js";

const REF = "octo-org/widgets#12";
const bot = { login: "deploy-bot[bot]", id: 41898282, instance: "worker-3" };
const alice = { login: "alice", id: 11 };

let stub: StreamStub | undefined;
afterEach(async () => {
  await stub?.close();
  stub = undefined;
});

/**
 * A lease API holding token 3 of #12 for `ttl` seconds: claims and renewals
 * extend it, releases end it, `verify` answers `verified` (default: valid).
 */
async function api(stream: StreamHandler = () => "open", verified: () => StubAnswer | null = () => null) {
  stub = await startStreamStub((req: StubRequest) => {
    const ttl = Number(/^(\d+)s$/.exec((req.body as { ttl?: string } | undefined)?.ttl ?? "3600s")![1]) * 1000;
    const until = () => new Date(Date.now() + ttl).toISOString();
    if (req.path === `${LEASE_PATH}/verify` && req.method === "POST") {
      return verified() ?? { status: 200, json: { valid: true, lease: leaseJson("status", bot, 3, until()) } };
    }
    if (req.path !== LEASE_PATH) throw new Error(`unexpected ${req.method} ${req.path}`);
    if (req.method === "POST") return { status: 200, json: leaseJson("acquired", bot, 3, until()) };
    if (req.method === "PATCH") return { status: 200, json: leaseJson("renewed", bot, 3, until()) };
    if (req.method === "DELETE") {
      // As the app does: the release's event goes out on the streams, the holder's own included.
      for (const c of stub?.connections ?? []) c.send(leaseEvent({ id: "999", type: "lease.released", token: 3, cause: "api", actor: bot }));
      return { status: 200, json: leaseJson("released", bot, 3, until()) };
    }
    throw new Error(`unexpected ${req.method} ${req.path}`);
  }, stream);
  const client = new LeaseClient({ baseUrl: stub.url, token: "ghp_bot", retry: { minDelayMs: 10, maxDelayMs: 20, retries: 1 } });
  return { stub, client };
}

/** A function under lease that runs until its signal is aborted, then rejects with the reason; `abortedAt` is when. */
function untilAborted() {
  const seen: { signal?: AbortSignal; abortedAt?: number } = {};
  const fn = (_lease: unknown, signal: AbortSignal) => {
    seen.signal = signal;
    return new Promise<string>((_resolve, reject) =>
      signal.addEventListener(
        "abort",
        () => {
          seen.abortedAt = Date.now();
          reject(signal.reason);
        },
        { once: true },
      ),
    );
  };
  return { seen, fn };
}

const methods = (s: StreamStub) => s.requests.map((r) => `${r.method} ${r.path.replace(LEASE_PATH, "LEASE")}`);

describe("withLease watching the event stream", () => {
  it("aborts within a second of the event that ends its lease, while renewals (TTL 1 h) would not notice for 20 minutes", async () => {
    const { stub, client } = await api();
    const { seen, fn } = untilAborted();
    const states: WatchState[] = [];
    const done = client.withLease(REF, { ttl: "3600s", instance: "worker-3", onWatch: (s) => states.push(s) }, fn).catch((e: unknown) => e);
    const conn = await stub.connection();
    expect(conn.request.query.get("repo")).toBe("octo-org/widgets");
    expect(conn.request.query.get("holder")).toBe("@me");
    expect(conn.request.headers.authorization).toBe("Bearer ghp_bot");
    // The check made once the stream is open: the lease is still this one.
    await waitFor(() => stub.requests.some((r) => r.path.endsWith("/verify")), "the check");
    expect(stub.requests.find((r) => r.path.endsWith("/verify"))!.body).toEqual({ token: 3, instance: "worker-3" });

    const sentAt = Date.now();
    conn.send(leaseEvent({ id: "90", type: "lease.ended", token: 3, cause: "maintainer", actor: { login: "maintainer", id: 7 } }));
    const error = await done;
    expect(seen.abortedAt! - sentAt).toBeLessThan(1000);
    expect(error).toBeInstanceOf(LeaseLostError);
    expect(error).toMatchObject({ reason: "not_holder", ref: REF, token: 3, event: { id: "90", type: "lease.ended" } });
    expect((error as Error).message).toBe(
      "lost the lease on octo-org/widgets#12: the app's event stream says it was released by maintainer, a maintainer (lease.ended)",
    );
    expect(seen.signal!.reason).toBe(error);
    // No renewal was due, and a lost lease is not released.
    expect(methods(stub)).toEqual(["POST LEASE", "GET /api/v1/events", "POST LEASE/verify"]);
    expect(states).toEqual([{ state: "open", resumed: false }]);
    await waitFor(() => conn.closed(), "the stream closed");
  });

  it("ignores events that end nothing of its own lease, and stops at its expiry", async () => {
    const { stub, client } = await api();
    const { seen, fn } = untilAborted();
    const done = client.withLease(REF, { ttl: "3600s" }, fn).catch((e: unknown) => e);
    const conn = await stub.connection();
    conn.send(leaseEvent({ id: "1", type: "lease.acquired", token: 3, cause: "api" }));
    conn.send(leaseEvent({ id: "2", type: "lease.renewed", token: 3, cause: "api" }));
    // An older tenure of the issue, the same token on another issue and in another repository.
    conn.send(leaseEvent({ id: "3", type: "lease.released", token: 2 }));
    conn.send(leaseEvent({ id: "4", type: "lease.ended", token: 3, issue: 13, cause: "close" }));
    conn.send(leaseEvent({ id: "5", type: "lease.expired", token: 3, repo: "octo-org/gadgets", cause: "expiry", actor: null }));
    conn.write(": heartbeat\n\n");
    await new Promise((r) => setTimeout(r, 300));
    expect(seen.signal!.aborted).toBe(false);
    conn.send(leaseEvent({ id: "6", type: "lease.expired", token: 3, repo: "Octo-Org/Widgets", cause: "expiry", actor: null }));
    const error = await done;
    expect(error).toMatchObject({ reason: "expired", event: { id: "6" } });
    expect((error as Error).message).toBe("lost the lease on octo-org/widgets#12: the app's event stream says it expired (lease.expired)");
  });

  it("a handoff, or any later tenure of the issue, ends it", async () => {
    const { stub, client } = await api();
    const { fn } = untilAborted();
    const done = client.withLease(REF, { ttl: "3600s" }, fn).catch((e: unknown) => e);
    const conn = await stub.connection();
    conn.send(leaseEvent({ id: "8", type: "lease.handed_off", token: 4, holder: { ...bot, instance: "worker-4" }, cause: "handoff" }));
    const error = await done;
    expect(error).toMatchObject({ reason: "not_holder", event: { type: "lease.handed_off", token: 4 } });
    expect((error as Error).message).toMatch(/says a later lease began \(token 4, deploy-bot\[bot\]\)/);
  });

  it("the check made when the stream opens catches an end it did not see, naming the new holder", async () => {
    const { client } = await api(undefined, () => ({ status: 409, json: { valid: false, lease: leaseJson("status", alice, 4, null) } }));
    const { fn } = untilAborted();
    const error = await client.withLease(REF, { ttl: "3600s" }, fn).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(LeaseLostError);
    expect(error).toMatchObject({ reason: "not_holder", event: null, cause: { lease: { holder: { login: "alice" }, token: 4 } } });
    expect((error as Error).message).toMatch(/not the holder of octo-org\/widgets#12: it is held by alice with token 4/);
  });

  it("checks the lease again when the app says events may be missing", async () => {
    let valid = true;
    const { stub, client } = await api(undefined, () => (valid ? null : { status: 409, json: { valid: false, lease: leaseJson("status", null, null, null) } }));
    const { fn } = untilAborted();
    const done = client.withLease(REF, { ttl: "3600s" }, fn).catch((e: unknown) => e);
    const conn = await stub.connection();
    await waitFor(() => stub.requests.some((r) => r.path.endsWith("/verify")), "the check on open");
    valid = false;
    conn.write(`event: stream.gap\ndata: ${JSON.stringify({ after: "5", reason: "pruned", message: "events after 5 may be missing" })}\n\n`);
    const error = await done;
    expect(error).toMatchObject({ reason: "not_holder", event: null });
    expect((error as Error).message).toMatch(/it is free/);
    expect(stub.requests.filter((r) => r.path.endsWith("/verify"))).toHaveLength(2);
  });

  it("a stream that drops is resumed with Last-Event-ID (no second check), and still ends the lease at once", async () => {
    const { stub, client } = await api();
    const { fn } = untilAborted();
    const states: WatchState[] = [];
    const done = client.withLease(REF, { ttl: "3600s", onWatch: (s) => states.push(s) }, fn).catch((e: unknown) => e);
    const one = await stub.connection(1);
    one.send(leaseEvent({ id: "10", type: "lease.renewed", token: 3, cause: "api" }));
    await waitFor(() => states.length === 1, "the stream open");
    // Let the event arrive before the drop.
    await new Promise((r) => setTimeout(r, 100));
    one.end();
    // The client waits about a second (its default) before connecting again.
    const two = await stub.connection(2);
    expect(two.request.headers["last-event-id"]).toBe("10");
    // Resumed, so the app replays what was missed: no second check is asked for.
    await waitFor(() => states.length === 3, "the stream open again");
    await new Promise((r) => setTimeout(r, 300));
    expect(stub.requests.filter((r) => r.path.endsWith("/verify"))).toHaveLength(1);
    two.send(leaseEvent({ id: "11", type: "lease.ended", token: 3, cause: "close", actor: { login: "alice", id: 11 } }));
    const error = await done;
    expect((error as Error).message).toMatch(/says it ended: the issue was closed by alice \(lease.ended\)/);
    expect(stub.requests.filter((r) => r.path.endsWith("/verify"))).toHaveLength(1);
    expect(states.map((s) => s.state)).toEqual(["open", "down", "open"]);
    expect(states[2]).toEqual({ state: "open", resumed: true });
  });

  it("falls back to renewals when the app does not serve the stream (404), without failing the work", async () => {
    const { stub, client } = await api(() => NO_STREAM);
    const states: WatchState[] = [];
    const value = await client.withLease(REF, { ttl: "3s", onWatch: (s) => states.push(s) }, async (_lease, signal) => {
      // Two renewals' worth of work (every second for a 3 s lease).
      await new Promise((r) => setTimeout(r, 2500));
      expect(signal.aborted).toBe(false);
      return "done";
    });
    expect(value).toBe("done");
    const asked = methods(stub);
    expect(asked.filter((m) => m === "GET /api/v1/events")).toHaveLength(1);
    expect(asked.filter((m) => m === "PATCH LEASE").length).toBeGreaterThanOrEqual(2);
    expect(asked.at(-1)).toBe("DELETE LEASE");
    expect(asked).not.toContain("POST LEASE/verify");
    // Told once, for a debug log: the stream is down, tried again in 30 s.
    expect(states).toHaveLength(1);
    expect(states[0]).toMatchObject({ state: "down", retryInMs: 30_000, error: { status: 404 } });
  });

  it("stops watching when the function settles, before it releases: its own release's event ends nothing", async () => {
    const { stub, client } = await api();
    const done = client.withLease(REF, { ttl: "3600s" }, async () => {
      await stub.connection();
      await waitFor(() => stub.requests.some((r) => r.path.endsWith("/verify")), "the check");
      return "ok";
    });
    expect(await done).toBe("ok");
    const conn = stub.connections[0]!;
    await waitFor(() => conn.closed(), "the stream closed");
    expect(methods(stub)).toEqual(["POST LEASE", "GET /api/v1/events", "POST LEASE/verify", "DELETE LEASE"]);
  });

  it("watch: false asks no stream: renewals alone", async () => {
    const { stub, client } = await api();
    const work = async () => {
      // Long enough for a watch's request to reach the server.
      await new Promise((r) => setTimeout(r, 300));
      return "ok";
    };
    expect(await client.withLease(REF, { ttl: "3600s", watch: false }, work)).toBe("ok");
    expect(methods(stub)).toEqual(["POST LEASE", "DELETE LEASE"]);
  });
});
