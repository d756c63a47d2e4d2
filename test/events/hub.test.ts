/**
 * The stream's hub and its clients over a small in-memory event log: every
 * client gets every event in order, a resume with Last-Event-ID misses
 * nothing and repeats nothing (also while events keep coming during its
 * replay), a slow client is dropped without holding up the others, notices
 * that never came are made up by the poll, and what a client may see.
 */
import { afterEach, describe, expect, it } from "vitest";
import { EventStream, type StreamEnd } from "../../src/events/event-stream.js";
import { EventHub } from "../../src/events/hub.js";
import { PublicRepos } from "../../src/events/public-repos.js";
import type { StreamFilter } from "../../src/events/stream-filter.js";
import { sleep, waitFor } from "../support/server-process.js";
import { SseSink } from "../support/sse.js";
import { MemoryEventLog } from "./memory-event-log.js";

const PUB = { repoId: 11, repo: "octo/public", private: false };
const SECRET = { repoId: 22, repo: "octo/secret", private: true };
const anyone: StreamFilter = { visible: new Set(), repoIds: null, holder: null, issue: null };

const hubs: EventHub[] = [];
afterEach(async () => {
  await Promise.all(hubs.splice(0).map((h) => h.close()));
});

function world(o: { pollMs?: number; heartbeatMs?: number; pageSize?: number } = {}) {
  const log = new MemoryEventLog();
  log.addRepo(PUB);
  log.addRepo(SECRET);
  const errors: unknown[] = [];
  const hub = new EventHub({
    events: log,
    publicRepos: new PublicRepos(log, Date.now, 0),
    pollMs: o.pollMs ?? 60_000,
    heartbeatMs: o.heartbeatMs ?? 60_000,
    ...(o.pageSize ? { pageSize: o.pageSize } : {}),
    onError: (e) => errors.push(e),
  });
  hubs.push(hub);
  const ends: StreamEnd[] = [];
  const connect = async (lastEventId: number | null = null, filter: StreamFilter = anyone, sink = new SseSink(), maxBufferedBytes?: number) => {
    const stream = new EventStream({ hub, out: sink, filter, ...(maxBufferedBytes ? { maxBufferedBytes } : {}), onEnd: (how) => ends.push(how), pageSize: 3 });
    const opened = stream.open(lastEventId);
    return { sink, stream, opened };
  };
  return { log, hub, errors, ends, connect };
}

describe("the event hub", () => {
  it("hands every event to every client, in order, each read once for all of them", async () => {
    const { log, hub, connect } = world();
    expect(await hub.start()).toBe(true);
    const a = await connect();
    const b = await connect();
    await Promise.all([a.opened, b.opened]);
    const reads = log.reads;
    for (let i = 1; i <= 20; i++) log.append(PUB.repoId, i);
    await waitFor("both clients", () => a.sink.log.events.length === 20 && b.sink.log.events.length === 20, 5_000, 5);
    const ids = Array.from({ length: 20 }, (_, i) => i + 1);
    expect(a.sink.log.ids).toEqual(ids);
    expect(b.sink.log.ids).toEqual(ids);
    expect(a.sink.log.events[0]).toEqual({ id: "1", event: "lease.acquired", data: log.stored[0]!.event });
    // One reader: the two clients did not double the ledger's reads (at most one per notice, fewer when they come together).
    expect(log.reads - reads).toBeLessThanOrEqual(20);
    expect(hub.counters()).toMatchObject({ clients: 2, clientsDropped: 0, eventsRead: { "lease.acquired": 20, "lease.released": 0 } });
    // The stream starts by telling the client how soon to reconnect.
    expect(a.sink.log.frames[0]).toEqual({ retry: 3000, comments: [] });
  });

  it("a resume with Last-Event-ID replays what was missed, then goes live: nothing missing, nothing twice, also with events made during the replay", async () => {
    const { log, hub, connect } = world();
    await hub.start();
    for (let i = 1; i <= 10; i++) log.append(PUB.repoId, i);
    await hub.wake();
    expect(hub.position).toBe(10);
    // The replay's reads are held while more events are made and the hub hands them out.
    let open!: () => void;
    log.gate = new Promise((r) => (open = r));
    const c = await connect(4);
    for (let i = 11; i <= 15; i++) log.append(PUB.repoId, i);
    const woken = hub.wake();
    log.gate = null;
    open();
    await woken;
    await c.opened;
    for (let i = 16; i <= 18; i++) log.append(PUB.repoId, i);
    await waitFor("events 5 to 18", () => c.sink.log.events.length >= 14, 5_000, 5);
    await sleep(20);
    expect(c.sink.log.ids).toEqual(Array.from({ length: 14 }, (_, i) => i + 5));
    expect(c.sink.log.notices).toEqual([]);
  });

  it("a Last-Event-ID ahead of this process's hub (another replica sent it) skips what the client has", async () => {
    const { log, hub, connect } = world();
    await hub.start();
    log.notify = false;
    for (let i = 1; i <= 6; i++) log.append(PUB.repoId, i);
    // The hub has not read them yet; the client saw up to 4 elsewhere.
    expect(hub.position).toBe(0);
    const c = await connect(4);
    await c.opened;
    await hub.wake();
    expect(c.sink.log.ids).toEqual([5, 6]);
  });

  it("a Last-Event-ID older than what is kept: a stream.gap notice, then from the oldest kept; an id never written: the notice, then live", async () => {
    const { log, hub, connect } = world();
    await hub.start();
    for (let i = 1; i <= 8; i++) log.append(PUB.repoId, i);
    await hub.wake();
    log.prune(5);
    const old = await connect(3);
    await old.opened;
    expect(old.sink.log.notices).toEqual([{ event: "stream.gap", data: expect.objectContaining({ after: "3", reason: "pruned" }) }]);
    expect(old.sink.log.ids).toEqual([6, 7, 8]);
    // The notice carries no id: the client's Last-Event-ID stays the last event it got.
    expect(old.sink.log.frames.find((f) => f.event === "stream.gap")!.id).toBeUndefined();

    const kept = await connect(6);
    await kept.opened;
    expect(kept.sink.log.notices).toEqual([]);
    expect(kept.sink.log.ids).toEqual([7, 8]);

    const unknown = await connect(99);
    await unknown.opened;
    log.append(PUB.repoId, 9);
    await hub.wake();
    expect(unknown.sink.log.notices).toEqual([{ event: "stream.gap", data: expect.objectContaining({ after: "99", reason: "unknown" }) }]);
    expect(unknown.sink.log.ids).toEqual([9]);
  });

  it("a client that does not read is dropped once its buffer is full; the others get every event on time", async () => {
    const { log, hub, ends, connect } = world();
    await hub.start();
    const slow = await connect(null, anyone, new SseSink(1024), 4096);
    const fast = await connect();
    await Promise.all([slow.opened, fast.opened]);
    slow.sink.stall();
    for (let i = 1; i <= 100; i++) {
      log.append(PUB.repoId, i);
      await hub.wake();
      // Each event reaches the fast client as soon as the hub has read it, whatever the slow one does.
      expect(fast.sink.log.events.length).toBe(i);
    }
    expect(slow.stream.ended).toBe(true);
    await waitFor("the slow client's connection cut", () => slow.sink.closedBy === "destroy", 5_000, 5);
    expect(ends).toEqual(["dropped"]);
    expect(hub.counters()).toMatchObject({ clients: 1, clientsDropped: 1 });
    // It reconnects with the last id it got and misses nothing.
    const last = slow.sink.log.ids.at(-1) ?? 0;
    const back = await connect(last);
    await back.opened;
    expect([...slow.sink.log.ids, ...back.sink.log.ids]).toEqual(Array.from({ length: 100 }, (_, i) => i + 1));
  });

  it("a client that stops reading during its replay is dropped too, once live events pile up behind it", async () => {
    const { log, hub, connect } = world();
    await hub.start();
    for (let i = 1; i <= 30; i++) log.append(PUB.repoId, i);
    await hub.wake();
    const sink = new SseSink(256);
    sink.stall();
    const c = await connect(0, anyone, sink, 4096);
    for (let i = 31; i <= 80 && !c.stream.ended; i++) {
      log.append(PUB.repoId, i);
      await hub.wake();
    }
    expect(c.stream.ended).toBe(true);
    await c.opened;
    expect(hub.counters().clientsDropped).toBe(1);
  });

  it("a lost notice is made up by the poll; a failed read is tried again and loses nothing", async () => {
    const { log, hub, errors, connect } = world({ pollMs: 30 });
    await hub.start();
    const c = await connect();
    await c.opened;
    log.notify = false;
    log.append(PUB.repoId, 1);
    expect(c.sink.log.events).toHaveLength(0);
    await waitFor("the poll's read", () => c.sink.log.events.length === 1, 5_000, 5);
    log.failReads = 2;
    log.append(PUB.repoId, 2);
    log.append(PUB.repoId, 3);
    await waitFor("the events after the failures", () => c.sink.log.events.length === 3, 5_000, 5);
    expect(c.sink.log.ids).toEqual([1, 2, 3]);
    expect(errors.length).toBeGreaterThanOrEqual(2);
  });

  it("starts once the ledger answers; until then it is not ready", async () => {
    const { log, hub, errors } = world({ pollMs: 20 });
    log.failReads = 1;
    expect(await hub.start()).toBe(false);
    expect(hub.ready).toBe(false);
    expect(errors).toHaveLength(1);
    await waitFor("the hub ready", () => hub.ready, 5_000, 5);
    expect(hub.position).toBe(0);
  });

  it("beats each client's heartbeat; closing ends every stream cleanly and stops watching", async () => {
    const { log, hub, ends, connect } = world({ heartbeatMs: 20 });
    await hub.start();
    const c = await connect();
    await c.opened;
    await waitFor("two heartbeats", () => c.sink.log.comments.filter((x) => x === "keep-alive").length >= 2, 5_000, 5);
    expect(log.watchers).toBe(1);
    await hub.close();
    expect(log.watchers).toBe(0);
    expect(ends).toEqual(["shutdown"]);
    await waitFor("the stream ended", () => c.sink.closedBy === "end", 5_000, 5);
    expect(hub.ready).toBe(false);
    expect(() => hub.attach(c.stream)).toThrow(/not ready/);
  });

  it("a private repository's events reach only clients that may see it; filters narrow by repository, issue and holder", async () => {
    const { log, hub, connect } = world();
    await hub.start();
    const bob = { login: "Bob", id: 2002 };
    log.append(PUB.repoId, 1);
    log.append(SECRET.repoId, 2, { holder: bob });
    await hub.wake();
    const anonymous = await connect(0);
    const reader = await connect(0, { ...anyone, visible: new Set([SECRET.repoId]) });
    const secretOnly = await connect(0, { ...anyone, visible: new Set([SECRET.repoId]), repoIds: new Set([SECRET.repoId]) });
    const issue3 = await connect(0, { ...anyone, repoIds: new Set([PUB.repoId]), issue: 3 });
    const bobs = await connect(0, { ...anyone, visible: new Set([SECRET.repoId]), holder: { id: bob.id } });
    const byLogin = await connect(0, { ...anyone, holder: { login: "bob" } });
    await Promise.all([anonymous, reader, secretOnly, issue3, bobs, byLogin].map((c) => c.opened));
    log.append(SECRET.repoId, 4);
    log.append(PUB.repoId, 3, { holder: bob, type: "lease.released" });
    await hub.wake();
    // Replayed (1, 2) and live (3, 4) alike.
    expect(anonymous.sink.log.ids).toEqual([1, 4]);
    expect(reader.sink.log.ids).toEqual([1, 2, 3, 4]);
    expect(secretOnly.sink.log.ids).toEqual([2, 3]);
    expect(issue3.sink.log.ids).toEqual([4]);
    expect(bobs.sink.log.ids).toEqual([2, 4]);
    expect(byLogin.sink.log.ids).toEqual([4]);
    // Nothing of the private repository in what the anonymous client got.
    for (const f of anonymous.sink.log.frames) expect(JSON.stringify(f)).not.toContain("secret");

    // Access checked again and narrowed: the private repository's next events no longer reach it.
    reader.stream.restrict(new Set());
    log.append(SECRET.repoId, 5);
    log.append(PUB.repoId, 6);
    await hub.wake();
    expect(reader.sink.log.ids).toEqual([1, 2, 3, 4, 6]);
  });

  it("a repository never seen in a webhook, or renamed to another's name, counts as private", async () => {
    const { log, hub, connect } = world();
    log.addRepo({ repoId: 33, repo: "octo/unknown", private: null });
    await hub.start();
    const c = await connect();
    await c.opened;
    log.notify = false;
    log.append(33, 1);
    // An event made under the name the ledger now gives to another repository (renamed, and the name taken).
    log.append(PUB.repoId, 2);
    log.repos.set(PUB.repoId, { ...PUB, repo: "octo/public-old" });
    log.addRepo({ repoId: 44, repo: "octo/public", private: false });
    await hub.wake();
    expect(hub.position).toBe(2);
    expect(c.sink.log.ids).toEqual([]);
  });
});
