/**
 * GET /api/v1/events served by its handler on a real HTTP server, over the
 * in-memory event log (test/events/memory-event-log.ts) and viewers of the
 * test's own: the SSE answer and its headers, the parameters and what a bad
 * one is answered, who may see what, the limits on open streams, the
 * heartbeat, and streams ended cleanly on shutdown. The whole path (the
 * real server, the ledger, GitHub's answers) is events-stream.test.ts's.
 */
import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { EventHub } from "../../src/events/hub.js";
import { PublicRepos } from "../../src/events/public-repos.js";
import { eventStreamSettings } from "../../src/settings/http-settings.js";
import { eventsHandler, type EventsRouteDeps, type StreamViewer } from "../../src/api/events-route.js";
import { RateLimited } from "../../src/api/rate-limit.js";
import { waitFor } from "../support/server-process.js";
import { openEvents, type SseClient } from "../support/sse.js";
import { MemoryEventLog } from "../events/memory-event-log.js";
import { checkAnswer } from "./openapi-check.js";

const PUB = { repoId: 11, repo: "octo/public", private: false };
const SECRET = { repoId: 22, repo: "octo/secret", private: true };
const BOB: StreamViewer = { id: 2002, login: "bob", visible: [SECRET.repoId] };
const CAROL: StreamViewer = { id: 3003, login: "carol", visible: [] };

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function serve(o: Partial<EventsRouteDeps> & { env?: Record<string, string> } = {}) {
  const log = new MemoryEventLog();
  log.addRepo(PUB);
  log.addRepo(SECRET);
  const settings = eventStreamSettings({ EVENTS_HEARTBEAT_MS: "60000", ...o.env });
  const hub = new EventHub({ events: log, publicRepos: new PublicRepos(log, Date.now, 0), heartbeatMs: settings.heartbeatMs, pollMs: 60_000 });
  const tokens = new Map([
    ["bob-token", BOB],
    ["carol-token", CAROL],
  ]);
  const asked: string[] = [];
  const handler = eventsHandler({
    hub,
    repos: log,
    settings,
    bearer: async (token) => {
      asked.push(token);
      if (token === "github-down") throw new Error("GitHub did not answer");
      if (token === "flood") throw new RateLimited(30, "Too many unknown tokens from this address");
      return tokens.get(token) ?? null;
    },
    session: (req: IncomingMessage) => ((req.headers.cookie ?? "").includes("session=bob") ? BOB : null),
    perAddress: { perMinute: 0, burst: 1 },
    trustProxyHops: 0,
    clock: Date.now,
    log: { debug: () => undefined, info: () => undefined, warn: () => undefined },
    ...o,
  });
  const server: Server = createServer((req, res) => {
    void handler(req, res).then((handled) => {
      if (!handled) res.writeHead(404).end();
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/v1/events`;
  const clients: SseClient[] = [];
  cleanups.push(async () => {
    for (const c of clients) c.close();
    await hub.close();
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  });
  const open = async (query = "", headers: Record<string, string> = {}) => {
    const c = await openEvents(`${url}${query}`, headers);
    clients.push(c);
    if (c.status !== 200) checkAnswer("GET", "/api/v1/events", c.status, c.body);
    return c;
  };
  return { log, hub, url, open, asked };
}

describe("GET /api/v1/events", () => {
  it("answers text/event-stream: each event as id, event and data, live", async () => {
    const { log, open } = await serve();
    const c = await open();
    expect(c.status).toBe(200);
    expect(c.headers["content-type"]).toBe("text/event-stream; charset=utf-8");
    expect(c.headers["cache-control"]).toBe("no-store");
    const e = log.append(PUB.repoId, 7, { type: "lease.released", cause: "maintainer" });
    await c.waitForEvents(1);
    expect(c.log.events).toEqual([{ id: "1", event: "lease.released", data: e.event }]);
  });

  it("replays after Last-Event-ID (the header wins over ?last_event_id=), anonymous clients seeing public repositories only", async () => {
    const { log, hub, open } = await serve();
    for (let i = 1; i <= 6; i++) log.append(i % 2 ? PUB.repoId : SECRET.repoId, i);
    await hub.start();
    const byHeader = await open("?last_event_id=1", { "last-event-id": "3" });
    const byQuery = await open("?last_event_id=0");
    log.append(PUB.repoId, 7);
    await byHeader.waitForEvents(2);
    await byQuery.waitForEvents(4);
    expect(byHeader.log.ids).toEqual([5, 7]);
    expect(byQuery.log.ids).toEqual([1, 3, 5, 7]);
    const bobs = await open("?last_event_id=0", { authorization: "Bearer bob-token" });
    await bobs.waitForEvents(7);
    expect(bobs.log.ids).toEqual([1, 2, 3, 4, 5, 6, 7]);
    // Carol's token sees no private repository: what anyone sees.
    const carols = await open("?last_event_id=0", { authorization: "token carol-token" });
    await carols.waitForEvents(4);
    expect(carols.log.ids).toEqual([1, 3, 5, 7]);
    // The board's signed-in session counts as the account.
    const session = await open("?last_event_id=0", { cookie: "session=bob" });
    await session.waitForEvents(7);
  });

  it("filters: repo (repeated or comma-separated), issue, holder=@me by account id, holder by login", async () => {
    const { log, hub, open } = await serve();
    const bob = { login: "bob", id: BOB.id };
    log.append(PUB.repoId, 1);
    log.append(SECRET.repoId, 2, { holder: bob });
    log.append(PUB.repoId, 3, { holder: { login: "bob", id: 999 } });
    log.append(PUB.repoId, 1, { type: "lease.released" });
    await hub.start();
    const all = "?last_event_id=0";
    const auth = { authorization: "Bearer bob-token" };
    const cases: Array<[string, Record<string, string>, number[]]> = [
      [`${all}&repo=octo/public`, {}, [1, 3, 4]],
      [`${all}&repo=OCTO/Secret,octo/public`, auth, [1, 2, 3, 4]],
      [`${all}&repo=octo/secret&repo=octo/public&holder=@me`, auth, [2]],
      [`${all}&repo=octo/public&issue=1`, {}, [1, 4]],
      [`${all}&holder=BOB`, {}, [3]],
      [`${all}&holder=bob`, auth, [2, 3]],
    ];
    for (const [query, headers, ids] of cases) {
      const c = await open(query, headers);
      await c.waitForEvents(ids.length);
      await new Promise((r) => setTimeout(r, 20));
      expect(c.log.ids, query).toEqual(ids);
      c.close();
    }
  });

  it("a bad parameter is 400; a private repository the caller may not see is the same 404 as one that does not exist; tokens as the listing takes them", async () => {
    const { open, asked } = await serve();
    for (const [query, message] of [
      ["?repo=nope", /repo/],
      ["?repo=a/b&issue=0", /issue/],
      ["?issue=3", /exactly one/],
      ["?repo=a/b,c/d&issue=3", /exactly one/],
      ["?holder=not%20a%20login", /holder/],
      ["?last_event_id=abc", /Last-Event-ID/],
      [`?repo=${Array.from({ length: 21 }, (_, i) => `o/r${i}`).join(",")}`, /at most 20/],
    ] as const) {
      const c = await open(query);
      expect(c.status, query).toBe(400);
      expect(c.body.error.code).toBe("invalid_parameter");
      expect(c.body.error.message).toMatch(message);
    }
    expect((await open("", { "last-event-id": "-1" })).status).toBe(400);
    const hidden = await open("?repo=octo/secret");
    const missing = await open("?repo=octo/nothing");
    expect([hidden.status, missing.status]).toEqual([404, 404]);
    expect(hidden.body).toEqual(missing.body);
    expect((await open("?repo=octo/secret", { authorization: "Bearer carol-token" })).status).toBe(404);
    expect((await open("?repo=octo/secret", { authorization: "Bearer bob-token" })).status).toBe(200);
    // holder=@me needs an identity; a token GitHub refuses is 401, never read as anonymous.
    expect((await open("?holder=@me")).status).toBe(401);
    expect((await open("", { authorization: "Bearer not-a-token" })).status).toBe(401);
    expect((await open("", { authorization: "Basic Zm9vOmJhcg==" })).status).toBe(401);
    const down = await open("", { authorization: "Bearer github-down" });
    expect([down.status, down.headers["retry-after"]]).toEqual([502, "5"]);
    const flood = await open("", { authorization: "Bearer flood" });
    expect([flood.status, flood.headers["retry-after"]]).toEqual([429, "30"]);
    // Bad input never reached GitHub.
    expect(asked).toEqual(["carol-token", "bob-token", "not-a-token", "github-down", "flood"]);
  });

  it("caps the streams open per client address and in all (429), and frees a slot when a stream ends", async () => {
    const { open } = await serve({ env: { EVENTS_STREAMS_PER_ADDRESS: "2", EVENTS_STREAMS_MAX: "5" } });
    const [a, b] = [await open(), await open()];
    expect([a.status, b.status]).toEqual([200, 200]);
    const third = await open();
    expect(third.status).toBe(429);
    expect(third.body.error.code).toBe("too_many_streams");
    expect(third.headers["retry-after"]).toBe("10");
    a.close();
    await waitFor("the slot freed", async () => {
      const c = await open();
      if (c.status !== 200) return false;
      c.close();
      return true;
    }, 5_000);
    // A refused request (a bad token) gives its slot back.
    for (let i = 0; i < 3; i++) expect((await open("", { authorization: "Bearer not-a-token" })).status).toBe(401);
    await waitFor("one slot free again", async () => {
      const c = await open();
      return c.status === 200;
    }, 5_000);
  });

  it("a caller's streams (a token, a session) count against their account, wherever they come from, not against the address", async () => {
    const { open } = await serve({ env: { EVENTS_STREAMS_PER_ADDRESS: "1", EVENTS_STREAMS_PER_CALLER: "2", EVENTS_STREAMS_MAX: "10" } });
    expect((await open()).status).toBe(200);
    expect((await open()).status).toBe(429);
    const bob = [await open("", { authorization: "Bearer bob-token" }), await open("", { cookie: "session=bob" })];
    expect(bob.map((c) => c.status)).toEqual([200, 200]);
    const third = await open("", { authorization: "Bearer bob-token" });
    expect(third.status).toBe(429);
    expect(third.body.error).toMatchObject({ code: "too_many_streams", message: expect.stringContaining("for this account") });
    // Another account behind the same address.
    expect((await open("", { authorization: "Bearer carol-token" })).status).toBe(200);
    bob[0]!.close();
    await waitFor("bob's slot freed", async () => {
      const c = await open("", { authorization: "Bearer bob-token" });
      return c.status === 200;
    }, 5_000);
  });

  it("limits how often one address opens streams", async () => {
    const { open } = await serve({ perAddress: { perMinute: 60, burst: 2 } });
    expect((await open()).status).toBe(200);
    expect((await open()).status).toBe(200);
    const limited = await open();
    expect(limited.status).toBe(429);
    expect(limited.body.error.code).toBe("rate_limited");
  });

  it("sends `: keep-alive` comments between events, and ends every stream cleanly when the hub closes", async () => {
    const { hub, open } = await serve({ env: { EVENTS_HEARTBEAT_MS: "30" } });
    const c = await open();
    await waitFor("heartbeats", () => c.log.comments.filter((x) => x === "keep-alive").length >= 2, 5_000, 10);
    await hub.close();
    expect(await c.ended).toEqual({ cut: false });
    // Once closed, a new stream is 503: the client retries (on another replica).
    const late = await open();
    expect(late.status).toBe(503);
  });

  it("only GET", async () => {
    const { url } = await serve();
    const res = await fetch(url, { method: "POST" });
    expect([res.status, res.headers.get("allow")]).toEqual([405, "GET"]);
  });
});
