/**
 * Leases that follow the work, on every backend: open pull requests by the
 * holder hold a lease (no expiry, no reminder, not swept) and let it go with
 * the resume term; the holder's activity renews a lease by its term, with
 * no effect; exempt labels; and `countInReview` in the per-holder limit.
 */
import { describe, expect, it } from "vitest";
import type { Holder, IssueKey, Lease } from "../../src/ledger/leases/lease-types.js";
import type { ActivityPolicy, Resume } from "../../src/ledger/work/work-types.js";
import { backends, useBackend } from "./backends.js";

const MIN = 60_000;
const HOUR = 60 * MIN;
const DAY = 24 * HOUR;
const T0 = 1_700_000_000_000;

const repo = { repoId: 100, repo: "octo/alpha" };
const key = (issue: number): IssueKey => ({ ...repo, issue });
const alice: Holder = { id: 1, login: "alice" };
const bob: Holder = { id: 2, login: "bob" };

const RESUME: Resume = { ttl: 3 * HOUR, remindBefore: HOUR };
const POLICY: ActivityPolicy = { remindBefore: HOUR, fallbackTtl: 7 * DAY };

describe.each(backends)("leases that follow the work: $name", (backend) => {
  const { ledger } = useBackend(backend);

  /** alice's 2h lease on issue 1, reminded an hour before it ends. */
  async function aliceHolds(issue = 1, at = T0): Promise<Lease> {
    const r = await ledger.acquire(key(issue), alice, 2 * HOUR, at, { remindBefore: HOUR });
    if (r.outcome !== "acquired") throw new Error("not acquired");
    return r.lease;
  }

  describe("a pull request by the holder", () => {
    it("holds the lease while open (no expiry, no reminder, not swept), and lets it go with the resume term from when it closed", async () => {
      await aliceHolds();
      const linked = await ledger.linkPull(key(2), alice, [1], T0 + 10 * MIN, { resume: RESUME });
      expect(linked.changed).toEqual([
        { change: "suspended", lease: expect.objectContaining({ issue: 1, token: 1, expiresAt: null, heldBy: { kind: "pull", pulls: [2] } }) },
      ]);

      // Long past the claim's expiry and reminder: live, and neither sweep sees it.
      const later = T0 + 5 * DAY;
      expect(await ledger.current(key(1), later)).toMatchObject({ token: 1, expiresAt: null, heldBy: { kind: "pull", pulls: [2] } });
      expect(await ledger.expiredSince(later)).toEqual([]);
      expect(await ledger.dueReminders(later)).toEqual([]);
      expect(await ledger.list(repo.repoId, later)).toHaveLength(1);

      // The same links again change nothing and write nothing.
      const historyBefore = (await ledger.history(key(1))).length;
      expect((await ledger.linkPull(key(2), alice, [1], later, { resume: RESUME })).changed).toEqual([]);
      expect(await ledger.history(key(1))).toHaveLength(historyBefore);

      // Closed (unmerged) at `closedAt`, the effect applied an hour later: 3h from the close.
      const closedAt = later + MIN;
      const closed = await ledger.linkPull(key(2), alice, [], closedAt + HOUR, { resume: RESUME, at: closedAt });
      expect(closed.changed).toEqual([
        { change: "resumed", lease: expect.objectContaining({ token: 1, expiresAt: closedAt + 3 * HOUR, heldBy: { kind: "time" } }) },
      ]);
      expect(await ledger.dueReminders(closedAt + 2 * HOUR - 1)).toEqual([]);
      expect((await ledger.dueReminders(closedAt + 2 * HOUR)).map((l) => l.issue)).toEqual([1]);
      expect(await ledger.expiredSince(closedAt + 3 * HOUR - 1)).toEqual([]);
      expect((await ledger.expiredSince(closedAt + 3 * HOUR)).map((l) => [l.issue, l.token])).toEqual([[1, 1]]);

      expect((await ledger.history(key(1))).map((h) => [h.op, h.outcome, h.actor?.login, h.expiresAt])).toEqual([
        ["acquire", "acquired", "alice", T0 + 2 * HOUR],
        ["follow", "suspended", "alice", null],
        ["follow", "resumed", "alice", closedAt + 3 * HOUR],
      ]);
    });

    it("holds it until the last of two closes; the effects are written under each issue that changed", async () => {
      await aliceHolds(1);
      await aliceHolds(4);
      const effect = { installation: 7, kind: "reflect", payload: { shown: true } };
      await ledger.linkPull(key(2), alice, [1, 4], T0, { resume: RESUME, effect });
      await ledger.linkPull(key(3), alice, [1], T0, { resume: RESUME, effect });
      expect(await ledger.current(key(1), T0)).toMatchObject({ heldBy: { kind: "pull", pulls: [2, 3] } });
      expect(await ledger.current(key(4), T0)).toMatchObject({ heldBy: { kind: "pull", pulls: [2] } });

      // Pull request 2 now closes issue 4 only.
      const relinked = await ledger.linkPull(key(2), alice, [4], T0 + MIN, { resume: RESUME, effect });
      expect(relinked.changed.map((f) => [f.change, f.lease.issue])).toEqual([["linked", 1]]);
      expect(await ledger.current(key(1), T0 + MIN)).toMatchObject({ expiresAt: null, heldBy: { kind: "pull", pulls: [3] } });
      const closed = await ledger.linkPull(key(3), alice, [], T0 + 2 * MIN, { resume: RESUME, effect });
      expect(closed.changed.map((f) => [f.change, f.lease.issue, f.lease.expiresAt])).toEqual([["resumed", 1, T0 + 2 * MIN + 3 * HOUR]]);

      const taken = await ledger.takeEffects(T0 + 3 * MIN, 50, 10_000);
      // One at a time per issue, the oldest first: issue 1's first effect, and issue 4's.
      expect(taken.map((e) => [e.issue, e.payload])).toEqual([
        [1, { shown: true }],
        [4, { shown: true }],
      ]);
    });

    it("by someone else holds nothing; its links count from the claim once its author holds the issue", async () => {
      await aliceHolds();
      expect((await ledger.linkPull(key(3), bob, [1], T0, { resume: RESUME })).changed).toEqual([]);
      expect(await ledger.current(key(1), T0)).toMatchObject({ holder: alice, expiresAt: T0 + 2 * HOUR, heldBy: { kind: "time" } });

      await ledger.release(key(1), alice, T0 + MIN);
      const claimed = await ledger.acquire(key(1), bob, 2 * HOUR, T0 + 2 * MIN, { remindBefore: HOUR });
      expect(claimed).toMatchObject({ outcome: "acquired", newTenure: true, lease: { token: 2, expiresAt: null, heldBy: { kind: "pull", pulls: [3] } } });
      expect(await ledger.dueReminders(T0 + DAY)).toEqual([]);
      expect(await ledger.expiredSince(T0 + DAY)).toEqual([]);
    });

    it("does not revive a lease that has expired, and a renewal keeps a held lease held", async () => {
      await aliceHolds(1);
      expect((await ledger.linkPull(key(2), alice, [1], T0 + 3 * HOUR, { resume: RESUME })).changed).toEqual([]);
      expect(await ledger.current(key(1), T0 + 3 * HOUR)).toBeNull();

      await aliceHolds(5, T0 + 3 * HOUR);
      await ledger.linkPull(key(6), alice, [5], T0 + 3 * HOUR, { resume: RESUME });
      const renewed = await ledger.renew(key(5), alice, HOUR, T0 + 4 * HOUR, { remindBefore: null });
      expect(renewed).toMatchObject({ outcome: "renewed", lease: { expiresAt: null, heldBy: { kind: "pull", pulls: [6] } } });
      const again = await ledger.acquire(key(5), alice, HOUR, T0 + 4 * HOUR);
      expect(again).toMatchObject({ outcome: "acquired", newTenure: false, lease: { expiresAt: null, heldBy: { kind: "pull", pulls: [6] } } });
      // Issue 1's lease, expired before the link, is still the sweeper's; issue 5's is not.
      expect((await ledger.expiredSince(T0 + 9 * HOUR)).map((l) => l.issue)).toEqual([1]);
    });
  });

  describe("the holder's activity", () => {
    it("renews the lease by its term from now, cancels the old term's reminder, writes no effect; a redelivery renews nothing more", async () => {
      await aliceHolds();
      // The old term's reminder is due at 1h; activity at 1h30 makes it stale.
      const due = await ledger.dueReminders(T0 + 61 * MIN);
      expect(due.map((l) => l.expiresAt)).toEqual([T0 + 2 * HOUR]);
      let asked = 0;
      const policy = async () => (asked++, POLICY);
      const r = await ledger.renewOnActivity(key(1), alice, T0 + 90 * MIN, { policy, delivery: "d-1" });
      expect(r).toMatchObject({ outcome: "renewed", duplicate: false, renewed: [{ issue: 1, token: 1, expiresAt: T0 + 90 * MIN + 2 * HOUR }] });
      expect(asked).toBe(1);
      const stale = await ledger.markReminded(key(1), { token: 1, expiresAt: T0 + 2 * HOUR }, T0 + 91 * MIN);
      expect(stale.outcome).toBe("stale");
      expect(await ledger.dueReminders(T0 + 150 * MIN - 1)).toEqual([]);
      expect((await ledger.dueReminders(T0 + 150 * MIN)).map((l) => l.expiresAt)).toEqual([T0 + 210 * MIN]);
      expect(await ledger.takeEffects(T0 + DAY, 50, 10_000)).toEqual([]);

      const again = await ledger.renewOnActivity(key(1), alice, T0 + 100 * MIN, { policy, delivery: "d-1" });
      expect(again).toMatchObject({ duplicate: true });
      expect(await ledger.current(key(1), T0 + 100 * MIN)).toMatchObject({ expiresAt: T0 + 210 * MIN });
      expect((await ledger.history(key(1))).map((h) => [h.op, h.outcome, h.expiresAt])).toEqual([
        ["acquire", "acquired", T0 + 2 * HOUR],
        ["follow", "renewed", T0 + 210 * MIN],
        ["remind", "stale", T0 + 210 * MIN],
      ]);
    });

    it("of anyone else renews nothing and asks no policy; nor does a policy that is off", async () => {
      await aliceHolds();
      let asked = 0;
      const r = await ledger.renewOnActivity(key(1), bob, T0 + HOUR, { policy: async () => (asked++, POLICY) });
      expect(r).toMatchObject({ outcome: "none", renewed: [] });
      expect(asked).toBe(0);
      const off = await ledger.renewOnActivity(key(1), alice, T0 + HOUR, { policy: async () => null });
      expect(off.outcome).toBe("none");
      expect(await ledger.current(key(1), T0 + HOUR)).toMatchObject({ expiresAt: T0 + 2 * HOUR });
      expect(await ledger.history(key(1))).toHaveLength(1);
    });

    it("on a pull request renews the leases it holds on the issues that pull request closes, whoever opened it", async () => {
      await aliceHolds(1);
      await ledger.linkPull(key(3), bob, [1], T0, { resume: RESUME });
      const r = await ledger.renewOnActivity(key(3), alice, T0 + HOUR, { policy: async () => POLICY });
      expect(r.renewed.map((l) => [l.issue, l.expiresAt])).toEqual([[1, T0 + 3 * HOUR]]);
      // Another pull request closes nothing of hers.
      expect((await ledger.renewOnActivity(key(9), alice, T0 + HOUR, { policy: async () => POLICY })).outcome).toBe("none");
    });

    it("renews no lease its work holds, and an open-ended one not at all; one from before terms were recorded renews by the fallback", async () => {
      await aliceHolds(1);
      await ledger.linkPull(key(2), alice, [1], T0, { resume: RESUME });
      expect((await ledger.renewOnActivity(key(1), alice, T0 + HOUR, { policy: async () => POLICY })).outcome).toBe("none");
      await ledger.acquire(key(7), alice, null, T0);
      expect((await ledger.renewOnActivity(key(7), alice, T0 + HOUR, { policy: async () => POLICY })).outcome).toBe("none");
      expect(await ledger.current(key(7), T0 + HOUR)).toMatchObject({ expiresAt: null, heldBy: { kind: "time" } });
    });
  });

  describe("exempt labels", () => {
    it("an exempt issue's lease does not expire; when the label goes it gets the resume term from then", async () => {
      const claimed = await ledger.acquire(key(1), alice, 2 * HOUR, T0, { remindBefore: HOUR, exempt: true });
      expect(claimed).toMatchObject({ lease: { expiresAt: null, heldBy: { kind: "exempt", pulls: [] } } });
      expect(await ledger.expiredSince(T0 + DAY)).toEqual([]);
      expect(await ledger.dueReminders(T0 + DAY)).toEqual([]);

      const gone = await ledger.setExempt(key(1), bob, false, T0 + DAY, { resume: RESUME, delivery: "x-1" });
      expect(gone).toMatchObject({ outcome: "resumed", lease: { expiresAt: T0 + DAY + 3 * HOUR, heldBy: { kind: "time" } } });
      expect((await ledger.setExempt(key(1), bob, false, T0 + DAY, { resume: RESUME, delivery: "x-1" })).duplicate).toBe(true);
      expect((await ledger.setExempt(key(1), bob, false, T0 + DAY, { resume: RESUME })).outcome).toBe("unchanged");
      expect((await ledger.expiredSince(T0 + DAY + 3 * HOUR)).map((l) => l.issue)).toEqual([1]);

      // Labelled again before it expired: held once more.
      const back = await ledger.setExempt(key(1), bob, true, T0 + DAY + HOUR, { resume: RESUME });
      expect(back).toMatchObject({ outcome: "suspended", lease: { expiresAt: null, heldBy: { kind: "exempt", pulls: [] } } });
      expect(await ledger.expiredSince(T0 + 2 * DAY)).toEqual([]);
    });

    it("a lease both exempt and in review stays held until both let go", async () => {
      await aliceHolds();
      await ledger.setExempt(key(1), bob, true, T0, { resume: RESUME });
      await ledger.linkPull(key(2), alice, [1], T0, { resume: RESUME });
      expect(await ledger.current(key(1), T0)).toMatchObject({ heldBy: { kind: "exempt", pulls: [2] } });
      expect((await ledger.linkPull(key(2), alice, [], T0 + HOUR, { resume: RESUME })).changed.map((f) => f.change)).toEqual(["linked"]);
      expect(await ledger.current(key(1), T0 + DAY)).toMatchObject({ expiresAt: null, heldBy: { kind: "exempt", pulls: [] } });
      expect(await ledger.setExempt(key(1), bob, false, T0 + DAY, { resume: RESUME })).toMatchObject({ outcome: "resumed" });
    });

    it("does nothing on an issue without a live lease", async () => {
      expect(await ledger.setExempt(key(1), bob, true, T0, { resume: RESUME })).toMatchObject({ outcome: "unchanged", lease: null });
    });
  });

  describe("countInReview in the per-holder limit", () => {
    async function inReviewAndAnother(): Promise<void> {
      await ledger.acquire(key(1), alice, 2 * HOUR, T0, { maxPerHolder: 1 });
      await ledger.linkPull(key(2), alice, [1], T0, { resume: RESUME });
    }

    it("false: a lease in review does not count", async () => {
      await inReviewAndAnother();
      const r = await ledger.acquire(key(5), alice, 2 * HOUR, T0 + MIN, { maxPerHolder: 1, countInReview: false });
      expect(r).toMatchObject({ outcome: "acquired", newTenure: true });
      // The lease taken counts: it is not in review.
      const over = await ledger.acquire(key(6), alice, 2 * HOUR, T0 + MIN, { maxPerHolder: 1, countInReview: false });
      expect(over).toMatchObject({ outcome: "limit", limit: 1, held: [expect.objectContaining({ issue: 5 })] });
    });

    it("true (and by default): it counts, and the refusal lists it", async () => {
      await inReviewAndAnother();
      for (const countInReview of [true, undefined]) {
        const r = await ledger.acquire(key(5), alice, 2 * HOUR, T0 + MIN, { maxPerHolder: 1, countInReview });
        expect(r).toMatchObject({ outcome: "limit", limit: 1, held: [expect.objectContaining({ issue: 1, heldBy: { kind: "pull", pulls: [2] } })] });
      }
    });
  });
});
