/**
 * The ledger contract: what every backend in `backends.ts` must do. Each test
 * gets a fresh, empty store, and drives time through `now`.
 */
import { describe, expect, it } from "vitest";
import { type AcquireResult, type Holder, type IssueKey, type Lease } from "../../src/ledger/leases/lease-types.js";
import { fenceOf, type NewEffect } from "../../src/ledger/outbox/outbox-types.js";
import type { SqliteLedger } from "../../src/ledger/sqlite/sqlite-ledger.js";
import { backends, useBackend } from "./backends.js";
import { always } from "../../src/ledger/leases/effect-cases.js";

const MIN = 60_000;
const HOUR = 60 * MIN;
const T0 = 1_700_000_000_000;
/** Far beyond any expiry a test sets: year ~275,000. */
const FAR = 8.64e15;

const repoA = { repoId: 100, repo: "octo/alpha" };
const repoB = { repoId: 200, repo: "octo/beta" };
const key = (issue: number, r: { repoId: number; repo: string } = repoA): IssueKey => ({ ...r, issue });

const alice: Holder = { id: 1, login: "alice" };
const bob: Holder = { id: 2, login: "bob" };
const carol: Holder = { id: 3, login: "carol" };
const dave: Holder = { id: 4, login: "dave" };
const erin: Holder = { id: 5, login: "erin" };

function lease(k: IssueKey, holder: Holder, token: number, acquiredAt: number, expiresAt: number | null): Lease {
  return { repoId: k.repoId, repo: k.repo, issue: k.issue, holder, token, acquiredAt, expiresAt, heldBy: { kind: "time" } };
}

/** The lease of an acquire that must have succeeded. */
function acquired(r: AcquireResult): Lease {
  if (r.outcome !== "acquired") throw new Error(`expected acquired, got ${JSON.stringify(r)}`);
  return r.lease;
}

const effect = (kind: string, payload: unknown = {}, installation = 7): NewEffect => ({ installation, kind, payload });

describe.each(backends)("ledger contract: $name", (backend) => {
  const { ledger, store } = useBackend(backend);

  describe("acquire", () => {
    it("acquire_on_free_issue_gets_token_1", async () => {
      const r = await ledger.acquire(key(1), alice, HOUR, T0);
      const expected = lease(key(1), alice, 1, T0, T0 + HOUR);
      expect(r).toEqual({ outcome: "acquired", newTenure: true, lease: expected, duplicate: false });
      expect(await ledger.current(key(1), T0 + 1)).toEqual(expected);
    });

    it("acquire_by_holder_is_idempotent_and_extends", async () => {
      await ledger.acquire(key(1), alice, HOUR, T0);
      const again = await ledger.acquire(key(1), alice, HOUR, T0 + 30 * MIN);
      const expected = lease(key(1), alice, 1, T0, T0 + 30 * MIN + HOUR);
      expect(again).toEqual({ outcome: "acquired", newTenure: false, lease: expected, duplicate: false });
      // Past the first expiry, the second one holds.
      expect(await ledger.current(key(1), T0 + HOUR + 1)).toEqual(expected);
      // A third acquire with an open-ended ttl makes it open-ended, still the same tenure.
      const open = await ledger.acquire(key(1), alice, null, T0 + 40 * MIN);
      expect(open).toMatchObject({ outcome: "acquired", newTenure: false, lease: { token: 1, acquiredAt: T0, expiresAt: null } });
    });

    it("acquire_held_by_other_returns_held", async () => {
      const held = acquired(await ledger.acquire(key(1), alice, HOUR, T0));
      const r = await ledger.acquire(key(1), bob, HOUR, T0 + HOUR - 1);
      expect(r).toEqual({ outcome: "held", lease: held, duplicate: false });
      expect(await ledger.current(key(1), T0 + HOUR - 1)).toEqual(held);
    });

    it("acquire_after_expiry_takes_over_and_bumps_token", async () => {
      await ledger.acquire(key(1), alice, HOUR, T0);
      // The expiry instant itself is past: `expiresAt <= now` is expired.
      const r = await ledger.acquire(key(1), bob, 2 * HOUR, T0 + HOUR);
      expect(r).toEqual({
        outcome: "acquired",
        newTenure: true,
        lease: lease(key(1), bob, 2, T0 + HOUR, T0 + 3 * HOUR),
        duplicate: false,
      });
      // The former holder's own re-acquire after expiry is a new tenure too.
      await ledger.release(key(1), bob, T0 + HOUR + 1);
      await ledger.acquire(key(2), alice, HOUR, T0);
      const mine = await ledger.acquire(key(2), alice, HOUR, T0 + 2 * HOUR);
      expect(mine).toMatchObject({ outcome: "acquired", newTenure: true, lease: { token: 2, acquiredAt: T0 + 2 * HOUR } });
    });
  });

  describe("renew", () => {
    it("renew_extends_expiry_keeps_token", async () => {
      await ledger.acquire(key(1), alice, HOUR, T0);
      const r = await ledger.renew(key(1), alice, 2 * HOUR, T0 + 10 * MIN);
      const expected = lease(key(1), alice, 1, T0, T0 + 10 * MIN + 2 * HOUR);
      expect(r).toEqual({ outcome: "renewed", lease: expected, duplicate: false });
      expect(await ledger.current(key(1), T0 + HOUR + 1)).toEqual(expected);
      expect(await ledger.current(key(1), T0 + 10 * MIN + 2 * HOUR)).toBeNull();
    });

    it("renew_by_non_holder_returns_not_holder", async () => {
      const held = acquired(await ledger.acquire(key(1), alice, HOUR, T0));
      expect(await ledger.renew(key(1), bob, 5 * HOUR, T0 + 1)).toEqual({ outcome: "not_holder", lease: held, duplicate: false });
      expect(await ledger.current(key(1), T0 + 1)).toEqual(held);
      // Nothing to renew on a free issue either.
      expect(await ledger.renew(key(2), bob, HOUR, T0)).toEqual({ outcome: "not_holder", lease: null, duplicate: false });
      expect(await ledger.current(key(2), T0)).toBeNull();
    });

    it("renew_after_expiry_returns_not_holder", async () => {
      await ledger.acquire(key(1), alice, HOUR, T0);
      expect(await ledger.renew(key(1), alice, HOUR, T0 + HOUR)).toEqual({ outcome: "not_holder", lease: null, duplicate: false });
      expect(await ledger.current(key(1), T0 + HOUR)).toBeNull();
      // The failed renew did not resurrect it for anyone.
      expect(await ledger.acquire(key(1), bob, HOUR, T0 + HOUR + 1)).toMatchObject({ outcome: "acquired", lease: { token: 2 } });
    });
  });

  describe("release", () => {
    it("release_by_holder_frees_the_issue", async () => {
      const held = acquired(await ledger.acquire(key(1), alice, HOUR, T0));
      expect(await ledger.release(key(1), alice, T0 + 1)).toEqual({ outcome: "released", lease: held, duplicate: false });
      expect(await ledger.current(key(1), T0 + 1)).toBeNull();
      expect(await ledger.list(repoA.repoId, T0 + 1)).toEqual([]);
      expect(await ledger.listHeldBy(alice.id, T0 + 1)).toEqual([]);
    });

    it("release_idempotent_when_absent", async () => {
      const none = { outcome: "released", lease: null, duplicate: false };
      expect(await ledger.release(key(1), alice, T0)).toEqual(none);
      expect(await ledger.release(key(1), alice, T0 + 1)).toEqual(none);
      await ledger.acquire(key(1), alice, HOUR, T0 + 2);
      await ledger.release(key(1), alice, T0 + 3);
      // A client retrying a release that already went through must not fail.
      expect(await ledger.release(key(1), alice, T0 + 4)).toEqual(none);
      expect(await ledger.current(key(1), T0 + 4)).toBeNull();
    });

    it("release_by_non_holder_refused", async () => {
      const held = acquired(await ledger.acquire(key(1), alice, HOUR, T0));
      expect(await ledger.release(key(1), bob, T0 + 1)).toEqual({ outcome: "not_holder", lease: held, duplicate: false });
      expect(await ledger.current(key(1), T0 + 1)).toEqual(held);
    });

    it("release_of_expired_lease_by_anyone_succeeds", async () => {
      await ledger.acquire(key(1), alice, HOUR, T0);
      expect(await ledger.release(key(1), bob, T0 + 2 * HOUR)).toEqual({ outcome: "released", lease: null, duplicate: false });
      expect(await ledger.current(key(1), T0 + 2 * HOUR)).toBeNull();
      expect(await ledger.expiredSince(T0 + 2 * HOUR)).toEqual([]);
      // Its holder may release it too.
      await ledger.acquire(key(2), alice, HOUR, T0);
      expect(await ledger.release(key(2), alice, T0 + HOUR)).toEqual({ outcome: "released", lease: null, duplicate: false });
      // And the next tenure continues the token.
      expect(await ledger.acquire(key(1), carol, HOUR, T0 + 3 * HOUR)).toMatchObject({ outcome: "acquired", lease: { token: 2 } });
    });

    it("released_issue_is_free_to_anyone", async () => {
      await ledger.acquire(key(1), alice, HOUR, T0);
      await ledger.release(key(1), alice, T0 + 1);
      expect(await ledger.acquire(key(1), bob, HOUR, T0 + 2)).toEqual({
        outcome: "acquired",
        newTenure: true,
        lease: lease(key(1), bob, 2, T0 + 2, T0 + 2 + HOUR),
        duplicate: false,
      });
    });

    it("forceRelease names who held it and frees it", async () => {
      const held = acquired(await ledger.acquire(key(1), alice, HOUR, T0));
      expect(await ledger.forceRelease(key(1), carol, T0 + 1)).toEqual({ outcome: "released", lease: held, duplicate: false });
      expect(await ledger.current(key(1), T0 + 1)).toBeNull();
      const last = (await ledger.history(key(1))).at(-1);
      expect(last).toMatchObject({ op: "force_release", outcome: "released", actor: carol, holder: alice, token: 1 });
      // Nothing to force on a free issue; still succeeds.
      expect(await ledger.forceRelease(key(1), carol, T0 + 2)).toEqual({ outcome: "released", lease: null, duplicate: false });
      expect(await ledger.acquire(key(1), bob, HOUR, T0 + 3)).toMatchObject({ outcome: "acquired", lease: { token: 2 } });
    });
  });

  it("forceRelease with ifHolder releases only when that login holds it", async () => {
    const held = acquired(await ledger.acquire(key(1), alice, HOUR, T0));
    expect(await ledger.forceRelease(key(1), carol, T0 + 1, { ifHolder: "bob" })).toEqual({
      outcome: "not_holder",
      lease: held,
      duplicate: false,
    });
    expect(await ledger.current(key(1), T0 + 1)).toEqual(held);
    // Logins compare case-insensitively, as GitHub's do.
    expect(await ledger.forceRelease(key(1), carol, T0 + 2, { ifHolder: "ALICE" })).toEqual({
      outcome: "released",
      lease: held,
      duplicate: false,
    });
    expect(await ledger.current(key(1), T0 + 2)).toBeNull();
    expect(await ledger.forceRelease(key(1), carol, T0 + 3, { ifHolder: "alice" })).toEqual({
      outcome: "not_holder",
      lease: null,
      duplicate: false,
    });
    expect((await ledger.history(key(1))).map((h) => `${h.op}:${h.outcome}`)).toEqual([
      "acquire:acquired",
      "force_release:not_holder",
      "force_release:released",
      "force_release:not_holder",
    ]);
  });

  describe("reflections, repositories, health", () => {
    it("getReflection returns what putReflection stored, per issue", async () => {
      expect(await ledger.getReflection(repoA.repoId, 1)).toBeNull();
      await ledger.putReflection(repoA.repoId, 1, { labels: ["claimed"], assignee: "alice" }, T0);
      await ledger.putReflection(repoA.repoId, 0, { labelsCreated: true }, T0);
      expect(await ledger.getReflection(repoA.repoId, 1)).toEqual({ labels: ["claimed"], assignee: "alice" });
      await ledger.putReflection(repoA.repoId, 1, { labels: [] }, T0 + 1);
      expect(await ledger.getReflection(repoA.repoId, 1)).toEqual({ labels: [] });
      expect(await ledger.getReflection(repoA.repoId, 0)).toEqual({ labelsCreated: true });
      expect(await ledger.getReflection(repoB.repoId, 1)).toBeNull();
    });

    it("rememberRepo and repoInfo keep the latest name and installation", async () => {
      expect(await ledger.repoInfo(repoA.repoId)).toBeNull();
      await ledger.rememberRepo({ ...repoA, installation: 5 }, T0);
      expect(await ledger.repoInfo(repoA.repoId)).toEqual({ ...repoA, installation: 5 });
      await ledger.rememberRepo({ repoId: repoA.repoId, repo: "octo/renamed", installation: 6 }, T0 + 1);
      expect(await ledger.repoInfo(repoA.repoId)).toEqual({ repoId: repoA.repoId, repo: "octo/renamed", installation: 6 });
      expect(await ledger.repoInfo(repoB.repoId)).toBeNull();
    });

    it("findRepo finds a remembered repository by name, case-insensitively, the latest first", async () => {
      expect(await ledger.findRepo("octo/alpha")).toBeNull();
      await ledger.rememberRepo({ ...repoA, installation: 5 }, T0);
      expect(await ledger.findRepo("Octo/Alpha")).toEqual({ ...repoA, installation: 5 });
      // The name moved to another repository (renamed, recreated): the latest wins.
      await ledger.rememberRepo({ repoId: 300, repo: "octo/alpha", installation: 5 }, T0 + 1);
      expect(await ledger.findRepo("octo/alpha")).toEqual({ repoId: 300, repo: "octo/alpha", installation: 5 });
    });

    it("listAll lists every live lease, by repository name and issue", async () => {
      const b2 = acquired(await ledger.acquire(key(2, repoB), bob, HOUR, T0));
      const a3 = acquired(await ledger.acquire(key(3, repoA), alice, null, T0));
      const a1 = acquired(await ledger.acquire(key(1, repoA), carol, HOUR, T0));
      await ledger.acquire(key(4, repoA), dave, MIN, T0); // expires
      await ledger.acquire(key(5, repoB), dave, HOUR, T0);
      await ledger.release(key(5, repoB), dave, T0 + 1);
      expect(await ledger.listAll(T0 + 2 * MIN)).toEqual([a1, a3, b2]);
      expect(await ledger.listAll(T0 + 2 * HOUR)).toEqual([a3]);
    });

    it("holdLock: one holder at a time, of this ledger or another on the store; a release lets the next in; each name its own lock", async () => {
      const other = await store().another!();
      const clock = () => T0;
      const sweep = await ledger.holdLock("sweep", "replica-1", clock, MIN);
      expect(sweep).not.toBeNull();
      expect(await other.holdLock("sweep", "replica-2", clock, MIN)).toBeNull();
      expect(await ledger.holdLock("sweep", "replica-3", clock, MIN)).toBeNull();
      const labels = await other.holdLock("labels/1", "replica-2", clock, MIN);
      expect(labels).not.toBeNull();
      await sweep!.release();
      const next = await other.holdLock("sweep", "replica-2", clock, MIN);
      expect(next).not.toBeNull();
      expect(sweep!.signal.aborted || next!.signal.aborted || labels!.signal.aborted).toBe(false);
      await next!.release();
      await labels!.release();
      const mine = await ledger.holdLock("labels/1", "replica-1", clock, MIN);
      expect(mine).not.toBeNull();
      await mine!.release();
    });

    it.runIf(backend.name === "sqlite")("SQLite's row locks: one owner at a time until the lock expires; unlock frees it, and only its owner's", async () => {
      const rows = store().ledger as SqliteLedger;
      expect(await rows.tryLock("sweeper", "replica-1", T0, MIN)).toBe(true);
      expect(await rows.tryLock("sweeper", "replica-2", T0 + 1, MIN)).toBe(false);
      // The owner extends it.
      expect(await rows.tryLock("sweeper", "replica-1", T0 + MIN - 1, MIN)).toBe(true);
      expect(await rows.tryLock("sweeper", "replica-2", T0 + MIN, MIN)).toBe(false);
      // Once expired, anyone may take it.
      expect(await rows.tryLock("sweeper", "replica-2", T0 + 2 * MIN - 1, MIN)).toBe(true);
      await rows.unlock("sweeper", "replica-1");
      expect(await rows.tryLock("sweeper", "replica-1", T0 + 2 * MIN, MIN)).toBe(false);
      await rows.unlock("sweeper", "replica-2");
      expect(await rows.tryLock("sweeper", "replica-1", T0 + 2 * MIN, MIN)).toBe(true);
    });

    it("ping answers and the schema is up to date", async () => {
      expect(await ledger.ping()).toBe(true);
      const version = await ledger.schemaVersion();
      expect(version.current).toBe(version.latest);
      expect(version.latest).toBeGreaterThan(0);
    });
  });

  describe("reads", () => {
    it("list_shows_only_live_leases", async () => {
      const one = acquired(await ledger.acquire(key(1), alice, HOUR, T0));
      const two = acquired(await ledger.acquire(key(2), bob, 3 * HOUR, T0));
      const three = acquired(await ledger.acquire(key(3), carol, null, T0));
      await ledger.acquire(key(4), alice, HOUR, T0);
      await ledger.release(key(4), alice, T0 + 1);
      expect(await ledger.list(repoA.repoId, T0 + 1)).toEqual([one, two, three]);
      expect(await ledger.list(repoA.repoId, T0 + 2 * HOUR)).toEqual([two, three]);
      expect(await ledger.list(repoA.repoId, FAR)).toEqual([three]);
    });

    it("current_none_after_expiry", async () => {
      const held = acquired(await ledger.acquire(key(1), alice, HOUR, T0));
      expect(await ledger.current(key(1), T0 + HOUR - 1)).toEqual(held);
      expect(await ledger.current(key(1), T0 + HOUR)).toBeNull();
      expect(await ledger.current(key(1), T0 + 10 * HOUR)).toBeNull();
      expect(await ledger.current(key(99), T0)).toBeNull();
    });

    it("open_ended_lease_never_expires", async () => {
      const held = acquired(await ledger.acquire(key(1), alice, null, T0));
      expect(held.expiresAt).toBeNull();
      expect(await ledger.current(key(1), FAR)).toEqual(held);
      expect(await ledger.list(repoA.repoId, FAR)).toEqual([held]);
      expect(await ledger.expiredSince(FAR)).toEqual([]);
      expect(await ledger.acquire(key(1), bob, HOUR, FAR)).toEqual({ outcome: "held", lease: held, duplicate: false });
      expect(await ledger.renew(key(1), bob, HOUR, FAR)).toMatchObject({ outcome: "not_holder", lease: held });
      expect(await ledger.markExpired(key(1), 1, FAR)).toMatchObject({ outcome: "stale", lease: held });
    });

    it("listHeldBy lists a holder's live leases across repositories", async () => {
      const a1 = acquired(await ledger.acquire(key(1, repoA), alice, HOUR, T0));
      const b2 = acquired(await ledger.acquire(key(2, repoB), alice, null, T0));
      await ledger.acquire(key(3, repoA), alice, MIN, T0); // expires
      await ledger.acquire(key(4, repoA), bob, HOUR, T0);
      await ledger.acquire(key(5, repoA), alice, HOUR, T0);
      await ledger.release(key(5, repoA), alice, T0 + 1);
      expect(await ledger.listHeldBy(alice.id, T0 + 2 * MIN)).toEqual([a1, b2]);
      expect(await ledger.listHeldBy(bob.id, T0 + 2 * MIN)).toHaveLength(1);
      expect(await ledger.listHeldBy(carol.id, T0 + 2 * MIN)).toEqual([]);
    });

    it("liveAmong: which logins (any case) and tokens a live lease of the repository has, one issue's lease aside", async () => {
      await ledger.acquire(key(1, repoA), alice, HOUR, T0); // token 1
      await ledger.acquire(key(2, repoA), bob, HOUR, T0);
      await ledger.release(key(2, repoA), bob, T0 + 1);
      await ledger.acquire(key(2, repoA), bob, HOUR, T0 + 2); // token 2
      await ledger.acquire(key(3, repoA), carol, MIN, T0); // expires
      await ledger.acquire(key(4, repoB), dave, HOUR, T0); // another repository
      const now = T0 + 2 * MIN;
      const ask = { logins: ["ALICE", "bob", "carol", "dave"], tokens: [1, 2, 3] };
      const sorted = (m: { logins: readonly string[]; tokens: readonly number[] }) => ({ logins: [...m.logins].sort(), tokens: [...m.tokens].sort() });
      expect(sorted(await ledger.liveAmong(repoA.repoId, now, ask, null))).toEqual({ logins: ["alice", "bob"], tokens: [1, 2] });
      expect(sorted(await ledger.liveAmong(repoA.repoId, now, ask, 1))).toEqual({ logins: ["bob"], tokens: [2] });
      expect(sorted(await ledger.liveAmong(repoA.repoId, now, ask, 2))).toEqual({ logins: ["alice"], tokens: [1] });
      expect(await ledger.liveAmong(repoA.repoId, now, { logins: [], tokens: [] }, null)).toEqual({ logins: [], tokens: [] });
      // Carol's lease, while it was live.
      expect(await ledger.liveAmong(repoA.repoId, T0, { logins: ["carol"], tokens: [] }, null)).toEqual({ logins: ["carol"], tokens: [] });
    });

    it("list is per repository and so are tokens", async () => {
      const a = acquired(await ledger.acquire(key(1, repoA), alice, HOUR, T0));
      await ledger.release(key(1, repoA), alice, T0 + 1);
      const a2 = acquired(await ledger.acquire(key(1, repoA), alice, HOUR, T0 + 2));
      const b = acquired(await ledger.acquire(key(1, repoB), bob, HOUR, T0));
      expect([a.token, a2.token, b.token]).toEqual([1, 2, 1]);
      expect(await ledger.list(repoA.repoId, T0 + 3)).toEqual([a2]);
      expect(await ledger.list(repoB.repoId, T0 + 3)).toEqual([b]);
      expect(await ledger.list(999, T0 + 3)).toEqual([]);
      expect((await ledger.history(key(1, repoB))).map((h) => h.op)).toEqual(["acquire"]);
    });

    it("a renamed login (same id) keeps the lease", async () => {
      await ledger.acquire(key(1), alice, HOUR, T0);
      const renamed: Holder = { id: alice.id, login: "alice-renamed" };
      expect(await ledger.acquire(key(1), renamed, HOUR, T0 + 1)).toEqual({
        outcome: "acquired",
        newTenure: false,
        lease: lease(key(1), renamed, 1, T0, T0 + 1 + HOUR),
        duplicate: false,
      });
      expect(await ledger.current(key(1), T0 + 2)).toMatchObject({ holder: renamed, token: 1 });
      expect(await ledger.renew(key(1), { id: alice.id, login: "alice-again" }, HOUR, T0 + 3)).toMatchObject({
        outcome: "renewed",
        lease: { token: 1, holder: { id: alice.id, login: "alice-again" } },
      });
      // Someone who took the old login is not the holder.
      expect(await ledger.release(key(1), { id: 77, login: "alice" }, T0 + 4)).toMatchObject({ outcome: "not_holder" });
      expect(await ledger.release(key(1), alice, T0 + 5)).toMatchObject({ outcome: "released", lease: { token: 1 } });
    });

    it("note records a history row and changes no lease", async () => {
      const held = acquired(await ledger.acquire(key(1), alice, HOUR, T0));
      expect(await ledger.note(key(1), bob, T0 + 1, { outcome: "invalid_command" })).toEqual({
        outcome: "noted",
        lease: held,
        duplicate: false,
      });
      expect(await ledger.current(key(1), T0 + 1)).toEqual(held);
      expect((await ledger.history(key(1))).at(-1)).toMatchObject({ op: "note", outcome: "invalid_command", actor: bob, holder: alice });
      expect(await ledger.note(key(2), null, T0)).toEqual({ outcome: "noted", lease: null, duplicate: false });
      expect((await ledger.history(key(2))).at(-1)).toMatchObject({ op: "note", outcome: "noted", actor: null, holder: null });
    });
  });

  describe("tokens", () => {
    it("tenure_token_monotonic_across_holders", async () => {
      const a = acquired(await ledger.acquire(key(1), alice, HOUR, T0));
      const b = acquired(await ledger.acquire(key(1), bob, HOUR, T0 + HOUR));
      const a2 = acquired(await ledger.acquire(key(1), alice, HOUR, T0 + 2 * HOUR));
      expect([a.token, b.token, a2.token]).toEqual([1, 2, 3]);
      expect([a.holder, b.holder, a2.holder]).toEqual([alice, bob, alice]);
    });

    it("token_does_not_reset_after_release", async () => {
      const tokens: number[] = [];
      let t = T0;
      for (const h of [alice, bob, alice, carol]) {
        tokens.push(acquired(await ledger.acquire(key(1), h, HOUR, t++)).token);
        await ledger.release(key(1), h, t++);
      }
      // Force-released tenures count too.
      tokens.push(acquired(await ledger.acquire(key(1), bob, HOUR, t++)).token);
      await ledger.forceRelease(key(1), carol, t++);
      tokens.push(acquired(await ledger.acquire(key(1), dave, HOUR, t++)).token);
      expect(tokens).toEqual([1, 2, 3, 4, 5, 6]);
    });

    it("token_does_not_reset_after_expiry_and_reads", async () => {
      await ledger.acquire(key(1), alice, HOUR, T0);
      await ledger.acquire(key(2), bob, HOUR, T0, { remindBefore: 10 * MIN });
      const later = T0 + 2 * HOUR;
      // Reading must never reap: an expired row keeps its token, swept or not.
      for (let i = 0; i < 25; i++) {
        const now = later + i * MIN;
        expect(await ledger.current(key(1), now)).toBeNull();
        expect(await ledger.current(key(2), now)).toBeNull();
        expect(await ledger.list(repoA.repoId, now)).toEqual([]);
        expect(await ledger.listHeldBy(alice.id, now)).toEqual([]);
        expect(await ledger.listHeldBy(bob.id, now)).toEqual([]);
        expect(await ledger.expiredSince(now)).toHaveLength(2);
        expect(await ledger.dueReminders(now)).toEqual([]);
        await ledger.history(key(1));
      }
      expect(await ledger.acquire(key(1), carol, HOUR, later + HOUR)).toMatchObject({
        outcome: "acquired",
        newTenure: true,
        lease: { token: 2 },
      });
      // And after the sweeper ended the tenure, reads, then the next tenure.
      expect(await ledger.markExpired(key(2), 1, later + HOUR)).toMatchObject({ outcome: "expired" });
      for (let i = 1; i <= 10; i++) {
        const now = later + HOUR + i;
        expect(await ledger.current(key(2), now)).toBeNull();
        expect(await ledger.expiredSince(now)).toEqual([]);
        expect((await ledger.list(repoA.repoId, now)).map((l) => l.issue)).toEqual([1]);
      }
      expect(await ledger.acquire(key(2), alice, HOUR, later + 2 * HOUR)).toMatchObject({ outcome: "acquired", lease: { token: 2 } });
    });

    it("latest_token_outlives_the_tenure", async () => {
      // Never leased, even once noted (a row may exist before any tenure): no token.
      expect(await ledger.latestToken(key(1))).toBeNull();
      await ledger.note(key(1), alice, T0);
      expect(await ledger.latestToken(key(1))).toBeNull();

      await ledger.acquire(key(1), alice, HOUR, T0);
      await ledger.release(key(1), alice, T0 + 1);
      await ledger.acquire(key(1), bob, HOUR, T0 + 2);
      expect(await ledger.latestToken(key(1))).toBe(2);
      // Once the tenure has ended, the free row keeps its token.
      await ledger.markExpired(key(1), 2, T0 + 2 + HOUR);
      expect(await ledger.current(key(1), T0 + 3 * HOUR)).toBeNull();
      expect(await ledger.latestToken(key(1))).toBe(2);
      expect(await ledger.latestToken(key(1, repoB))).toBeNull();
    });
  });

  describe("token floor", () => {
    const operator: Holder = { id: 0, login: "operator" };

    it("after a raise, new tenures on known and unknown issues, through any replica, get tokens above the floor; a live tenure keeps its token", async () => {
      acquired(await ledger.acquire(key(1), alice, HOUR, T0));
      await ledger.release(key(1), alice, T0 + 1);
      acquired(await ledger.acquire(key(2), bob, null, T0 + 2));
      acquired(await ledger.acquire(key(3), carol, HOUR, T0 + 3));
      await ledger.note(key(4), dave, T0 + 4);

      const raised = await ledger.raiseTokenFloor({ gap: 100 }, operator, "test", T0 + 10);
      expect(raised).toEqual({ before: 0, floor: 101, highestToken: 1, raised: true, issues: 4 });
      // Every issue the ledger knows records the raise, a held one with its holder.
      for (const n of [1, 2, 3, 4]) {
        expect((await ledger.history(key(n))).at(-1), `issue ${n}`).toMatchObject({
          op: "restore",
          outcome: "floor_raised",
          actor: operator,
          token: null,
          at: T0 + 10,
        });
      }
      expect((await ledger.history(key(2))).at(-1)?.holder).toEqual(bob);
      // A free row takes the floor: "the next lease gets token N + 1" stays true.
      expect(await ledger.latestToken(key(1))).toBe(101);

      // Live tenures carry on with the tokens their holders have.
      expect(await ledger.acquire(key(2), bob, null, T0 + 11)).toMatchObject({ outcome: "acquired", newTenure: false, lease: { token: 1 } });
      expect(await ledger.renew(key(3), carol, HOUR, T0 + 12)).toMatchObject({ outcome: "renewed", lease: { token: 1 } });
      expect(await ledger.latestToken(key(3))).toBe(1);

      // Another replica (or process) sees the raise at its next acquire: nothing cached.
      const another = store().another;
      const other = another ? await another() : ledger;
      expect(acquired(await other.acquire(key(1), dave, HOUR, T0 + 20)).token).toBe(102);
      expect(acquired(await other.acquire(key(4), dave, HOUR, T0 + 21)).token).toBe(102);
      expect(acquired(await other.acquire(key(99), erin, HOUR, T0 + 22)).token).toBe(102);
      expect(acquired(await ledger.acquire(key(1, repoB), erin, HOUR, T0 + 23)).token).toBe(102);
      await ledger.forceRelease(key(3), operator, T0 + 24);
      expect(acquired(await ledger.acquire(key(3), alice, HOUR, T0 + 25)).token).toBe(102);
      // Past the floor, tokens go on from each issue's own.
      await ledger.release(key(3), alice, T0 + 26);
      expect(acquired(await ledger.acquire(key(3), bob, HOUR, T0 + 27)).token).toBe(103);
    });

    it("never goes down, refuses a floor below a token handed out, and a gap counts from the floor", async () => {
      for (const n of [1, 2, 3]) {
        acquired(await ledger.acquire(key(n), alice, HOUR, T0 + n));
        await ledger.release(key(n), alice, T0 + n);
      }
      acquired(await ledger.acquire(key(1), bob, HOUR, T0 + 5));
      // Below a token already handed out: a mistake, refused, nothing written.
      await expect(ledger.raiseTokenFloor({ floor: 1 }, operator, "test", T0 + 6)).rejects.toThrow(
        "a token floor of 1 is below the ledger's highest token, 2",
      );
      expect((await ledger.history(key(2))).filter((h) => h.op === "restore")).toHaveLength(0);
      expect(await ledger.raiseTokenFloor({ floor: 1000 }, operator, "test", T0 + 10)).toMatchObject({
        before: 0,
        floor: 1000,
        highestToken: 2,
        raised: true,
      });
      const lower = await ledger.raiseTokenFloor({ floor: 500 }, operator, "test", T0 + 11);
      expect(lower).toEqual({ before: 1000, floor: 1000, highestToken: 1000, raised: false, issues: 0 });
      // Nothing written when nothing was raised (so the same --floor twice is harmless).
      expect((await ledger.history(key(2))).filter((h) => h.op === "restore")).toHaveLength(1);
      expect(acquired(await ledger.acquire(key(7), carol, HOUR, T0 + 13)).token).toBe(1001);
      // The next gap starts from the highest token or the floor, whichever is higher.
      expect(await ledger.raiseTokenFloor({ gap: 10 }, operator, "test", T0 + 14)).toMatchObject({ before: 1000, floor: 1011, raised: true });
      expect(acquired(await ledger.acquire(key(8), carol, HOUR, T0 + 15)).token).toBe(1012);
      // bob's tenure, begun before both raises, is untouched.
      expect(await ledger.current(key(1), T0 + 16)).toMatchObject({ holder: bob, token: 2 });
    });
  });

  it("history_records_every_operation", async () => {
    const k = key(1);
    const steps: Array<() => Promise<unknown>> = [
      () => ledger.acquire(k, alice, HOUR, T0 + 1), // acquired 1
      () => ledger.acquire(k, bob, HOUR, T0 + 2), // held
      () => ledger.renew(k, bob, HOUR, T0 + 3), // not_holder
      () => ledger.renew(k, alice, 2 * HOUR, T0 + 4), // renewed
      () => ledger.release(k, bob, T0 + 5), // not_holder
      () => ledger.markReminded(k, { token: 1, expiresAt: T0 + 4 + 2 * HOUR }, T0 + 6), // reminded
      () => ledger.markExpired(k, 1, T0 + 7), // stale: not yet expired
      () => ledger.release(k, alice, T0 + 8, { delivery: "d-1" }), // released 1
      () => ledger.release(k, alice, T0 + 9), // released, nothing
      () => ledger.acquire(k, bob, null, T0 + 10), // acquired 2
      () => ledger.forceRelease(k, carol, T0 + 11), // released 2
      () => ledger.acquire(key(2), alice, null, T0 + 12), // (another issue)
      () => ledger.acquire(k, alice, HOUR, T0 + 13, { maxPerHolder: 1 }), // limit
      () => ledger.acquire(k, carol, HOUR, T0 + 14), // acquired 3
      () => ledger.markExpired(k, 3, T0 + 14 + HOUR), // expired 3
      () => ledger.markExpired(k, 3, T0 + 15 + HOUR), // stale
      () => ledger.note(k, dave, T0 + 16 + HOUR, { outcome: "bad_command" }),
    ];
    for (const step of steps) await step();

    const history = await ledger.history(k);
    const row = (
      op: string,
      outcome: string,
      at: number,
      actor: Holder | null,
      holder: Holder | null,
      token: number | null,
      expiresAt: number | null,
    ) => ({ op, outcome, at, actor, holder, token, expiresAt });
    expect(history.map(({ op, outcome, at, actor, holder, token, expiresAt }) => ({ op, outcome, at, actor, holder, token, expiresAt }))).toEqual([
      row("acquire", "acquired", T0 + 1, alice, alice, 1, T0 + 1 + HOUR),
      row("acquire", "held", T0 + 2, bob, alice, 1, T0 + 1 + HOUR),
      row("renew", "not_holder", T0 + 3, bob, alice, 1, T0 + 1 + HOUR),
      row("renew", "renewed", T0 + 4, alice, alice, 1, T0 + 4 + 2 * HOUR),
      row("release", "not_holder", T0 + 5, bob, alice, 1, T0 + 4 + 2 * HOUR),
      row("remind", "reminded", T0 + 6, null, alice, 1, T0 + 4 + 2 * HOUR),
      row("expire", "stale", T0 + 7, null, alice, 1, T0 + 4 + 2 * HOUR),
      row("release", "released", T0 + 8, alice, alice, 1, T0 + 4 + 2 * HOUR),
      row("release", "released", T0 + 9, alice, null, null, null),
      row("acquire", "acquired", T0 + 10, bob, bob, 2, null),
      row("force_release", "released", T0 + 11, carol, bob, 2, null),
      row("acquire", "limit", T0 + 13, alice, null, null, null),
      row("acquire", "acquired", T0 + 14, carol, carol, 3, T0 + 14 + HOUR),
      row("expire", "expired", T0 + 14 + HOUR, null, carol, 3, T0 + 14 + HOUR),
      row("expire", "stale", T0 + 15 + HOUR, null, null, null, null),
      row("note", "bad_command", T0 + 16 + HOUR, dave, null, null, null),
    ]);
    for (const h of history) expect(h).toMatchObject({ repoId: repoA.repoId, repo: repoA.repo, issue: 1 });
    expect(history.map((h) => h.delivery)).toEqual(history.map((_, i) => (i === 7 ? "d-1" : null)));
    const ids = history.map((h) => h.id);
    expect([...ids].sort((x, y) => x - y)).toEqual(ids);
    expect(new Set(ids).size).toBe(ids.length);
    // `limit` keeps the newest rows, oldest first.
    expect((await ledger.history(k, 2)).map((h) => h.id)).toEqual(ids.slice(-2));
    expect(await ledger.history(key(3))).toEqual([]);
  });

  it("limit_per_holder_is_atomic", async () => {
    const limited = { maxPerHolder: 1 };
    const first = await ledger.acquire(key(1), alice, HOUR, T0, limited);
    const second = await ledger.acquire(key(2), alice, HOUR, T0 + 1, limited);
    expect(first).toMatchObject({ outcome: "acquired" });
    expect(second).toEqual({ outcome: "limit", limit: 1, held: [acquired(first)], duplicate: false });
    expect(await ledger.current(key(2), T0 + 1)).toBeNull();
    // Re-acquiring what one holds is not a new lease and is not limited.
    expect(await ledger.acquire(key(1), alice, HOUR, T0 + 2, limited)).toMatchObject({ outcome: "acquired", newTenure: false });
    // The limit is per repository, counts live leases only, and 0 means none.
    expect(await ledger.acquire(key(2, repoB), alice, HOUR, T0 + 3, limited)).toMatchObject({ outcome: "acquired" });
    expect(await ledger.acquire(key(3), alice, HOUR, T0 + 4, { maxPerHolder: 0 })).toMatchObject({ outcome: "acquired" });
    expect(await ledger.acquire(key(4), alice, HOUR, T0 + 5, { maxPerHolder: 2 })).toMatchObject({ outcome: "limit", limit: 2 });
    // Once the others expired, there is room again.
    expect(await ledger.acquire(key(4), alice, HOUR, T0 + 5 + HOUR, limited)).toMatchObject({ outcome: "acquired" });

    // Many acquires in flight at once by one holder: no more than the limit win.
    const burst = await Promise.all(
      Array.from({ length: 10 }, (_, i) => ledger.acquire(key(10 + i), dave, HOUR, T0, { maxPerHolder: 2 })),
    );
    expect(burst.filter((r) => r.outcome === "acquired")).toHaveLength(2);
    expect(burst.filter((r) => r.outcome === "limit")).toHaveLength(8);
    expect(await ledger.listHeldBy(dave.id, T0)).toHaveLength(2);

    // Two ledgers on the same store (as two processes would be), interleaved.
    if (store().another) {
      const other = await store().another!();
      const pair = [ledger, other];
      for (const limit of [1, 3]) {
        const holder = { ...erin, id: erin.id + limit };
        const results = await Promise.all(
          Array.from({ length: 12 }, (_, i) => pair[i % 2]!.acquire(key(100 * limit + i), holder, HOUR, T0, { maxPerHolder: limit })),
        );
        expect(results.filter((r) => r.outcome === "acquired")).toHaveLength(limit);
        expect(results.filter((r) => r.outcome === "limit")).toHaveLength(12 - limit);
        expect(await ledger.listHeldBy(holder.id, T0)).toHaveLength(limit);
        expect(await other.listHeldBy(holder.id, T0)).toHaveLength(limit);
      }
    }
  });

  describe("delivery de-duplication", () => {
    it("the same delivery twice applies once and returns the first result", async () => {
      const effects = always(effect("label"));
      const first = await ledger.acquire(key(1), alice, HOUR, T0, { delivery: "abc", effects });
      const historyBefore = await ledger.history(key(1));
      const statsBefore = await ledger.outboxStats();
      expect(statsBefore.pending).toBe(1);

      // Redelivered later, when a different answer would be due: the first one stands.
      const second = await ledger.acquire(key(1), alice, 5 * HOUR, T0 + 2 * HOUR, { delivery: "abc", effects });
      expect(second).toEqual({ ...first, duplicate: true });
      expect(await ledger.history(key(1))).toEqual(historyBefore);
      expect(await ledger.outboxStats()).toEqual(statsBefore);
      expect(await ledger.current(key(1), T0 + 1)).toEqual(acquired(first));
      expect(await ledger.current(key(1), T0 + 2 * HOUR)).toBeNull();

      // Another delivery is applied.
      const third = await ledger.acquire(key(1), bob, HOUR, T0 + 2 * HOUR, { delivery: "def", effects });
      expect(third).toMatchObject({ outcome: "acquired", duplicate: false, lease: { token: 2 } });
      expect((await ledger.outboxStats()).pending).toBe(2);
    });

    it("de-duplicates every kind of operation", async () => {
      const k = key(1);
      const once = async <R>(call: () => Promise<R & { duplicate: boolean }>) => {
        const first = await call();
        const n = (await ledger.history(k)).length;
        expect(await call()).toEqual({ ...first, duplicate: true });
        expect(await ledger.history(k)).toHaveLength(n);
        return first;
      };
      await once(() => ledger.acquire(k, alice, HOUR, T0, { delivery: "1" }));
      await once(() => ledger.renew(k, alice, 2 * HOUR, T0 + 1, { delivery: "2" }));
      await once(() => ledger.note(k, bob, T0 + 2, { delivery: "3", outcome: "whatever" }));
      await once(() => ledger.markReminded(k, { token: 1, expiresAt: T0 + 1 + 2 * HOUR }, T0 + 3, { delivery: "4" }));
      await once(() => ledger.release(k, alice, T0 + 4, { delivery: "5" }));
      await once(() => ledger.acquire(k, bob, HOUR, T0 + 5, { delivery: "6" }));
      await once(() => ledger.forceRelease(k, carol, T0 + 6, { delivery: "7" }));
      await once(() => ledger.acquire(k, carol, HOUR, T0 + 7, { delivery: "8" }));
      expect(await once(() => ledger.markExpired(k, 3, T0 + 7 + HOUR, { delivery: "9" }))).toMatchObject({ outcome: "expired" });
      expect((await ledger.history(k)).map((h) => h.delivery)).toEqual(["1", "2", "3", "4", "5", "6", "7", "8", "9"]);
    });
  });

  describe("outbox", () => {
    it("effects are written in the operation's transaction, those of its result's case, with the result when they ask", async () => {
      const r = await ledger.acquire(key(1), alice, HOUR, T0, {
        effects: { acquired: [{ effect: effect("label", { token: 1 }, 42), withResult: true }], any: [{ effect: effect("other") }] },
      });
      const decided = { outcome: r.outcome, newTenure: true, lease: acquired(r) };
      expect(await ledger.outboxStats()).toEqual({ pending: 1, parked: 0, oldestPendingAt: T0 });
      expect(await ledger.takeEffects(T0, 10, MIN)).toEqual([
        {
          id: expect.any(Number),
          repoId: repoA.repoId,
          issue: 1,
          installation: 42,
          kind: "label",
          payload: { token: 1, decided },
          attempts: 1,
          createdAt: T0,
          nonce: expect.stringMatching(/^[0-9a-f]{24,32}$/),
          late: false,
          priority: 0,
        },
      ]);

      // An effect that cannot be written (its payload is no JSON) rolls back the whole operation.
      await expect(ledger.acquire(key(2), alice, HOUR, T0, { effects: always(effect("label", { n: 1n })) })).rejects.toThrow(/BigInt/);
      expect(await ledger.current(key(2), T0)).toBeNull();
      expect(await ledger.history(key(2))).toEqual([]);
      expect(await ledger.acquire(key(2), bob, HOUR, T0 + 1)).toMatchObject({ outcome: "acquired", lease: { token: 1 } });
      expect((await ledger.outboxStats()).pending).toBe(1);
    });

    it("takeEffects serves lower priority first across issues, but never reorders one issue", async () => {
      const sweep = (kind: string): NewEffect => ({ ...effect(kind), priority: 1 });
      await ledger.acquire(key(1), alice, HOUR, T0, { effects: always(sweep("sweep-1")) });
      await ledger.acquire(key(2), bob, HOUR, T0 + 1, { effects: always(sweep("sweep-2a"), effect("reply-2b")) });
      await ledger.acquire(key(3), carol, HOUR, T0 + 2, { effects: always(effect("reply-3")) });
      // Replies to commands go ahead of older sweep effects of other issues; issue 2's reply waits behind its own
      // sweep effect, which goes at the reply's priority (the older of the two replies' issues first).
      const first = await ledger.takeEffects(T0 + 10, 2, MIN);
      expect(first.map((e) => e.kind)).toEqual(["sweep-2a", "reply-3"]);
      expect((await ledger.takeEffects(T0 + 10, 10, MIN)).map((e) => e.kind)).toEqual(["sweep-1"]);
      await ledger.completeEffect(fenceOf(first[0]!), T0 + 11);
      expect((await ledger.takeEffects(T0 + 12, 10, MIN)).map((e) => e.kind)).toEqual(["reply-2b"]);
    });

    it("takeEffects returns the oldest pending effect of each issue, in order, and locks it", async () => {
      await ledger.acquire(key(1), alice, HOUR, T0, { effects: always(effect("a1"), effect("a2")) });
      await ledger.acquire(key(2), alice, HOUR, T0 + 1, { effects: always(effect("b1")) });
      await ledger.release(key(1), alice, T0 + 2, { effects: always(effect("a3")) });
      await ledger.acquire(key(3), bob, HOUR, T0 + 3, { effects: always(effect("c1", {}, 8)) });
      expect(await ledger.outboxStats()).toEqual({ pending: 5, parked: 0, oldestPendingAt: T0 });

      const now = T0 + 10;
      const first = await ledger.takeEffects(now, 10, MIN);
      expect(first.map((e) => e.kind)).toEqual(["a1", "b1", "c1"]);
      expect(first.map((e) => e.attempts)).toEqual([1, 1, 1]);
      // Locked: a second taker gets none of them, nor anything queued behind them.
      expect(await ledger.takeEffects(now + 1, 10, MIN)).toEqual([]);

      const [a1, b1, c1] = first;
      await ledger.completeEffect(fenceOf(a1!), now + 2);
      expect((await ledger.takeEffects(now + 3, 10, MIN)).map((e) => e.kind)).toEqual(["a2"]);
      await ledger.completeEffect(fenceOf(c1!), now + 4);
      // b1's lock lapsed: it is taken again, a second attempt.
      const again = await ledger.takeEffects(now + MIN + 1, 10, MIN);
      expect(again.map((e) => [e.kind, e.attempts])).toEqual([["b1", 2]]);
      expect(again[0]!.id).toBe(b1!.id);
      expect(await ledger.outboxStats()).toMatchObject({ pending: 3, parked: 0 });

      // `limit` and skipped installations.
      await ledger.acquire(key(4), bob, HOUR, T0, { effects: always(effect("d1", {}, 9)) });
      await ledger.acquire(key(5), bob, HOUR, T0, { effects: always(effect("e1", {}, 9)) });
      const later = now + 10 * MIN;
      expect((await ledger.takeEffects(later, 10, MIN, [{ installation: 7, fromPriority: 0 }])).map((e) => e.kind)).toEqual(["d1", "e1"]);
      expect((await ledger.takeEffects(later + MIN, 1, MIN)).map((e) => e.kind)).toEqual(["a2"]);
    });

    it("takeFollowers takes what waits behind a held head on its issue, in order, up to the first of another kind, not due or locked", async () => {
      await ledger.acquire(key(1), alice, HOUR, T0, { effects: always(effect("reflect"), effect("reflect"), effect("reflect")) });
      await ledger.release(key(1), alice, T0 + 1, { effects: always(effect("check"), effect("reflect")) });
      await ledger.acquire(key(2), bob, HOUR, T0 + 2, { effects: always(effect("reflect")) });
      const now = T0 + 10;
      const [head, other] = await ledger.takeEffects(now, 10, MIN);
      expect([head!.issue, other!.issue]).toEqual([1, 2]);
      // Up to `limit`, oldest first, each locked and counted an attempt.
      const one = await ledger.takeFollowers(head!, "reflect", now, 1, MIN);
      expect(one.map((e) => [e.kind, e.attempts, e.id > head!.id])).toEqual([["reflect", 1, true]]);
      // Behind a locked follower: nothing (the order of the issue holds).
      expect(await ledger.takeFollowers(head!, "reflect", now, 10, MIN)).toEqual([]);
      expect(await ledger.takeEffects(now + 1, 10, MIN)).toEqual([]);
      await ledger.completeEffect(fenceOf(one[0]!), now + 2);
      // Then the third, and not the check nor the reflect behind it.
      const rest = await ledger.takeFollowers(head!, "reflect", now + 3, 10, MIN);
      expect(rest.map((e) => e.kind)).toEqual(["reflect"]);
      expect(rest[0]!.id).toBeGreaterThan(one[0]!.id);
      // Not for a head whose attempt is no longer current (completed, or taken over).
      await ledger.completeEffect(fenceOf(head!), now + 4);
      await ledger.completeEffect(fenceOf(rest[0]!), now + 4);
      expect(await ledger.takeFollowers(head!, "reflect", now + 5, 10, MIN)).toEqual([]);
      const [check] = await ledger.takeEffects(now + 6, 10, MIN);
      expect(check!.kind).toBe("check");
      expect(await ledger.takeFollowers(check!, "check", now + 6, 10, MIN)).toEqual([]);
      // A follower not yet due (a retry scheduled later) stops the run.
      const after = await ledger.takeFollowers(check!, "reflect", now + 7, 10, MIN);
      expect(after.map((e) => e.kind)).toEqual(["reflect"]);
      await ledger.failEffect(fenceOf(after[0]!), now + 8, "502", now + HOUR);
      expect(await ledger.takeFollowers(check!, "reflect", now + 9, 10, MIN)).toEqual([]);
      // Once due, behind the check taken again (its lock lapsed): a second attempt.
      const [checkAgain] = await ledger.takeEffects(now + HOUR, 10, MIN);
      expect(checkAgain).toMatchObject({ id: check!.id, attempts: 2 });
      expect(await ledger.takeFollowers(check!, "reflect", now + HOUR, 10, MIN)).toEqual([]);
      expect(await ledger.takeFollowers(checkAgain!, "reflect", now + HOUR, 10, MIN)).toMatchObject([{ kind: "reflect", attempts: 2 }]);
      // A stale fence (another attempt since) takes nothing.
      expect(await ledger.takeFollowers({ ...other!, attempts: 2 }, "reflect", now + 10, 10, MIN)).toEqual([]);
    });

    it("holds back an installation's effects from a priority up (a budget short for notices and label-only work)", async () => {
      const at = (kind: string, priority: number, installation = 9): NewEffect => ({ ...effect(kind, {}, installation), priority });
      await ledger.acquire(key(1), alice, HOUR, T0, { effects: always(at("reply", 0)) });
      await ledger.acquire(key(2), alice, HOUR, T0, { effects: always(at("notice", 1)) });
      await ledger.acquire(key(3), alice, HOUR, T0, { effects: always(at("labels", 2)) });
      await ledger.acquire(key(4), bob, HOUR, T0, { effects: always(at("other", 2, 8)) });
      const take = async (now: number, hold: Array<{ installation: number; fromPriority: number }>) =>
        (await ledger.takeEffects(now, 10, 1, hold)).map((e) => e.kind).sort();
      // Locks of 1 ms: each take below starts after the last one's lapsed.
      expect(await take(T0 + 10, [{ installation: 9, fromPriority: 1 }])).toEqual(["other", "reply"]);
      expect(await take(T0 + 20, [{ installation: 9, fromPriority: 2 }])).toEqual(["notice", "other", "reply"]);
      expect(await take(T0 + 30, [{ installation: 9, fromPriority: 0 }, { installation: 8, fromPriority: 0 }])).toEqual([]);
      expect(await take(T0 + 40, [])).toEqual(["labels", "notice", "other", "reply"]);
    });

    it("a held installation's backlog, however long, holds back no other installation's effect, nor do effects being applied", async () => {
      // A webhook partition (a negative installation) with 40 due deliveries, each on an issue of its own, older than the other's.
      for (let i = 1; i <= 40; i++) await ledger.acquire(key(i), alice, HOUR, T0, { effects: always(effect(`held-${i}`, {}, -1)) });
      await ledger.acquire(key(41), bob, HOUR, T0 + 1, { effects: always(effect("other", {}, -2)) });
      const taken = await ledger.takeEffects(T0 + 10, 3, MIN, [{ installation: -1, fromPriority: 0 }]);
      expect(taken.map((e) => e.kind)).toEqual(["other"]);
      // Skipped by id (a drainer's own, being applied): as many as there are, the next are taken.
      const first = await ledger.takeEffects(T0 + 10, 30, 1);
      expect(first).toHaveLength(30);
      const next = await ledger.takeEffects(T0 + 20, 5, MIN, [], first.map((e) => e.id));
      expect(next.map((e) => e.kind)).toEqual(["held-31", "held-32", "held-33", "held-34", "held-35"]);
    });

    it("an issue's earlier effects go at the priority of a later one ahead of theirs: a reply never waits behind its issue's label-only work", async () => {
      const at = (kind: string, priority: number): NewEffect => ({ ...effect(kind, {}, 9), priority });
      await ledger.acquire(key(1), alice, HOUR, T0, { effects: always(at("labels", 2)) });
      await ledger.acquire(key(2), alice, HOUR, T0, { effects: always(at("labels2", 2)) });
      await ledger.note(key(1), alice, T0 + 1, { effects: always(at("reply", 0)) });
      const held = [{ installation: 9, fromPriority: 1 }];
      // Issue 1's head went up to the reply's priority; issue 2's label-only work stays held.
      const first = await ledger.takeEffects(T0 + 10, 10, MIN, held);
      expect(first.map((e) => [e.kind, e.priority])).toEqual([["labels", 0]]);
      await ledger.completeEffect(fenceOf(first[0]!), T0 + 11);
      expect((await ledger.takeEffects(T0 + 12, 10, MIN, held)).map((e) => [e.kind, e.priority])).toEqual([["reply", 0]]);
    });

    it("completeEffect, failEffect with a retry time, parking, unparking and stats", async () => {
      await ledger.acquire(key(1), alice, HOUR, T0, { effects: always(effect("a1"), effect("a2")) });
      await ledger.acquire(key(2), bob, HOUR, T0 + 5, { effects: always(effect("b1")) });
      const [a1, b1] = await ledger.takeEffects(T0 + 10, 10, MIN);
      expect([a1!.kind, b1!.kind]).toEqual(["a1", "b1"]);

      // Retry later: not due before retryAt, and it still holds back its issue's later effects.
      await ledger.failEffect(fenceOf(a1!), T0 + 11, "502 Bad Gateway", T0 + 5 * MIN);
      expect(await ledger.takeEffects(T0 + 12, 10, MIN)).toEqual([]);
      expect(await ledger.takeEffects(T0 + 5 * MIN - 1, 10, MIN)).toEqual([
        expect.objectContaining({ kind: "b1", attempts: 2 }),
      ]);
      const retried = await ledger.takeEffects(T0 + 5 * MIN, 10, MIN);
      expect(retried.map((e) => [e.kind, e.attempts])).toEqual([["a1", 2]]);
      // The first attempt is fenced off: it can neither complete nor fail the effect now.
      expect(await ledger.completeEffect(fenceOf(a1!), T0 + 5 * MIN + 1)).toBe(false);
      expect(await ledger.failEffect(fenceOf(a1!), T0 + 5 * MIN + 1, "late", null)).toBe(false);
      expect(await ledger.completeEffect(fenceOf(retried[0]!), T0 + 5 * MIN + 1)).toBe(true);
      expect(await ledger.outboxStats()).toEqual({ pending: 2, parked: 0, oldestPendingAt: T0 });

      // Park: not taken again, counted as parked, until unparked. b1 was taken twice: its second attempt parks it.
      const b1Again = { id: b1!.id, attempt: 2 };
      expect(await ledger.failEffect(fenceOf(b1!), T0 + 6 * MIN, "422 Unprocessable", null)).toBe(false);
      expect(await ledger.failEffect(b1Again, T0 + 6 * MIN, "422 Unprocessable", null)).toBe(true);
      expect(await ledger.outboxStats()).toEqual({ pending: 1, parked: 1, oldestPendingAt: T0 });
      const left = await ledger.takeEffects(T0 + 10 * MIN, 10, MIN);
      expect(left.map((e) => e.kind)).toEqual(["a2"]);
      await ledger.completeEffect(fenceOf(left[0]!), T0 + 10 * MIN);
      expect(await ledger.takeEffects(T0 + 20 * MIN, 10, MIN)).toEqual([]);
      expect(await ledger.outboxStats()).toEqual({ pending: 0, parked: 1, oldestPendingAt: null });

      expect(await ledger.unparkEffects(T0 + 30 * MIN)).toBe(1);
      expect(await ledger.unparkEffects(T0 + 30 * MIN)).toBe(0);
      expect(await ledger.outboxStats()).toEqual({ pending: 1, parked: 0, oldestPendingAt: T0 + 5 });
      // Attempts are kept (the next one looks for a reply already posted); no newer effect of its issue was applied.
      const unparked = await ledger.takeEffects(T0 + 30 * MIN, 10, MIN);
      expect(unparked).toEqual([expect.objectContaining({ id: b1!.id, kind: "b1", attempts: 3, late: false })]);
      await ledger.completeEffect(fenceOf(unparked[0]!), T0 + 30 * MIN);
      expect(await ledger.outboxStats()).toEqual({ pending: 0, parked: 0, oldestPendingAt: null });
    });

    it("an effect un-parked after a newer effect of its issue was applied is marked late", async () => {
      await ledger.acquire(key(1), alice, HOUR, T0, { effects: always(effect("a1")) });
      const [a1] = await ledger.takeEffects(T0 + 1, 10, MIN);
      await ledger.failEffect(fenceOf(a1!), T0 + 2, "422", null);
      await ledger.release(key(1), alice, T0 + 3, { effects: always(effect("a2")) });
      const [a2] = await ledger.takeEffects(T0 + 4, 10, MIN);
      expect(a2).toMatchObject({ kind: "a2", late: false });
      await ledger.completeEffect(fenceOf(a2!), T0 + 5);
      expect(await ledger.unparkEffects(T0 + 6)).toBe(1);
      expect(await ledger.takeEffects(T0 + 7, 10, MIN)).toEqual([expect.objectContaining({ kind: "a1", attempts: 2, late: true })]);
    });

    it("extendEffects extends only current attempts, and takeEffects skips the effects the caller is applying", async () => {
      await ledger.acquire(key(1), alice, HOUR, T0, { effects: always(effect("a1")) });
      await ledger.acquire(key(2), bob, HOUR, T0, { effects: always(effect("b1")) });
      const [a1, b1] = await ledger.takeEffects(T0, 10, MIN);
      // Extended while applied: not taken again when the first lock would have lapsed.
      expect(await ledger.extendEffects([fenceOf(a1!), fenceOf(b1!)], T0 + 50_000, MIN)).toEqual([a1!.id, b1!.id].sort((x, y) => x - y));
      expect(await ledger.takeEffects(T0 + MIN + 1, 10, MIN)).toEqual([]);
      // b1's lock lapses; another drainer takes it: the first attempt can no longer extend it.
      const [b1Again] = await ledger.takeEffects(T0 + 50_000 + MIN, 10, MIN, [], [a1!.id]);
      expect(b1Again).toMatchObject({ id: b1!.id, attempts: 2 });
      expect(await ledger.extendEffects([fenceOf(b1!)], T0 + 50_000 + MIN + 1, MIN)).toEqual([]);
      expect(await ledger.extendEffects([fenceOf(b1Again!)], T0 + 50_000 + MIN + 1, MIN)).toEqual([b1!.id]);
      // a1's lock has lapsed too, but its drainer is still applying it: skipped by that drainer's own take.
      expect(await ledger.takeEffects(T0 + 3 * MIN, 10, MIN, [], [a1!.id, b1!.id])).toEqual([]);
      // A completed effect cannot be extended.
      expect(await ledger.completeEffect(fenceOf(b1Again!), T0 + 3 * MIN)).toBe(true);
      expect(await ledger.extendEffects([fenceOf(b1Again!)], T0 + 3 * MIN, MIN)).toEqual([]);
    });
  });

  describe("sweeping", () => {
    it("expiredSince returns expired, unswept leases and changes nothing", async () => {
      const a = acquired(await ledger.acquire(key(1), alice, 2 * HOUR, T0));
      const b = acquired(await ledger.acquire(key(2), bob, HOUR, T0));
      await ledger.acquire(key(3), carol, 10 * HOUR, T0);
      await ledger.acquire(key(4), dave, null, T0);
      await ledger.acquire(key(5), alice, HOUR, T0);
      await ledger.release(key(5), alice, T0 + 1);
      const historyBefore = await ledger.history(key(1));

      expect(await ledger.expiredSince(T0 + HOUR - 1)).toEqual([]);
      const now = T0 + 3 * HOUR;
      // Soonest expiry first.
      expect(await ledger.expiredSince(now)).toEqual([b, a]);
      expect(await ledger.expiredSince(now)).toEqual([b, a]);
      expect(await ledger.expiredSince(now, 1)).toEqual([b]);
      expect(await ledger.history(key(1))).toEqual(historyBefore);
      expect(await ledger.current(key(1), now)).toBeNull();
      expect(await ledger.list(repoA.repoId, now)).toHaveLength(2);
    });

    it("markExpired frees the row keeping the token; wrong token or live lease is stale", async () => {
      const a = acquired(await ledger.acquire(key(1), alice, HOUR, T0));
      // Not yet expired.
      expect(await ledger.markExpired(key(1), 1, T0 + HOUR - 1)).toEqual({ outcome: "stale", lease: a, duplicate: false });
      expect(await ledger.current(key(1), T0 + HOUR - 1)).toEqual(a);
      // Wrong token.
      expect(await ledger.markExpired(key(1), 2, T0 + HOUR)).toEqual({ outcome: "stale", lease: null, duplicate: false });
      expect(await ledger.expiredSince(T0 + HOUR)).toEqual([a]);
      // Right one.
      expect(await ledger.markExpired(key(1), 1, T0 + HOUR)).toEqual({ outcome: "expired", lease: a, duplicate: false });
      expect(await ledger.expiredSince(T0 + HOUR)).toEqual([]);
      expect(await ledger.markExpired(key(1), 1, T0 + HOUR + 1)).toMatchObject({ outcome: "stale", lease: null });
      expect((await ledger.history(key(1))).at(-2)).toMatchObject({ op: "expire", outcome: "expired", holder: alice, token: 1 });

      // A sweeper late for tenure 2 must not end tenure 3.
      acquired(await ledger.acquire(key(1), bob, HOUR, T0 + 2 * HOUR));
      const c = acquired(await ledger.acquire(key(1), carol, HOUR, T0 + 3 * HOUR));
      expect(c.token).toBe(3);
      expect(await ledger.markExpired(key(1), 2, T0 + 3 * HOUR + 1)).toEqual({ outcome: "stale", lease: c, duplicate: false });
      expect(await ledger.current(key(1), T0 + 3 * HOUR + 1)).toEqual(c);
      // Nothing ever held: stale.
      expect(await ledger.markExpired(key(9), 1, T0)).toEqual({ outcome: "stale", lease: null, duplicate: false });
      expect(await ledger.acquire(key(1), dave, HOUR, T0 + 5 * HOUR)).toMatchObject({ lease: { token: 4 } });
    });

    it("markReminded is for the term read: a renew in between makes it stale and gets its own reminder; two sweeps mark one term once", async () => {
      const opts = { remindBefore: 2 * HOUR };
      await ledger.acquire(key(1), alice, 10 * HOUR, T0, opts);
      const [read] = await ledger.dueReminders(T0 + 8 * HOUR);
      expect(read).toMatchObject({ token: 1, expiresAt: T0 + 10 * HOUR });

      // alice renews between the sweep's read and its mark: the reminder quoting the old expiry is stale.
      await ledger.renew(key(1), alice, 10 * HOUR, T0 + 8 * HOUR + 1, opts);
      expect(await ledger.markReminded(key(1), read!, T0 + 8 * HOUR + 2)).toMatchObject({ outcome: "stale" });
      // ...and the new term's reminder comes, at its own time.
      expect(await ledger.dueReminders(T0 + 16 * HOUR)).toEqual([]);
      const next = await ledger.dueReminders(T0 + 16 * HOUR + 1);
      expect(next).toMatchObject([{ token: 1, expiresAt: T0 + 18 * HOUR + 1 }]);

      // Two sweeps that read the same due reminder: one marks it, the other is stale.
      const again = await ledger.dueReminders(T0 + 16 * HOUR + 1);
      const marks = await Promise.all([
        ledger.markReminded(key(1), next[0]!, T0 + 16 * HOUR + 2),
        ledger.markReminded(key(1), again[0]!, T0 + 16 * HOUR + 2),
      ]);
      expect(marks.map((m) => m.outcome).sort()).toEqual(["reminded", "stale"]);
      expect(await ledger.dueReminders(T0 + 17 * HOUR)).toEqual([]);
    });

    it("dueReminders and markReminded: once per term", async () => {
      const opts = { remindBefore: 2 * HOUR };
      const a = acquired(await ledger.acquire(key(1), alice, 10 * HOUR, T0, opts));
      await ledger.acquire(key(2), bob, 10 * HOUR, T0); // no reminder asked
      await ledger.acquire(key(3), carol, null, T0, opts); // open-ended: nothing to remind of

      expect(await ledger.dueReminders(T0 + 8 * HOUR - 1)).toEqual([]);
      expect(await ledger.dueReminders(T0 + 8 * HOUR)).toEqual([a]);
      expect(await ledger.markReminded(key(1), { token: 2, expiresAt: a.expiresAt }, T0 + 8 * HOUR)).toMatchObject({ outcome: "stale" });
      expect(await ledger.dueReminders(T0 + 8 * HOUR)).toEqual([a]);
      expect(await ledger.markReminded(key(1), { token: 1, expiresAt: a.expiresAt }, T0 + 8 * HOUR)).toEqual({ outcome: "reminded", lease: a, duplicate: false });
      expect(await ledger.dueReminders(T0 + 9 * HOUR)).toEqual([]);

      // A renew starts a new term and so a new reminder.
      const renewed = await ledger.renew(key(1), alice, 10 * HOUR, T0 + 9 * HOUR, opts);
      expect(renewed).toMatchObject({ outcome: "renewed", lease: { expiresAt: T0 + 19 * HOUR } });
      expect(await ledger.dueReminders(T0 + 17 * HOUR - 1)).toEqual([]);
      const due = await ledger.dueReminders(T0 + 17 * HOUR);
      expect(due).toMatchObject([{ issue: 1, token: 1, expiresAt: T0 + 19 * HOUR }]);
      expect(await ledger.markReminded(key(1), { token: 1, expiresAt: T0 + 19 * HOUR }, T0 + 17 * HOUR)).toMatchObject({ outcome: "reminded" });
      expect(await ledger.dueReminders(T0 + 18 * HOUR)).toEqual([]);

      // Once expired, no reminder; and markReminded is stale.
      await ledger.acquire(key(4), dave, HOUR, T0, { remindBefore: 10 * MIN });
      expect(await ledger.dueReminders(T0 + HOUR)).toEqual([]);
      expect(await ledger.markReminded(key(4), { token: 1, expiresAt: T0 + HOUR }, T0 + HOUR)).toEqual({ outcome: "stale", lease: null, duplicate: false });
      expect(await ledger.dueReminders(T0 + 50 * MIN, 1)).toHaveLength(1);
    });
  });
});
