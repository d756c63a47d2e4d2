/**
 * claimNext over a real ledger, both backends (issue 22): twenty walks at
 * once over fifty ready issues take twenty different ones; an issue closed,
 * labelled out of the filter or linked to an open pull request while agents
 * wait is passed over; an issue lost or refused for a reason of its own is
 * skipped, a refusal of the caller is the answer; nothing ready counts the
 * matched and held.
 */
import { describe, expect, it } from "vitest";
import { attemptOf, claimNext, type Attempt } from "../../src/leasing/next-claim.js";
import type { LeaseResult } from "../../src/leasing/lease-result.js";
import type { IssueSnapshot, ReadyIssue } from "../../src/ledger/inventory/inventory-types.js";
import type { Ledger } from "../../src/ledger/ledger.js";
import type { Holder } from "../../src/ledger/leases/lease-types.js";
import { backends, useBackend } from "../ledger/backends.js";

const HOUR = 3_600_000;
const T0 = 1_700_000_000_000;
const REPO = { repoId: 100, repo: "org/widgets" };
const author: Holder = { id: 50, login: "author" };

const snap = (issue: number, over: Partial<IssueSnapshot> = {}): IssueSnapshot => ({
  repoId: REPO.repoId, issue, title: `issue ${issue}`, labels: ["ready"], assignees: [], milestone: null, author, createdAt: T0 + issue,
  state: "open", blockedByOpen: null, openSubIssues: null, updatedAt: T0 + issue, ...over,
});

/** An attempt as the API makes it: one acquire, its result read as the walk reads it. */
const claimBy = (ledger: Ledger, holder: Holder, now: number) => async (issue: ReadyIssue): Promise<Attempt<LeaseResult & { issue: number }>> => {
  const r = await ledger.acquire({ ...REPO, issue: issue.issue }, holder, HOUR, now);
  const result = (r.outcome === "acquired" ? { outcome: "acquired", lease: r.lease, newTenure: r.newTenure, duplicate: false } : { outcome: "held", lease: r.outcome === "held" ? r.lease : null, duplicate: false }) as LeaseResult;
  return attemptOf(result, { ...result, issue: issue.issue });
};

describe.each(backends)("claimNext ($name)", (backend) => {
  const { ledger, store } = useBackend(backend);
  const trying = new Map<string, Promise<unknown>>();
  const query = { repoIds: [REPO.repoId], labels: ["ready"] };

  it("twenty walks at once over fifty ready issues take twenty different ones; then 30 of 40, and 10 answers of nothing ready", async () => {
    await ledger.rememberIssues(Array.from({ length: 50 }, (_, i) => snap(i + 1)), T0);
    const walk = (i: number) => claimNext({ ledger, now: T0, trying }, query, claimBy(ledger, { id: 1000 + i, login: `agent-${i}` }, T0));
    const first = await Promise.all(Array.from({ length: 20 }, (_, i) => walk(i)));
    const taken = first.map((o) => (o.kind === "answer" ? o.answer.issue : 0));
    expect([...taken].sort((a, b) => a - b)).toEqual(Array.from({ length: 20 }, (_, i) => i + 1));
    const more = await Promise.all(Array.from({ length: 40 }, (_, i) => walk(20 + i)));
    const got = more.filter((o) => o.kind === "answer").map((o) => (o.kind === "answer" ? o.answer.issue : 0));
    expect(new Set([...taken, ...got]).size).toBe(50);
    expect(more.filter((o) => o.kind === "nothing_ready")).toEqual(Array.from({ length: 10 }, () => ({ kind: "nothing_ready", matched: 50, held: 50 })));
    expect(trying.size).toBe(0);
  });

  it("passes over what changed while agents wait: closed, labelled out, linked to an open pull request", async () => {
    await ledger.rememberIssues([1, 2, 3, 4].map((n) => snap(n)), T0);
    await ledger.rememberIssues([snap(1, { state: "closed", updatedAt: T0 + 100 })], T0);
    await ledger.rememberIssues([snap(2, { labels: ["ready", "wontfix"], updatedAt: T0 + 100 })], T0);
    await ledger.linkPull({ ...REPO, issue: 90 }, author, [3], T0, { resume: { ttl: HOUR, remindBefore: null } });
    const got = await claimNext({ ledger, now: T0, trying }, { ...query, excludeLabels: ["wontfix"] }, claimBy(ledger, { id: 1, login: "a" }, T0));
    expect(got).toMatchObject({ kind: "answer", answer: { outcome: "acquired", issue: 4 } });
  });

  it("one delivery id over the attempts: recorded only by the claim that acquires, so a lost attempt leaves it to the next", async () => {
    const delivery = "api:1:next:100::key-1";
    const recordOnly = ["acquired"];
    await ledger.acquire({ ...REPO, issue: 1 }, { id: 9, login: "other" }, HOUR, T0);
    const lost = await ledger.acquire({ ...REPO, issue: 1 }, author, HOUR, T0, { delivery, recordOnly });
    expect(lost).toMatchObject({ outcome: "held", duplicate: false });
    expect(await ledger.recorded(delivery)).toBeNull();
    const taken = await ledger.acquire({ ...REPO, issue: 2 }, author, HOUR, T0, { delivery, recordOnly });
    expect(taken).toMatchObject({ outcome: "acquired", duplicate: false, lease: { issue: 2 } });
    // A retry, on whichever issue it tries, answers the first claim's.
    expect(await ledger.acquire({ ...REPO, issue: 3 }, author, HOUR, T0, { delivery, recordOnly })).toMatchObject({ outcome: "acquired", duplicate: true, lease: { issue: 2 } });
    expect(await ledger.recorded(delivery)).toMatchObject({ outcome: "acquired", lease: { issue: 2 } });
    expect(await ledger.current({ ...REPO, issue: 3 }, T0)).toBeNull();
  });

  it("two retries at once under one delivery id, on two connections: one claim, the other answers it", async () => {
    await ledger.rememberIssues([1, 2].map((n) => snap(n)), T0);
    const other = (await store().another?.()) ?? ledger;
    const delivery = "api:1:next:100::key-2";
    const recordOnly = ["acquired"];
    const [a, b] = await Promise.all([
      ledger.acquire({ ...REPO, issue: 1 }, author, HOUR, T0, { delivery, recordOnly }),
      other.acquire({ ...REPO, issue: 2 }, author, HOUR, T0, { delivery, recordOnly }),
    ]);
    expect([a, b].filter((r) => !r.duplicate)).toHaveLength(1);
    expect(a.outcome === "acquired" && b.outcome === "acquired" && a.lease.issue === b.lease.issue).toBe(true);
  });

  it("skips an issue refused for a reason of its own; answers a refusal of the caller; counts matched and held when nothing is ready", async () => {
    await ledger.rememberIssues([1, 2, 3].map((n) => snap(n)), T0);
    const refused = (rule: string) => ({ outcome: "forbidden", rule, reason: rule, lease: null, duplicate: false }) as LeaseResult;
    const tried: number[] = [];
    const authorFirstOn1 = async (issue: ReadyIssue) => {
      tried.push(issue.issue);
      return issue.issue === 1 ? attemptOf(refused("author_first"), issue.issue) : attemptOf(refused("max_leases_per_holder"), issue.issue);
    };
    expect(await claimNext({ ledger, now: T0, trying }, query, authorFirstOn1)).toEqual({ kind: "answer", answer: 2 });
    expect(tried).toEqual([1, 2]);
    await ledger.acquire({ ...REPO, issue: 2 }, { id: 9, login: "other" }, HOUR, T0);
    const none = await claimNext({ ledger, now: T0, trying }, query, async () => attemptOf(refused("author_first"), 0));
    expect(none).toEqual({ kind: "nothing_ready", matched: 3, held: 1 });
  });
});
