/**
 * Nothing lost, whatever GitHub does: 500s and secondary rate limits delay
 * the app's effects but never lose or repeat one; leases that end by time
 * (expiry, reminders) or by closing the issue show on the issue once. The
 * real server runs as a child process against the fake GitHub.
 */
import { describe, expect, it } from "vitest";
import { alice, bob, issuesPayload, maintainer, type UserSpec } from "../support/payloads.js";
import { sleep, waitFor } from "../support/server-process.js";
import { FULL, labels, leaseLabels, replies, repoLabelNames } from "./issue-view.js";
import { history } from "./ledger-file.js";
import { E2E_WRITES, withLiveApp } from "./live-app.js";

const carol: UserSpec = { login: "carol", id: 1005, association: "CONTRIBUTOR" };
/** The sweep interval of the expiry and reminder tests. */
const SWEEP_MS = 2000;

describe.concurrent("Nothing lost: GitHub's faults and the sweeper", () => {
  it("GitHub answering 500 to the next writes: every effect lands once", () =>
    withLiveApp(async (live) => {
      const { fake } = live;
      const server = await live.start();
      fake.failNextWrites(5);
      await live.comment(server, "/claim", alice, 1);
      await live.comment(server, "/claim", bob, 2);
      await live.comment(server, "/claim", carol, 1);

      await waitFor("every reply", () => replies(fake, 1).length >= 2 && replies(fake, 2).length >= 1, 90_000);
      await live.settled(server);
      expect(fake.requests.filter((r) => r.status === 500)).toHaveLength(5);
      expect(labels(fake, 1)).toEqual(leaseLabels("alice", 1));
      expect(labels(fake, 2)).toEqual(leaseLabels("bob", 1));
      expect(fake.assignees(FULL, 1)).toEqual(["alice"]);
      expect(fake.assignees(FULL, 2)).toEqual(["bob"]);
      live.expectOneReplyEach(1, 2);
      live.expectOneReplyEach(2, 1);
      expect(replies(fake, 1).map((r) => r.outcome)).toEqual(["acquired", "held"]);
      expect((await server.health()).body.outbox.parked).toBe(0);
    }), 120_000);

  it("a secondary rate limit: the app waits as told, at least its least pause, then lands everything once", () =>
    withLiveApp(async (live) => {
      const { fake } = live;
      // GitHub asks for a second; the app waits its least pause (3 s here, a minute by default).
      const server = await live.start({ GITHUB_MIN_PAUSE_S: "3" });
      fake.rateLimitNextWrites(2, 1);
      await live.comment(server, "/claim", alice, 1);
      await live.comment(server, "/claim", bob, 1);

      await waitFor("both replies", () => replies(fake, 1).length >= 2, 60_000);
      await live.settled(server);
      const limited = fake.requests.filter((r) => r.status === 403);
      expect(limited).toHaveLength(2);
      // Nothing was written until the least pause had passed.
      const lastLimited = limited[1]!.at;
      const nextWrite = fake.requests.find((r) => r.at > lastLimited && r.method !== "GET");
      expect(nextWrite!.at - lastLimited).toBeGreaterThanOrEqual(2950);
      expect(labels(fake, 1)).toEqual(leaseLabels("alice", 1));
      live.expectOneReplyEach(1, 2);
      expect(replies(fake, 1).map((r) => r.outcome)).toEqual(["acquired", "held"]);
    }), 90_000);

  it("a lease expires: labels go, one expire reply, and the next claim gets the next token", () =>
    withLiveApp(async (live) => {
      const { fake } = live;
      fake.setConfigFile(FULL, ".github/issue-leases.yml", "min_ttl: 1s\n");
      // Sweeps 2 s apart: two intervals leave a busy machine seconds to run a
      // sweep late, where 1 s apart left it only one.
      const server = await live.start({ SWEEP_INTERVAL_MS: String(SWEEP_MS) });
      await live.comment(server, "/claim 2s", alice, 1);
      await waitFor("the expire reply", () => replies(fake, 1).some((r) => r.op === "expire"), 30_000);
      await live.settled(server);

      // The ledger ended the lease within two sweep intervals of its expiry
      // (what GitHub shows follows behind the throttle).
      const rows = history(live.dbFile);
      const acquire = rows.find((r) => r.op === "acquire")!;
      const expire = rows.filter((r) => r.op === "expire");
      expect(expire).toHaveLength(1);
      expect(expire[0]).toMatchObject({ outcome: "expired", token: 1 });
      expect(expire[0]!.at - acquire.expiresAt!).toBeGreaterThanOrEqual(0);
      expect(expire[0]!.at - acquire.expiresAt!).toBeLessThan(2 * SWEEP_MS);

      const expired = replies(fake, 1).filter((r) => r.op === "expire");
      expect(expired).toHaveLength(1);
      expect(expired[0]).toMatchObject({ outcome: "expired", token: 1, holder: "alice" });
      expect(expired[0]!.body).toContain("@alice");
      expect(labels(fake, 1)).toEqual([]);
      expect(fake.assignees(FULL, 1)).toEqual([]);
      // Out of the repository on REST; on GraphQL it lingers there a day (LABEL_LINGER_S), for the next first tenure.
      expect(repoLabelNames(fake).includes("lease #1")).toBe(E2E_WRITES === "graphql");

      await sleep(2 * SWEEP_MS);
      expect(replies(fake, 1).filter((r) => r.op === "expire")).toHaveLength(1);

      await live.comment(server, "/claim 1h", bob, 1);
      await waitFor("bob's lease", () => replies(fake, 1).some((r) => r.holder === "bob") && labels(fake, 1).length === 3);
      expect(replies(fake, 1).at(-1)).toMatchObject({ outcome: "acquired", token: 2, holder: "bob" });
      expect(labels(fake, 1)).toEqual(leaseLabels("bob", 2));
    }), 90_000);

  it("a reminder is posted once per lease, however many sweeps run", () =>
    withLiveApp(async (live) => {
      const { fake } = live;
      // Due 4 s after the claim, 4 s before the expiry: the reminding sweep
      // may run late by up to 4 s before the expiry overtakes it.
      fake.setConfigFile(FULL, ".github/issue-leases.yml", "min_ttl: 1s\nreminder_before: 4s\n");
      const server = await live.start({ SWEEP_INTERVAL_MS: String(SWEEP_MS) });
      await live.comment(server, "/claim 8s", alice, 1);
      await waitFor("the reminder", () => replies(fake, 1).some((r) => r.op === "remind"), 30_000);
      const reminder = replies(fake, 1).find((r) => r.op === "remind")!;
      expect(reminder).toMatchObject({ outcome: "reminded", token: 1, holder: "alice" });
      expect(reminder.body).toContain("@alice");
      const acquire = history(live.dbFile).find((r) => r.op === "acquire")!;
      const remind = history(live.dbFile).find((r) => r.op === "remind")!;
      // Due four seconds before expiry, sent by the next sweep (two intervals, as for expiry).
      expect(remind.at - (acquire.expiresAt! - 4000)).toBeGreaterThanOrEqual(0);
      expect(remind.at - (acquire.expiresAt! - 4000)).toBeLessThan(2 * SWEEP_MS);
      // Several more sweeps, through the expiry.
      await waitFor("the expire reply", () => replies(fake, 1).some((r) => r.op === "expire"), 30_000);
      await sleep(2 * SWEEP_MS);
      await live.settled(server);
      expect(replies(fake, 1).map((r) => r.op)).toEqual(["claim", "remind", "expire"]);
      live.expectOneReplyEach(1, 3);
      expect(history(live.dbFile).filter((r) => r.op === "remind")).toHaveLength(1);
    }), 90_000);

  it("closing the issue releases its lease", () =>
    withLiveApp(async (live) => {
      const { fake } = live;
      const server = await live.start();
      await live.comment(server, "/claim", alice, 1);
      await waitFor("alice's lease", () => replies(fake, 1).length === 1 && labels(fake, 1).length === 3);
      // Closed on GitHub, as the delivery says: the app may ask GitHub whether it still is.
      fake.addIssue(FULL, 1, { state: "closed" });
      expect(await server.send("issues", issuesPayload("closed", { at: Date.now(), issue: 1, sender: maintainer, labels: leaseLabels("alice", 1) }))).toBe(200);
      await waitFor("the release reply", () => replies(fake, 1).length === 2, 30_000);
      await live.settled(server);
      expect(replies(fake, 1)[1]).toMatchObject({ op: "release", outcome: "released", token: 1, holder: "alice" });
      expect(labels(fake, 1)).toEqual([]);
      expect(fake.assignees(FULL, 1)).toEqual([]);
      live.expectOneReplyEach(1, 2);
    }), 60_000);
});
