/**
 * The outbox's promise under GitHub's real pace and real faults, on
 * PostgreSQL with several real replicas (issue 9): a replica killed while
 * GitHub fails its effect, a reply GitHub posted but answered 502, and the
 * database away for 20 s (reset or partitioned) in the middle of a drain and
 * of deliveries. Each test bounds how long the outcome may take and
 * counts that everything lands exactly once.
 */
import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import { startGitHubProxy } from "../support/github-proxy.js";
import { alice, type UserSpec } from "../support/payloads.js";
import { type ServerProcess, sleep, waitFor } from "../support/server-process.js";
import { startTcpProxy } from "../support/tcp-proxy.js";
import { commentPosts, FULL, isWrite, labels, leaseLabels, postsComment, replies } from "./issue-view.js";
import { E2E_WRITES } from "./live-app.js";
import { comment, historyOf, withCluster } from "./pg-cluster.js";

const carol: UserSpec = { login: "carol", id: 1005, association: "CONTRIBUTOR" };

/** `n` distinct contributors, so that no per-user limit applies. */
const people = (n: number, from = 1): UserSpec[] =>
  Array.from({ length: n }, (_, i) => ({ login: `user-${String(from + i).padStart(2, "0")}`, id: 7000 + from + i, association: "CONTRIBUTOR" }));

/** Whether `p` has settled (a process that exited). */
async function settledYet(p: Promise<unknown>): Promise<boolean> {
  return Promise.race([p.then(() => true), sleep(0).then(() => false)]);
}

describe.concurrent("The outbox on PostgreSQL under real faults", () => {
  it("a replica killed with -9 while GitHub fails its effect: another lands it within 30 s, once", () =>
    withCluster(async (c) => {
      const { fake } = c;
      const proxy = await startGitHubProxy(fake);
      try {
        // The default OUTBOX_LOCK_MS (20 s), not set: what a deployment gets.
        const doomed = await c.start({}, { github: proxy });
        const [b, d] = [await c.start(), await c.start()];

        // A first lease, so that the repository has its labels and every replica is warm.
        expect(await b.send("issue_comment", comment("/claim", alice, 1))).toBe(200);
        await waitFor("alice's lease", () => replies(fake, 1).length === 1 && labels(fake, 1).length === 3, 30_000);
        await c.settled(b);

        // From now on GitHub fails every write of the doomed replica with a
        // 502 (nothing reaches GitHub); its reads still answer. The others are
        // frozen, so the doomed replica alone takes carol's effect.
        const failed: string[] = [];
        proxy.onRequest = (r) => {
          if (!isWrite(r) || !/\/repos\/|\/graphql/.test(r.path)) return;
          failed.push(`${r.method} ${r.path}`);
          return 502;
        };
        b.kill("SIGSTOP");
        d.kill("SIGSTOP");
        let killedAt: number;
        try {
          expect(await doomed.send("issue_comment", comment("/claim", carol, 2))).toBe(200);
          // REST: the first write and Octokit's first retry of it (1 s later)
          // failed; the next retry waits 4 s: the attempt is in flight, its lock
          // held. GraphQL: a document is never retried blindly, so its one
          // failure ends the attempt, and the effect waits out its backoff.
          const failures = E2E_WRITES === "rest" ? 2 : 1;
          await waitFor(`${failures} failed write(s)`, () => failed.length >= failures, 30_000);
          const [row] = await c.query<{ state: string; attempts: number; locked: boolean }>(
            `SELECT state, attempts, locked_until > (extract(epoch from clock_timestamp()) * 1000)::bigint AS locked
             FROM $S.outbox WHERE issue = 2`,
          );
          expect(row).toMatchObject(E2E_WRITES === "rest" ? { state: "pending", attempts: 1, locked: true } : { state: "pending", attempts: 1 });
          killedAt = Date.now();
          doomed.kill("SIGKILL");
          expect((await doomed.exited).signal).toBe("SIGKILL");
        } finally {
          b.kill("SIGCONT");
          d.kill("SIGCONT");
        }
        // Nothing of carol's lease reached GitHub through the doomed replica.
        expect(replies(fake, 2)).toEqual([]);
        expect(labels(fake, 2)).toEqual([]);

        // Waited for generously; asserted strictly below.
        await waitFor(
          "carol's reply and labels",
          () => replies(fake, 2).length >= 1 && labels(fake, 2).length === 3 && fake.assignees(FULL, 2).length === 1,
          60_000,
          100,
        );
        const landedMs = Date.now() - killedAt;
        console.log(`kill -9 to carol's reply and labels on GitHub: ${landedMs} ms (failed writes: ${failed.join(", ")})`);
        expect(landedMs).toBeLessThan(30_000);

        await c.settled(b);
        expect(replies(fake, 2)).toHaveLength(1);
        expect(replies(fake, 2)[0]).toMatchObject({ op: "claim", outcome: "acquired", token: 1, holder: "carol" });
        expect(commentPosts(fake).get(2)).toBe(1);
        expect(labels(fake, 2)).toEqual(leaseLabels("carol", 1));
        expect(fake.assignees(FULL, 2)).toEqual(["carol"]);
        expect(replies(fake, 1)).toHaveLength(1);
        expect(labels(fake, 1)).toEqual(leaseLabels("alice", 1));
        // Taken twice: by the dead replica, then by a survivor once the lock expired.
        expect(await c.query("SELECT issue::int AS issue, state, attempts FROM $S.outbox ORDER BY id")).toEqual([
          { issue: 1, state: "done", attempts: 1 },
          { issue: 2, state: "done", attempts: 2 },
        ]);
        expect((await historyOf(c, 2)).map((x) => [x.op, x.outcome, x.holder_login, x.token])).toEqual([["acquire", "acquired", "carol", 1]]);
        for (const s of [b, d]) expect((await s.health()).body.outbox).toMatchObject({ pending: 0, parked: 0 });
      } finally {
        await proxy.close();
      }
    }), 120_000);

  it("GitHub posts a reply but answers 502: the reply is not posted again", () =>
    withCluster(async (c) => {
      const { fake } = c;
      const proxy = await startGitHubProxy(fake);
      try {
        const server = await c.start({}, { github: proxy });
        // The reply's first POST (or the first document with its addComment) reaches GitHub, which posts it; the app hears 502.
        let posts = 0;
        proxy.onResponse = (r) => {
          if (postsComment(r) && ++posts === 1) return 502;
        };
        expect(await server.send("issue_comment", comment("/claim", alice, 1))).toBe(200);
        await waitFor("alice's reply and labels", () => replies(fake, 1).length >= 1 && labels(fake, 1).length === 3, 30_000);
        await c.settled(server);
        // Give a blind re-POST (3 s apart by the throttle) time to show.
        await sleep(4_000);
        expect(commentPosts(fake).get(1)).toBe(1);
        expect(replies(fake, 1)).toHaveLength(1);
        expect(replies(fake, 1)[0]).toMatchObject({ op: "claim", outcome: "acquired", token: 1, holder: "alice" });
        expect(await c.query("SELECT state, attempts FROM $S.outbox")).toEqual([{ state: "done", attempts: 2 }]);
      } finally {
        await proxy.close();
      }
    }), 90_000);

  // "cut": the host is gone, connections reset. "stall": a partition, nothing
  // passes but nothing resets, so queries and connects hang until timeouts.
  it.for(["cut", "stall"] as const)("PostgreSQL away for 20 s (%s) mid-drain and mid-delivery: 500s and 503s, no exit, then everything lands once", { timeout: 150_000 }, (mode) =>
    withCluster(async (c) => {
      const { fake } = c;
      const url = new URL(c.db.connectionString);
      const link = await startTcpProxy({ host: url.hostname, port: Number(url.port || 5432) });
      try {
        url.port = String(link.port);
        const replicas = [await c.start({}, { databaseUrl: url.toString() }), await c.start({}, { databaseUrl: url.toString() })];
        const exited = replicas.map((s) => s.exited);
        // GitHub slow as well as throttled: effects are in flight when the link is cut.
        fake.delayMs = 300;

        const users = people(12);
        const ids = users.map(() => randomUUID());
        const payloads = users.map((u, i) => comment("/claim", u, i + 1));
        const statuses: number[] = [];
        const deliver = async (i: number): Promise<{ status: number; ms: number }> => {
          const t = Date.now();
          const status = await replicas[i % 2]!.send("issue_comment", payloads[i]!, { id: ids[i] });
          statuses[i] = status;
          return { status, ms: Date.now() - t };
        };

        // Six claims queued; the drain is under way (a first reply landed) when the link goes.
        for (let i = 0; i < 6; i++) expect((await deliver(i)).status).toBe(200);
        await waitFor("a first reply", () => [1, 2, 3, 4, 5, 6].some((n) => replies(fake, n).length > 0), 30_000);

        // Three deliveries on their way when the link goes: committed (200) or not (500).
        const racing = [6, 7, 8].map((i) => deliver(i));
        await sleep(15);
        const cutAt = Date.now();
        if (mode === "cut") link.cut();
        else link.stall();
        // Mid-drain: some of the six had not landed yet.
        const landedAtCut = [1, 2, 3, 4, 5, 6].filter((n) => replies(fake, n).length > 0).length;
        expect(landedAtCut).toBeLessThan(6);

        // While it is away: every delivery answered 500 (never Probot's 202)
        // within 9 s, /health 503. Sent over the outage, concurrently: a
        // stalled one takes up to the 7 s deadline.
        const at = (ms: number) => sleep(Math.max(0, cutAt + ms - Date.now()));
        const healthMs: number[] = [];
        const healthAt = async (ms: number) => {
          await at(ms);
          for (const h of await Promise.all(
            replicas.map(async (s) => {
              const t = Date.now();
              const h = await s.health();
              healthMs.push(Date.now() - t);
              return h;
            }),
          )) {
            expect(h.status).toBe(503);
            expect(h.body).toMatchObject({ status: "database unreachable", database: false });
          }
        };
        const [raced, during] = await Promise.all([
          Promise.all(racing),
          // The last is a redelivery during the outage: it fares no better.
          Promise.all(([[1_000, 9], [4_000, 10], [7_000, 11], [11_000, 9]] as const).map(([ms, i]) => at(ms).then(() => deliver(i)))),
          ...[2_000, 8_000, 14_000, 17_500].map(healthAt),
        ]);
        for (const r of raced) {
          expect([200, 500]).toContain(r.status);
          expect(r.ms).toBeLessThan(9_000);
        }
        expect(during.map((r) => r.status)).toEqual([500, 500, 500, 500]);
        for (const r of during) expect(r.ms).toBeLessThan(9_000);
        // Out to 20 s: the drainer's and the sweeper's retries meet the outage as well.
        await at(20_000);
        for (const e of exited) expect(await settledYet(e)).toBe(false);

        link.restore();
        const restoredAt = Date.now();
        await waitFor("/health 200 on every replica", async () => (await Promise.all(replicas.map((s) => s.health()))).every((h) => h.status === 200), 15_000, 100);
        const healthyMs = Date.now() - restoredAt;
        console.log(
          `${mode} ${restoredAt - cutAt} ms; answers at the cut: ${raced.map((r) => `${r.status} in ${r.ms} ms`).join(", ")}; ` +
            `during it: ${during.map((r) => `${r.status} in ${r.ms} ms`).join(", ")}; /health during it: ${healthMs.join(", ")} ms; ` +
            `/health 200 ${healthyMs} ms after the restore; replies landed at the cut: ${landedAtCut} of 6`,
        );

        // GitHub redelivers what failed, with the same delivery id: answered 200 now.
        const failedIds = statuses.flatMap((s, i) => (s === 500 ? [i] : []));
        expect(failedIds).toEqual(expect.arrayContaining([9, 10, 11]));
        for (const i of failedIds) expect((await deliver(i)).status).toBe(200);

        const issues = users.map((_, i) => i + 1);
        await waitFor(
          "every reply and every label",
          () => issues.every((n) => replies(fake, n).length >= 1 && labels(fake, n).length === 3 && fake.assignees(FULL, n).length === 1),
          60_000,
          250,
        );
        await c.settled(replicas[0]!);
        for (const [i, u] of users.entries()) {
          const n = i + 1;
          expect(replies(fake, n)).toHaveLength(1);
          expect(replies(fake, n)[0]).toMatchObject({ op: "claim", outcome: "acquired", token: 1, holder: u.login });
          expect(commentPosts(fake).get(n)).toBe(1);
          expect(labels(fake, n)).toEqual(leaseLabels(u.login, 1));
          expect(fake.assignees(FULL, n)).toEqual([u.login]);
          // One decision per delivery, whichever copy of it got through.
          expect(await historyOf(c, n)).toEqual([
            { issue: n, op: "acquire", outcome: "acquired", holder_login: u.login, token: 1, delivery: ids[i] },
          ]);
        }
        expect(await c.query("SELECT state, count(*)::int AS n FROM $S.outbox GROUP BY state")).toEqual([{ state: "done", n: 12 }]);
        const attempts = await c.query<{ issue: number; attempts: number }>("SELECT issue::int AS issue, attempts FROM $S.outbox WHERE attempts > 1 ORDER BY issue");
        console.log(`effects taken again after the outage: ${JSON.stringify(attempts)}`);
        for (const s of replicas) expect((await s.health()).body.outbox).toMatchObject({ pending: 0, parked: 0 });
        for (const e of exited) expect(await settledYet(e)).toBe(false);
      } finally {
        await link.close();
      }
    }));
});
