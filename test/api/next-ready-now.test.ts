/**
 * "Ready" means ready, at once (issue 39, item 7), through the real server
 * and the fake GitHub, with GitHub's payload shapes built from the fake's
 * own issue JSON: an issue blocked by an `issue_dependencies` delivery is
 * skipped by `next` at once, and ready again at once when the relation is
 * removed or its last blocker closes (an `issues.closed` of the blocker: the
 * app reads what it blocked); a parent given an open sub-issue by a
 * `sub_issues` delivery is skipped, and ready once its sub-issue closes. A
 * repository whose inventory was never filled starts its fill on the first
 * `next`, which answers 503 with a Retry-After after which `next` answers an
 * issue.
 */
import { describe, expect, it } from "vitest";
import type { FakeGitHub } from "../support/fake-github.js";
import { installationPayload, issueDependenciesPayload, issuesPayload, REPO, subIssuesPayload } from "../support/payloads.js";
import type { ServerProcess } from "../support/server-process.js";
import { sleep, waitFor } from "../support/server-process.js";
import { FULL } from "../e2e/issue-view.js";
import { withLiveApp } from "../e2e/live-app.js";
import { call } from "./api-calls.js";

const NEXT = `/api/v1/repos/${FULL}/leases/next`;
const AGENT = { token: `ghp_readyAgentToken${"R".repeat(21)}`, login: "ready-agent", id: 8301 };
const READY = { labels: ["ready"] };

/** GitHub's issue JSON, as the fake's REST answers it now (the app's installation token may read any). */
async function issueJson(fake: FakeGitHub, n: number): Promise<Record<string, any>> {
  const res = await fetch(`${fake.baseUrl}/repos/${FULL}/issues/${n}`, { headers: { authorization: "token ghs_test" } });
  expect(res.status).toBe(200);
  return (await res.json()) as Record<string, any>;
}

/** An `issues.closed` delivery of issue `n` as GitHub shows it now (the fake's JSON in GitHub's example's envelope). */
async function closed(server: ServerProcess, fake: FakeGitHub, n: number): Promise<void> {
  fake.addIssue(FULL, n, { state: "closed" });
  expect(await server.send("issues", { ...issuesPayload("closed", { issue: n }), issue: await issueJson(fake, n) })).toBe(200);
}

const take = async (server: ServerProcess) => call(server, "POST", NEXT, { token: AGENT.token, body: { ...READY, instance: `w-${Math.random()}` } });

describe("ready means ready, at once", () => {
  it("an issue blocked by an issue_dependencies delivery is skipped at once, and ready at once when unblocked or its last blocker closes; the same for a parent of an open sub-issue", () =>
    withLiveApp(async (live) => {
      const { fake } = live;
      fake.addRepo(FULL, { id: REPO.id });
      for (let n = 1; n <= 7; n++) fake.addIssue(FULL, n, { title: `task ${n}`, labels: ["ready"] });
      fake.addToken(AGENT.token, AGENT);
      const server = await live.start();
      expect(await server.send("installation", installationPayload("created", [{ id: REPO.id, name: REPO.name }]))).toBe(200);
      await waitFor("the inventory filled", async () => (await call(server, "POST", NEXT, { token: AGENT.token, body: { labels: ["none"] } })).status === 404, 30_000, 200);

      // #4 blocks #1 (sent for the blocked issue) and #2 (sent for the blocker); #6 is a sub-issue of #5.
      fake.addIssue(FULL, 1, { blockedBy: [{ issue: 4 }] });
      fake.addIssue(FULL, 2, { blockedBy: [{ issue: 4 }] });
      fake.addIssue(FULL, 6, { parent: { issue: 5 } });
      const four = await issueJson(fake, 4);
      expect(await server.send("issue_dependencies", issueDependenciesPayload("blocked_by_added", { blocked: await issueJson(fake, 1), blocking: four }))).toBe(200);
      expect(await server.send("issue_dependencies", issueDependenciesPayload("blocking_added", { blocked: await issueJson(fake, 2), blocking: four }))).toBe(200);
      expect(await server.send("sub_issues", subIssuesPayload("sub_issue_added", { parent: await issueJson(fake, 5), sub: await issueJson(fake, 6) }))).toBe(200);

      // Oldest first, the blocked issues and the parent passed over: 3, 4, 6, 7, then nothing.
      const taken: number[] = [];
      for (let i = 0; i < 4; i++) taken.push((await take(server)).body.issue);
      expect(taken).toEqual([3, 4, 6, 7]);
      const none = await take(server);
      expect([none.status, none.body.error.code, none.body.matched]).toEqual([404, "nothing_ready", 4]);

      // #2's relation removed: ready at once.
      fake.addIssue(FULL, 2, { blockedBy: [] });
      expect(await server.send("issue_dependencies", issueDependenciesPayload("blocked_by_removed", { blocked: await issueJson(fake, 2), blocking: await issueJson(fake, 4) }))).toBe(200);
      expect((await take(server)).body.issue).toBe(2);

      // #4, #1's last blocker, closes: GitHub sends no event for #1; the app reads what #4 blocked.
      await closed(server, fake, 4);
      expect(fake.requests.filter((r) => r.path.endsWith(`/repos/${FULL}/issues/4/dependencies/blocking`))).toHaveLength(1);
      expect((await take(server)).body.issue).toBe(1);

      // #6, #5's one sub-issue, closes: the app reads the parent.
      await closed(server, fake, 6);
      expect((await take(server)).body.issue).toBe(5);
      expect((await take(server)).status).toBe(404);
      expect(fake.unmatched).toEqual([]);
    }), 120_000);

  it("a repository whose inventory was never filled fills on the first next: 503 with a Retry-After, after which next answers an issue", () =>
    withLiveApp(async (live) => {
      const { fake } = live;
      fake.addRepo(FULL, { id: REPO.id });
      for (let n = 1; n <= 3; n++) fake.addIssue(FULL, n, { title: `task ${n}`, labels: ["ready"] });
      fake.addToken(AGENT.token, AGENT);
      // Installed, but no event said so (added while the app ran, or a delivery missed): nothing fills it on its own.
      const server = await live.start();
      const first = await take(server);
      expect([first.status, first.body.error.code]).toEqual([503, "inventory_filling"]);
      const retryAfter = Number(first.headers.get("retry-after"));
      // One page of issues: a second or two, not the minute the app used to answer (and then fill only at the next reconcile).
      expect(retryAfter).toBeGreaterThanOrEqual(1);
      expect(retryAfter).toBeLessThanOrEqual(5);
      expect(first.body.error.message).toContain(`try again in ${retryAfter} s`);
      await sleep(retryAfter * 1000);
      const second = await take(server);
      expect(second.body).toMatchObject({ outcome: "acquired", repo: FULL, issue: 1, token: 1 });
      // One fill: a page of the issue list.
      expect(fake.requests.filter((r) => r.method === "GET" && r.path.endsWith(`/repos/${FULL}/issues`))).toHaveLength(1);
      expect(fake.unmatched).toEqual([]);
    }), 120_000);
});
