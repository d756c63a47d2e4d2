/**
 * The sweeper's two reads when leases' reminder times and expiries
 * interleave: expiredSince in expiry order, dueReminders in reminder order,
 * each exactly its own leases. (SQLite finds both through one index on
 * whichever of the two comes first for a lease; the order of that index is
 * not the order either read returns.)
 */
import { describe, expect, it } from "vitest";
import type { Holder, IssueKey, Lease } from "../../src/ledger/leases/lease-types.js";
import { backends, useBackend } from "./backends.js";

const MIN = 60_000;
const HOUR = 60 * MIN;
const T0 = 1_700_000_000_000;
const repo = { repoId: 300, repo: "octo/sweep" };
const key = (issue: number): IssueKey => ({ ...repo, issue });
const holder = (id: number): Holder => ({ id, login: `user${id}` });

describe.each(backends)("sweeps with reminders and expiries interleaved: $name", (backend) => {
  const { ledger } = useBackend(backend);

  /** Acquires, returning the lease. */
  async function take(issue: number, ttl: number | null, remindBefore: number | null): Promise<Lease> {
    const r = await ledger.acquire(key(issue), holder(issue), ttl, T0, { remindBefore });
    if (r.outcome !== "acquired") throw new Error(`expected acquired, got ${JSON.stringify(r)}`);
    return r.lease;
  }

  it("each read returns its own leases, in its own order", async () => {
    const k1 = await take(1, 4 * HOUR, HOUR); // reminder at 3h, expiry at 4h
    const k2 = await take(2, 3.5 * HOUR, null); // expiry at 3.5h, no reminder
    const k3 = await take(3, 5 * HOUR, 4.5 * HOUR); // reminder at 0.5h, expiry at 5h
    const k4 = await take(4, 2 * HOUR, -HOUR); // reminder after its expiry: never sent
    await take(5, null, HOUR); // open-ended: neither
    const k6 = await take(6, 3.5 * HOUR, null); // the same expiry as k2: ties go by issue

    expect(await ledger.dueReminders(T0 + 0.5 * HOUR - 1)).toEqual([]);
    expect(await ledger.dueReminders(T0 + HOUR)).toEqual([k3]);
    expect(await ledger.expiredSince(T0 + HOUR)).toEqual([]);

    const at3h = T0 + 3 * HOUR;
    expect(await ledger.dueReminders(at3h)).toEqual([k3, k1]);
    expect(await ledger.dueReminders(at3h, 1)).toEqual([k3]);
    expect(await ledger.expiredSince(at3h)).toEqual([k4]);
    expect(await ledger.markReminded(key(3), k3, at3h)).toMatchObject({ outcome: "reminded" });
    expect(await ledger.dueReminders(at3h)).toEqual([k1]);

    // k1's reminder was never sent: it is still, and first, its expiry that counts here.
    const at6h = T0 + 6 * HOUR;
    expect(await ledger.expiredSince(at6h)).toEqual([k4, k2, k6, k1, k3]);
    expect(await ledger.expiredSince(at6h, 2)).toEqual([k4, k2]);
    expect(await ledger.expiredSince(at6h, 4)).toEqual([k4, k2, k6, k1]);
    expect(await ledger.dueReminders(at6h)).toEqual([]);

    for (const l of [k4, k2]) expect(await ledger.markExpired(key(l.issue), l.token, at6h)).toMatchObject({ outcome: "expired" });
    expect(await ledger.expiredSince(at6h)).toEqual([k6, k1, k3]);
  });

  it("a renew moves a lease back out of both reads, and a new term brings its reminder again", async () => {
    await take(1, HOUR, 10 * MIN);
    const due = T0 + 50 * MIN;
    expect(await ledger.dueReminders(due)).toHaveLength(1);
    await ledger.markReminded(key(1), { token: 1, expiresAt: T0 + HOUR }, due);
    expect(await ledger.dueReminders(due)).toEqual([]);

    // Renewed just before expiry: neither read sees it until the new term's times come.
    const renewed = await ledger.renew(key(1), holder(1), HOUR, T0 + 59 * MIN, { remindBefore: 10 * MIN });
    expect(renewed).toMatchObject({ outcome: "renewed", lease: { expiresAt: T0 + 119 * MIN } });
    expect(await ledger.expiredSince(T0 + 2 * HOUR - 2 * MIN)).toEqual([]);
    expect(await ledger.dueReminders(T0 + 109 * MIN - 1)).toEqual([]);
    expect(await ledger.dueReminders(T0 + 109 * MIN)).toMatchObject([{ issue: 1, expiresAt: T0 + 119 * MIN }]);

    // An idempotent acquire without a reminder drops the pending one.
    await ledger.acquire(key(1), holder(1), HOUR, T0 + 110 * MIN);
    expect(await ledger.dueReminders(T0 + 169 * MIN)).toEqual([]);
    expect(await ledger.expiredSince(T0 + 170 * MIN)).toMatchObject([{ issue: 1, expiresAt: T0 + 170 * MIN }]);

    // Released: in neither, ever.
    await ledger.release(key(1), holder(1), T0 + 120 * MIN);
    expect(await ledger.expiredSince(T0 + 10 * HOUR)).toEqual([]);
    expect(await ledger.dueReminders(T0 + 10 * HOUR)).toEqual([]);
  });
});
