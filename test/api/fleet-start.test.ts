/**
 * A fleet starts at once (issue 39, item 8), through the real server with
 * its default limits, every request from one address: twenty agents with
 * fresh tokens of their own, starting together, each hold an issue within
 * 2 s, none answered 429; and a thousand invalid tokens from that address
 * still cost GitHub no more identity look-ups than the limit on refused
 * tokens allows (API_UNKNOWN_TOKEN_LIMIT: a burst of 10, then 20 a minute),
 * the rest answered 429 with a Retry-After.
 */
import { describe, expect, it } from "vitest";
import type { FakeGitHub } from "../support/fake-github.js";
import { installationPayload, REPO } from "../support/payloads.js";
import type { ServerProcess } from "../support/server-process.js";
import { waitFor } from "../support/server-process.js";
import { FULL } from "../e2e/issue-view.js";
import { withLiveApp } from "../e2e/live-app.js";
import { type ApiAnswer, call } from "./api-calls.js";

const NEXT = `/api/v1/repos/${FULL}/leases/next`;
const FLEET = Array.from({ length: 20 }, (_, i) => ({ token: `ghp_fleet${String(i).padStart(2, "0")}Token${"F".repeat(26)}`, login: `fleet-${i}`, id: 8100 + i }));
const SCOUT = { token: `ghp_scoutToken${"S".repeat(26)}`, login: "scout", id: 8099 };
/** The default limit on refused tokens per address: a burst of 10, then 20 a minute. */
const BURST = 10;
const PER_MINUTE = 20;

function seed(fake: FakeGitHub): void {
  fake.addRepo(FULL, { id: REPO.id });
  for (let n = 1; n <= 30; n++) fake.addIssue(FULL, n, { title: `task ${n}`, labels: ["ready"] });
  for (const a of [SCOUT, ...FLEET]) fake.addToken(a.token, { login: a.login, id: a.id });
}

/** Installs the app and waits until `next` answers from the filled inventory (one known token: the server is warm). */
async function install(server: ServerProcess): Promise<void> {
  expect(await server.send("installation", installationPayload("created", [{ id: REPO.id, name: REPO.name }]))).toBe(200);
  await waitFor("the inventory filled", async () => (await call(server, "POST", NEXT, { token: SCOUT.token, body: { labels: ["no-such-label"] } })).status === 404, 30_000, 200);
}

const viewerLookups = (fake: FakeGitHub) => fake.requests.filter((r) => r.path.endsWith("/graphql")).length;

describe("a fleet behind one address", () => {
  it("twenty agents with fresh tokens, starting together, all hold an issue within 2 s, none answered 429", () =>
    withLiveApp(async (live) => {
      seed(live.fake);
      const server = await live.start();
      await install(server);
      const started = performance.now();
      const answers = await Promise.all(FLEET.map((a) => call(server, "POST", NEXT, { token: a.token, body: { labels: ["ready"] } })));
      const tookMs = performance.now() - started;
      console.log(`twenty fresh agents: all answered in ${Math.round(tookMs)} ms`);
      expect(answers.map((a) => a.status)).toEqual(FLEET.map(() => 200));
      expect(new Set(answers.map((a) => a.body.issue)).size).toBe(20);
      expect(answers.map((a) => a.body.holder.login)).toEqual(FLEET.map((a) => a.login));
      // The issue's goal; before, the tenth token on was answered 429 and the fleet waited about 30 s.
      expect(tookMs).toBeLessThan(2_000);
      expect(live.fake.unmatched).toEqual([]);
    }), 120_000);

  it("a thousand invalid tokens from one address ask GitHub no more than the limit on refused tokens allows; the rest are 429 with Retry-After", () =>
    withLiveApp(async (live) => {
      seed(live.fake);
      // The spray comes from an address of its own, behind the one proxy the server trusts.
      const server = await live.start({ TRUST_PROXY_HOPS: "1" });
      await install(server);
      const spray = { "x-forwarded-for": "203.0.113.7" };
      const before = viewerLookups(live.fake);
      const started = performance.now();
      const answers: ApiAnswer[] = [];
      // In waves of a hundred at once, as a spray would come.
      for (let wave = 0; wave < 10; wave++) {
        answers.push(
          ...(await Promise.all(
            Array.from({ length: 100 }, (_, i) => call(server, "POST", NEXT, { token: `ghp_invalid${wave}x${i}${"Z".repeat(20)}`, headers: spray, body: {} })),
          )),
        );
      }
      const elapsedMin = (performance.now() - started) / 60_000;
      const asked = viewerLookups(live.fake) - before;
      // What the limit allows: its burst, and what it refills while the spray lasts.
      const allowed = BURST + Math.floor(elapsedMin * PER_MINUTE);
      console.log(`1,000 invalid tokens: GitHub asked ${asked} times (allowed ${allowed}, in ${Math.round(elapsedMin * 60_000)} ms)`);
      expect(asked).toBeLessThanOrEqual(allowed);
      expect(asked).toBeGreaterThanOrEqual(BURST);
      const refused = answers.filter((a) => a.status === 401);
      const limited = answers.filter((a) => a.status === 429);
      expect(refused.length + limited.length).toBe(1000);
      // Each 401 is a token GitHub was asked about and refused; each 429 asked nothing, and says when to come back.
      expect(refused.length).toBe(asked);
      for (const a of limited) {
        expect(a.body.error.code).toBe("rate_limited");
        expect(Number(a.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
      }
      // A known token from the same address goes on.
      expect((await call(server, "POST", NEXT, { token: SCOUT.token, headers: spray, body: { labels: ["no-such-label"] } })).status).toBe(404);
      expect(live.fake.unmatched).toEqual([]);
    }), 120_000);
});
