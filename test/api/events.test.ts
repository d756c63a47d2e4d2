/**
 * Lease events of the HTTP API, end to end (the real server against the fake
 * GitHub): a claim and a release through the API write lease.acquired and
 * lease.released with cause `api` and the installation GitHub named; a
 * heartbeat (renewal) lease.renewed; a comment's claim keeps cause `command`.
 */
import { describe, expect, it } from "vitest";
import { alice, INSTALLATION_ID, REPO } from "../support/payloads.js";
import { waitFor } from "../support/server-process.js";
import { FULL, replies } from "../e2e/issue-view.js";
import { events } from "../e2e/ledger-file.js";
import { withLiveApp } from "../e2e/live-app.js";
import { call, leasePath } from "./api-calls.js";

/** The installation the fake GitHub answers for the repository (its default), which the API asks for; comments' payloads carry INSTALLATION_ID. */
const FAKE_INSTALLATION = 1;
const BOT = { token: "ghs_eventsBotTokenAAAAAAAAAAAAAAAAAAAAAAA", login: "agent[bot]", id: 4301 };

describe("lease events of the API", () => {
  it("an API claim, heartbeat and release: cause api, the installation's seq going up; a comment's claim: cause command", () =>
    withLiveApp(async (live) => {
      live.fake.addRepo(FULL, { id: REPO.id });
      live.fake.addToken(BOT.token, { login: BOT.login, id: BOT.id });
      const server = await live.start();
      expect((await call(server, "POST", leasePath(1), { token: BOT.token, body: { ttl: "2h", instance: "w-1" } })).status).toBe(200);
      expect((await call(server, "PATCH", leasePath(1), { token: BOT.token, body: { ttl: "2h", instance: "w-1" } })).status).toBe(200);
      expect((await call(server, "DELETE", `${leasePath(1)}?instance=w-1`, { token: BOT.token })).status).toBe(200);
      await live.comment(server, "/claim", alice, 2);
      await waitFor("alice's reply", () => replies(live.fake, 2).length === 1);

      expect(events(live.dbFile).map((e) => [e.seq, e.installation, e.issue, e.type, e.holder, e.actor, e.cause])).toEqual([
        [1, FAKE_INSTALLATION, 1, "lease.acquired", BOT.login, BOT.login, "api"],
        [2, FAKE_INSTALLATION, 1, "lease.renewed", BOT.login, BOT.login, "api"],
        [3, FAKE_INSTALLATION, 1, "lease.released", BOT.login, BOT.login, "api"],
        // Another installation's first event: its own sequence.
        [1, INSTALLATION_ID, 2, "lease.acquired", "alice", "alice", "command"],
      ]);
      await live.settled(server);
    }), 120_000);
});
