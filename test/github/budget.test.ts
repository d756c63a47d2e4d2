/**
 * GitHub's budget per installation (src/github/budget.ts), on a faked clock:
 * the content windows (a request counts from when it is sent until a
 * window's length after its answer), the tiers and their reserves, waiters
 * served by tier, pauses, and what the drainer is told to hold back.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { GitHubBudget, type Slot } from "../../src/github/budget.js";
import { CONTENT, READ, type Tier, WRITE } from "../../src/github/budget-settings.js";
import { budgetSettings, githubWrites, labelLingerMs } from "../../src/settings/github-settings.js";
import { rateLimitWait } from "../../src/outbox/after-failure.js";
import { effectPort, takeContentAhead } from "../../src/github/effect-port.js";
import type { GitHubPort } from "../../src/github/github-port.js";

const MIN = 60_000;
const HOUR = 60 * MIN;
const INST = 7;

beforeEach(() => {
  vi.useFakeTimers({ now: 1_000_000 });
});
afterEach(() => {
  vi.useRealTimers();
});

/** With reserves of 5 % and 10 %, which small limits make distinct (the defaults, 1 % and 3 %, are tested below). */
const budgetOf = (perMinute: number, perHour: number, more: Partial<ConstructorParameters<typeof GitHubBudget>[0]> = {}) =>
  new GitHubBudget({ contentPerMinute: perMinute, contentPerHour: perHour, clock: () => Date.now(), reserves: { 0: 0, 1: 0.05, 2: 0.1 }, ...more });

/** Acquires, recording when the slot was granted. */
function track(budget: GitHubBudget, tier: Tier, log: string[], name: string, signal?: AbortSignal): Promise<Slot> {
  return budget.acquire(INST, tier, CONTENT, signal).then((slot) => {
    log.push(name);
    return slot;
  });
}

describe("GitHub's budget", () => {
  it("content requests: no more than the minute's limit in any window, counted until a minute after each answer", async () => {
    const budget = budgetOf(3, 500);
    const slots = await Promise.all([0, 1, 2].map(() => budget.acquire(INST, 0, CONTENT)));
    const granted: string[] = [];
    const fourth = track(budget, 0, granted, "fourth");
    await vi.advanceTimersByTimeAsync(10 * MIN);
    // All three still in flight: nothing frees a slot but an answer.
    expect(granted).toEqual([]);
    slots[0]!.release();
    await vi.advanceTimersByTimeAsync(MIN - 1);
    expect(granted).toEqual([]);
    await vi.advanceTimersByTimeAsync(1);
    expect(granted).toEqual(["fourth"]);
    (await fourth).release();
    expect(budget.usage(INST)).toMatchObject({ minute: 3, hour: 4, inFlight: 2 });
  });

  it("reads and other writes cost points, not content", async () => {
    const budget = budgetOf(1, 500, { pointsPerMinute: 12 });
    (await budget.acquire(INST, 0, CONTENT)).release();
    // The content minute is spent; a delete (5 points) and two reads still fit, a third read does not (5 + 5 + 1 + 1 = 12).
    (await budget.acquire(INST, 0, WRITE)).release();
    (await budget.acquire(INST, 0, READ)).release();
    (await budget.acquire(INST, 0, READ)).release();
    const log: string[] = [];
    void budget.acquire(INST, 0, READ).then(() => log.push("read"));
    await vi.advanceTimersByTimeAsync(MIN - 1);
    expect(log).toEqual([]);
    await vi.advanceTimersByTimeAsync(1);
    expect(log).toEqual(["read"]);
  });

  it("the hour's limit holds across minutes", async () => {
    const budget = budgetOf(80, 4);
    for (let i = 0; i < 4; i++) {
      (await budget.acquire(INST, 0, CONTENT)).release();
      await vi.advanceTimersByTimeAsync(5 * MIN);
    }
    const log: string[] = [];
    void track(budget, 0, log, "fifth");
    // The first answer came at 0: its hour ends at 60 min; 20 have passed.
    await vi.advanceTimersByTimeAsync(40 * MIN - 1);
    expect(log).toEqual([]);
    await vi.advanceTimersByTimeAsync(1);
    expect(log).toEqual(["fifth"]);
  });

  it("tiers: notices stop 5 % short, label-only work 10 % short, and waiters are served replies first", async () => {
    const budget = budgetOf(20, 500);
    const slots: Slot[] = [];
    for (let i = 0; i < 18; i++) slots.push(await budget.acquire(INST, 0, CONTENT));
    // 18 of 20: label-only work (limit 18) waits, a notice (limit 19) goes.
    const log: string[] = [];
    const labels = track(budget, 2, log, "labels");
    slots.push(await track(budget, 1, log, "notice"));
    // 19: a reply goes, a second notice waits.
    slots.push(await track(budget, 0, log, "reply"));
    const notice2 = track(budget, 1, log, "notice2");
    const reply2 = track(budget, 0, log, "reply2");
    expect(log).toEqual(["notice", "reply"]);
    expect(budget.held()).toEqual([{ installation: INST, fromPriority: 0 }]);
    // Answers come; each slot frees a minute after its answer, one at a time.
    for (const [i, slot] of slots.entries()) {
      slot.release();
      await vi.advanceTimersByTimeAsync(1000 + i);
    }
    await vi.advanceTimersByTimeAsync(MIN);
    await Promise.all([labels, notice2, reply2]);
    expect(log).toEqual(["notice", "reply", "reply2", "notice2", "labels"]);
  });

  it("held: what the drainer should not take, by tier", async () => {
    const budget = budgetOf(20, 40);
    expect(budget.held()).toEqual([]);
    for (let i = 0; i < 18; i++) (await budget.acquire(INST, 0, CONTENT)).release();
    expect(budget.held()).toEqual([{ installation: INST, fromPriority: 2 }]);
    (await budget.acquire(INST, 0, CONTENT)).release();
    expect(budget.held()).toEqual([{ installation: INST, fromPriority: 1 }]);
    (await budget.acquire(INST, 0, CONTENT)).release();
    expect(budget.held()).toEqual([{ installation: INST, fromPriority: 0 }]);
    await vi.advanceTimersByTimeAsync(MIN);
    expect(budget.held()).toEqual([]);
    // The hour: 20 more fill it to 40 of 40 (limits 38 and 36 for the lower tiers).
    for (let i = 0; i < 17; i++) (await budget.acquire(INST, 0, CONTENT)).release();
    await vi.advanceTimersByTimeAsync(MIN);
    expect(budget.held()).toEqual([{ installation: INST, fromPriority: 2 }]);
    expect(budget.folding(INST)).toBe(false);
    (await budget.acquire(INST, 0, CONTENT)).release();
    await vi.advanceTimersByTimeAsync(MIN);
    expect(budget.held()).toEqual([{ installation: INST, fromPriority: 1 }]);
    // Notices fold while the hour is short for them, and for an hour after.
    expect(budget.folding(INST)).toBe(true);
    await vi.advanceTimersByTimeAsync(HOUR - 2 * MIN);
    expect(budget.held()).toEqual([]);
    expect(budget.folding(INST)).toBe(true);
    await vi.advanceTimersByTimeAsync(2 * MIN);
    expect(budget.folding(INST)).toBe(false);
    expect(budget.folding(INST + 1)).toBe(false);
  });

  it("while the budget is short, notices wait until the replies in flight have their slots", async () => {
    const budget = budgetOf(20, 500);
    const reply = budget.demand(INST, 0);
    // Little used: a reply in flight holds nothing back.
    (await budget.acquire(INST, 0, CONTENT, undefined, reply)).release();
    expect(budget.held()).toEqual([]);
    // Half the minute used: notices and label-only work wait while the reply may still create something.
    for (let i = 0; i < 9; i++) (await budget.acquire(INST, 0, CONTENT)).release();
    expect(budget.held()).toEqual([{ installation: INST, fromPriority: 1 }]);
    (await budget.acquire(INST, 0, CONTENT, undefined, reply)).release();
    (await budget.acquire(INST, 0, CONTENT, undefined, reply)).release();
    expect(reply.remaining).toBe(0);
    expect(budget.held()).toEqual([]);
    // A reply that ends before using its slots (nothing to change) holds nothing back either.
    const another = budget.demand(INST, 0);
    expect(budget.held()).toEqual([{ installation: INST, fromPriority: 1 }]);
    another.end();
    expect(budget.held()).toEqual([]);
  });

  it("a pause holds every request of the installation, and only of it", async () => {
    const budget = budgetOf(80, 500);
    budget.pause(INST, 90_000);
    expect(budget.held()).toEqual([{ installation: INST, fromPriority: 0 }]);
    (await budget.acquire(INST + 1, 0, CONTENT)).release();
    const log: string[] = [];
    void track(budget, 0, log, "after");
    await vi.advanceTimersByTimeAsync(90_000 - 1);
    expect(log).toEqual([]);
    await vi.advanceTimersByTimeAsync(1);
    expect(log).toEqual(["after"]);
    expect(budget.held()).toEqual([]);
  });

  it("a wait given up (the effect's lock was lost) takes nothing", async () => {
    const budget = budgetOf(1, 500);
    const first = await budget.acquire(INST, 0, CONTENT);
    const abort = new AbortController();
    const waiting = budget.acquire(INST, 0, CONTENT, abort.signal);
    abort.abort(new Error("lock lost"));
    await expect(waiting).rejects.toThrow("lock lost");
    first.release();
    await vi.advanceTimersByTimeAsync(MIN);
    expect(budget.usage(INST)).toMatchObject({ minute: 0, hour: 1, inFlight: 0 });
    (await budget.acquire(INST, 0, CONTENT)).release();
  });

  it("a slot taken ahead (before a repository's turn) serves the port's next content request, and given back unused counts nowhere", async () => {
    const budget = budgetOf(2, 500);
    const calls: string[] = [];
    const port = { createComment: async () => void calls.push("comment"), hasOwnComment: async () => (calls.push("read"), false) } as unknown as GitHubPort;
    const demand = budget.demand(INST, 0);
    const github = effectPort(port, { budget: { budget, demand } });
    const ahead = await takeContentAhead(github);
    expect(budget.usage(INST)).toMatchObject({ minute: 1, inFlight: 1 });
    // The read takes a slot of its own; the comment takes the one taken ahead: still one content request.
    await github.hasOwnComment({ owner: "o", repo: "r" }, 1, "x");
    await github.createComment({ owner: "o", repo: "r" }, 1, "hi");
    ahead.cancel();
    expect(calls).toEqual(["read", "comment"]);
    expect(budget.usage(INST)).toMatchObject({ minute: 1, hour: 1, inFlight: 0 });
    // Taken ahead and given back unused: in no window, and the minute's second slot is free at once.
    const unused = await takeContentAhead(github);
    unused.cancel();
    expect(budget.usage(INST)).toMatchObject({ minute: 1, hour: 1, inFlight: 0 });
    (await budget.acquire(INST, 0, CONTENT)).release();
    expect(budget.usage(INST)).toMatchObject({ minute: 2, hour: 2 });
    // A port without a budget: nothing to take.
    (await takeContentAhead(port)).cancel();
    demand.end();
  });

  it("by default an expiry wave may use 99 % of GitHub's allowance, and label-only work 97 %", async () => {
    const budget = new GitHubBudget({ clock: () => Date.now() });
    for (let i = 0; i < 77; i++) (await budget.acquire(INST, 0, CONTENT)).release();
    expect(budget.held()).toEqual([{ installation: INST, fromPriority: 2 }]);
    (await budget.acquire(INST, 0, CONTENT)).release();
    (await budget.acquire(INST, 0, CONTENT)).release();
    expect(budget.held()).toEqual([{ installation: INST, fromPriority: 1 }]);
    await vi.advanceTimersByTimeAsync(MIN);
    for (let m = 0; m < 6; m++) {
      for (let i = 0; i < 69; i++) (await budget.acquire(INST, 1, CONTENT)).release();
      await vi.advanceTimersByTimeAsync(MIN);
    }
    // 79 + 6 × 69 = 493 in the hour: notices may take two more (495), label-only work none (485).
    expect(budget.usage(INST).hour).toBe(493);
    expect(budget.held()).toEqual([{ installation: INST, fromPriority: 2 }]);
    (await budget.acquire(INST, 1, CONTENT)).release();
    (await budget.acquire(INST, 1, CONTENT)).release();
    expect(budget.held()).toEqual([{ installation: INST, fromPriority: 1 }]);
  });

  it("settings from the environment: GitHub's limits by default, never above them", () => {
    expect(budgetSettings({})).toEqual({ contentPerMinute: 80, contentPerHour: 500, minPauseMs: 60_000 });
    expect(budgetSettings({ GITHUB_CONTENT_PER_MINUTE: "10", GITHUB_CONTENT_PER_HOUR: "30", GITHUB_MIN_PAUSE_S: "5" })).toEqual({
      contentPerMinute: 10,
      contentPerHour: 30,
      minPauseMs: 5000,
    });
    expect(() => budgetSettings({ GITHUB_CONTENT_PER_HOUR: "900" })).toThrow('GITHUB_CONTENT_PER_HOUR must be a whole number from 1 to 500; it is "900"');
    expect(() => budgetSettings({ GITHUB_CONTENT_PER_MINUTE: "ten" })).toThrow(/GITHUB_CONTENT_PER_MINUTE/);
  });

  it("GITHUB_WRITES: graphql or rest, the default when unset, and anything else refused by name", () => {
    expect(githubWrites({}, "graphql")).toBe("graphql");
    expect(githubWrites({ GITHUB_WRITES: "" }, "graphql")).toBe("graphql");
    expect(githubWrites({ GITHUB_WRITES: "rest" }, "graphql")).toBe("rest");
    expect(githubWrites({ GITHUB_WRITES: "graphql" }, "rest")).toBe("graphql");
    expect(() => githubWrites({ GITHUB_WRITES: "REST" }, "graphql")).toThrow('GITHUB_WRITES must be "graphql" or "rest"; it is "REST"');
  });

  it("LABEL_LINGER_S: a day by default, 0 for at once, seconds up to 30 days, anything else refused by name", () => {
    expect(labelLingerMs({})).toBe(86_400_000);
    expect(labelLingerMs({ LABEL_LINGER_S: "" })).toBe(86_400_000);
    expect(labelLingerMs({ LABEL_LINGER_S: "0" })).toBe(0);
    expect(labelLingerMs({ LABEL_LINGER_S: "3600" })).toBe(3_600_000);
    for (const bad of ["-1", "1.5", "1d", String(31 * 86_400)]) {
      expect(() => labelLingerMs({ LABEL_LINGER_S: bad })).toThrow(`LABEL_LINGER_S must be a whole number of seconds from 0 to 2592000; it is "${bad}"`);
    }
  });
});

describe("rate limits GitHub answers", () => {
  const error = (status: number, headers: Record<string, string>, message = "") => ({ status, message, response: { headers } });

  it("a secondary limit pauses at least the least pause, whatever retry-after says", () => {
    expect(rateLimitWait(error(403, { "retry-after": "1" }, "You have exceeded a secondary rate limit"), 0)).toBe(60_000);
    expect(rateLimitWait(error(429, { "retry-after": "120" }), 0)).toBe(120_000);
    expect(rateLimitWait(error(403, {}, "You have exceeded a secondary rate limit"), 0, 5000)).toBe(5000);
    // The primary limit spent: until its reset.
    expect(rateLimitWait(error(403, { "x-ratelimit-remaining": "0", "x-ratelimit-reset": "300" }), 100_000)).toBe(200_000);
    expect(rateLimitWait(error(403, {}, "Resource not accessible by integration"), 0)).toBeNull();
  });

  it("a GraphQL answer of 200 with a RATE_LIMITED error is a secondary limit", () => {
    const graphql = { name: "GraphqlResponseError", errors: [{ type: "RATE_LIMITED", message: "API rate limit exceeded" }], data: {} };
    expect(rateLimitWait(graphql, 0)).toBe(60_000);
    const secondary = { errors: [{ message: "You have exceeded a secondary rate limit. Please wait a few minutes." }] };
    expect(rateLimitWait(secondary, 0, 90_000)).toBe(90_000);
    expect(rateLimitWait({ errors: [{ type: "NOT_FOUND", message: "Could not resolve" }] }, 0)).toBeNull();
  });
});
