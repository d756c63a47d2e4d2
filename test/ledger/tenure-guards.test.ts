/**
 * Ledger contract, both backends: a force release carrying the tenure its
 * event saw (`ifToken`) or the time of the event (`eventAt`, and whether
 * GitHub says it was `undone` since) ends only that tenure, decided inside
 * the transaction.
 */
import { describe, expect, it } from "vitest";
import type { Holder, IssueKey } from "../../src/ledger/leases/lease-types.js";
import { backends, useBackend } from "./backends.js";

const HOUR = 3_600_000;
const T0 = 1_700_000_000_000;
const k: IssueKey = { repoId: 100, repo: "octo/alpha", issue: 1 };
const alice: Holder = { id: 1, login: "alice" };
const bob: Holder = { id: 2, login: "bob" };
const maint: Holder = { id: 3, login: "maint" };

describe.each(backends)("force release guards: $name", (backend) => {
  const { ledger } = useBackend(backend);

  it("ifToken: a token that is not the live one is stale and changes nothing; the live one is released", async () => {
    await ledger.acquire(k, alice, HOUR, T0);
    await ledger.release(k, alice, T0 + 1);
    await ledger.acquire(k, bob, HOUR, T0 + 2);
    const live = await ledger.current(k, T0 + 3);

    const stale = await ledger.forceRelease(k, maint, T0 + 3, { ifToken: 1 });
    expect(stale).toEqual({ outcome: "stale", lease: live, duplicate: false });
    expect(await ledger.current(k, T0 + 4)).toEqual(live);

    expect(await ledger.forceRelease(k, maint, T0 + 5, { ifToken: 2 })).toEqual({ outcome: "released", lease: live, duplicate: false });
    expect(await ledger.current(k, T0 + 6)).toBeNull();
  });

  it("eventAt: an event from a second before the tenure began is stale; one from the same second is not", async () => {
    const acquiredAt = T0 + 1_500; // 1.5 s into a second of GitHub's clock
    await ledger.acquire(k, bob, HOUR, acquiredAt);
    const live = await ledger.current(k, acquiredAt);

    expect(await ledger.forceRelease(k, maint, T0 + 2_000, { eventAt: T0 })).toEqual({ outcome: "stale", lease: live, duplicate: false });
    expect(await ledger.current(k, T0 + 2_000)).toEqual(live);
    // Stamped T0 + 1000 (GitHub truncates to the second): it may have come after the claim.
    expect(await ledger.forceRelease(k, maint, T0 + 2_000, { eventAt: T0 + 1_000 })).toMatchObject({ outcome: "released", lease: live });
  });

  it("undone: an event near the tenure's start is stale when GitHub says it was undone since; not undone, or clearly after the start, it ends the tenure", async () => {
    const acquiredAt = T0 + 1_500;
    await ledger.acquire(k, bob, HOUR, acquiredAt);
    const live = await ledger.current(k, acquiredAt);

    // Stamped in the second the tenure began: a close of an earlier tenure, the issue reopened since, is not about this one.
    expect(await ledger.forceRelease(k, maint, T0 + 2_000, { eventAt: T0 + 1_000, undone: true })).toEqual({ outcome: "stale", lease: live, duplicate: false });
    // Within the clocks' allowance after the start (GitHub's clock may run ahead of the app's): still GitHub's state decides.
    expect(await ledger.forceRelease(k, maint, T0 + 3_000, { eventAt: T0 + 3_000, undone: true })).toMatchObject({ outcome: "stale" });
    expect(await ledger.current(k, T0 + 3_000)).toEqual(live);
    // Seconds after the start, the event was in this tenure: it ends it though the issue was reopened since.
    expect(await ledger.forceRelease(k, maint, T0 + 4_000, { eventAt: T0 + 4_000, undone: true })).toMatchObject({ outcome: "released", lease: live });

    await ledger.acquire(k, alice, HOUR, acquiredAt + 10_000);
    const alices = await ledger.current(k, acquiredAt + 10_000);
    expect(await ledger.forceRelease(k, maint, T0 + 12_000, { eventAt: T0 + 11_000, undone: false })).toMatchObject({ outcome: "released", lease: alices });
  });

  it("the stale outcome is recorded with the delivery, and a redelivery replays it", async () => {
    await ledger.acquire(k, bob, HOUR, T0 + 10_000);
    const first = await ledger.forceRelease(k, maint, T0 + 11_000, { delivery: "d1", eventAt: T0 });
    const again = await ledger.forceRelease(k, maint, T0 + 12_000, { delivery: "d1", eventAt: T0 });
    expect(first.outcome).toBe("stale");
    expect(again).toEqual({ ...first, duplicate: true });
    expect((await ledger.history(k)).map((e) => [e.op, e.outcome])).toEqual([
      ["acquire", "acquired"],
      ["force_release", "stale"],
    ]);
  });
});
