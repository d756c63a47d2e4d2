/**
 * Ledger contract, both backends: the inventory of open issues (issue 22).
 * Snapshots keep the newest payload and a gone issue stays gone; a fill's
 * reconcile closes what it did not see; and `readyIssues` answers each
 * filter and the order, leaving out held and skipped issues, counting
 * matched and held.
 */
import { describe, expect, it } from "vitest";
import type { IssueSnapshot, ReadyQuery } from "../../src/ledger/inventory/inventory-types.js";
import type { Holder } from "../../src/ledger/leases/lease-types.js";
import { backends, useBackend } from "./backends.js";

const HOUR = 3_600_000;
const T0 = 1_700_000_000_000;
const REPO = { repoId: 100, repo: "org/widgets" };
const OTHER = { repoId: 101, repo: "org/gadgets" };
const alice: Holder = { id: 1, login: "alice" };
const RESUME = { ttl: HOUR, remindBefore: null };

const snap = (issue: number, over: Partial<IssueSnapshot> = {}): IssueSnapshot => ({
  repoId: REPO.repoId,
  issue,
  title: `issue ${issue}`,
  labels: [],
  assignees: [],
  milestone: null,
  author: { id: 50, login: "author" },
  createdAt: T0 + issue * 1000,
  state: "open",
  blockedByOpen: null,
  openSubIssues: null,
  updatedAt: T0 + issue * 1000,
  ...over,
});

describe.each(backends)("inventory ($name)", (backend) => {
  const { ledger, store } = useBackend(backend);
  const ready = async (q: Partial<ReadyQuery> = {}, now = T0 + HOUR / 2) => {
    const page = await ledger.readyIssues({ repoIds: [REPO.repoId], limit: 100, ...q }, now);
    return { ready: page.ready.map((r) => r.issue), matched: page.matched, held: page.held };
  };

  it("keeps the newest snapshot; a gone issue stays gone; closed issues leave the ready list", async () => {
    await ledger.rememberRepo({ ...REPO, installation: 1 }, T0);
    expect(await ledger.rememberIssues([snap(1, { labels: ["Bug"], updatedAt: T0 + 10 })], T0)).toBe(1);
    // An older payload (a late delivery) changes nothing.
    expect(await ledger.rememberIssues([snap(1, { labels: [], updatedAt: T0 + 5 })], T0)).toBe(0);
    expect(await ready({ labels: ["bug"] })).toEqual({ ready: [1], matched: 1, held: 0 });
    const [issue] = (await ledger.readyIssues({ repoIds: [REPO.repoId], limit: 1 }, T0)).ready;
    expect(issue).toEqual({
      repoId: 100, repo: "org/widgets", issue: 1, title: "issue 1", labels: ["Bug"], createdAt: T0 + 1000, authorId: 50, authorLogin: "author", assignees: [],
    });
    await ledger.rememberIssues([snap(1, { state: "closed", labels: ["Bug"], updatedAt: T0 + 20 })], T0);
    expect(await ready({ labels: ["bug"] })).toEqual({ ready: [], matched: 0, held: 0 });
    expect(await ready()).toEqual({ ready: [], matched: 0, held: 0 });
    await ledger.rememberIssues([snap(1, { state: "open", labels: ["bug"], updatedAt: T0 + 30 })], T0);
    expect(await ready({ labels: ["BUG"] })).toEqual({ ready: [1], matched: 1, held: 0 });
    // Transferred away: gone, and a later event of it does not bring it back.
    await ledger.rememberIssues([snap(1, { state: "gone", updatedAt: T0 + 1 })], T0);
    expect(await ledger.rememberIssues([snap(1, { updatedAt: T0 + 99 })], T0)).toBe(0);
    expect(await ready()).toEqual({ ready: [], matched: 0, held: 0 });
  });

  it("two writers of one new issue at once (an issue opened with a label: opened and labeled together): the newer stays, its labels with it", async () => {
    const other = (await store().another?.()) ?? ledger;
    for (let n = 1; n <= 20; n++) {
      const older = snap(n, { labels: ["a"], updatedAt: T0 + 1 });
      const newer = snap(n, { labels: ["b"], updatedAt: T0 + 2 });
      await Promise.all(n % 2 ? [ledger.rememberIssues([older], T0), other.rememberIssues([newer], T0)] : [other.rememberIssues([newer], T0), ledger.rememberIssues([older], T0)]);
    }
    expect((await ready({ labels: ["b"] })).matched).toBe(20);
    expect((await ready({ labels: ["a"] })).matched).toBe(0);
  });

  it("a reconcile closes the open issues a fill did not see, unless changed since it started", async () => {
    await ledger.rememberIssues([1, 2, 3].map((n) => snap(n, { labels: ["x"] })), T0);
    // Issue 3 changed after the fill started: the fill's page may predate it.
    await ledger.rememberIssues([snap(3, { labels: ["x"], updatedAt: T0 + 2 * HOUR })], T0);
    expect(await ledger.closeUnseen(REPO.repoId, [1], T0 + HOUR, T0 + HOUR)).toBe(1);
    expect(await ready({ labels: ["x"] })).toEqual({ ready: [1, 3], matched: 2, held: 0 });
    // An event older than what was stored does not reopen issue 2; the next fill seeing it open (unchanged) does.
    expect(await ledger.rememberIssues([snap(2, { updatedAt: T0 + 1 })], T0)).toBe(0);
    expect(await ready({ labels: ["x"] })).toEqual({ ready: [1, 3], matched: 2, held: 0 });
    expect(await ledger.rememberIssues([snap(2, { labels: ["x"] })], T0)).toBe(1);
    expect(await ready({ labels: ["x"] })).toEqual({ ready: [1, 2, 3], matched: 3, held: 0 });
    await ledger.markFilled({ repoId: REPO.repoId, filledAt: T0 + HOUR, issues: 1 }, T0 + HOUR);
    expect(await ledger.lastFill(REPO.repoId)).toEqual({ repoId: REPO.repoId, filledAt: T0 + HOUR, issues: 1 });
  });

  it("remembers which repositories are due a fill, and forgets a repository's inventory", async () => {
    await ledger.rememberRepo({ ...REPO, installation: 1 }, T0);
    await ledger.rememberRepo({ ...OTHER, installation: 1 }, T0);
    await ledger.markFilled({ repoId: OTHER.repoId, filledAt: T0, issues: 0 }, T0);
    expect((await ledger.staleFills(T0, 10)).map((r) => r.repoId)).toEqual([REPO.repoId]);
    expect((await ledger.staleFills(T0 + 1, 10)).map((r) => r.repoId)).toEqual([REPO.repoId, OTHER.repoId]);
    await ledger.rememberIssues([snap(1, { labels: ["a"] }), snap(2)], T0);
    expect(await ledger.forgetInventory([REPO.repoId], T0)).toBe(2);
    expect(await ready({ labels: ["a"] })).toEqual({ ready: [], matched: 0, held: 0 });
    expect(await ready()).toEqual({ ready: [], matched: 0, held: 0 });
  });

  it("each filter", async () => {
    await ledger.rememberIssues(
      [
        snap(1, { labels: ["bug", "ui"] }),
        snap(2, { labels: ["bug"], milestone: "v1" }),
        snap(3, { labels: ["docs"], assignees: [{ id: 7, login: "seven" }] }),
        snap(4, { labels: ["bug", "wontfix"], assignees: [{ id: 1, login: "alice" }] }),
        snap(5, { blockedByOpen: 2 }),
        snap(6, { openSubIssues: 1 }),
        snap(7, { blockedByOpen: 0, openSubIssues: 0 }),
        snap(8),
      ],
      T0,
    );
    await ledger.linkPull({ ...REPO, issue: 20 }, alice, [8], T0, { resume: RESUME });
    expect(await ready()).toEqual({ ready: [1, 2, 7], matched: 3, held: 0 });
    expect(await ready({ me: 1 })).toEqual({ ready: [1, 2, 4, 7], matched: 4, held: 0 });
    expect(await ready({ me: 1, assignee: "none" })).toEqual({ ready: [1, 2, 7], matched: 3, held: 0 });
    expect(await ready({ labels: ["bug"], me: 1 })).toEqual({ ready: [1, 2, 4], matched: 3, held: 0 });
    expect(await ready({ labels: ["bug", "UI"] })).toEqual({ ready: [1], matched: 1, held: 0 });
    expect(await ready({ anyLabels: ["ui", "wontfix"], me: 1 })).toEqual({ ready: [1, 4], matched: 2, held: 0 });
    expect(await ready({ labels: ["bug"], excludeLabels: ["wontfix"], me: 1 })).toEqual({ ready: [1, 2], matched: 2, held: 0 });
    expect(await ready({ milestone: "v1" })).toEqual({ ready: [2], matched: 1, held: 0 });
    expect(await ready({ notBlocked: false, notParent: false, noOpenPull: false })).toEqual({ ready: [1, 2, 5, 6, 7, 8], matched: 6, held: 0 });
  });

  it("the order: each order label's issues first, oldest first within each, then the rest", async () => {
    await ledger.rememberIssues(
      [
        snap(1),
        snap(2, { labels: ["priority: low"] }),
        snap(3, { labels: ["priority: high"] }),
        snap(4, { labels: ["Priority: Low", "priority: high"] }),
        snap(5, { labels: ["priority: high"] }),
        snap(6),
      ],
      T0,
    );
    expect(await ready({ order: ["priority: high", "priority: low"] })).toEqual({ ready: [3, 4, 5, 2, 1, 6], matched: 6, held: 0 });
    expect(await ready({ order: ["priority: low"] })).toEqual({ ready: [2, 4, 1, 3, 5, 6], matched: 6, held: 0 });
    expect(await ready({ order: ["priority: high"], limit: 2, counts: false })).toEqual({ ready: [3, 4], matched: 2, held: 0 });
    expect(await ready({ order: ["priority: high"], excludeLabels: ["priority: low"] })).toEqual({ ready: [3, 5, 1, 6], matched: 4, held: 0 });
  });

  it("leaves out held and skipped issues, counting them; an expired lease frees its issue; several repositories merge by age", async () => {
    await ledger.rememberIssues([1, 2, 3, 4].map((n) => snap(n)), T0);
    await ledger.rememberIssues([snap(1, { repoId: OTHER.repoId, createdAt: T0 + 2500 })], T0);
    await ledger.acquire({ ...REPO, issue: 1 }, alice, HOUR, T0);
    await ledger.acquire({ ...REPO, issue: 3 }, alice, 3 * HOUR, T0);
    expect(await ready({ skip: new Set(["100#2"]) })).toEqual({ ready: [4], matched: 4, held: 2 });
    expect(await ready({ limit: 1 }, T0 + 2 * HOUR)).toEqual({ ready: [1], matched: 4, held: 1 });
    const page = await ledger.readyIssues({ repoIds: [REPO.repoId, OTHER.repoId], limit: 10 }, T0);
    expect(page.ready.map((r) => `${r.repoId}#${r.issue}`)).toEqual(["100#2", "101#1", "100#4"]);
    expect([page.matched, page.held]).toEqual([5, 2]);
  });

  it("reads in pages: a thousand open issues, the ready ones past the held", async () => {
    await ledger.rememberIssues(Array.from({ length: 1000 }, (_, i) => snap(i + 1, { labels: i % 2 ? ["odd"] : [] })), T0);
    for (let i = 1; i <= 40; i++) await ledger.acquire({ ...REPO, issue: i }, alice, HOUR, T0);
    // Without counts, the held ones are left out in the database: only what is free is read and counted.
    expect(await ready({ limit: 3, counts: false })).toEqual({ ready: [41, 42, 43], matched: 3, held: 0 });
    expect(await ready({ limit: 3, labels: ["odd"] })).toEqual({ ready: [42, 44, 46], matched: 500, held: 20 });
  });
});
