/**
 * Ledger contract, both backends: an operation carrying `repliesPerHour`
 * gets its actor's reply budget, counted from the history in its own
 * transaction, per repository and actor, over a rolling hour.
 */
import { describe, expect, it } from "vitest";
import type { Holder, IssueKey } from "../../src/ledger/leases/lease-types.js";
import type { ReplyBudget } from "../../src/ledger/leases/reply-budget.js";
import { backends, useBackend } from "./backends.js";
import { type EffectCases } from "../../src/ledger/leases/effect-cases.js";

const MIN = 60_000;
const T0 = 1_700_000_000_000;
const key = (issue: number, repoId = 100): IssueKey => ({ repoId, repo: `octo/r${repoId}`, issue });
const alice: Holder = { id: 1, login: "alice" };
const bob: Holder = { id: 2, login: "bob" };
/** An effect the reply budget bears on: its payload says the budget it met. */
const PROBE: EffectCases = { any: [{ effect: { installation: 1, kind: "probe", payload: {} }, budgeted: "keep" }] };

describe.each(backends)("reply budget: $name", (backend) => {
  const { ledger } = useBackend(backend);

  /** The budget the last operation's effect met, as the transaction wrote it (none: a reply); the effect is done with. */
  async function spent(now: number): Promise<ReplyBudget> {
    const [e] = await ledger.takeEffects(now, 10, MIN);
    await ledger.completeEffect({ id: e!.id, attempt: e!.attempts }, now);
    return (e!.payload as { budget?: { left: ReplyBudget } }).budget?.left ?? "reply";
  }

  /** The budget a note by `actor` got. */
  async function budgetOf(actor: Holder, now: number, k = key(1), limit = 3): Promise<ReplyBudget> {
    await ledger.note(k, actor, now, { repliesPerHour: limit, effects: PROBE });
    return spent(now);
  }

  it("gives `limit` replies, then one notice, then silence, until the hour since the first reply has passed", async () => {
    const got: ReplyBudget[] = [];
    for (let i = 0; i < 6; i++) got.push(await budgetOf(alice, T0 + i * MIN, key(1 + (i % 2))));
    expect(got).toEqual(["reply", "reply", "reply", "notice", "silent", "silent"]);
    // Others, and the same person in another repository, have budgets of their own.
    expect(await budgetOf(bob, T0 + 6 * MIN)).toBe("reply");
    expect(await budgetOf(alice, T0 + 6 * MIN, key(1, 200))).toBe("reply");
    // An hour after the first reply, the two others and the notice still count (the notice is a post too).
    expect(await budgetOf(alice, T0 + 60 * MIN)).toBe("silent");
    // An hour after the second: one reply is free again; the notice, still in the hour, is not repeated.
    expect(await budgetOf(alice, T0 + 61 * MIN + 1)).toBe("reply");
    expect(await budgetOf(alice, T0 + 61 * MIN + 2)).toBe("silent");
    // Every operation is in the history, answered or not.
    expect(await ledger.history(key(1))).toHaveLength(7);
  });

  it("counts nothing without a limit: the budget is always a reply", async () => {
    for (let i = 0; i < 5; i++) {
      await ledger.acquire(key(1), alice, MIN, T0 + i, { effects: PROBE });
      expect(await spent(T0 + i)).toBe("reply");
    }
    expect(await budgetOf(alice, T0 + 10)).toBe("reply");
  });
});
