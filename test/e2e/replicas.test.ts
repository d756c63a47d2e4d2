/**
 * Scale out: three real App processes (`probot run`) on one PostgreSQL
 * database, behind a load balancer played by the test (deliveries go to them
 * round-robin), sharing one fake GitHub. Each test has its own schema.
 *
 * What a single process could not show: one winner among concurrent claims
 * on different replicas, a delivery handled once although two replicas got
 * it, a dead replica's effects landed by the others, a database outage that
 * costs a 5xx and not the process, one sweeper among three.
 */
import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import { startGitHubProxy } from "../support/github-proxy.js";
import { alice, bob, INSTALLATION_ID, REPO, type UserSpec } from "../support/payloads.js";
import { logLines, sleep, waitFor } from "../support/server-process.js";
import { startTcpProxy } from "../support/tcp-proxy.js";
import { commentPosts, FULL, isWrite, labels, leaseLabels, replies } from "./issue-view.js";
import { E2E_WRITES } from "./live-app.js";
import { comment, historyOf, withCluster } from "./pg-cluster.js";

const carol: UserSpec = { login: "carol", id: 1005, association: "CONTRIBUTOR" };
const dave: UserSpec = { login: "dave", id: 1006, association: "CONTRIBUTOR" };

describe.concurrent("Several replicas on one PostgreSQL database", () => {
  // One path after the other: six replicas at once, beside the other tests'
  // own, take more connections than the server's max_connections allows.
  describe.sequential("on each path", () => {
    it.for(["rest", "graphql"] as const)("50 concurrent claims of one issue spread over three replicas: one acquired, 49 held, one tenure (GITHUB_WRITES=%s)", { timeout: 150_000 }, (writes) =>
      withCluster(async (c) => {
        const { fake } = c;
        // The payloads' repository by their id: the node ids they carry name the fake's records.
        fake.addRepo(FULL, { id: REPO.id });
        const replicas = await Promise.all([0, 1, 2].map(() => c.start({ GITHUB_WRITES: writes })));
        const users: UserSpec[] = Array.from({ length: 50 }, (_, i) => ({
          login: `user-${String(i + 1).padStart(2, "0")}`,
          id: 5001 + i,
          association: "CONTRIBUTOR",
        }));
        // Each delivery comes from an installation of its own, which changes
        // nothing in the ledger (a lease is keyed by repository and issue) but
        // frees the test from GitHub's pace. The 50 replies are one issue's
        // effects, applied strictly one after another, and Probot spaces an
        // installation's comments 3 s apart in each process: that is 150 s with
        // one installation, and still 100 s with one per replica, since the
        // claims commit in runs from the same replica and the replica that
        // applied one effect is the first awake to take the next.
        const statuses = await Promise.all(
          users.map((u, i) => replicas[i % 3]!.send("issue_comment", comment("/claim", u, 1, INSTALLATION_ID + i))),
        );
        expect(statuses).toEqual(users.map(() => 200));

        await waitFor("50 replies", () => replies(fake, 1).length >= 50, 90_000, 250);
        await c.settled(replicas[0]!);
        const r = replies(fake, 1);
        expect(r).toHaveLength(50);
        expect(new Set(r.map((x) => x.ref)).size).toBe(50);
        expect(commentPosts(fake).get(1)).toBe(50);
        const winner = r[0]!.holder!;
        // Effects of one issue land in the order of the decisions, whichever replica applies them.
        expect(r[0]).toMatchObject({ op: "claim", outcome: "acquired", token: 1 });
        expect(r.filter((x) => x.outcome === "acquired")).toHaveLength(1);
        expect(r.filter((x) => x.outcome === "held")).toHaveLength(49);
        expect(r.every((x) => x.token === 1 && x.holder === winner)).toBe(true);
        expect(labels(fake, 1)).toEqual(leaseLabels(winner, 1));
        expect(fake.assignees(FULL, 1)).toEqual([winner]);

        // The ledger agrees: 50 decisions, one tenure.
        const rows = await historyOf(c, 1);
        expect(rows).toHaveLength(50);
        expect(new Set(rows.map((x) => x.delivery)).size).toBe(50);
        expect(rows.map((x) => x.outcome)).toEqual(["acquired", ...Array<string>(49).fill("held")]);
        expect(rows.every((x) => x.op === "acquire" && x.token === 1 && x.holder_login === winner)).toBe(true);
        expect(await c.query("SELECT holder_login, token::int AS token FROM $S.leases WHERE issue = 1")).toEqual([
          { holder_login: winner, token: 1 },
        ]);
        for (const s of replicas) expect(logLines(s)).toEqual([]);
      }));
  });

  it("one delivery sent to two replicas at once: handled once", () =>
    withCluster(async (c) => {
      const { fake } = c;
      const replicas = await Promise.all([0, 1, 2].map(() => c.start()));
      const people = [alice, bob, carol];
      const ids = people.map(() => randomUUID());
      // Three deliveries, each to a different pair of replicas at the same moment.
      const statuses = await Promise.all(
        people.flatMap((who, k) => {
          const payload = comment("/claim", who, k + 1);
          return [replicas[k]!, replicas[(k + 1) % 3]!].map((s) => s.send("issue_comment", payload, { id: ids[k] }));
        }),
      );
      // The copy that lost the race is a duplicate, answered 200 as well: GitHub need not redeliver it.
      expect(statuses).toEqual([200, 200, 200, 200, 200, 200]);

      await waitFor("every reply", () => [1, 2, 3].every((n) => replies(fake, n).length >= 1 && labels(fake, n).length === 3), 60_000);
      await c.settled(replicas[0]!);
      for (const [k, who] of people.entries()) {
        const n = k + 1;
        expect(replies(fake, n)).toHaveLength(1);
        expect(replies(fake, n)[0]).toMatchObject({ outcome: "acquired", token: 1, holder: who.login });
        expect(commentPosts(fake).get(n)).toBe(1);
        expect(labels(fake, n)).toEqual(leaseLabels(who.login, 1));
        const rows = await historyOf(c, n);
        expect(rows).toEqual([{ issue: n, op: "acquire", outcome: "acquired", holder_login: who.login, token: 1, delivery: ids[k] }]);
      }
      expect(await c.query("SELECT count(*)::int AS n FROM $S.outbox")).toEqual([{ n: 3 }]);
      // Both copies reached the ledger: one decided, the other found its delivery id taken.
      const handled = replicas.flatMap((s) => logLines(s, 30).filter((l) => l.msg === "command"));
      for (const id of ids) {
        expect(handled.filter((l) => l.delivery === id).map((l) => l.duplicate).sort()).toEqual([false, true]);
      }
    }), 120_000);

  it("a replica killed with -9 holding effects, one reply posted but unrecorded: the others land the rest, none twice", () =>
    withCluster(async (c) => {
      const { fake } = c;
      const proxy = await startGitHubProxy(fake);
      try {
        // The default OUTBOX_LOCK_MS (20 s): a live replica extends the locks of
        // the effects it applies, so a dead one's effects go to another within it.
        const env = {};
        const doomed = await c.start(env, { github: proxy });
        const [b, d] = [await c.start(env), await c.start(env)];

        await b.send("issue_comment", comment("/claim", alice, 1));
        await waitFor("alice's lease", () => replies(fake, 1).length === 1 && labels(fake, 1).length === 3, 30_000);
        await c.settled(b);

        // The doomed replica alone takes the next effects: the others are
        // frozen. GitHub does its writes, but their answers never come back.
        let stuck = 0;
        proxy.onResponse = (r) => {
          if (!isWrite(r)) return;
          stuck += 1;
          return new Promise<never>(() => undefined);
        };
        b.kill("SIGSTOP");
        d.kill("SIGSTOP");
        try {
          // Bob's claim first, alone, until its reply is on GitHub and unanswered:
          // effects taken in one pass may reach GitHub in any order.
          expect(await doomed.send("issue_comment", comment("/claim", bob, 1))).toBe(200);
          await waitFor("bob's reply posted, unanswered", () => stuck === 1 && replies(fake, 1).length === 2, 30_000);
          for (const [who, n] of [[carol, 2], [dave, 3]] as const) {
            expect(await doomed.send("issue_comment", comment("/claim", who, n))).toBe(200);
          }
          // REST: carol's labels get through too before they hang (bob's reply
          // was his only write). Labels are added in the repository's label
          // turn, so dave's wait behind carol's.
          // GraphQL: a whole document is sent in the repository's turn, so
          // carol's and dave's wait behind bob's, which hangs.
          const stuckWrites = E2E_WRITES === "rest" ? 2 : 1;
          await waitFor(`${stuckWrites} write(s) done, unanswered`, () => stuck === stuckWrites, 30_000);
          expect(replies(fake, 1)).toHaveLength(2);
          await waitFor(
            "the doomed replica holding all three effects",
            async () => {
              const [row] = await c.query<{ taken: number }>(
                `SELECT count(*)::int AS taken FROM $S.outbox
                 WHERE state = 'pending' AND locked_until > (extract(epoch from clock_timestamp()) * 1000)::bigint`,
              );
              return row!.taken === 3;
            },
            30_000,
          );
          expect(stuck).toBe(stuckWrites);
          doomed.kill("SIGKILL");
          expect((await doomed.exited).signal).toBe("SIGKILL");
        } finally {
          b.kill("SIGCONT");
          d.kill("SIGCONT");
        }

        await waitFor("every reply", () => replies(fake, 2).length >= 1 && replies(fake, 3).length >= 1, 60_000);
        await c.settled(b);
        // Bob's reply is not posted again: the replica that took the effect over saw its marker.
        expect(replies(fake, 1).map((x) => [x.outcome, x.holder])).toEqual([["acquired", "alice"], ["held", "alice"]]);
        expect(new Set(replies(fake, 1).map((x) => x.ref)).size).toBe(2);
        expect(commentPosts(fake).get(1)).toBe(2);
        for (const [who, n] of [[carol, 2], [dave, 3]] as const) {
          expect(replies(fake, n)).toHaveLength(1);
          expect(replies(fake, n)[0]).toMatchObject({ outcome: "acquired", token: 1, holder: who.login });
          expect(commentPosts(fake).get(n)).toBe(1);
          expect(labels(fake, n)).toEqual(leaseLabels(who.login, 1));
          expect(fake.assignees(FULL, n)).toEqual([who.login]);
        }
        expect(labels(fake, 1)).toEqual(leaseLabels("alice", 1));
        // All three were taken twice: by the dead replica, then by a survivor.
        expect(await c.query("SELECT issue::int AS issue, attempts, state FROM $S.outbox WHERE issue > 1 OR attempts > 1 ORDER BY id")).toEqual([
          { issue: 1, attempts: 2, state: "done" },
          { issue: 2, attempts: 2, state: "done" },
          { issue: 3, attempts: 2, state: "done" },
        ]);
        for (const s of [b, d]) expect(logLines(s)).toEqual([]);
      } finally {
        await proxy.close();
      }
    }), 150_000);

  it("the database down: the webhook answers 5xx and /health 503, the process lives, and recovers when it is back", () =>
    withCluster(async (c) => {
      const { fake } = c;
      const url = new URL(c.db.connectionString);
      const link = await startTcpProxy({ host: url.hostname, port: Number(url.port || 5432) });
      try {
        url.port = String(link.port);
        const server = await c.start({}, { databaseUrl: url.toString() });
        let alive = true;
        void server.exited.then(() => (alive = false));
        expect((await server.health()).status).toBe(200);

        link.cut();
        const delivery = randomUUID();
        const payload = comment("/claim", alice, 1);
        const status = await server.send("issue_comment", payload, { id: delivery });
        expect(status).toBeGreaterThanOrEqual(500);
        const health = await server.health();
        expect(health.status).toBe(503);
        expect(health.body).toMatchObject({ status: "database unreachable", database: false });
        // The background loops meet the outage too (the drainer polls every second, the sweeper is due).
        await sleep(1500);
        expect(alive).toBe(true);
        expect((await server.health()).status).toBe(503);

        link.restore();
        await waitFor("/health 200", async () => (await server.health()).status === 200, 30_000, 200);
        // GitHub redelivers the delivery that failed: it was not half-recorded.
        expect(await server.send("issue_comment", payload, { id: delivery })).toBe(200);
        await waitFor("alice's lease", () => replies(fake, 1).length === 1 && labels(fake, 1).length === 3, 30_000);
        await c.settled(server);
        expect(replies(fake, 1)[0]).toMatchObject({ outcome: "acquired", token: 1, holder: "alice" });
        expect(await historyOf(c, 1)).toEqual([
          { issue: 1, op: "acquire", outcome: "acquired", holder_login: "alice", token: 1, delivery },
        ]);
        expect(alive).toBe(true);
        expect(logLines(server, 60)).toEqual([]);
      } finally {
        await link.close();
      }
    }), 120_000);

  it("three replicas sweeping: one sweeps, and an expired lease gets one expire reply", () =>
    withCluster(async (c) => {
      const { fake } = c;
      fake.setConfigFile(FULL, ".github/issue-leases.yml", "min_ttl: 1s\n");
      const env = { SWEEP_INTERVAL_MS: "250" };
      const replicas = await Promise.all([0, 1, 2].map(() => c.start(env)));
      await replicas[1]!.send("issue_comment", comment("/claim 2s", alice, 1));
      await waitFor("the expire reply", () => replies(fake, 1).some((x) => x.op === "expire"), 30_000);
      await c.settled(replicas[0]!);
      // A few more sweeps on every replica: nothing more to end.
      await sleep(1500);
      await c.settled(replicas[0]!);

      expect(replies(fake, 1).map((x) => [x.op, x.outcome, x.token])).toEqual([
        ["claim", "acquired", 1],
        ["expire", "expired", 1],
      ]);
      expect(commentPosts(fake).get(1)).toBe(2);
      expect(labels(fake, 1)).toEqual([]);
      expect((await historyOf(c, 1)).map((x) => [x.op, x.outcome, x.token])).toEqual([
        ["acquire", "acquired", 1],
        ["expire", "expired", 1],
      ]);
      // The sweep lock: one replica sweeps while it lives; the others never did.
      const sweeping = (await Promise.all(replicas.map((s) => s.health()))).filter((h) => h.body.last_sweep !== null);
      expect(sweeping).toHaveLength(1);
    }), 90_000);
});
