/**
 * The outbox at GitHub's pace: Probot's own Octokit (its throttling and retry
 * plugins on) against the fake GitHub on 127.0.0.1, the app's drainer and
 * sweeper loops running on the real clock.
 *
 * - A burst for one installation queues its writes behind the throttle for
 *   far longer than a request's time limit; the limit counts from when a
 *   request is sent, so nothing is aborted, retried or parked.
 * - An effect that takes longer than the outbox lock (a slow GitHub) keeps
 *   its lock while it runs: applied once, and its issue's order kept.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { SqliteLedger } from "../../src/ledger/sqlite/sqlite-ledger.js";
import { REQUEST_TIMEOUT_MS } from "../../src/github/timed-fetch.js";
import { commentPosts, FULL, labels, leaseLabels, replies } from "../e2e/issue-view.js";
import { type FakeGitHub, startFakeGitHub } from "../support/fake-github.js";
import { commentPayload, REPO, type UserSpec } from "../support/payloads.js";
import { APP_ID, type AppOnFake, startAppOnFake } from "../support/probot-on-fake.js";
import { waitFor } from "../support/server-process.js";

/** The SQLite ledger saying what PostgreSQL's does: other processes share it (label turns take the ledger's lock). */
class SharedSqliteLedger extends SqliteLedger {
  override readonly sharedByProcesses = true;
}

const person = (i: number): UserSpec => ({ login: `person-${i}`, id: 5000 + i, association: "CONTRIBUTOR" });

let fake: FakeGitHub;
let app: AppOnFake | undefined;
beforeEach(async () => {
  fake = await startFakeGitHub({ appId: APP_ID });
  // The payloads' repository by their id: the node ids they carry name the fake's records.
  fake.addRepo(FULL, { id: REPO.id });
});
afterEach(async () => {
  await app?.close();
  app = undefined;
  await fake.close();
});

/** Each outbox row: how many attempts it took, and its state. */
function outboxRows(a: AppOnFake): Array<{ issue: number; attempts: number; state: string }> {
  return a.ledger.db.prepare("SELECT issue, attempts, state FROM outbox ORDER BY id").all() as Array<{ issue: number; attempts: number; state: string }>;
}

describe.each(["graphql", "rest"] as const)("the outbox at GitHub's pace (GITHUB_WRITES=%s)", (writes) => {
  it("a burst of 200 commands on 100 issues of one installation: every reply and label lands once, at the first attempt, nothing aborted or parked", async () => {
    // The plugin's pacing 20 times faster (writes 50 ms apart, comments
    // 150 ms apart), and the request time limit scaled alike (1.5 s). A
    // claim and a `/lease` on each issue: the status replies are comments
    // only, so with 20 effects in flight the last comments wait in the
    // installation's queue about twice as long as that limit.
    const scale = 20;
    app = await startAppOnFake(fake, { writes, throttle: { scale }, requestTimeoutMs: REQUEST_TIMEOUT_MS / scale, sweepIntervalMs: 60_000 });
    const a = app;
    const issues = Array.from({ length: 100 }, (_, i) => i + 1);
    const holder = (n: number) => person(n % 25);
    const started = Date.now();
    await Promise.all(
      issues.map(async (n) => {
        await a.receive("issue_comment", commentPayload({ body: "/claim", author: holder(n), issue: n }));
        // A maintainer asking: not subject to the replies-per-hour limit.
        await a.receive("issue_comment", commentPayload({ body: "/lease", author: { ...person(99), association: "MEMBER" }, issue: n }));
      }),
    );

    await waitFor("every reply", () => issues.every((n) => replies(fake, n).length >= 2), 120_000, 50);
    await waitFor("an empty outbox", async () => (await a.ledger.outboxStats()).pending === 0, 30_000, 20);
    const drained = Date.now() - started;

    const posts = commentPosts(fake);
    for (const n of issues) {
      expect(replies(fake, n).map((r) => [r.op, r.outcome, r.holder, r.token])).toEqual([
        ["claim", "acquired", holder(n).login, 1],
        ["status", "status", holder(n).login, 1],
      ]);
      expect(posts.get(n)).toBe(2);
      expect(labels(fake, n)).toEqual(leaseLabels(holder(n).login, 1));
      expect(fake.assignees(FULL, n)).toEqual([holder(n).login]);
    }
    // No effect failed an attempt (an aborted request would have): each applied at its first.
    const rows = outboxRows(a);
    expect(rows).toHaveLength(200);
    expect(rows.filter((r) => r.attempts !== 1 || r.state !== "done")).toEqual([]);
    expect(await a.ledger.outboxStats()).toMatchObject({ pending: 0, parked: 0 });
    // Every write reached GitHub once and was taken: none refused, none sent twice.
    expect(fake.requests.filter((r) => r.method !== "GET" && r.status >= 400)).toEqual([]);
    // The pace was the throttle's: 200 comments 150 ms apart need 30 s at the least; GraphQL's POSTs (writes, 50 ms
    // apart: the notification lane is REST's comments') as many times 50 ms as were sent, fewer than 200 documents
    // when an issue's `/lease` waited behind its claim and went in the claim's document.
    const graphqlPosts = fake.requests.filter((r) => r.method === "POST" && r.path === "/graphql").length;
    expect(drained).toBeGreaterThanOrEqual(writes === "rest" ? 199 * (3000 / scale) : (graphqlPosts - 1) * (1000 / scale));
  }, 180_000);

  it("an effect that outlasts the outbox lock (a slow GitHub) keeps its lock: another replica does not take it; applied once, in order", async () => {
    // Two replicas on one ledger. Each request takes 150 ms; a claim's effect
    // makes 5 or 6, several times the 300 ms lock.
    fake.delayMs = 150;
    const dir = mkdtempSync(join(tmpdir(), "issue-leases-fence-"));
    const file = join(dir, "leases.db");
    const drainer = { lockMs: 300, pollMs: 20 };
    try {
      app = await startAppOnFake(fake, { writes, throttle: "off", ledger: new SharedSqliteLedger(file), drainer, sweepIntervalMs: 60_000 });
      const other = await startAppOnFake(fake, { writes, throttle: "off", ledger: new SharedSqliteLedger(file), drainer, sweepIntervalMs: 60_000 });
      try {
        for (const n of [1, 2, 3]) {
          await app.receive("issue_comment", commentPayload({ body: "/claim 2h", author: person(n), issue: n }));
          await other.receive("issue_comment", commentPayload({ body: "/lease", author: person(9), issue: n }));
          await app.receive("issue_comment", commentPayload({ body: "/release", author: person(n), issue: n }));
        }
        await waitFor("every reply", () => [1, 2, 3].every((n) => replies(fake, n).length >= 3), 60_000, 20);
        await waitFor("an empty outbox", async () => (await app!.ledger.outboxStats()).pending === 0, 30_000, 20);
        // Longer than the lock, yet each taken once: neither replica took an effect the other was applying.
        await new Promise((resolve) => setTimeout(resolve, 600));
        for (const n of [1, 2, 3]) {
          expect(replies(fake, n).map((r) => r.op)).toEqual(["claim", "status", "release"]);
          expect(commentPosts(fake).get(n)).toBe(3);
          expect(labels(fake, n)).toEqual([]);
        }
        expect(outboxRows(app).filter((r) => r.attempts !== 1 || r.state !== "done")).toEqual([]);
      } finally {
        await other.close();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 120_000);
});
