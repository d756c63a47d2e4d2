/**
 * The wait list (issue 22) on every backend: joining a held issue's line,
 * the handoff to the first live place on release, a maintainer's release and
 * expiry (in the same transaction, with its effects and history), leaving,
 * `author_first`, a close ending the line; and on PostgreSQL replicas,
 * concurrent releases and joins handing the lease once.
 */
import { describe, expect, it } from "vitest";
import type { PostgresLedger } from "../../src/ledger/postgres/postgres-ledger.js";
import type { Ledger } from "../../src/ledger/ledger.js";
import type { SqliteLedger } from "../../src/ledger/sqlite/sqlite-ledger.js";
import type { Holder, IssueKey, ReleaseResult } from "../../src/ledger/leases/lease-types.js";
import type { NewEffect } from "../../src/ledger/outbox/outbox-types.js";
import type { QueueAsk } from "../../src/ledger/queue/queue-types.js";
import { backends, useBackend } from "./backends.js";
import { type EffectCases } from "../../src/ledger/leases/effect-cases.js";

const MIN = 60_000;
const HOUR = 60 * MIN;
const T0 = 1_700_000_000_000;
const k: IssueKey = { repoId: 100, repo: "octo/alpha", issue: 7 };

const alice: Holder = { id: 1, login: "alice" };
const bob: Holder = { id: 2, login: "bob" };
const carol: Holder = { id: 3, login: "carol" };
const dave: Holder = { id: 4, login: "dave" };

const wait = (o: Partial<QueueAsk> = {}): QueueAsk => ({ placeTtl: 24 * HOUR, authorFirst: false, remindBefore: null, ...o });

/** The effects an operation is given: one for a handoff (its answer, naming the new holder and token, attached), one for anything else. */
const handoff = [{ effect: { installation: 1, kind: "handoff", payload: {} } as NewEffect, withResult: true }];
const effects: EffectCases = { "released.handoff": handoff, "expired.handoff": handoff, any: [{ effect: { installation: 1, kind: "ended", payload: {} } }] };
/** The new holder and token a handoff effect's answer names. */
const handedTo = (payload: unknown) => {
  const h = (payload as { decided: { handoff: { holder: Holder; token: number } } }).decided.handoff;
  return { holder: h.holder.login, token: h.token };
};

async function line(ledger: Ledger, now: number): Promise<string[]> {
  return (await ledger.queue(k, now)).map((p) => `${p.position}:${p.holder.login}`);
}

describe.each(backends)("wait list: $name", (backend) => {
  const { ledger, store } = useBackend(backend);

  it("three in line, each answered with their position; asking again keeps the place and renews its time", async () => {
    await ledger.acquire(k, alice, HOUR, T0);
    const b = await ledger.acquire(k, bob, 2 * HOUR, T0 + 1, { queue: wait() });
    expect(b).toMatchObject({ outcome: "queued", position: 1, until: T0 + 1 + 24 * HOUR, lease: { holder: alice, token: 1 } });
    expect(await ledger.acquire(k, carol, HOUR, T0 + 2, { queue: wait() })).toMatchObject({ outcome: "queued", position: 2 });
    expect(await ledger.acquire(k, dave, HOUR, T0 + 3, { queue: wait() })).toMatchObject({ outcome: "queued", position: 3 });
    const again = await ledger.acquire(k, bob, 2 * HOUR, T0 + 10 * MIN, { queue: wait() });
    expect(again).toMatchObject({ outcome: "queued", position: 1, until: T0 + 10 * MIN + 24 * HOUR });
    expect(await line(ledger, T0 + 20 * MIN)).toEqual(["1:bob", "2:carol", "3:dave"]);
    // Without `queue`, a held issue is answered as before.
    expect(await ledger.acquire(k, dave, HOUR, T0 + 4)).toMatchObject({ outcome: "held" });
    // The holder asking is the holder's claim, not a place.
    expect(await ledger.acquire(k, alice, HOUR, T0 + 5, { queue: wait() })).toMatchObject({ outcome: "acquired", newTenure: false });
  });

  it("a release hands the lease to the first in line in the same transaction: token + 1, the ttl asked, its history and effects", async () => {
    await ledger.acquire(k, alice, HOUR, T0);
    await ledger.acquire(k, bob, 2 * HOUR, T0 + 1, { queue: wait() });
    await ledger.acquire(k, carol, HOUR, T0 + 2, { queue: wait() });
    const r = await ledger.release(k, alice, T0 + 10 * MIN, { delivery: "d-rel", effects });
    expect(r).toMatchObject({ outcome: "released", lease: { holder: alice, token: 1 }, handoff: { holder: bob, token: 2, expiresAt: T0 + 10 * MIN + 2 * HOUR } });
    expect(await ledger.current(k, T0 + 11 * MIN)).toMatchObject({ holder: bob, token: 2, acquiredAt: T0 + 10 * MIN });
    expect(await line(ledger, T0 + 11 * MIN)).toEqual(["1:carol"]);
    const history = await ledger.history(k);
    expect(history.slice(-2).map((h) => [h.op, h.outcome, h.holder?.login, h.token])).toEqual([
      ["release", "released", "alice", 1],
      ["handoff", "acquired", "bob", 2],
    ]);
    const taken = await ledger.takeEffects(T0 + 11 * MIN, 10, MIN);
    expect(taken.map((e) => [e.kind, handedTo(e.payload)])).toEqual([["handoff", { holder: "bob", token: 2 }]]);
    // A redelivery of the release changes nothing and hands nothing again.
    const again = await ledger.release(k, alice, T0 + 12 * MIN, { delivery: "d-rel", effects });
    expect(again).toMatchObject({ duplicate: true, handoff: { token: 2 } });
    expect(await ledger.current(k, T0 + 12 * MIN)).toMatchObject({ holder: bob, token: 2 });
    // Bob's release hands it to carol, with token 3.
    const next = await ledger.release(k, bob, T0 + 20 * MIN, { effects });
    expect(next).toMatchObject({ handoff: { holder: carol, token: 3, expiresAt: T0 + 20 * MIN + HOUR } });
    // The last one's release frees it: nobody waits.
    const last = await ledger.release(k, carol, T0 + 30 * MIN, { effects });
    expect(last).toMatchObject({ outcome: "released", lease: { token: 3 } });
    expect((last as ReleaseResult & { handoff?: unknown }).handoff).toBeUndefined();
    expect(await ledger.current(k, T0 + 31 * MIN)).toBeNull();
    expect((await ledger.acquire(k, dave, HOUR, T0 + 32 * MIN)).outcome === "acquired" && (await ledger.current(k, T0 + 33 * MIN))?.token).toBe(4);
  });

  it("expiry hands it on; a place past its time is ended as expired and skipped", async () => {
    await ledger.acquire(k, alice, HOUR, T0);
    await ledger.acquire(k, bob, HOUR, T0 + 1, { queue: wait({ placeTtl: 30 * MIN }) });
    await ledger.acquire(k, carol, 3 * HOUR, T0 + 2, { queue: wait({ placeTtl: 2 * HOUR }) });
    const at = T0 + HOUR + 1;
    const [expired] = await ledger.expiredSince(at);
    expect(expired).toMatchObject({ holder: alice, token: 1 });
    const r = await ledger.markExpired(k, 1, at, { effects });
    expect(r).toMatchObject({ outcome: "expired", lease: { holder: alice }, handoff: { holder: carol, token: 2, expiresAt: at + 3 * HOUR } });
    expect(await ledger.current(k, at)).toMatchObject({ holder: carol, token: 2 });
    expect(await line(ledger, at)).toEqual([]);
    // A second sweep of the same tenure is stale: nothing handed twice.
    expect(await ledger.markExpired(k, 1, at + 1, { effects })).toMatchObject({ outcome: "stale", lease: { holder: carol, token: 2 } });
    const taken = await ledger.takeEffects(at + 2, 10, MIN);
    expect(taken.map((e) => e.kind)).toEqual(["handoff"]);
  });

  it("a claim after the lease ran out but before the sweep hands it to the first in line first; the sweep then finds it stale", async () => {
    await ledger.acquire(k, alice, HOUR, T0);
    await ledger.acquire(k, bob, 2 * HOUR, T0 + 1, { queue: wait() });
    await ledger.acquire(k, carol, HOUR, T0 + 2, { queue: wait() });
    const at = T0 + HOUR + 5;
    // dave, not in line, claims: bob gets it (token 2), dave is told bob holds it.
    const r = await ledger.acquire(k, dave, HOUR, at, { effects });
    expect(r).toMatchObject({ outcome: "held", lease: { holder: bob, token: 2, expiresAt: at + 2 * HOUR }, handedOver: { holder: alice, token: 1 } });
    expect(await ledger.current(k, at)).toMatchObject({ holder: bob, token: 2 });
    expect(await ledger.markExpired(k, 1, at + 1)).toMatchObject({ outcome: "stale" });
    // Waiting, dave goes behind carol.
    expect(await ledger.acquire(k, dave, HOUR, at + 2, { queue: wait() })).toMatchObject({ outcome: "queued", position: 2 });
    const history = await ledger.history(k);
    expect(history.filter((h) => h.outcome === "acquired").map((h) => [h.op, h.holder?.login, h.token])).toEqual([
      ["acquire", "alice", 1],
      ["handoff", "bob", 2],
    ]);
    // carol, first in line when bob's runs out, claims it herself: an ordinary new tenure, and her place ends (handed).
    const later = at + 2 * HOUR + 1;
    expect(await ledger.acquire(k, carol, HOUR, later, { queue: wait() })).toMatchObject({ outcome: "acquired", newTenure: true, lease: { token: 3 } });
    expect(await line(ledger, later)).toEqual(["1:dave"]);
  });

  it("a release by someone in line who does not hold it leaves the line", async () => {
    await ledger.acquire(k, alice, HOUR, T0);
    await ledger.acquire(k, bob, HOUR, T0 + 1, { queue: wait() });
    await ledger.acquire(k, carol, HOUR, T0 + 2, { queue: wait() });
    const left = await ledger.release(k, bob, T0 + 3, { effects });
    expect(left).toMatchObject({ outcome: "left_queue", lease: { holder: alice, token: 1 } });
    expect(await line(ledger, T0 + 4)).toEqual(["1:carol"]);
    // Not in line (any more), not the holder: as before.
    expect(await ledger.release(k, bob, T0 + 5)).toMatchObject({ outcome: "not_holder" });
    expect(await ledger.release(k, alice, T0 + 6, { effects })).toMatchObject({ handoff: { holder: carol, token: 2 } });
  });

  it("author_first puts the author ahead of everyone not the author", async () => {
    await ledger.acquire(k, alice, HOUR, T0);
    await ledger.acquire(k, bob, HOUR, T0 + 1, { queue: wait() });
    await ledger.acquire(k, carol, HOUR, T0 + 2, { queue: wait() });
    const author = await ledger.acquire(k, dave, HOUR, T0 + 3, { queue: wait({ authorFirst: true }) });
    expect(author).toMatchObject({ outcome: "queued", position: 1 });
    expect(await line(ledger, T0 + 4)).toEqual(["1:dave", "2:bob", "3:carol"]);
    expect(await ledger.release(k, alice, T0 + 5, { effects })).toMatchObject({ handoff: { holder: dave } });
  });

  it("instances of one account wait apart", async () => {
    await ledger.acquire(k, alice, HOUR, T0);
    const w1 = { ...bob, instance: "w-1" };
    const w2 = { ...bob, instance: "w-2" };
    expect(await ledger.acquire(k, w1, HOUR, T0 + 1, { queue: wait() })).toMatchObject({ position: 1 });
    expect(await ledger.acquire(k, w2, HOUR, T0 + 2, { queue: wait() })).toMatchObject({ position: 2 });
    expect(await ledger.release(k, alice, T0 + 3)).toMatchObject({ handoff: { holder: w1 } });
  });

  it("a maintainer's release hands it on; a close ends the line and hands nothing", async () => {
    await ledger.acquire(k, alice, HOUR, T0);
    await ledger.acquire(k, bob, HOUR, T0 + 1, { queue: wait() });
    await ledger.acquire(k, carol, HOUR, T0 + 2, { queue: wait() });
    expect(await ledger.forceRelease(k, dave, T0 + 3, { effects })).toMatchObject({ outcome: "released", handoff: { holder: bob, token: 2 } });
    const closed = await ledger.forceRelease(k, dave, T0 + 4, { closing: true, effects });
    expect(closed).toMatchObject({ outcome: "released", lease: { holder: bob } });
    expect((closed as { handoff?: unknown }).handoff).toBeUndefined();
    expect(await ledger.current(k, T0 + 5)).toBeNull();
    expect(await line(ledger, T0 + 5)).toEqual([]);
  });

  it("keeps every place: each ends with when and why (handed, left, expired, closed), none is deleted", async () => {
    await ledger.acquire(k, alice, HOUR, T0);
    await ledger.acquire(k, bob, HOUR, T0 + 1, { queue: wait({ placeTtl: MIN }) });
    await ledger.acquire(k, carol, HOUR, T0 + 2, { queue: wait() });
    await ledger.acquire(k, dave, HOUR, T0 + 3, { queue: wait() });
    await ledger.release(k, dave, T0 + 4); // dave leaves
    await ledger.release(k, alice, T0 + 2 * MIN); // bob's place ran out: carol is handed it
    await ledger.acquire(k, dave, HOUR, T0 + 3 * MIN, { queue: wait() });
    await ledger.forceRelease(k, alice, T0 + 4 * MIN, { closing: true });
    const opened = store().ledger;
    const sql = "SELECT holder_login, ended_why, ended_at FROM queue ORDER BY id";
    const rows =
      backend.name === "sqlite"
        ? (opened as SqliteLedger).db.prepare(sql).all()
        : (await (opened as PostgresLedger).pool.query(sql.replace("FROM queue", `FROM "${(opened as PostgresLedger).schema}".queue`))).rows;
    expect(rows).toEqual([
      { holder_login: "bob", ended_why: "expired", ended_at: T0 + 2 * MIN },
      { holder_login: "carol", ended_why: "handed", ended_at: T0 + 2 * MIN },
      { holder_login: "dave", ended_why: "left", ended_at: T0 + 4 },
      { holder_login: "dave", ended_why: "closed", ended_at: T0 + 4 * MIN },
    ]);
  });

  it("the board shows how many wait in line for a lease", async () => {
    await ledger.rememberVisibility({ repoId: k.repoId, repo: k.repo, installation: 1, private: false }, T0);
    await ledger.acquire(k, alice, HOUR, T0);
    await ledger.acquire({ ...k, issue: 8 }, alice, HOUR, T0);
    await ledger.acquire(k, bob, HOUR, T0 + 1, { queue: wait() });
    await ledger.acquire(k, carol, HOUR, T0 + 2, { queue: wait() });
    const board = await ledger.boardLeases({ visible: [], page: 0, pageSize: 10 }, T0 + 3);
    expect(board.leases.map((l) => [l.issue, l.waiting])).toEqual([
      [7, 2],
      [8, undefined],
    ]);
  });

  it("the token floor holds for a handoff", async () => {
    await ledger.acquire(k, alice, HOUR, T0);
    await ledger.acquire(k, bob, HOUR, T0 + 1, { queue: wait() });
    await ledger.raiseTokenFloor({ floor: 50 }, dave, "test", T0 + 2);
    expect(await ledger.release(k, alice, T0 + 3)).toMatchObject({ handoff: { holder: bob, token: 51 } });
  });

  it("on two ledgers over one store, concurrent releases and joins hand the lease once, with no token twice", async () => {
    const { another } = store();
    if (!another) return;
    const replicas = [ledger, await another(), await another()];
    for (let round = 0; round < 5; round++) {
      const issue: IssueKey = { ...k, issue: 100 + round };
      const t = T0 + round * HOUR;
      await ledger.acquire(issue, alice, HOUR, t);
      const waiters = [bob, carol, dave];
      await Promise.all(waiters.map((w, i) => replicas[i]!.acquire(issue, w, HOUR, t + 1, { queue: wait() })));
      // The holder's release sent to every replica at once, and a late joiner.
      const results = await Promise.all([
        ...replicas.map((r) => r.release(issue, alice, t + 2, { effects })),
        replicas[1]!.acquire(issue, { id: 9, login: "zed" }, HOUR, t + 2, { queue: wait() }),
      ]);
      const handed = results.filter((r) => "handoff" in r && r.handoff);
      expect(handed).toHaveLength(1);
      const history = await ledger.history(issue);
      const tokens = history.filter((h) => h.outcome === "acquired").map((h) => h.token);
      expect(tokens).toEqual([1, 2]);
      const live = await ledger.current(issue, t + 3);
      expect(live?.token).toBe(2);
      expect(waiters.map((w) => w.login)).toContain(live?.holder.login);
      expect((await ledger.queue(issue, t + 3)).length).toBe(3);
    }
  });

  it("on two ledgers over one store, an expiry swept on one and a late release on another hand the lease once", async () => {
    const { another } = store();
    if (!another) return;
    const other = await another();
    for (let round = 0; round < 5; round++) {
      const issue: IssueKey = { ...k, issue: 200 + round };
      const t = T0 + round * HOUR;
      await ledger.acquire(issue, alice, MIN, t);
      await other.acquire(issue, bob, HOUR, t + 1, { queue: wait() });
      await ledger.acquire(issue, carol, HOUR, t + 2, { queue: wait() });
      const at = t + MIN + 1;
      const results = await Promise.all([ledger.markExpired(issue, 1, at, { effects }), other.release(issue, alice, at, { effects })]);
      expect(results.filter((r) => "handoff" in r && r.handoff)).toHaveLength(1);
      expect(await ledger.current(issue, at)).toMatchObject({ holder: bob, token: 2 });
      expect((await ledger.queue(issue, at)).map((p) => p.holder.login)).toEqual(["carol"]);
      const effectsTaken = (await ledger.takeEffects(at, 100, MIN)).filter((e) => e.issue === issue.issue);
      expect(effectsTaken.map((e) => e.kind)).toEqual(["handoff"]);
      for (const e of effectsTaken) await ledger.completeEffect({ id: e.id, attempt: e.attempts }, at);
    }
  });
});
