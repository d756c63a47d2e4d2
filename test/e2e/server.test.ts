/**
 * The GitHub App as GitHub runs it: `probot run` in its own process,
 * receiving signed deliveries over HTTP and applying its effects to a fake
 * GitHub through Probot's real Octokit (auth, retry, throttling).
 */
import { describe, expect, it } from "vitest";
import { alice, bob, commentPayload } from "../support/payloads.js";
import { logLines, startSetupServer, waitFor } from "../support/server-process.js";
import { commentPosts, FULL, labels, leaseLabels, repoLabelNames, replies } from "./issue-view.js";
import { E2E_WRITES, withLiveApp } from "./live-app.js";

describe.concurrent("The GitHub App", () => {
  it("refuses to start with a known default webhook secret, saying how to fix it", () =>
    withLiveApp(async (live) => {
      await expect(live.start({ WEBHOOK_SECRET: "development" })).rejects.toThrow(/WEBHOOK_SECRET is "development".*openssl rand -hex 32/s);
    }));

  it("claim, held, renew, release and a second claim show on the issue, one reply each", () =>
    withLiveApp(async (live) => {
      const { fake } = live;
      const server = await live.start();

      await live.comment(server, "/claim", alice);
      await waitFor("alice's lease on the issue", () => replies(fake, 1).length === 1 && labels(fake, 1).length === 3);
      expect(labels(fake, 1)).toEqual(leaseLabels("alice", 1));
      expect(fake.assignees(FULL, 1)).toEqual(["alice"]);
      expect(replies(fake, 1)[0]).toMatchObject({ op: "claim", outcome: "acquired", token: 1, holder: "alice" });
      // The app creates `claimed` with its own colour and description rather than GitHub's grey default.
      const claimed = fake.repoLabels(FULL).find((l) => l.name === "claimed");
      expect(claimed?.color).not.toBe("ededed");
      expect(claimed?.description).toBeTruthy();

      await live.comment(server, "/claim", bob);
      await waitFor("the held reply", () => replies(fake, 1).length === 2);
      const held = replies(fake, 1)[1]!;
      expect(held).toMatchObject({ op: "claim", outcome: "held", token: 1, holder: "alice" });
      expect(held.body).toContain("alice");
      expect(fake.assignees(FULL, 1)).toEqual(["alice"]);

      await live.comment(server, "/renew 3d", alice);
      await waitFor("the renewed reply", () => replies(fake, 1).length === 3);
      expect(replies(fake, 1)[2]).toMatchObject({ op: "renew", outcome: "renewed", token: 1, holder: "alice" });
      expect(labels(fake, 1)).toEqual(leaseLabels("alice", 1));

      await live.comment(server, "/release", alice);
      await waitFor("the released reply", () => replies(fake, 1).length === 4);
      await live.settled(server);
      expect(replies(fake, 1)[3]).toMatchObject({ op: "release", outcome: "released", token: 1, holder: "alice" });
      expect(labels(fake, 1)).toEqual([]);
      expect(fake.assignees(FULL, 1)).toEqual([]);
      // Holder and token labels no lease uses are deleted from the repository, not left to pile up: at once on REST;
      // on GraphQL after lingering a day (LABEL_LINGER_S), so that a claim that calls for them again is one document.
      const lingering = E2E_WRITES === "graphql";
      expect(["lease #1", "claimed-by: alice"].map((name) => repoLabelNames(fake).includes(name))).toEqual([lingering, lingering]);
      expect(repoLabelNames(fake)).toContain("claimed");

      const delivery = "0b0b0b0b-0000-4000-8000-000000000001";
      await live.comment(server, "/claim", bob, 1, delivery);
      await waitFor("bob's lease", () => replies(fake, 1).length === 5 && labels(fake, 1).includes("lease #2"));
      await live.settled(server);
      expect(replies(fake, 1)[4]).toMatchObject({ op: "claim", outcome: "acquired", token: 2, holder: "bob" });
      expect(labels(fake, 1)).toEqual(leaseLabels("bob", 2));
      expect(fake.assignees(FULL, 1)).toEqual(["bob"]);

      // GitHub redelivers a delivery it thinks failed: same id, nothing new happens.
      await live.comment(server, "/claim", bob, 1, delivery);
      await live.settled(server);
      expect(replies(fake, 1)).toHaveLength(5);
      expect(commentPosts(fake).get(1)).toBe(5);
      expect(fake.unmatched).toEqual([]);
      expect(logLines(server)).toEqual([]);
    }), 120_000);

  it("rejects a delivery signed with the wrong secret, or not signed, and changes nothing", () =>
    withLiveApp(async (live) => {
      const { fake } = live;
      const server = await live.start();
      const forged = await server.send("issue_comment", commentPayload({ body: "/claim", author: bob }), { secret: "not-the-secret" });
      expect(forged).toBeGreaterThanOrEqual(400);
      expect(forged).toBeLessThan(500);
      const unsigned = await fetch(`${server.url}/api/github/webhooks`, {
        method: "POST",
        headers: { "content-type": "application/json", "x-github-event": "issue_comment", "x-github-delivery": "unsigned-1" },
        body: JSON.stringify(commentPayload({ body: "/claim", author: bob })),
      });
      expect(unsigned.status).toBeGreaterThanOrEqual(400);
      expect(unsigned.status).toBeLessThan(500);

      const health = (await server.health()).body;
      expect(health.outbox.pending).toBe(0);
      expect(fake.requests).toEqual([]);

      // No ledger row either: the first real claim gets the first token, and it is alice's, not bob's.
      await live.comment(server, "/claim", alice);
      await waitFor("alice's lease", () => replies(fake, 1).length === 1 && labels(fake, 1).length === 3);
      expect(replies(fake, 1)[0]).toMatchObject({ outcome: "acquired", token: 1, holder: "alice" });
      expect(labels(fake, 1)).toEqual(leaseLabels("alice", 1));
    }), 60_000);

  it("GET /health reports the database, the outbox and the last sweep", () =>
    withLiveApp(async (live) => {
      const { fake } = live;
      const server = await live.start();
      const first = await waitFor("a first sweep", async () => {
        const h = await server.health();
        return h.body.last_sweep !== null && h;
      });
      expect(first.status).toBe(200);
      expect(first.body).toMatchObject({
        status: "ok",
        database: true,
        outbox: { pending: 0, parked: 0, oldest_pending_age_ms: null, paused_installations: 0 },
        last_sweep: { expired: 0, reminded: 0 },
      });
      expect(Date.parse(first.body.last_sweep.at)).toBeGreaterThan(Date.now() - 60_000);

      // A command's effect is in the outbox until GitHub has it (a claim's
      // four writes take seconds behind the throttle).
      await live.comment(server, "/claim", alice);
      const busy = (await server.health()).body;
      expect(busy.outbox.pending).toBe(1);
      expect(busy.outbox.oldest_pending_age_ms).toBeGreaterThanOrEqual(0);
      await live.settled(server);
      expect(replies(fake, 1)).toHaveLength(1);
    }), 60_000);

  it("without APP_ID, `probot run` serves Probot's setup page instead of the app", async () => {
    const server = await startSetupServer();
    try {
      const root = await fetch(`${server.url}/`, { redirect: "manual" });
      await root.arrayBuffer();
      expect(root.status).toBe(302);
      expect(root.headers.get("location")).toBe("/probot");
      const page = await fetch(`${server.url}/probot`);
      expect(page.status).toBe(200);
      expect(page.headers.get("content-type")).toContain("text/html");
      const html = await page.text();
      expect(html).toMatch(/GitHub App/);
      expect(html).toContain("issue-leases");
    } finally {
      await server.stop();
    }
  }, 60_000);

  it("in production, refuses to start without APP_ID", async () => {
    await expect(startSetupServer({ NODE_ENV: "production" })).rejects.toThrow(/App ID is missing/);
  }, 60_000);
});
