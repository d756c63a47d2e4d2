/**
 * A bot's account is shared by every installation of its app:
 * `github-actions[bot]` (41898282) is every workflow's `GITHUB_TOKEN`, in
 * every repository of every owner. The real server against the fake GitHub,
 * with two such tokens, each of its own installation (reaching its own
 * repository): the second sees the first's public lease and its instance,
 * and can still neither end, renew, verify nor take it, nor end a place in
 * line, nor use up the first's rate limit or stream slots.
 */
import { describe, expect, it } from "vitest";
import { FULL } from "../e2e/issue-view.js";
import { history } from "../e2e/ledger-file.js";
import { withLiveApp } from "../e2e/live-app.js";
import { openEvents, type SseClient } from "../support/sse.js";
import { call, leasePath } from "./api-calls.js";
import { checkAnswer } from "./openapi-check.js";

const WORKFLOW = { login: "github-actions[bot]", id: 41898282, type: "Bot" as const };
const ELSEWHERE = "someone-else/tools";
/** The workflow of the repository whose issue is leased. */
const VICTIM = { ...WORKFLOW, token: "ghs_victimRunTokenAAAAAAAAAAAAAAAAAAAAAAA", installation: 1, repos: [FULL] };
/** Another owner's workflow: the same account, its own installation. */
const ATTACKER = { ...WORKFLOW, token: "ghs_attackerRunTokenBBBBBBBBBBBBBBBBBBBBB", installation: 2, repos: [ELSEWHERE] };

describe("a lease held through a shared bot account", () => {
  it("a token of another installation of github-actions[bot] cannot release, renew, verify or take the lease, nor end a place in line, nor empty its rate limit or stream slots", () =>
    withLiveApp(async (live) => {
      const { fake } = live;
      fake.addRepo(ELSEWHERE);
      for (const t of [VICTIM, ATTACKER]) fake.addToken(t.token, t);
      const server = await live.start({ API_RATE_LIMIT: "6", API_RATE_BURST: "10", EVENTS_STREAMS_PER_CALLER: "2" });
      const as = (who: { token: string }, method: string, path: string, body?: unknown) => call(server, method, path, { token: who.token, body });
      const refusal = (r: { status: number; body: any }) => [r.status, r.body.error?.code, r.body.error?.reason];

      const claimed = await as(VICTIM, "POST", leasePath(1), { ttl: "1h", instance: "victim-1" });
      expect(claimed.body).toMatchObject({ outcome: "acquired", holder: { login: WORKFLOW.login, id: WORKFLOW.id, instance: "victim-1" }, token: 1 });

      // The lease is public, its instance too: the other workflow reads both.
      expect((await as(ATTACKER, "GET", leasePath(1))).body).toMatchObject({ holder: { id: WORKFLOW.id, instance: "victim-1" }, token: 1 });
      // And with them can do nothing to it.
      const release = await as(ATTACKER, "DELETE", `${leasePath(1)}?instance=victim-1`);
      expect(refusal(release)).toEqual([403, "forbidden", "blocked"]);
      expect(release.body.error.message).toContain(`This installation token does not reach ${FULL}`);
      expect(refusal(await as(ATTACKER, "PATCH", leasePath(1), { ttl: "1h", instance: "victim-1" }))).toEqual([403, "forbidden", "blocked"]);
      expect(refusal(await as(ATTACKER, "POST", leasePath(1), { ttl: "1h", instance: "victim-1" }))).toEqual([403, "forbidden", "blocked"]);
      const verified = await as(ATTACKER, "POST", `${leasePath(1)}/verify`, { token: 1, instance: "victim-1" });
      expect([verified.status, verified.body.valid]).toEqual([409, false]);
      // Nor on a place in line the holder's workflow keeps for another of its jobs.
      expect((await call(server, "POST", `${leasePath(1)}?wait=true`, { token: VICTIM.token, body: { instance: "victim-2" } })).body).toMatchObject({
        outcome: "queued",
        position: 1,
      });
      expect(refusal(await as(ATTACKER, "DELETE", `${leasePath(1)}?instance=victim-2`))).toEqual([403, "forbidden", "blocked"]);
      expect((await as(VICTIM, "GET", leasePath(1))).body.queue).toMatchObject([{ instance: "victim-2", position: 1 }]);
      expect((await as(VICTIM, "DELETE", `${leasePath(1)}?instance=victim-2`)).body).toMatchObject({ outcome: "left_queue" });
      // Its own repository's issues it leases as ever.
      expect((await as(ATTACKER, "POST", leasePath(7, ELSEWHERE), { ttl: "1h", instance: "attacker-1" })).body).toMatchObject({ outcome: "acquired" });

      // The holder's lease is untouched: still valid, renewed by its own workflow.
      const mine = await as(VICTIM, "POST", `${leasePath(1)}/verify`, { token: 1, instance: "victim-1" });
      expect([mine.status, mine.body.valid]).toEqual([200, true]);
      expect((await as(VICTIM, "PATCH", leasePath(1), { ttl: "1h", instance: "victim-1" })).body).toMatchObject({ outcome: "renewed", token: 1 });

      // The other workflow empties its own rate limit; the holder's heartbeat still goes through.
      let limited = false;
      for (let i = 0; i < 20 && !limited; i++) limited = (await as(ATTACKER, "GET", leasePath(7, ELSEWHERE))).status === 429;
      expect(limited).toBe(true);
      expect((await as(VICTIM, "PATCH", leasePath(1), { ttl: "1h", instance: "victim-1" })).body).toMatchObject({ outcome: "renewed", token: 1 });

      // It fills its own stream slots; the holder's stream (its revocation) still opens.
      const streams: SseClient[] = [];
      const stream = async (who: { token: string }) => {
        const c = await openEvents(`${server.url}/api/v1/events?repo=${FULL}`, { authorization: `Bearer ${who.token}` });
        streams.push(c);
        if (c.status !== 200) checkAnswer("GET", "/api/v1/events", c.status, c.body);
        return c;
      };
      try {
        expect([(await stream(ATTACKER)).status, (await stream(ATTACKER)).status]).toEqual([200, 200]);
        const full = await stream(ATTACKER);
        expect([full.status, full.body.error.code]).toEqual([429, "too_many_streams"]);
        expect((await stream(VICTIM)).status).toBe(200);
      } finally {
        for (const c of streams) c.close();
      }

      expect((await as(VICTIM, "DELETE", `${leasePath(1)}?instance=victim-1`)).body).toMatchObject({ outcome: "released", token: 1 });
      // The ledger shows the holder's workflow only: its tenure, ended by itself, and its place in line; nothing of the other's.
      expect(history(live.dbFile).filter((h) => h.issue === 1).map((h) => `${h.op}:${h.outcome}`)).toEqual([
        "acquire:acquired",
        "acquire:queued",
        "release:left_queue",
        "renew:renewed",
        "renew:renewed",
        "release:released",
      ]);
      expect(fake.unmatched).toEqual([]);
      const output = server.stdout() + server.stderr();
      for (const t of [VICTIM, ATTACKER]) expect(output).not.toContain(t.token);
    }), 120_000);
});
