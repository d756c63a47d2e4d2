/**
 * The wait list through the HTTP API (issue 22), end to end: the real server
 * against the fake GitHub, every answer checked against the OpenAPI document.
 * `?wait=true` on a held issue answers 202 with the place; a DELETE by
 * someone waiting leaves the line; the holder's DELETE hands the lease to the
 * first in line, which GitHub shows with one reply mentioning them.
 */
import { describe, expect, it } from "vitest";
import { alice } from "../support/payloads.js";
import { FULL, labels, leaseLabels, replies } from "../e2e/issue-view.js";
import { type LiveApp, withLiveApp } from "../e2e/live-app.js";
import { call, leasePath } from "./api-calls.js";

const BOT = { token: "ghs_botTokenAAAAAAAAAAAAAAAAAAAAAAAAAAAA", login: "agent[bot]", id: 4001 };
const OTHER = { token: "ghp_otherTokenBBBBBBBBBBBBBBBBBBBBBBBBBB", login: "other-bot", id: 4002 };
const ALICE = { token: "ghp_aliceTokenCCCCCCCCCCCCCCCCCCCCCCCCCC", login: alice.login, id: alice.id };

function seed(live: LiveApp): void {
  live.fake.addRepo(FULL, { id: 186853002 });
  for (const t of [BOT, OTHER, ALICE]) live.fake.addToken(t.token, { login: t.login, id: t.id });
}

describe("The HTTP API's wait list", () => {
  it("?wait=true queues on a held issue (202), GET shows the line, DELETE by a waiter leaves it, the holder's DELETE hands it on", () =>
    withLiveApp(async (live) => {
      seed(live);
      const server = await live.start();
      const wait = `${leasePath(1)}?wait=true`;
      // On a free issue it is an ordinary claim.
      const held = await call(server, "POST", wait, { token: BOT.token, body: { ttl: "2h", instance: "w-1" } });
      expect(held.status).toBe(200);
      expect(held.body).toMatchObject({ outcome: "acquired", token: 1 });

      const first = await call(server, "POST", wait, { token: OTHER.token, body: { ttl: "3h" } });
      expect(first.status).toBe(202);
      expect(first.body).toMatchObject({ outcome: "queued", repo: FULL, issue: 1, position: 1, lease: { holder: { login: BOT.login, instance: "w-1" }, token: 1 } });
      expect(Date.parse(first.body.queued_until)).toBeGreaterThan(Date.now() + 23 * 3_600_000);
      const second = await call(server, "POST", wait, { token: ALICE.token });
      expect(second.body).toMatchObject({ outcome: "queued", position: 2 });
      // Asking again keeps the place.
      expect((await call(server, "POST", wait, { token: OTHER.token, body: { ttl: "3h" } })).body).toMatchObject({ position: 1 });
      // Without ?wait, a held issue is 409 as before, and no place is taken.
      expect((await call(server, "POST", leasePath(1), { token: OTHER.token })).status).toBe(409);

      const status = await call(server, "GET", leasePath(1), { token: ALICE.token });
      expect(status.body.queue).toEqual([
        expect.objectContaining({ login: OTHER.login, id: OTHER.id, instance: null, position: 1 }),
        expect.objectContaining({ login: ALICE.login, id: ALICE.id, instance: null, position: 2 }),
      ]);

      const left = await call(server, "DELETE", leasePath(1), { token: ALICE.token });
      expect(left.status).toBe(200);
      expect(left.body).toMatchObject({ outcome: "left_queue", repo: FULL, issue: 1, lease: { token: 1 } });

      const released = await call(server, "DELETE", `${leasePath(1)}?instance=w-1`, { token: BOT.token });
      expect(released.status).toBe(200);
      expect(released.body).toMatchObject({ outcome: "released", token: 1, handed_to: { holder: { login: OTHER.login, id: OTHER.id }, token: 2 } });

      await live.settled(server);
      expect(labels(live.fake, 1)).toEqual(leaseLabels(OTHER.login, 2));
      const posted = replies(live.fake, 1);
      expect(posted.map((r) => [r.op, r.outcome, r.holder])).toEqual([
        ["claim", "acquired", BOT.login],
        ["handoff", "acquired", OTHER.login],
      ]);
      expect(posted[1]!.body).toContain(`@${OTHER.login}, first in line, now holds this issue with lease token **2**`);
      const after = await call(server, "GET", leasePath(1), { token: ALICE.token });
      expect(after.body).toMatchObject({ holder: { login: OTHER.login }, token: 2, queue: [] });
      expect(live.fake.unmatched).toEqual([]);
    }), 120_000);

  it("refuses a malformed ?wait with 422 before asking GitHub", () =>
    withLiveApp(async (live) => {
      seed(live);
      const server = await live.start();
      const bad = await call(server, "POST", `${leasePath(1)}?wait=yes`, { token: BOT.token });
      expect(bad.status).toBe(422);
      expect(bad.body.error).toMatchObject({ code: "invalid_body", message: "`wait` must be `true` or `false`." });
    }), 120_000);
});
