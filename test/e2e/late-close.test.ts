/**
 * Issue 37: a close that GitHub delivers late, after the issue was reopened,
 * released and claimed again, all within the close's second (as bots act).
 * The real server over HTTP with signed deliveries, on SQLite and on
 * PostgreSQL, several times each: the close's stamp (`closed_at`, whole
 * seconds) cannot say whether it came before the new claim, so the app asks
 * GitHub (the fake here), which shows the issue open again.
 */
import { describe, expect, it } from "vitest";
import type { FakeGitHub } from "../support/fake-github.js";
import { alice, bob, commentPayload, issuesPayload, maintainer, type UserSpec } from "../support/payloads.js";
import { type ServerProcess, sleep } from "../support/server-process.js";
import { FULL, labels, leaseLabels, replies } from "./issue-view.js";
import { history } from "./ledger-file.js";
import { withLiveApp } from "./live-app.js";
import { historyOf, withCluster } from "./pg-cluster.js";

/** Each on an issue of its own, one server: enough for the close to fall in the claim's second in most. */
const TIMES = 5;

interface Store {
  fake: FakeGitHub;
  server: ServerProcess;
  settled(): Promise<void>;
  /** The issue's history, oldest first, as `op/outcome/token`. */
  history(issue: number): Promise<string[]>;
}

async function comment(s: Store, body: string, author: UserSpec, issue: number): Promise<void> {
  expect(await s.server.send("issue_comment", commentPayload({ body, author, issue }))).toBe(200);
}

/** Waits for the next second of the clock: what follows falls in one second of GitHub's stamps. */
async function startOfASecond(): Promise<void> {
  await sleep(1000 - (Date.now() % 1000));
}

/** alice claims; then in one second the issue is closed (its delivery held back) and reopened, alice releases, bob claims; then the close arrives. */
async function closeHeldBack(s: Store, issue: number): Promise<void> {
  await comment(s, "/claim", alice, issue);
  await startOfASecond();
  const closedAt = Date.now();
  s.fake.addIssue(FULL, issue, { state: "closed" });
  const close = issuesPayload("closed", { issue, at: closedAt, sender: maintainer });
  s.fake.addIssue(FULL, issue, { state: "open" });
  expect(await s.server.send("issues", issuesPayload("reopened", { issue, at: Date.now(), sender: maintainer }))).toBe(200);
  await comment(s, "/release", alice, issue);
  await comment(s, "/claim", bob, issue);
  expect(await s.server.send("issues", close)).toBe(200);
}

async function lateCloses(s: Store): Promise<void> {
  const issues = Array.from({ length: TIMES }, (_, i) => i + 1);
  for (const issue of issues) await closeHeldBack(s, issue);

  // The counterpart: closed in the second alice's lease began, and still closed on GitHub, the close ends it.
  const closedNow = TIMES + 1;
  await comment(s, "/claim", alice, closedNow);
  s.fake.addIssue(FULL, closedNow, { state: "closed" });
  expect(await s.server.send("issues", issuesPayload("closed", { issue: closedNow, at: Date.now(), sender: maintainer }))).toBe(200);

  // All at once, so that a failure shows how many of the times the close ended bob's lease.
  const late = ["acquire/acquired/1", "release/released/1", "acquire/acquired/2", "force_release/stale/2"];
  const seen = await Promise.all(issues.map(async (issue) => [issue, await s.history(issue)] as const));
  expect(Object.fromEntries(seen)).toEqual(Object.fromEntries(issues.map((issue) => [issue, late])));
  expect(await s.history(closedNow)).toEqual(["acquire/acquired/1", "force_release/released/1"]);

  // On GitHub: bob's lease shows, and the late close posted nothing.
  await s.settled();
  for (const issue of issues) {
    expect(labels(s.fake, issue)).toEqual(leaseLabels("bob", 2));
    expect(replies(s.fake, issue).map((r) => `${r.op}/${r.outcome}/${r.holder}/${r.token}`)).toEqual([
      "claim/acquired/alice/1",
      "release/released/alice/1",
      "claim/acquired/bob/2",
    ]);
  }
  expect(labels(s.fake, closedNow)).toEqual([]);
  expect(replies(s.fake, closedNow).map((r) => `${r.op}/${r.outcome}`)).toEqual(["claim/acquired", "release/released"]);
}

const row = (r: { op: string; outcome: string; token: number | null }) => `${r.op}/${r.outcome}/${r.token}`;

describe.concurrent("a close delivered late, after a reopen and a new claim in its second", () => {
  it(`SQLite: leaves the new lease alone, ${TIMES} times; a close GitHub still shows ends the lease`, () =>
    withLiveApp(async (live) => {
      const server = await live.start();
      await lateCloses({
        fake: live.fake,
        server,
        settled: () => live.settled(server, 120_000),
        history: async (issue) => history(live.dbFile).filter((r) => r.issue === issue).map(row),
      });
    }), 240_000);

  it(`PostgreSQL: leaves the new lease alone, ${TIMES} times; a close GitHub still shows ends the lease`, () =>
    withCluster(async (c) => {
      const server = await c.start();
      await lateCloses({
        fake: c.fake,
        server,
        settled: () => c.settled(server, 120_000),
        history: async (issue) => (await historyOf(c, issue)).map(row),
      });
    }), 240_000);
});
