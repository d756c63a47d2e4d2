/**
 * The port an effect writes through (src/github/effect-port.ts): one wrapper
 * holding the budget, the effect's fence, a repository turn's fence and a
 * batch, over a fake of the installation's port that records what reached
 * it, and a real budget on a faked clock.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { GitHubBudget } from "../../src/github/budget.js";
import { effectPort, type BatchedWrites, takeContentAhead } from "../../src/github/effect-port.js";
import type { GitHubPort } from "../../src/github/github-port.js";

const INST = 7;
const R = { owner: "o", repo: "r" };

beforeEach(() => {
  vi.useFakeTimers({ now: 1_000_000 });
});
afterEach(() => {
  vi.useRealTimers();
});

/** The installation's port, as far as these tests call it: each call it receives is recorded. */
function installationPort(sent: string[]): GitHubPort {
  return {
    addLabels: async (_r: unknown, _issue: number, names: string[]) => void sent.push(`addLabels ${names.join(",")}`),
    createComment: async () => void sent.push("createComment"),
    hasOwnComment: async () => (sent.push("hasOwnComment"), false),
    labelExists: async () => (sent.push("labelExists"), true),
    mutate: async () => (sent.push("mutate"), []),
    lookupIds: async () => (sent.push("lookupIds"), { repositoryId: "R", issueId: null, labels: new Map(), users: new Map() }),
  } as unknown as GitHubPort;
}

const budgetOf = () => new GitHubBudget({ contentPerMinute: 2, contentPerHour: 500, clock: () => Date.now(), reserves: { 0: 0, 1: 0, 2: 0 } });

describe("effectPort", () => {
  it("records a batch's writes without sending them or taking a slot, and sends its reads through the budget", async () => {
    const sent: string[] = [];
    const budget = budgetOf();
    const demand = budget.demand(INST, 0);
    const recorded: string[] = [];
    const batch: BatchedWrites = {
      addLabels: async (_r, _i, names) => void recorded.push(`addLabels ${names.join(",")}`),
      removeIssueLabel: async () => undefined,
      deleteRepoLabel: async () => undefined,
      createLabel: async () => undefined,
      addAssignee: async () => true,
      removeAssignee: async () => undefined,
      createComment: async () => void recorded.push("createComment"),
      labelExists: async () => (recorded.push("labelExists"), false),
    };
    const github = effectPort(effectPort(installationPort(sent), { budget: { budget, demand } }), { batch });
    await github.addLabels(R, 1, ["claimed"]);
    await github.createComment(R, 1, "hi");
    expect(await github.labelExists(R, "claimed")).toBe(false);
    expect(budget.usage(INST)).toMatchObject({ minute: 0, points: 0 });
    expect(await github.hasOwnComment(R, 1, "x")).toBe(false);
    expect(budget.usage(INST)).toMatchObject({ minute: 0, points: 1 });
    expect([recorded, sent]).toEqual([["addLabels claimed", "createComment", "labelExists"], ["hasOwnComment"]]);
    // The batch sends its own document: its port has no GraphQL calls.
    expect([github.mutate, github.lookupIds]).toEqual([undefined, undefined]);
    demand.end();
  });

  it("fails a call whose turn's lock is lost before it takes a slot, and one whose effect's lock is lost once it has its slot", async () => {
    const sent: string[] = [];
    const budget = budgetOf();
    const demand = budget.demand(INST, 0);
    const effectLock = new AbortController();
    const turnLock = new AbortController();
    const github = effectPort(installationPort(sent), { fence: effectLock.signal, budget: { budget, demand } });
    const turn = effectPort(github, { turn: turnLock.signal });
    turnLock.abort(new Error("the repository's label lock was lost"));
    expect(() => turn.createComment(R, 1, "hi")).toThrow("label lock was lost");
    expect(budget.usage(INST)).toMatchObject({ minute: 0, inFlight: 0 });
    // Both content slots of the minute taken: the next call waits for one; the effect's lock is lost meanwhile.
    const held = [await budget.acquire(INST, 0, { content: true, points: 5 }), await budget.acquire(INST, 0, { content: true, points: 5 })];
    const waiting = github.addLabels(R, 1, ["claimed"]).then(() => "sent", (error: Error) => error.message);
    effectLock.abort(new Error("the effect's lock was lost"));
    for (const slot of held) slot.release();
    await vi.advanceTimersByTimeAsync(60_000);
    expect(await waiting).toBe("the effect's lock was lost");
    expect(sent).toEqual([]);
    demand.end();
  });

  it("lets a turn's port use the content slot taken ahead on the effect's port: one content request, one slot", async () => {
    const sent: string[] = [];
    const budget = budgetOf();
    const demand = budget.demand(INST, 0);
    const github = effectPort(installationPort(sent), { budget: { budget, demand } });
    const ahead = await takeContentAhead(github);
    const turn = effectPort(github, { turn: new AbortController().signal });
    await turn.createComment(R, 1, "hi");
    ahead.cancel();
    expect(sent).toEqual(["createComment"]);
    expect(budget.usage(INST)).toMatchObject({ minute: 1, hour: 1, inFlight: 0 });
    expect(() => effectPort(github, { budget: { budget, demand } })).toThrow("one budget");
    demand.end();
  });
});
