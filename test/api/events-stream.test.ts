/**
 * GET /api/v1/events end to end: the real server (`npm start`) on a real
 * SQLite ledger against the fake GitHub, leases changed by signed comment
 * deliveries and by the HTTP API, streams read over HTTP as an EventSource
 * reads them. Two clients get every event, a reconnect with Last-Event-ID
 * misses nothing and repeats nothing, a private repository's events reach
 * only a token that may read it, a client that does not read holds nobody
 * up, the heartbeat arrives, and a shutdown ends the streams cleanly.
 */
import { describe, expect, it } from "vitest";
import { alice, bob, carol, commentIn, full, PUBLIC, SECRET, withBoard, type BoardWorld } from "../dashboard/board-world.js";
import { type SseClient, openEvents } from "../support/sse.js";
import { call, leasePath } from "./api-calls.js";
import { checkAnswer } from "./openapi-check.js";

const BOT = { token: "ghs_streamBotTokenAAAAAAAAAAAAAAAAAAAAAAA", login: "agent[bot]", id: 4001 };

/**
 * A delivery from the public repository that changes no lease: the app has
 * now seen in a webhook that it is public (as the installation's own events
 * show it in production). Until then its events count as private.
 */
async function seePublic(w: BoardWorld): Promise<void> {
  expect(await w.server.send("issue_comment", commentIn(PUBLIC, { body: "Thanks!", author: carol, issue: 99, title: "Chat" }))).toBe(200);
}

/** Opens a stream on the world's server; an answer that is not a stream is checked against the OpenAPI document. */
async function stream(w: BoardWorld, query = "", headers: Record<string, string> = {}): Promise<SseClient> {
  const c = await openEvents(`${w.server.url}/api/v1/events${query}`, headers);
  if (c.status !== 200) checkAnswer("GET", "/api/v1/events", c.status, c.body);
  return c;
}

const summary = (c: SseClient) => c.log.events.map((e) => `${e.event} ${e.data.repo}#${e.data.issue} ${e.data.holder.login}`);

describe.concurrent("the event stream over the real server", () => {
  it("two clients both get every event in order; a reconnect with Last-Event-ID gets exactly what it missed, then the live ones", () =>
    withBoard(async (w) => {
      w.fake.addToken(BOT.token, BOT);
      await seePublic(w);
      const [a, b] = [await stream(w), await stream(w)];
      expect([a.status, b.status]).toEqual([200, 200]);
      const api = (method: string, issue: number, body?: unknown) => call(w.server, method, leasePath(issue, full(PUBLIC)), { token: BOT.token, body });

      expect((await api("POST", 1, { ttl: "2h", instance: "w1" })).body.outcome).toBe("acquired");
      expect((await api("PATCH", 1, { ttl: "3h", instance: "w1" })).body.outcome).toBe("renewed");
      await w.claim(PUBLIC, 2, alice, "Two");
      expect((await call(w.server, "DELETE", `${leasePath(1, full(PUBLIC))}?instance=w1`, { token: BOT.token })).body.outcome).toBe("released");
      await Promise.all([a.waitForEvents(4), b.waitForEvents(4)]);
      const repo = full(PUBLIC);
      expect(summary(a)).toEqual([
        `lease.acquired ${repo}#1 agent[bot]`,
        `lease.renewed ${repo}#1 agent[bot]`,
        `lease.acquired ${repo}#2 alice`,
        `lease.released ${repo}#1 agent[bot]`,
      ]);
      expect(b.log.events).toEqual(a.log.events);
      expect(a.log.events[0]!.data).toMatchObject({ holder: { login: BOT.login, id: BOT.id, instance: "w1" }, token: 1, actor: { login: BOT.login, id: BOT.id } });
      expect(a.log.events.map((e) => e.data.cause)).toEqual(["api", "api", "command", "api"]);
      // Ids only go up, and each event's id is its `id:`.
      const ids = a.log.ids;
      expect([...ids].sort((x, y) => x - y)).toEqual(ids);
      expect(new Set(ids).size).toBe(4);
      for (const e of a.log.events) expect(e.data.id).toBe(e.id);

      // b goes away; three changes while it is gone; it comes back with the last id it got.
      b.close();
      expect((await api("POST", 3, { ttl: "1h" })).body.outcome).toBe("acquired");
      expect(await w.server.send("issue_comment", commentIn(PUBLIC, { body: "/renew 5h", author: alice, issue: 2, title: "Two" }))).toBe(200);
      expect((await api("POST", 1, { ttl: "1h" })).body.outcome).toBe("acquired");
      await a.waitForEvents(7);
      const back = await stream(w, "", { "last-event-id": b.log.events.at(-1)!.id });
      await back.waitForEvents(3);
      expect((await api("DELETE", 3)).body.outcome).toBe("released");
      await Promise.all([a.waitForEvents(8), back.waitForEvents(4)]);
      expect([...b.log.ids, ...back.log.ids]).toEqual(a.log.ids);
      expect(back.log.events).toEqual(a.log.events.slice(4));
      expect(back.log.notices).toEqual([]);
      // A client that cannot set headers resumes with ?last_event_id=.
      const byQuery = await stream(w, `?last_event_id=${a.log.ids[5]}`);
      await byQuery.waitForEvents(2);
      expect(byQuery.log.ids).toEqual(a.log.ids.slice(6));
      for (const c of [a, back, byQuery]) c.close();
      expect(w.fake.unmatched).toEqual([]);
    }), 120_000);

  it("a private repository's events never reach an anonymous client; they reach a token that may read it, and holder=@me is the caller's own", () =>
    withBoard(async (w) => {
      w.fake.addToken("ghu_bob_token", { login: "bob", id: bob.id });
      w.fake.addToken("ghu_carol_token", { login: "carol", id: carol.id });
      const anonymous = await stream(w);
      const bobs = await stream(w, "", { authorization: "Bearer ghu_bob_token" });
      // carol's token sees no installation: what anyone sees.
      const carols = await stream(w, "", { authorization: "Bearer ghu_carol_token" });
      const mine = await stream(w, "?holder=@me", { authorization: "Bearer ghu_bob_token" });
      await w.claim(PUBLIC, 1, alice, "Public work");
      await w.claim(SECRET, 2, bob, "Secret plan");
      await w.claim(PUBLIC, 3, bob, "Public, bob's");
      await bobs.waitForEvents(3);
      await Promise.all([anonymous.waitForEvents(2), carols.waitForEvents(2), mine.waitForEvents(2)]);
      expect(summary(bobs)).toEqual([
        `lease.acquired ${full(PUBLIC)}#1 alice`,
        `lease.acquired ${full(SECRET)}#2 bob`,
        `lease.acquired ${full(PUBLIC)}#3 bob`,
      ]);
      expect(anonymous.log.events).toEqual([bobs.log.events[0], bobs.log.events[2]]);
      expect(carols.log.events).toEqual(anonymous.log.events);
      expect(mine.log.events).toEqual(bobs.log.events.slice(1));
      // A replay shows the same: nothing of the private repository, not even its name.
      const replayed = await stream(w, "?last_event_id=0");
      await replayed.waitForEvents(2);
      expect(replayed.log.events).toEqual(anonymous.log.events);
      for (const c of [anonymous, carols, replayed]) {
        const raw = JSON.stringify(c.log.frames);
        for (const secret of [SECRET.name, String(SECRET.id), "Secret plan"]) expect(raw).not.toContain(secret);
      }
      // Asking for it by name is answered as for a repository that does not exist; a token that may read it gets it.
      const hidden = await stream(w, `?repo=${full(SECRET)}`);
      const missing = await stream(w, `?repo=${SECRET.owner}/no-such-repo`);
      expect([hidden.status, hidden.body]).toEqual([missing.status, missing.body]);
      expect(hidden.status).toBe(404);
      expect((await stream(w, `?repo=${full(SECRET)}`, { authorization: "Bearer ghu_carol_token" })).status).toBe(404);
      const secretOnly = await stream(w, `?repo=${full(SECRET)}&last_event_id=0`, { authorization: "Bearer ghu_bob_token" });
      await secretOnly.waitForEvents(1);
      expect(secretOnly.log.events).toEqual([bobs.log.events[1]]);
      expect((await stream(w, "?holder=@me")).status).toBe(401);
      expect((await stream(w, "", { authorization: "Bearer not-a-token" })).status).toBe(401);
      for (const c of [bobs, mine, secretOnly]) c.close();
      expect(w.fake.unmatched).toEqual([]);
    }), 120_000);

  it("a client that does not read holds up no other; heartbeats arrive; a bad parameter is 400; filters narrow", () =>
    withBoard(
      async (w) => {
        w.fake.addToken(BOT.token, BOT);
        await seePublic(w);
        const slow = await stream(w);
        slow.pause();
        const fast = await stream(w);
        const one = await stream(w, `?repo=${full(PUBLIC)}&issue=4`);
        for (let n = 1; n <= 12; n++) {
          expect((await call(w.server, "POST", leasePath(n, full(PUBLIC)), { token: BOT.token, body: { ttl: "1h" } })).body.outcome).toBe("acquired");
          // Each change reaches the reading client while the other reads nothing.
          await fast.waitForEvents(n, 15_000);
        }
        await one.waitForEvents(1);
        expect(one.log.events.map((e) => e.data.issue)).toEqual([4]);
        expect(fast.log.comments).toContain("keep-alive");
        expect(slow.log.events.length).toBeLessThanOrEqual(12);
        for (const [query, code] of [
          ["?repo=not-a-repo", "invalid_parameter"],
          ["?issue=4", "invalid_parameter"],
          ["?last_event_id=-3", "invalid_parameter"],
        ] as const) {
          const bad = await stream(w, query);
          expect([bad.status, bad.body.error.code]).toEqual([400, code]);
        }
        for (const c of [slow, fast, one]) c.close();
      },
      { EVENTS_HEARTBEAT_MS: "200", API_RATE_LIMIT: "0" },
    ), 120_000);

  it("SIGTERM ends every stream cleanly, and the process exits", () =>
    withBoard(async (w) => {
      const c = await stream(w);
      await w.claim(PUBLIC, 1, alice, "One");
      await c.waitForEvents(1);
      w.server.kill("SIGTERM");
      expect(await c.ended).toEqual({ cut: false });
      expect((await w.server.exited).code).toBe(0);
    }), 120_000);
});
