/**
 * GitHub's two layouts, with the real server: github.com's (REST at the
 * root, GraphQL at /graphql) and Enterprise Server's (REST under /api/v3,
 * GraphQL at /api/graphql, beside it). The fake serves each only where
 * GitHub does, so a request sent elsewhere fails the test. And a GraphQL
 * endpoint that answers 404 is a wrong address, not a gone issue: the
 * effect is parked, /health says why, and a restart at the right address
 * posts it.
 */
import { describe, expect, it } from "vitest";
import { startGitHubProxy } from "../support/github-proxy.js";
import { alice } from "../support/payloads.js";
import { logLines, waitFor } from "../support/server-process.js";
import { FULL, labels, leaseLabels, replies } from "./issue-view.js";
import { withLiveApp } from "./live-app.js";

const isMutation = (r: { path: string; body: unknown }) =>
  r.path === "/graphql" && /^\s*mutation\b/.test(String((r.body as { query?: unknown } | undefined)?.query));

describe.concurrent("GitHub's layouts", () => {
  for (const layout of ["enterprise", "github.com"] as const) {
    it(`in the ${layout} layout, a /claim's reply, labels and assignee are posted as GraphQL documents where GitHub serves them`, () =>
      withLiveApp(async (live) => {
        const { fake } = live;
        const server = await live.start({ GITHUB_WRITES: "graphql" });
        await live.comment(server, "/claim", alice);
        await waitFor("alice's lease on the issue", () => replies(fake, 1).length === 1 && labels(fake, 1).length === 3);
        await live.settled(server);
        expect(replies(fake, 1)[0]).toMatchObject({ op: "claim", outcome: "acquired", token: 1, holder: "alice" });
        expect(labels(fake, 1)).toEqual(leaseLabels("alice", 1));
        expect(fake.assignees(FULL, 1)).toEqual(["alice"]);
        expect(fake.requests.filter(isMutation).length).toBeGreaterThan(0);
        expect(fake.takeUnmatched()).toEqual([]);
        expect((await server.health()).body).toMatchObject({ status: "ok", outbox: { pending: 0, parked: 0 } });
      }, { layout }), 120_000);
  }

  it("a GraphQL endpoint that answers 404 parks the effect, /health and the metrics say why, and a restart at the right address posts it", () =>
    withLiveApp(async (live) => {
      const { fake } = live;
      // An Enterprise Server whose GraphQL endpoint is not where the app asks (a proxy in front of it that does not pass it).
      const proxy = await startGitHubProxy(fake);
      proxy.onRequest = (r) => (r.path.startsWith("/api/graphql") ? 404 : undefined);
      try {
        const broken = await live.start({ GITHUB_WRITES: "graphql", METRICS: "1" }, proxy);
        await live.comment(broken, "/claim", alice);
        const health = await waitFor("the effect parked", async () => {
          const h = await broken.health();
          return h.body.outbox.parked === 1 && h.body.outbox.pending === 0 && h;
        });
        expect(health.status).toBe(200);
        expect(health.body.status).toBe("degraded");
        expect(health.body.problems).toEqual([
          expect.objectContaining({ parked: 1, problem: expect.stringContaining(`GitHub's GraphQL endpoint answered 404 at http://${proxy.host}/api/graphql: check GHE_HOST`) }),
        ]);
        const errors = logLines(broken).filter((l) => /GraphQL endpoint/.test(String(l.msg)));
        expect(errors).toHaveLength(1);
        expect(errors[0]!.msg).toMatch(/check GHE_HOST, GHE_PROTOCOL and GITHUB_API_URL/);
        const metrics = await (await fetch(`${broken.url}/metrics`)).text();
        expect(metrics).toMatch(/issue_leases_effect_attempts_total\{kind="reflect",outcome="misconfigured"\} 1\b/);
        // Nothing reached the issue, and nothing was dropped.
        expect(replies(fake, 1)).toEqual([]);
        expect(labels(fake, 1)).toEqual([]);
        await broken.stop();

        // The address fixed, the app restarts on the same database: the parked effect is applied.
        proxy.onRequest = null;
        const fixed = await live.start({ GITHUB_WRITES: "graphql" }, proxy);
        await waitFor("alice's lease on the issue", () => replies(fake, 1).length === 1 && labels(fake, 1).length === 3);
        expect(replies(fake, 1)[0]).toMatchObject({ op: "claim", outcome: "acquired", token: 1, holder: "alice" });
        expect(fake.assignees(FULL, 1)).toEqual(["alice"]);
        await live.settled(fixed);
        expect((await fixed.health()).body).toMatchObject({ status: "ok", outbox: { parked: 0 } });
      } finally {
        await proxy.close();
      }
    }, { layout: "enterprise" }), 120_000);
});
