/**
 * Ledger contract, both backends: a holder is an account AND an instance
 * (the API's worker name), so that two workers of one bot account exclude
 * each other; a comment's holder has none. The per-holder limit counts the
 * account. And what the API's idempotency keys rely on: a note keeps its
 * detail for a retry, `recorded` returns the first result of a delivery id,
 * and a result whose reply does not count leaves the reply budget alone.
 */
import { describe, expect, it } from "vitest";
import type { Holder, IssueKey } from "../../src/ledger/leases/lease-types.js";
import type { ReplyBudget } from "../../src/ledger/leases/reply-budget.js";
import { backends, useBackend } from "./backends.js";
import { type EffectCases } from "../../src/ledger/leases/effect-cases.js";

const T0 = 1_700_000_000_000;
const HOUR = 3_600_000;
const key = (issue: number): IssueKey => ({ repoId: 100, repo: "octo/r", issue });
const w1: Holder = { id: 7, login: "agent[bot]", instance: "w1" };
const w2: Holder = { id: 7, login: "agent[bot]", instance: "w2" };
const account: Holder = { id: 7, login: "agent[bot]" };

describe.each(backends)("holders with instances: $name", (backend) => {
  const { ledger } = useBackend(backend);

  it("two instances of one account are two holders; the account alone (a comment) is a third", async () => {
    const first = await ledger.acquire(key(1), w1, HOUR, T0);
    expect(first).toMatchObject({ outcome: "acquired", newTenure: true, lease: { holder: w1, token: 1 } });
    expect(await ledger.acquire(key(1), w2, HOUR, T0 + 1)).toMatchObject({ outcome: "held", lease: { holder: w1, token: 1 } });
    expect(await ledger.acquire(key(1), account, HOUR, T0 + 2)).toMatchObject({ outcome: "held", lease: { holder: w1 } });
    expect(await ledger.renew(key(1), w2, HOUR, T0 + 3)).toMatchObject({ outcome: "not_holder", lease: { holder: w1 } });
    expect(await ledger.release(key(1), w2, T0 + 4)).toMatchObject({ outcome: "not_holder", lease: { holder: w1 } });
    expect(await ledger.release(key(1), account, T0 + 5)).toMatchObject({ outcome: "not_holder" });
    // The holder's own claim again is the same tenure.
    expect(await ledger.acquire(key(1), w1, 2 * HOUR, T0 + 6)).toMatchObject({ outcome: "acquired", newTenure: false, lease: { token: 1 } });
    expect(await ledger.current(key(1), T0 + 7)).toMatchObject({ holder: w1, token: 1 });
    expect(await ledger.release(key(1), w1, T0 + 8)).toMatchObject({ outcome: "released", lease: { holder: w1, token: 1 } });
    // Free: the next tenure, by the other instance, gets the next token and shows its instance.
    expect(await ledger.acquire(key(1), w2, HOUR, T0 + 9)).toMatchObject({ outcome: "acquired", lease: { holder: w2, token: 2 } });
    expect((await ledger.list(100, T0 + 10))[0]?.holder).toEqual(w2);
    expect((await ledger.listHeldBy(7, T0 + 10))[0]?.holder).toEqual(w2);
  });

  it("a comment's holder has no instance at all, not a null one", async () => {
    await ledger.acquire(key(1), { id: 1, login: "alice" }, HOUR, T0);
    const lease = await ledger.current(key(1), T0 + 1);
    expect(lease?.holder).toEqual({ id: 1, login: "alice" });
    expect(lease?.holder).not.toHaveProperty("instance");
    const [entry] = await ledger.history(key(1));
    expect(entry?.holder).not.toHaveProperty("instance");
    expect(entry?.actor).not.toHaveProperty("instance");
  });

  it("history keeps the holder's and the actor's instance", async () => {
    await ledger.acquire(key(1), w1, HOUR, T0);
    await ledger.acquire(key(1), w2, HOUR, T0 + 1);
    await ledger.forceRelease(key(1), { id: 9, login: "maint" }, T0 + 2);
    const history = await ledger.history(key(1));
    expect(history.map((h) => [h.op, h.outcome, h.actor, h.holder])).toEqual([
      ["acquire", "acquired", w1, w1],
      ["acquire", "held", w2, w1],
      ["force_release", "released", { id: 9, login: "maint" }, w1],
    ]);
  });

  it("the per-holder limit counts the account, whichever instance holds", async () => {
    const opts = { maxPerHolder: 2 };
    expect(await ledger.acquire(key(1), w1, HOUR, T0, opts)).toMatchObject({ outcome: "acquired" });
    expect(await ledger.acquire(key(2), w2, HOUR, T0 + 1, opts)).toMatchObject({ outcome: "acquired" });
    const third = await ledger.acquire(key(3), { ...w1, instance: "w3" }, HOUR, T0 + 2, opts);
    expect(third).toMatchObject({ outcome: "limit", limit: 2 });
    expect(third.outcome === "limit" && third.held.map((l) => l.holder.instance).sort()).toEqual(["w1", "w2"]);
  });

  it("a note's detail comes back with it, and with a retry of its delivery id", async () => {
    const detail = { outcome: "forbidden", rule: "bots", reason: "Bots may not claim issues here." };
    const first = await ledger.note(key(1), w1, T0, { delivery: "api:7:claim:k1", outcome: "forbidden", detail });
    expect(first).toMatchObject({ outcome: "noted", detail, duplicate: false });
    // The retry carries another detail (the config changed meanwhile): the first one answers.
    const again = await ledger.note(key(1), w1, T0 + 1, { delivery: "api:7:claim:k1", outcome: "invalid", detail: { rule: "ttl" } });
    expect(again).toMatchObject({ outcome: "noted", detail, duplicate: true });
    expect(await ledger.history(key(1))).toHaveLength(1);
  });

  it("recorded() gives the first result of a delivery id, whatever the operation; null for one never seen", async () => {
    expect(await ledger.recorded("api:7:claim:k2")).toBeNull();
    await ledger.acquire(key(1), w1, HOUR, T0, { delivery: "api:7:claim:k2" });
    await ledger.release(key(1), w1, T0 + 1);
    expect(await ledger.recorded("api:7:claim:k2")).toMatchObject({ outcome: "acquired", newTenure: true, lease: { holder: w1, token: 1 } });
    // A retry through the ledger changes nothing: the issue stays free.
    expect(await ledger.acquire(key(1), w1, HOUR, T0 + 2, { delivery: "api:7:claim:k2" })).toMatchObject({ outcome: "acquired", duplicate: true });
    expect(await ledger.current(key(1), T0 + 3)).toBeNull();
  });

  it("a result whose case writes nothing (countsOnlyPosts) leaves the reply budget alone", async () => {
    const probe: EffectCases = { any: [{ effect: { installation: 1, kind: "reply", payload: {} }, budgeted: "keep" }] };
    const opts = (counts: boolean) =>
      counts ? { repliesPerHour: 1, effects: probe } : { repliesPerHour: 1, countsOnlyPosts: true, effects: { acquired: probe.any! } };
    // Held claims (posting nothing through the API) do not count...
    await ledger.acquire(key(1), w1, HOUR, T0);
    for (let i = 1; i <= 3; i++) await ledger.acquire(key(1), w2, HOUR, T0 + i, opts(false));
    // ...so the first reply that does is still within a limit of 1, and the next is the notice.
    await ledger.release(key(1), w1, T0 + 10, opts(true));
    await ledger.acquire(key(1), w2, HOUR, T0 + 11, opts(true));
    // One issue's effects are handed out in order: each taken once the one before it is done.
    const taken: ReplyBudget[] = [];
    for (let i = 0; i < 2; i++) {
      const [e] = await ledger.takeEffects(T0 + 12, 10, 60_000);
      await ledger.completeEffect({ id: e!.id, attempt: e!.attempts }, T0 + 12);
      taken.push((e!.payload as { budget?: { left: ReplyBudget } }).budget?.left ?? "reply");
    }
    expect(taken).toEqual(["reply", "notice"]);
  });
});
