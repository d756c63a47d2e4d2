/**
 * The outbox's promise under GitHub's real pace and real faults, on
 * PostgreSQL with several real replicas (issue 9): a replica killed while
 * GitHub fails its effect, and the database away for 20 s in the middle of a
 * drain and of deliveries. Each test bounds how long the outcome may take and
 * counts that everything lands exactly once.
 */
import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import { startGitHubProxy } from "../support/github-proxy.js";
import { alice, type UserSpec } from "../support/payloads.js";
import { type ServerProcess, sleep, waitFor } from "../support/server-process.js";
import { startTcpProxy } from "../support/tcp-proxy.js";
import { commentPosts, FULL, labels, leaseLabels, replies } from "./issue-view.js";
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
          if (r.method === "GET" || !/\/repos\//.test(r.path)) return;
          failed.push(`${r.method} ${r.path}`);
          return 502;
        };
        b.kill("SIGSTOP");
        d.kill("SIGSTOP");
        let killedAt: number;
        try {
          expect(await doomed.send("issue_comment", comment("/claim", carol, 2))).toBe(200);
          // The first write and Octokit's first retry of it (1 s later) failed;
          // the next retry waits 4 s: the attempt is in flight, its lock held.
          await waitFor("two failed writes", () => failed.length >= 2, 30_000);
          const [row] = await c.query<{ state: string; attempts: number; locked: boolean }>(
            `SELECT state, attempts, locked_until > (extract(epoch from clock_timestamp()) * 1000)::bigint AS locked
             FROM $S.outbox WHERE issue = 2`,
          );
          expect(row).toEqual({ state: "pending", attempts: 1, locked: true });
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
});
