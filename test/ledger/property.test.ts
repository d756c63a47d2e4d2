/**
 * Random command sequences against every backend, checked against a plain
 * in-memory model of the rules written here from the ledger's documentation
 * (deliberately not by calling decide.ts, which the backends use: a shared
 * bug would go unseen).
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { SqliteLedger } from "../../src/ledger/sqlite/sqlite-ledger.js";
import type { Holder, IssueKey, Lease, Ttl } from "../../src/ledger/leases/lease-types.js";
import type { Ledger } from "../../src/ledger/ledger.js";
import { backends } from "./backends.js";

const REPO = { repoId: 7, repo: "octo/prop" };
const ISSUES = [1, 2, 3] as const;
const key = (issue: number): IssueKey => ({ ...REPO, issue });
const T0 = 1_000_000;

type Cmd = { step: number } & (
  | { op: "acquire"; issue: number; holder: Holder; ttl: Ttl; limit: number }
  | { op: "renew"; issue: number; holder: Holder; ttl: Ttl }
  | { op: "release"; issue: number; holder: Holder }
  | { op: "forceRelease"; issue: number; actor: Holder }
  | { op: "current"; issue: number }
  | { op: "list" }
  | { op: "sweep" }
  | { op: "markExpired"; issue: number; token: number }
);

const holderArb: fc.Arbitrary<Holder> = fc
  .record({ id: fc.integer({ min: 1, max: 4 }), renamed: fc.boolean() })
  // A holder is its id; the login may change (a renamed account).
  .map(({ id, renamed }) => ({ id, login: renamed ? `user${id}-renamed` : `user${id}` }));
const issueArb = fc.constantFrom(...ISSUES);
// Short ttls against clock steps of similar size, so leases expire often; some open-ended, some zero.
const ttlArb: fc.Arbitrary<Ttl> = fc.oneof(
  { weight: 1, arbitrary: fc.constant(null) },
  { weight: 6, arbitrary: fc.integer({ min: 0, max: 100 }) },
);
const stepArb = fc.oneof(fc.constant(0), fc.integer({ min: 1, max: 60 }));

const cmdArb: fc.Arbitrary<Cmd> = fc.oneof(
  { weight: 5, arbitrary: fc.record({ step: stepArb, op: fc.constant("acquire" as const), issue: issueArb, holder: holderArb, ttl: ttlArb, limit: fc.constantFrom(0, 0, 1, 2) }) },
  { weight: 3, arbitrary: fc.record({ step: stepArb, op: fc.constant("renew" as const), issue: issueArb, holder: holderArb, ttl: ttlArb }) },
  { weight: 3, arbitrary: fc.record({ step: stepArb, op: fc.constant("release" as const), issue: issueArb, holder: holderArb }) },
  { weight: 1, arbitrary: fc.record({ step: stepArb, op: fc.constant("forceRelease" as const), issue: issueArb, actor: holderArb }) },
  { weight: 1, arbitrary: fc.record({ step: stepArb, op: fc.constant("current" as const), issue: issueArb }) },
  { weight: 1, arbitrary: fc.record({ step: stepArb, op: fc.constant("list" as const) }) },
  { weight: 2, arbitrary: fc.record({ step: stepArb, op: fc.constant("sweep" as const) }) },
  { weight: 1, arbitrary: fc.record({ step: stepArb, op: fc.constant("markExpired" as const), issue: issueArb, token: fc.integer({ min: 0, max: 6 }) }) },
);

/** The model: an issue's latest tenure; `holder` null once it was ended (released, force-released, swept). */
interface ModelIssue {
  holder: Holder | null;
  token: number;
  acquiredAt: number;
  expiresAt: number | null;
  /** How many history rows the operations on this issue must have written. */
  ops: number;
}

class Model {
  readonly issues = new Map<number, ModelIssue>();

  row(issue: number): ModelIssue {
    let r = this.issues.get(issue);
    if (!r) {
      r = { holder: null, token: 0, acquiredAt: 0, expiresAt: null, ops: 0 };
      this.issues.set(issue, r);
    }
    return r;
  }

  private asLease(issue: number, r: ModelIssue): Lease {
    return { ...REPO, issue, holder: r.holder!, token: r.token, acquiredAt: r.acquiredAt, expiresAt: r.expiresAt, heldBy: { kind: "time" } };
  }

  live(issue: number, now: number): Lease | null {
    const r = this.issues.get(issue);
    if (!r?.holder) return null;
    if (r.expiresAt !== null && now >= r.expiresAt) return null;
    return this.asLease(issue, r);
  }

  list(now: number): Lease[] {
    return [...ISSUES].map((i) => this.live(i, now)).filter((l): l is Lease => l !== null);
  }

  expired(now: number): Lease[] {
    return [...ISSUES]
      .map((i) => [i, this.issues.get(i)] as const)
      .filter(([, r]) => r?.holder && r.expiresAt !== null && r.expiresAt <= now)
      .map(([i, r]) => this.asLease(i, r!));
  }

  acquire(issue: number, holder: Holder, ttl: Ttl, now: number, limit: number): unknown {
    const r = this.row(issue);
    r.ops++;
    const cur = this.live(issue, now);
    const until = ttl === null ? null : now + ttl;
    if (cur && cur.holder.id === holder.id) {
      Object.assign(r, { holder, expiresAt: until });
      return { outcome: "acquired", newTenure: false, lease: this.asLease(issue, r) };
    }
    if (cur) return { outcome: "held", lease: cur };
    const others = this.list(now).filter((l) => l.holder.id === holder.id && l.issue !== issue);
    if (limit > 0 && others.length >= limit) return { outcome: "limit", limit, held: others };
    Object.assign(r, { holder, token: r.token + 1, acquiredAt: now, expiresAt: until });
    return { outcome: "acquired", newTenure: true, lease: this.asLease(issue, r) };
  }

  renew(issue: number, holder: Holder, ttl: Ttl, now: number): unknown {
    const r = this.row(issue);
    r.ops++;
    const cur = this.live(issue, now);
    if (!cur || cur.holder.id !== holder.id) return { outcome: "not_holder", lease: cur };
    Object.assign(r, { holder, expiresAt: ttl === null ? null : now + ttl });
    return { outcome: "renewed", lease: this.asLease(issue, r) };
  }

  release(issue: number, holder: Holder | null, now: number): unknown {
    const r = this.row(issue);
    r.ops++;
    const cur = this.live(issue, now);
    if (holder && cur && cur.holder.id !== holder.id) return { outcome: "not_holder", lease: cur };
    r.holder = null;
    return { outcome: "released", lease: cur };
  }

  markExpired(issue: number, token: number, now: number): unknown {
    const r = this.row(issue);
    r.ops++;
    if (r.holder && r.token === token && r.expiresAt !== null && r.expiresAt <= now) {
      const ended = this.asLease(issue, r);
      r.holder = null;
      return { outcome: "expired", lease: ended };
    }
    return { outcome: "stale", lease: this.live(issue, now) };
  }
}

const byIssue = (a: Lease, b: Lease) => a.issue - b.issue;
/** Drops `duplicate` (always false here) and puts `held` in issue order, which the interface leaves open. */
function normal(result: unknown): unknown {
  const { duplicate, ...rest } = result as Record<string, unknown> & { duplicate: boolean };
  expect(duplicate).toBe(false);
  if (Array.isArray(rest.held)) rest.held = [...(rest.held as Lease[])].sort(byIssue);
  return rest;
}

async function run(ledger: Ledger, cmds: Cmd[]): Promise<void> {
  const model = new Model();
  let now = T0;
  /** Every token handed out for a new tenure, per issue, in order. */
  const tenures = new Map<number, number[]>(ISSUES.map((i) => [i, []]));

  for (const cmd of cmds) {
    now += cmd.step;
    const where = `${JSON.stringify(cmd)} at ${now}`;
    switch (cmd.op) {
      case "acquire": {
        const got = await ledger.acquire(key(cmd.issue), cmd.holder, cmd.ttl, now, { maxPerHolder: cmd.limit });
        expect(normal(got), where).toEqual(model.acquire(cmd.issue, cmd.holder, cmd.ttl, now, cmd.limit));
        if (got.outcome === "acquired" && got.newTenure) {
          const seen = tenures.get(cmd.issue)!;
          // Never reused, always above every earlier tenure's token.
          expect(got.lease.token, where).toBeGreaterThan(Math.max(0, ...seen));
          seen.push(got.lease.token);
        }
        break;
      }
      case "renew": {
        const got = await ledger.renew(key(cmd.issue), cmd.holder, cmd.ttl, now);
        expect(normal(got), where).toEqual(model.renew(cmd.issue, cmd.holder, cmd.ttl, now));
        break;
      }
      case "release": {
        const got = await ledger.release(key(cmd.issue), cmd.holder, now);
        expect(normal(got), where).toEqual(model.release(cmd.issue, cmd.holder, now));
        break;
      }
      case "forceRelease": {
        const got = await ledger.forceRelease(key(cmd.issue), cmd.actor, now);
        expect(normal(got), where).toEqual(model.release(cmd.issue, null, now));
        break;
      }
      case "current":
        expect(await ledger.current(key(cmd.issue), now), where).toEqual(model.live(cmd.issue, now));
        break;
      case "list":
        expect(await ledger.list(REPO.repoId, now), where).toEqual(model.list(now));
        break;
      case "sweep": {
        const expired = await ledger.expiredSince(now);
        expect([...expired].sort(byIssue), where).toEqual(model.expired(now));
        for (const l of expired) {
          const got = await ledger.markExpired(key(l.issue), l.token, now);
          expect(got.outcome, where).toBe("expired");
          expect(normal(got), where).toEqual(model.markExpired(l.issue, l.token, now));
        }
        break;
      }
      case "markExpired": {
        const got = await ledger.markExpired(key(cmd.issue), cmd.token, now);
        expect(normal(got), where).toEqual(model.markExpired(cmd.issue, cmd.token, now));
        break;
      }
    }

    // At most one live holder per issue: the holders' own views never overlap.
    const held: number[] = [];
    for (const id of [1, 2, 3, 4]) held.push(...(await ledger.listHeldBy(id, now)).map((l) => l.issue));
    expect([...held].sort(), where).toEqual(model.list(now).map((l) => l.issue));
  }

  // Nothing was ever lost: every operation left its history row, and the
  // tenures in the history are exactly those handed out, 1..n in order.
  for (const issue of ISSUES) {
    const history = await ledger.history(key(issue), 1_000_000);
    const m = model.issues.get(issue);
    expect(history).toHaveLength(m?.ops ?? 0);
    const ids = history.map((h) => h.id);
    expect(ids).toEqual([...ids].sort((a, b) => a - b));
    const tokens = history.filter((h) => h.op === "acquire" && h.outcome === "acquired").map((h) => h.token!);
    const distinct = [...new Set(tokens)];
    expect(tokens).toEqual([...tokens].sort((a, b) => a - b));
    expect(distinct).toEqual(tenures.get(issue));
    expect(distinct).toEqual(distinct.map((_, i) => i + 1));
    expect(distinct.length).toBe(m?.token ?? 0);
  }

  if (ledger instanceof SqliteLedger) {
    // One row per issue ever held, kept for good with its latest token.
    const rows = ledger.db.prepare("SELECT issue, token FROM leases ORDER BY issue").all();
    const expected = [...model.issues].filter(([, r]) => r.token > 0).map(([issue, r]) => ({ issue, token: r.token }));
    expect(rows).toEqual(expected.sort((a, b) => a.issue - b.issue));
  }
}

describe.each(backends)("ledger properties: $name", (backend) => {
  it("agrees with the model, one holder per issue, tokens never reused, nothing lost", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(cmdArb, { minLength: 1, maxLength: 40 }), async (cmds) => {
        const store = await backend.open();
        try {
          await run(store.ledger, cmds);
        } finally {
          await store.cleanup();
        }
      }),
      { numRuns: 150 },
    );
    // 150 fresh databases: about 7 s on PostgreSQL (a schema and its
    // migrations each), several times that on a loaded machine.
  }, 300_000);
});
