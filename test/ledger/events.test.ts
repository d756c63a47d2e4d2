/**
 * Lease events on every backend (event-plans.ts): each change of a lease
 * writes exactly one event, in its transaction, with the lease it is about,
 * its actor and cause; a handoff adds the new tenure's; refusals, notes,
 * reminders and redeliveries write none.
 */
import { describe, expect, it } from "vitest";
import type { LeaseEvent } from "../../src/ledger/events/event-types.js";
import type { Ledger } from "../../src/ledger/ledger.js";
import type { Holder, IssueKey } from "../../src/ledger/leases/lease-types.js";
import type { QueueAsk } from "../../src/ledger/queue/queue-types.js";
import type { Resume } from "../../src/ledger/work/work-types.js";
import { backends, useBackend } from "./backends.js";

const MIN = 60_000;
const HOUR = 60 * MIN;
const T0 = 1_700_000_000_000;
const iso = (ms: number) => new Date(ms).toISOString();

const repo = { repoId: 100, repo: "octo/alpha" };
const key = (issue: number): IssueKey => ({ ...repo, issue });
const alice: Holder = { id: 1, login: "alice" };
const bob: Holder = { id: 2, login: "bob" };
const maintainer: Holder = { id: 9, login: "maint" };
const wait: QueueAsk = { placeTtl: 24 * HOUR, authorFirst: false, remindBefore: null };
const RESUME: Resume = { ttl: 3 * HOUR, remindBefore: null };

/** Every event kept, in order. */
async function events(ledger: Ledger): Promise<LeaseEvent[]> {
  return (await ledger.eventsAfter(0)).map((e) => e.event);
}

/** The events written since `before` (a count of events), as type, holder, token, actor and cause. */
async function since(ledger: Ledger, before: number): Promise<string[]> {
  return (await events(ledger)).slice(before).map((e) => `${e.type} ${e.holder.login}#${e.token} by ${e.actor?.login ?? "-"} (${e.cause})`);
}

describe.each(backends)("lease events: $name", (backend) => {
  const { ledger } = useBackend(backend);

  it("a claim that begins a tenure: lease.acquired, with the public shape's every field", async () => {
    await ledger.rememberRepo({ ...repo, installation: 7 }, T0);
    await ledger.acquire(key(1), alice, HOUR, T0);
    const [e, ...more] = await ledger.eventsAfter(0);
    expect(more).toEqual([]);
    expect(e!.installation).toBe(7);
    expect(e!.repoId).toBe(100);
    // The JSON other tools read: its fields in the order the manual shows them (docs/bots-and-agents/events.md).
    expect(JSON.stringify(e!.event)).toBe(
      JSON.stringify({
        id: String(e!.pos),
        seq: 1,
        type: "lease.acquired",
        at: iso(T0),
        repo: "octo/alpha",
        issue: 1,
        holder: { login: "alice", id: 1, instance: null },
        token: 1,
        expires_at: iso(T0 + HOUR),
        actor: { login: "alice", id: 1 },
        cause: "command",
      }),
    );
  });

  it("an API client's instance, an open-ended lease, and a maintainer's claim for someone: holder, expiry and actor as they were", async () => {
    const worker = { ...bob, instance: "w-1" };
    await ledger.acquire(key(1), worker, null, T0, { cause: "api" });
    await ledger.acquire(key(2), alice, HOUR, T0, { actor: maintainer });
    const [api, given] = await events(ledger);
    expect(api).toMatchObject({ holder: { login: "bob", id: 2, instance: "w-1" }, expires_at: null, actor: { login: "bob", id: 2 }, cause: "api" });
    expect(given).toMatchObject({ type: "lease.acquired", holder: { login: "alice" }, actor: { login: "maint", id: 9 } });
  });

  it("the holder's claim again, /renew: lease.renewed with the new expiry; a renewal by someone else: nothing", async () => {
    await ledger.acquire(key(1), alice, HOUR, T0);
    await ledger.acquire(key(1), alice, 2 * HOUR, T0 + MIN);
    await ledger.renew(key(1), alice, 3 * HOUR, T0 + 2 * MIN, { cause: "api" });
    await ledger.renew(key(1), bob, HOUR, T0 + 3 * MIN);
    const all = await events(ledger);
    expect(all.map((e) => [e.type, e.token, e.expires_at, e.cause])).toEqual([
      ["lease.acquired", 1, iso(T0 + HOUR), "command"],
      ["lease.renewed", 1, iso(T0 + MIN + 2 * HOUR), "command"],
      ["lease.renewed", 1, iso(T0 + 2 * MIN + 3 * HOUR), "api"],
    ]);
  });

  it("/release: lease.released, about the lease that ended; releasing nothing or another's lease: nothing", async () => {
    await ledger.acquire(key(1), alice, HOUR, T0);
    await ledger.release(key(1), bob, T0 + 1);
    await ledger.release(key(1), alice, T0 + 2);
    await ledger.release(key(1), alice, T0 + 3);
    await ledger.release(key(2), alice, T0 + 4);
    const all = await events(ledger);
    expect(all.slice(1)).toEqual([
      expect.objectContaining({ type: "lease.released", holder: { login: "alice", id: 1, instance: null }, token: 1, expires_at: iso(T0 + HOUR), at: iso(T0 + 2) }),
    ]);
    expect(all[1]).toMatchObject({ actor: { login: "alice" }, cause: "command" });
  });

  it("a release by anyone else: lease.ended, by the maintainer by default, or the cause given (close, label removed)", async () => {
    for (const issue of [1, 2, 3]) await ledger.acquire(key(issue), alice, HOUR, T0);
    await ledger.forceRelease(key(1), maintainer, T0 + 1, { ifHolder: "alice" });
    await ledger.forceRelease(key(2), maintainer, T0 + 2, { closing: true, cause: "close" });
    await ledger.forceRelease(key(3), alice, T0 + 3, { ifToken: 1, cause: "label_removed" });
    expect(await since(ledger, 3)).toEqual([
      "lease.ended alice#1 by maint (maintainer)",
      "lease.ended alice#1 by maint (close)",
      "lease.ended alice#1 by alice (label_removed)",
    ]);
    // Refused (not the holder named, an older tenure) or nothing to end: no event.
    await ledger.acquire(key(4), alice, HOUR, T0);
    await ledger.forceRelease(key(4), maintainer, T0 + 4, { ifHolder: "bob" });
    await ledger.forceRelease(key(4), maintainer, T0 + 5, { ifToken: 7 });
    await ledger.forceRelease(key(5), maintainer, T0 + 6);
    expect(await since(ledger, 6)).toEqual(["lease.acquired alice#1 by alice (command)"]);
  });

  it("the sweep's expiry: lease.expired, no actor; a stale one (renewed since): nothing", async () => {
    await ledger.acquire(key(1), alice, HOUR, T0);
    await ledger.acquire(key(2), bob, HOUR, T0);
    await ledger.renew(key(2), bob, 2 * HOUR, T0 + 30 * MIN);
    await ledger.markExpired(key(1), 1, T0 + HOUR);
    await ledger.markExpired(key(2), 1, T0 + HOUR);
    const all = await events(ledger);
    expect(all.slice(3)).toEqual([expect.objectContaining({ type: "lease.expired", token: 1, expires_at: iso(T0 + HOUR), actor: null, cause: "expiry" })]);
    expect(all[3]!.holder.login).toBe("alice");
  });

  it("a release with someone in line: lease.released, then lease.handed_off for the new tenure (cause handoff)", async () => {
    await ledger.acquire(key(1), alice, HOUR, T0);
    await ledger.acquire(key(1), bob, 2 * HOUR, T0 + 1, { queue: wait });
    await ledger.release(key(1), alice, T0 + MIN);
    const all = await events(ledger);
    expect(all.map((e) => [e.type, e.holder.login, e.token, e.actor?.login ?? null, e.cause])).toEqual([
      ["lease.acquired", "alice", 1, "alice", "command"],
      ["lease.released", "alice", 1, "alice", "command"],
      ["lease.handed_off", "bob", 2, "alice", "handoff"],
    ]);
    expect(all[2]!.expires_at).toBe(iso(T0 + MIN + 2 * HOUR));
    expect(Number(all[2]!.id)).toBeGreaterThan(Number(all[1]!.id));
  });

  it("an expiry or a maintainer's release with someone in line hands it off; a close ends the line and hands nothing", async () => {
    await ledger.acquire(key(1), alice, HOUR, T0);
    await ledger.acquire(key(1), bob, HOUR, T0 + 1, { queue: wait });
    await ledger.markExpired(key(1), 1, T0 + HOUR);
    await ledger.acquire(key(2), alice, HOUR, T0);
    await ledger.acquire(key(2), bob, HOUR, T0 + 1, { queue: wait });
    await ledger.forceRelease(key(2), maintainer, T0 + 2);
    await ledger.acquire(key(3), alice, HOUR, T0);
    await ledger.acquire(key(3), bob, HOUR, T0 + 1, { queue: wait });
    await ledger.forceRelease(key(3), maintainer, T0 + 2, { closing: true, cause: "close" });
    expect((await since(ledger, 0)).filter((e) => !e.startsWith("lease.acquired"))).toEqual([
      "lease.expired alice#1 by - (expiry)",
      "lease.handed_off bob#2 by - (handoff)",
      "lease.ended alice#1 by maint (maintainer)",
      "lease.handed_off bob#2 by maint (handoff)",
      "lease.ended alice#1 by maint (close)",
    ]);
  });

  it("a lease past its time that another operation ends before the sweep: lease.expired first, once; the sweep then writes nothing", async () => {
    await ledger.acquire(key(1), alice, HOUR, T0);
    // bob claims it after it ran out: alice's tenure expired, bob's begins.
    await ledger.acquire(key(1), bob, HOUR, T0 + 2 * HOUR);
    await ledger.markExpired(key(1), 1, T0 + 2 * HOUR);
    // alice's release of her lease that ran out: it expired.
    await ledger.acquire(key(2), alice, HOUR, T0);
    await ledger.release(key(2), alice, T0 + 2 * HOUR);
    // A claim handing a lease that ran out to the first in line.
    await ledger.acquire(key(3), alice, HOUR, T0);
    await ledger.acquire(key(3), bob, HOUR, T0 + 1, { queue: wait });
    await ledger.acquire(key(3), maintainer, HOUR, T0 + 2 * HOUR);
    expect(await since(ledger, 0)).toEqual([
      "lease.acquired alice#1 by alice (command)",
      "lease.expired alice#1 by - (expiry)",
      "lease.acquired bob#2 by bob (command)",
      "lease.acquired alice#1 by alice (command)",
      "lease.expired alice#1 by - (expiry)",
      "lease.acquired alice#1 by alice (command)",
      "lease.expired alice#1 by - (expiry)",
      "lease.handed_off bob#2 by maint (handoff)",
    ]);
  });

  it("the holder's activity, a pull request or an exempt label changing the expiry: lease.renewed, cause work; links alone: nothing", async () => {
    await ledger.acquire(key(1), alice, 2 * HOUR, T0);
    await ledger.renewOnActivity(key(1), alice, T0 + HOUR, { policy: async () => ({ remindBefore: null, fallbackTtl: HOUR }) });
    await ledger.linkPull(key(10), alice, [1], T0 + HOUR + 1, { resume: RESUME });
    await ledger.linkPull(key(11), alice, [1], T0 + HOUR + 2, { resume: RESUME });
    await ledger.linkPull(key(10), alice, [], T0 + HOUR + 3, { resume: RESUME });
    await ledger.linkPull(key(11), alice, [], T0 + HOUR + 4, { resume: RESUME });
    await ledger.setExempt(key(1), maintainer, true, T0 + HOUR + 5, { resume: RESUME });
    const all = await events(ledger);
    expect(all.map((e) => [e.type, e.expires_at, e.actor?.login, e.cause])).toEqual([
      ["lease.acquired", iso(T0 + 2 * HOUR), "alice", "command"],
      ["lease.renewed", iso(T0 + 3 * HOUR), "alice", "work"],
      // Held by pull request 10; then 11 joins (links only); 10 goes (links only); 11 goes: time holds it again.
      ["lease.renewed", null, "alice", "work"],
      ["lease.renewed", iso(T0 + HOUR + 4 + 3 * HOUR), "alice", "work"],
      ["lease.renewed", null, "maint", "work"],
    ]);
  });

  it("refusals, notes, reminders, places in line and redeliveries: no event", async () => {
    await ledger.acquire(key(1), alice, HOUR, T0, { delivery: "d-1", remindBefore: 10 * MIN });
    await ledger.acquire(key(1), alice, HOUR, T0 + 1, { delivery: "d-1" });
    await ledger.acquire(key(1), bob, HOUR, T0 + 2);
    await ledger.acquire(key(2), alice, HOUR, T0 + 3, { maxPerHolder: 1 });
    await ledger.acquire(key(1), bob, HOUR, T0 + 4, { queue: wait });
    await ledger.release(key(1), bob, T0 + 5);
    await ledger.note(key(1), bob, T0 + 6, { outcome: "invalid" });
    await ledger.markReminded(key(1), { token: 1, expiresAt: T0 + HOUR }, T0 + 50 * MIN);
    await ledger.renameHolder(repo.repoId, { ...alice, login: "alice2" }, T0 + 51 * MIN);
    await ledger.release(key(1), alice, T0 + 52 * MIN, { delivery: "d-2" });
    await ledger.release(key(1), alice, T0 + 53 * MIN, { delivery: "d-2" });
    expect(await since(ledger, 0)).toEqual(["lease.acquired alice#1 by alice (command)", "lease.released alice2#1 by alice (command)"]);
  });
});
