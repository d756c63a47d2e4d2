/**
 * Nothing lost, whatever the process does: killed with -9 while effects are
 * pending (one of them half done), or stopped with SIGTERM while effects are
 * being applied, a restart on the same SQLite file lands everything, once,
 * and the fencing tokens carry on.
 */
import { describe, expect, it } from "vitest";
import { type GitHubProxy, startGitHubProxy } from "../support/github-proxy.js";
import { alice, bob, type UserSpec } from "../support/payloads.js";
import { logLines, waitFor } from "../support/server-process.js";
import { commentPosts, commentRequests, FULL, issuesWritten, isWrite, isWriteTo, labels, leaseLabels, postsComment, replies } from "./issue-view.js";
import { E2E_WRITES, withLiveApp } from "./live-app.js";

const carol: UserSpec = { login: "carol", id: 1005, association: "CONTRIBUTOR" };

describe.concurrent("Nothing lost: kill -9, SIGTERM and restarts", () => {
  it("kill -9 with effects pending, one reply posted but not recorded: a restart lands the rest, none twice", () =>
    withLiveApp(async (live) => {
      const { fake } = live;
      const proxy: GitHubProxy = await startGitHubProxy(fake);
      try {
        const first = await live.start({}, proxy);
        // Die the moment GitHub has taken the first reply, before the app hears back.
        proxy.onResponse = async (r) => {
          if (postsComment(r) && r.status < 300 && commentPosts(fake).size > 0) {
            proxy.onResponse = null;
            first.kill("SIGKILL");
            await first.exited;
            return "drop";
          }
        };
        await live.comment(first, "/claim", alice, 1);
        await live.comment(first, "/claim", bob, 2);
        await live.comment(first, "/claim", carol, 1);
        await live.comment(first, "/release", bob, 2);
        const exit = await first.exited;
        expect(exit.signal).toBe("SIGKILL");
        // One reply posted (on GITHUB_WRITES=graphql, carol's `held` may ride in the same document as alice's).
        const before = [...commentPosts(fake).values()].reduce((a, b) => a + b, 0);
        expect(before).toBeGreaterThanOrEqual(1);
        expect(before).toBeLessThan(4);

        // The dead process's locks are taken over at start: nothing waits for them to expire.
        const second = await live.start();
        await waitFor("every reply", () => replies(fake, 1).length >= 2 && replies(fake, 2).length >= 2, 60_000);
        await live.settled(second);
        live.expectOneReplyEach(1, 2);
        live.expectOneReplyEach(2, 2);
        expect(replies(fake, 1).map((r) => [r.outcome, r.token])).toEqual([["acquired", 1], ["held", 1]]);
        expect(replies(fake, 2).map((r) => [r.outcome, r.token])).toEqual([["acquired", 1], ["released", 1]]);
        expect(labels(fake, 1)).toEqual(leaseLabels("alice", 1));
        expect(labels(fake, 2)).toEqual([]);
        expect(fake.assignees(FULL, 2)).toEqual([]);

        // Fencing tokens carry on from the ledger on disk.
        await live.comment(second, "/claim", carol, 2);
        await waitFor("carol's lease", () => replies(fake, 2).length === 3 && labels(fake, 2).length === 3);
        expect(replies(fake, 2)[2]).toMatchObject({ outcome: "acquired", token: 2, holder: "carol" });
        expect(labels(fake, 2)).toEqual(leaseLabels("carol", 2));
      } finally {
        await proxy.close();
      }
    }), 120_000);

  it("a reply GitHub created but answered 502, then a kill -9 before the retry: the restart looks among the app's comments and posts nothing more", () =>
    withLiveApp(async (live) => {
      const { fake } = live;
      const first = await live.start();
      await live.comment(first, "/claim", alice, 1);
      await waitFor("alice's reply", () => replies(fake, 1).length === 1);
      await live.settled(first);

      // bob's `held` reply is one write (a REST POST, or a document of one addComment): GitHub creates the
      // comment, and the answer that comes back is a 502.
      fake.failNextWritesAfterApplying(1, 502);
      await live.comment(first, "/claim", bob, 1);
      await waitFor("the 502", () => fake.requests.some((r) => r.status === 502), 10_000, 2);
      // Before the retry (a second at the soonest): the process dies.
      first.kill("SIGKILL");
      await first.exited;
      expect(replies(fake, 1).map((r) => r.outcome)).toEqual(["acquired", "held"]);

      const second = await live.start();
      await live.settled(second);
      expect(replies(fake, 1).map((r) => r.outcome)).toEqual(["acquired", "held"]);
      expect(new Set(replies(fake, 1).map((r) => r.ref)).size).toBe(2);
      // Two posts in all (alice's, and bob's that GitHub answered 502): the restart looked, and posted nothing.
      expect(commentRequests(fake, 1).map((r) => (r.status < 300 ? "posted" : r.status))).toEqual(["posted", 502]);
      expect(fake.requests.filter((r) => r.method === "GET" && /\/issues\/1\/comments$/.test(r.path))).toHaveLength(1);
    }), 60_000);

  it("kill -9 between a release that handed the lease to the first in line and its reply: a restart posts the handoff once, the new holder's labels and token right", () =>
    withLiveApp(async (live) => {
      const { fake } = live;
      fake.setConfigFile(FULL, ".github/issue-leases.yml", "queue: true\n");
      const proxy: GitHubProxy = await startGitHubProxy(fake);
      try {
        const first = await live.start({}, proxy);
        await live.comment(first, "/claim", alice, 1);
        await waitFor("alice's reply", () => replies(fake, 1).length === 1);
        await live.comment(first, "/claim", bob, 1);
        await waitFor("bob's place in line", () => replies(fake, 1).length === 2);
        await live.settled(first);
        expect(replies(fake, 1).map((r) => r.outcome)).toEqual(["acquired", "queued"]);

        // The release commits with its handoff; the process dies as GitHub takes the first write of it, before the reply.
        // (On GITHUB_WRITES=graphql the first mutation document: it names no issue in its path, and issue 1 is the only one.)
        proxy.onResponse = async (r) => {
          if (isWriteTo(r, 1)) {
            proxy.onResponse = null;
            first.kill("SIGKILL");
            await first.exited;
            return "drop";
          }
        };
        await live.comment(first, "/release", alice, 1);
        expect((await first.exited).signal).toBe("SIGKILL");
        expect(replies(fake, 1)).toHaveLength(2);

        const second = await live.start();
        await waitFor("the handoff's reply", () => replies(fake, 1).length >= 3, 60_000);
        await live.settled(second);
        live.expectOneReplyEach(1, 3);
        expect(replies(fake, 1).map((r) => [r.op, r.outcome, r.token, r.holder])).toEqual([
          ["claim", "acquired", 1, "alice"],
          ["claim", "queued", 1, "alice"],
          ["handoff", "acquired", 2, "bob"],
        ]);
        expect(labels(fake, 1)).toEqual(leaseLabels("bob", 2));
        expect(fake.assignees(FULL, 1)).toEqual(["bob"]);
      } finally {
        await proxy.close();
      }
    }), 90_000);

  it("a second app process on the same SQLite file is refused at start, saying why; the first carries on", () =>
    withLiveApp(async (live) => {
      const { fake } = live;
      const first = await live.start();
      await expect(live.start()).rejects.toThrow(/already serving .*one app process per SQLite file/s);
      await live.comment(first, "/claim", alice, 1);
      await waitFor("alice's reply", () => replies(fake, 1).length === 1);
      await live.settled(first);
      live.expectOneReplyEach(1, 1);
    }), 60_000);

  it("SIGTERM with an effect in flight: exits 0 soon, and a restart lands the rest once", () =>
    withLiveApp(async (live) => {
      const { fake } = live;
      const first = await live.start();
      await live.comment(first, "/claim", alice, 1);
      await live.comment(first, "/claim", bob, 2);
      await live.comment(first, "/claim", carol, 3);
      await waitFor("a first write", () => fake.requests.some(isWrite), 10_000, 5);
      const signalled = Date.now();
      first.kill("SIGTERM");
      const exit = await first.exited;
      expect(exit).toEqual({ code: 0, signal: null });
      expect(Date.now() - signalled).toBeLessThan(9_000);
      expect(logLines(first)).toEqual([]);

      const second = await live.start();
      await waitFor("every reply", () => [1, 2, 3].every((n) => replies(fake, n).length >= 1), 60_000);
      await live.settled(second);
      for (const [n, who] of [[1, "alice"], [2, "bob"], [3, "carol"]] as const) {
        expect(labels(fake, n)).toEqual(leaseLabels(who, 1));
        expect(fake.assignees(FULL, n)).toEqual([who]);
        live.expectOneReplyEach(n, 1);
      }
    }), 120_000);

  it("SIGTERM during a busy pass: exits 0 within the grace, and a restart picks the effects up at once", () =>
    withLiveApp(async (live) => {
      const { fake } = live;
      // A GraphQL claim is two documents a second apart (its holder's label, then the claim), not three
      // REST writes with replies 3 s apart: twice the people keep its pass busy past the grace.
      const logins = ["alice", "bob", "carol", "dave", ...(E2E_WRITES === "graphql" ? ["erin", "frank", "grace", "heidi"] : [])];
      const people = logins.map((login, i) => ({ login, id: 2001 + i, association: "CONTRIBUTOR" }));
      // A second's pause at least after a secondary limit (a minute by default): the restart must not wait it out.
      const first = await live.start({ GITHUB_MIN_PAUSE_S: "1" });
      // A rate limit holds the installation's effects back while the commands
      // arrive, so that the next pass takes them all at once.
      fake.rateLimitNextWrites(1, 3);
      await live.comment(first, "/claim", people[0]!, 1);
      await waitFor("the rate limit", () => fake.requests.some((r) => r.status === 403), 10_000, 5);
      for (const [i, who] of people.entries()) if (i > 0) await live.comment(first, "/claim", who, i + 1);
      // Busy: writes for at least two issues have landed, so several effects are in flight
      // (had the other claims arrived after the pause ended, alice's would run alone).
      await waitFor("the busy pass", () => issuesWritten(fake).size >= 2, 30_000, 5);
      const signalled = Date.now();
      first.kill("SIGTERM");
      const exit = await first.exited;
      const stoppedIn = Date.now() - signalled;
      expect(exit).toEqual({ code: 0, signal: null });
      expect(stoppedIn).toBeLessThan(9_000);
      // The pass outlasted the grace: its effects went back to the outbox rather than holding the exit.
      expect(logLines(first, 40).map((l) => l.msg)).toContain("outbox: shutting down; effects still being applied were handed back");

      const second = await live.start();
      const restarted = Date.now();
      await waitFor("every reply", () => people.every((_, i) => replies(fake, i + 1).length >= 1), 90_000);
      await live.settled(second);
      // Four REST claims take about 4 × 3 s of throttled writes (eight GraphQL ones 8 × 2 × 1 s); a lock left behind would add two minutes.
      expect(Date.now() - restarted).toBeLessThan(45_000);
      for (const [i, who] of people.entries()) {
        expect(labels(fake, i + 1)).toEqual(leaseLabels(who.login, 1));
        expect(fake.assignees(FULL, i + 1)).toEqual([who.login]);
        live.expectOneReplyEach(i + 1, 1);
      }
    }), 150_000);
});

