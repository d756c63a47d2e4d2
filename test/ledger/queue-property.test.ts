/**
 * The wait list under random sequences, on every backend, against a plain
 * model written here from the manual's words (docs/contributors/wait-list.md) (not from queue-plans.ts): a
 * claim on a held issue waits in line (or renews its place), a release by
 * the holder or an expiry passes the lease to the first live place with the
 * next token, a release by someone waiting leaves the line, a place past its
 * time is skipped, and a claim that comes after a lease ran out unswept
 * hands it to the first in line first.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { Ledger } from "../../src/ledger/ledger.js";
import type { Holder, IssueKey, Ttl } from "../../src/ledger/leases/lease-types.js";
import { backends } from "./backends.js";

const REPO = { repoId: 9, repo: "octo/line" };
const key = (issue: number): IssueKey => ({ ...REPO, issue });
const T0 = 1_000_000;
const PLACE_TTL = 200;

type Cmd = { step: number; issue: number; who: number } & ({ op: "claim"; ttl: Ttl; wait: boolean } | { op: "release" } | { op: "sweep" });

const holder = (id: number): Holder => ({ id, login: `user${id}` });
const base = { step: fc.oneof(fc.constant(0), fc.integer({ min: 1, max: 30 })), issue: fc.constantFrom(1, 2), who: fc.integer({ min: 1, max: 4 }) };
const ttlArb: fc.Arbitrary<Ttl> = fc.oneof({ weight: 1, arbitrary: fc.constant(null) }, { weight: 5, arbitrary: fc.integer({ min: 1, max: 90 }) });
const cmdArb: fc.Arbitrary<Cmd> = fc.oneof(
  { weight: 5, arbitrary: fc.record({ ...base, op: fc.constant("claim" as const), ttl: ttlArb, wait: fc.constantFrom(true, true, true, false) }) },
  { weight: 3, arbitrary: fc.record({ ...base, op: fc.constant("release" as const) }) },
  { weight: 1, arbitrary: fc.record({ ...base, op: fc.constant("sweep" as const) }) },
);

interface Place {
  who: number;
  until: number;
  ttl: Ttl;
}
interface Issue {
  who: number | null;
  token: number;
  expiresAt: number | null;
  line: Place[];
}

const live = (i: Issue, now: number) => i.who !== null && (i.expiresAt === null || i.expiresAt > now);

/** The lease ends: the first place still within its time gets it (token + 1); the places past theirs are dropped. */
function handOn(i: Issue, now: number): boolean {
  i.line = i.line.filter((p) => p.until > now);
  const next = i.line.shift();
  if (!next) {
    i.who = null;
    i.expiresAt = null;
    return false;
  }
  i.who = next.who;
  i.token += 1;
  i.expiresAt = next.ttl === null ? null : now + next.ttl;
  return true;
}

function join(i: Issue, who: number, ttl: Ttl, now: number): number {
  i.line = i.line.filter((p) => p.until > now);
  const own = i.line.find((p) => p.who === who);
  if (own) {
    own.until = now + PLACE_TTL;
    own.ttl = ttl;
  } else i.line.push({ who, until: now + PLACE_TTL, ttl });
  return i.line.findIndex((p) => p.who === who) + 1;
}

/** What the model says a command answers (its outcome, and a position or handoff where there is one). */
function apply(model: Map<number, Issue>, c: Cmd, now: number): Record<string, unknown>[] {
  const i = model.get(c.issue)!;
  if (c.op === "sweep") {
    const out: Record<string, unknown>[] = [];
    for (const [, m] of [...model.entries()].sort((a, b) => a[0] - b[0])) {
      if (m.who !== null && m.expiresAt !== null && m.expiresAt <= now) out.push({ outcome: "expired", handed: handOn(m, now) });
    }
    return out;
  }
  if (c.op === "release") {
    if (i.who !== null && !(live(i, now) && i.who === c.who)) {
      const before = i.line.filter((p) => p.until > now);
      if (before.some((p) => p.who === c.who)) {
        i.line = before.filter((p) => p.who !== c.who);
        return [{ outcome: "left_queue" }];
      }
    }
    if (live(i, now) && i.who !== c.who) return [{ outcome: "not_holder" }];
    if (i.who === null) return [{ outcome: "released", handed: false }];
    return [{ outcome: "released", handed: handOn(i, now) }];
  }
  if (live(i, now) && i.who === c.who) {
    i.expiresAt = c.ttl === null ? null : now + c.ttl;
    return [{ outcome: "acquired" }];
  }
  if (i.who !== null && !live(i, now)) {
    const first = i.line.filter((p) => p.until > now)[0];
    if (first && first.who !== c.who) {
      handOn(i, now);
      return [c.wait ? { outcome: "queued", position: join(i, c.who, c.ttl, now) } : { outcome: "held" }];
    }
  }
  if (live(i, now)) return [c.wait ? { outcome: "queued", position: join(i, c.who, c.ttl, now) } : { outcome: "held" }];
  i.line = i.line.filter((p) => p.until > now && p.who !== c.who);
  i.who = c.who;
  i.token += 1;
  i.expiresAt = c.ttl === null ? null : now + c.ttl;
  return [{ outcome: "acquired" }];
}

async function run(ledger: Ledger, c: Cmd, now: number): Promise<Record<string, unknown>[]> {
  const k = key(c.issue);
  const queue = { placeTtl: PLACE_TTL, authorFirst: false, remindBefore: null };
  if (c.op === "sweep") {
    const out: Record<string, unknown>[] = [];
    // In issue order, as the model sweeps: the stores order expired leases by when they fell due, ties as they come.
    const expired = (await ledger.expiredSince(now)).sort((a, b) => a.issue - b.issue);
    for (const lease of expired) {
      const r = await ledger.markExpired(lease, lease.token, now);
      out.push({ outcome: r.outcome, handed: r.outcome === "expired" && r.handoff !== undefined });
    }
    return out;
  }
  if (c.op === "release") {
    const r = await ledger.release(k, holder(c.who), now);
    return [r.outcome === "released" ? { outcome: "released", handed: r.handoff !== undefined } : { outcome: r.outcome }];
  }
  const r = await ledger.acquire(k, holder(c.who), c.ttl, now, c.wait ? { queue } : {});
  return [r.outcome === "queued" ? { outcome: "queued", position: r.position } : { outcome: r.outcome }];
}

describe.each(backends)("wait list properties: $name", (backend) => {
  it("agrees with the model: one holder, the next token at each handoff, the line in order", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(cmdArb, { minLength: 1, maxLength: 60 }), async (cmds) => {
        const store = await backend.open();
        try {
          const model = new Map<number, Issue>([1, 2].map((n) => [n, { who: null, token: 0, expiresAt: null, line: [] }]));
          let now = T0;
          for (const c of cmds) {
            now += c.step;
            expect(await run(store.ledger, c, now), JSON.stringify(c)).toEqual(apply(model, c, now));
            for (const [n, m] of model) {
              const lease = await store.ledger.current(key(n), now);
              expect(lease === null ? null : [lease.holder.id, lease.token, lease.expiresAt]).toEqual(live(m, now) ? [m.who, m.token, m.expiresAt] : null);
              const line = (await store.ledger.queue(key(n), now)).map((p) => p.holder.id);
              expect(line).toEqual(m.line.filter((p) => p.until > now).map((p) => p.who));
            }
          }
        } finally {
          await store.cleanup();
        }
      }),
      { numRuns: 60 },
    );
  }, 300_000);
});
