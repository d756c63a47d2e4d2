/**
 * `LeaseClient.events` against a stream served on 127.0.0.1: what it asks,
 * what it yields, and how it stays connected (a connection that ends, fails
 * or goes silent is made again with `Last-Event-ID`; the app's `retry:` is
 * followed), what ends it (the signal, a break, an answer retrying will not
 * change). Delays are shortened by the options; waits poll generously.
 */
import { afterEach, describe, expect, it } from "vitest";
import { LeaseApiError, LeaseClient, type LeaseEvent } from "@issue-leases/client";
import { NO_STREAM, type StubRequest } from "./api-stub.js";
import { leaseEvent, type StreamHandler, type StreamStub, startStreamStub, waitFor } from "./sse-stub.js";

let stub: StreamStub | undefined;
afterEach(async () => {
  await stub?.close();
  stub = undefined;
});

async function serve(stream: StreamHandler = () => "open") {
  stub = await startStreamStub((req: StubRequest) => {
    throw new Error(`unexpected ${req.method} ${req.path}`);
  }, stream);
  const client = new LeaseClient({ baseUrl: stub.url, token: "ghp_secret" });
  return { stub, client };
}

/** Collects what the iteration yields until it ends; `done` settles with its error (or null). */
function collect(iterable: AsyncIterable<LeaseEvent>) {
  const events: LeaseEvent[] = [];
  const done = (async () => {
    try {
      for await (const e of iterable) events.push(e);
      return null;
    } catch (error) {
      return error;
    }
  })();
  return { events, done };
}

const fast = { minDelayMs: 20, maxDelayMs: 50 };

describe("LeaseClient.events", () => {
  it("asks for the filtered stream with the token, and yields the lease events in order, skipping anything else", async () => {
    const { stub, client } = await serve();
    const stop = new AbortController();
    const seen = collect(client.events({ repo: "octo-org/widgets", holder: "@me" }, { signal: stop.signal }));
    const conn = await stub.connection();
    expect(conn.request.query.get("repo")).toBe("octo-org/widgets");
    expect(conn.request.query.get("holder")).toBe("@me");
    expect(conn.request.headers.authorization).toBe("Bearer ghp_secret");
    expect(conn.request.headers.accept).toBe("text/event-stream");
    expect(conn.request.headers["last-event-id"]).toBeUndefined();

    const first = leaseEvent({ id: "41", type: "lease.acquired", token: 3, cause: "api" });
    const second = leaseEvent({ id: "42", type: "lease.released", token: 3 });
    conn.send(first);
    conn.write(": heartbeat\n\n");
    conn.write("event: stream.note\ndata: {}\n\n");
    conn.write("id: 41b\nevent: lease.renewed\ndata: not json\n\n");
    // One event written in pieces, with CRLF line ends.
    const text = `id: 42\r\nevent: lease.released\r\ndata: ${JSON.stringify(second)}\r\n\r\n`;
    conn.write(text.slice(0, 20));
    conn.write(text.slice(20, 21));
    conn.write(text.slice(21));
    await waitFor(() => seen.events.length === 2, "two events");
    expect(seen.events).toEqual([first, second]);
    stop.abort();
    expect(await seen.done).toBeNull();
    await waitFor(() => conn.closed(), "the connection closed");
  });

  it("connects again when the stream ends, with Last-Event-ID, and yields what the app replays", async () => {
    const { stub, client } = await serve();
    const stop = new AbortController();
    const opens: Array<string | null> = [];
    const errors: string[] = [];
    const seen = collect(
      client.events(
        { repo: "octo-org/widgets" },
        { ...fast, signal: stop.signal, onOpen: (i) => opens.push(i.lastEventId), onError: (e) => errors.push((e as Error).message) },
      ),
    );
    const one = await stub.connection(1);
    one.send(leaseEvent({ id: "5", type: "lease.acquired", token: 3 }));
    one.send(leaseEvent({ id: "6", type: "lease.renewed", token: 3 }));
    await waitFor(() => seen.events.length === 2, "two events");
    one.end();
    const two = await stub.connection(2);
    expect(two.request.headers["last-event-id"]).toBe("6");
    two.send(leaseEvent({ id: "7", type: "lease.released", token: 3 }));
    await waitFor(() => seen.events.length === 3, "the replayed event");
    expect(seen.events.map((e) => e.id)).toEqual(["5", "6", "7"]);
    expect(opens).toEqual([null, "6"]);
    expect(errors).toEqual(["the event stream ended"]);
    stop.abort();
    expect(await seen.done).toBeNull();
  });

  it("tells of the app's notice that events may be missing, which keeps the last event id", async () => {
    const { stub, client } = await serve();
    const stop = new AbortController();
    const gaps: unknown[] = [];
    const seen = collect(client.events({}, { ...fast, signal: stop.signal, lastEventId: "3", onGap: (g) => gaps.push(g) }));
    const one = await stub.connection(1);
    const message = "events after 3 may be missing: they are kept for a limited time; the stream resumes at the oldest kept";
    one.write(`event: stream.gap\ndata: ${JSON.stringify({ after: "3", reason: "pruned", message })}\n\n`);
    await waitFor(() => gaps.length === 1, "the gap");
    expect(gaps).toEqual([{ after: "3", reason: "pruned", message }]);
    one.end();
    const two = await stub.connection(2);
    expect(two.request.headers["last-event-id"]).toBe("3");
    expect(seen.events).toEqual([]);
    stop.abort();
    expect(await seen.done).toBeNull();
  });

  it("resumes from lastEventId when given one", async () => {
    const { stub, client } = await serve();
    const stop = new AbortController();
    const seen = collect(client.events({}, { signal: stop.signal, lastEventId: "99" }));
    const conn = await stub.connection();
    expect(conn.request.headers["last-event-id"]).toBe("99");
    expect([...conn.request.query.keys()]).toEqual([]);
    stop.abort();
    expect(await seen.done).toBeNull();
  });

  it("drops a connection that stays silent past the idle timeout and makes another; heartbeats keep one alive", async () => {
    const { stub, client } = await serve();
    const stop = new AbortController();
    const errors: string[] = [];
    const seen = collect(client.events({}, { ...fast, idleTimeoutMs: 1500, signal: stop.signal, onError: (e) => errors.push((e as Error).message) }));
    const one = await stub.connection(1);
    // Heartbeats every 100 ms for three seconds, twice the idle timeout: the connection stays.
    for (let i = 0; i < 30; i++) {
      one.write(": heartbeat\n\n");
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(stub.connections).toHaveLength(1);
    expect(one.closed()).toBe(false);
    // Then silence: dropped, and made again.
    await stub.connection(2);
    await waitFor(() => one.closed(), "the silent connection closed");
    expect(errors[0]).toMatch(/sent nothing for/);
    stop.abort();
    expect(await seen.done).toBeNull();
  });

  it("waits what the app's retry: says before connecting again", async () => {
    const { stub, client } = await serve();
    const stop = new AbortController();
    // Without the retry: field, the next connection would come a minute later.
    const seen = collect(client.events({}, { minDelayMs: 60_000, maxDelayMs: 60_000, signal: stop.signal }));
    const one = await stub.connection(1);
    one.write("retry: 30\n\n");
    one.end();
    await stub.connection(2);
    stop.abort();
    expect(await seen.done).toBeNull();
  });

  it("connects again after a 503 and after a dropped connection, doubling its wait", async () => {
    const delays: number[] = [];
    const { stub, client } = await serve((_req, n) => (n === 0 ? { status: 503, json: { error: { code: "unavailable", message: "busy" } } } : n === 1 ? { status: 0, destroy: true } : "open"));
    const stop = new AbortController();
    const seen = collect(client.events({}, { minDelayMs: 40, maxDelayMs: 1000, signal: stop.signal, onError: (_e, ms) => delays.push(ms) }));
    await stub.connection(1);
    expect(stub.requests).toHaveLength(3);
    // Full jitter over a ceiling that doubles: [20, 40], then [40, 80].
    expect(delays).toHaveLength(2);
    expect(delays[0]).toBeGreaterThanOrEqual(20);
    expect(delays[0]).toBeLessThanOrEqual(40);
    expect(delays[1]).toBeGreaterThanOrEqual(40);
    expect(delays[1]).toBeLessThanOrEqual(80);
    stop.abort();
    expect(await seen.done).toBeNull();
  });

  it("waits at least the Retry-After of a 429 (too many streams) before connecting again", async () => {
    const delays: number[] = [];
    const { stub, client } = await serve((_req, n) =>
      n === 0 ? { status: 429, headers: { "retry-after": "1" }, json: { error: { code: "too_many_streams", message: "Too many streams open from this address" } } } : "open",
    );
    const stop = new AbortController();
    const seen = collect(client.events({}, { ...fast, signal: stop.signal, onError: (_e, ms) => delays.push(ms) }));
    await stub.connection(1);
    expect(delays).toEqual([1000]);
    stop.abort();
    expect(await seen.done).toBeNull();
  });

  it("rejects with LeaseApiError, asking once, when the app has no stream (404) or answers something else than an event stream", async () => {
    const { stub, client } = await serve((_req, n) => (n === 0 ? NO_STREAM : { status: 200, json: { leases: [] } }));
    const notServed = await collect(client.events({}, fast)).done;
    expect(notServed).toBeInstanceOf(LeaseApiError);
    expect(notServed).toMatchObject({ status: 404, code: "not_found" });
    expect((notServed as Error).message).toMatch(/not found \(an app without lease events\?\): Not Found/);
    const notStream = await collect(client.events({}, fast)).done;
    expect(notStream).toMatchObject({ status: 200, code: "not_event_stream" });
    expect((notStream as Error).message).toMatch(/application\/json, not text\/event-stream/);
    expect(stub.requests).toHaveLength(2);
  });

  it("closes the connection when the loop breaks", async () => {
    const { stub, client } = await serve();
    const done = (async () => {
      for await (const e of client.events({}, fast)) if (e.id === "2") break;
    })();
    const conn = await stub.connection();
    conn.send(leaseEvent({ id: "1", type: "lease.acquired", token: 1 }));
    conn.send(leaseEvent({ id: "2", type: "lease.released", token: 1 }));
    await done;
    await waitFor(() => conn.closed(), "the connection closed");
    expect(stub.connections).toHaveLength(1);
  });

  it("refuses a malformed filter before asking anything", async () => {
    const { stub, client } = await serve();
    await expect(collect(client.events({ repo: "octo-org" })).done).resolves.toBeInstanceOf(TypeError);
    await expect(collect(client.events({ holder: "alice" as "@me" })).done).resolves.toMatchObject({ message: /holder must be "@me"/ });
    expect(stub.requests).toHaveLength(0);
  });
});
