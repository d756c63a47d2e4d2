/**
 * The workload both ledger benchmarks run (`ledger.ts` on SQLite,
 * `ledger-postgres.ts` on PostgreSQL), so that their figures compare: a
 * seeded stream of acquire, renew and release calls, and the statistics
 * helpers the two reports share.
 */
import { performance } from "node:perf_hooks";
import type { Holder } from "../src/ledger/leases/lease-types.js";
import type { Ledger } from "../src/ledger/ledger.js";
import { seededRandom } from "../test/support/seeded-random.js";

export const HOUR = 3_600_000;
export const T0 = 1_700_000_000_000;
/** Issues the realistic mix spreads over. */
export const MIX_ISSUES = 10_000;
/** People acting in the mix. */
export const HOLDERS = 1_000;
/** Repository of the measured operations; the bulk-loaded filler lives in others. */
export const REPO = { repoId: 1, repo: "bench/main" };

export const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};

export function pad(s: string, n: number): string {
  return s.length >= n ? s : " ".repeat(n - s.length) + s;
}

/** The issues a workload believes held and by whom, to renew and release mostly one's own, as people do. */
class Held {
  private readonly issues: number[] = [];
  private readonly at = new Map<number, number>();
  private readonly by = new Map<number, Holder>();

  set(issue: number, holder: Holder): void {
    if (!this.at.has(issue)) {
      this.at.set(issue, this.issues.length);
      this.issues.push(issue);
    }
    this.by.set(issue, holder);
  }

  delete(issue: number): void {
    const i = this.at.get(issue);
    if (i === undefined) return;
    const last = this.issues.pop()!;
    if (last !== issue) {
      this.issues[i] = last;
      this.at.set(last, i);
    }
    this.at.delete(issue);
    this.by.delete(issue);
  }

  pick(rnd: () => number): [number, Holder] | null {
    if (this.issues.length === 0) return null;
    const issue = this.issues[Math.floor(rnd() * this.issues.length)]!;
    return [issue, this.by.get(issue)!];
  }
}

export interface MixOptions {
  /** The repository the operations act in; default REPO. */
  repo?: { repoId: number; repo: string };
  /** The issues are numbered `firstIssue + 1` to `firstIssue + issues`; default 0. Disjoint ranges keep streams off each other's issues. */
  firstIssue?: number;
  /** Who acts: one of these at random; default HOLDERS people `user1`... */
  holders?: readonly Holder[];
}

/** A stream of mix operations against one ledger, carrying its clock and beliefs from round to round. */
export class Mix {
  private readonly rnd: () => number;
  private readonly held = new Held();
  private readonly repo: { repoId: number; repo: string };
  private readonly firstIssue: number;
  private readonly holders: readonly Holder[] | undefined;
  /** `op:outcome` -> count, to show what the mix really did. */
  readonly outcomes = new Map<string, number>();
  now = T0;

  constructor(
    readonly ledger: Ledger,
    private readonly issues: number,
    seed: number,
    opts: MixOptions = {},
  ) {
    // Seeded: every run measures the same sequence of operations.
    this.rnd = seededRandom(seed);
    this.repo = opts.repo ?? REPO;
    this.firstIssue = opts.firstIssue ?? 0;
    this.holders = opts.holders;
  }

  private holder(): Holder {
    if (this.holders) return this.holders[Math.floor(this.rnd() * this.holders.length)]!;
    const id = 1 + Math.floor(this.rnd() * HOLDERS);
    return { id, login: `user${id}` };
  }

  private issue(): number {
    return this.firstIssue + 1 + Math.floor(this.rnd() * this.issues);
  }

  private count(key: string): void {
    this.outcomes.set(key, (this.outcomes.get(key) ?? 0) + 1);
  }

  /** Runs `ops` operations; returns the time they took, in ms. With `latencies`, appends each operation's time to it. */
  async run(ops: number, latencies?: number[]): Promise<number> {
    const { ledger, rnd, repo } = this;
    const start = performance.now();
    for (let i = 0; i < ops; i++) {
      const began = latencies ? performance.now() : 0;
      // About a second between commands; leases of an hour, so some expire.
      this.now += Math.floor(rnd() * 2000);
      const roll = rnd();
      if (roll < 0.6) {
        const issue = this.issue();
        const holder = this.holder();
        const r = await ledger.acquire({ ...repo, issue }, holder, HOUR, this.now, { maxPerHolder: 5, remindBefore: HOUR / 4 });
        if (r.outcome === "acquired") this.held.set(issue, holder);
        this.count(`acquire:${r.outcome}`);
      } else {
        // Mostly one's own lease; now and then someone else's or a free issue.
        const mine = rnd() < 0.85 ? this.held.pick(rnd) : null;
        const [issue, holder] = mine ?? [this.issue(), this.holder()];
        if (roll < 0.85) {
          const r = await ledger.renew({ ...repo, issue }, holder, HOUR, this.now, { remindBefore: HOUR / 4 });
          this.count(`renew:${r.outcome}`);
        } else {
          const r = await ledger.release({ ...repo, issue }, holder, this.now);
          if (r.outcome === "released") this.held.delete(issue);
          this.count(`release:${r.outcome}`);
        }
      }
      if (latencies) latencies.push(performance.now() - began);
    }
    return performance.now() - start;
  }
}

/** `op:outcome` shares of one or more mixes, as `acquire:acquired 51%, ...`. */
export function outcomeShares(mixes: readonly Mix[]): string {
  const all = new Map<string, number>();
  for (const m of mixes) for (const [k, n] of m.outcomes) all.set(k, (all.get(k) ?? 0) + n);
  const total = [...all.values()].reduce((a, b) => a + b, 0);
  return [...all]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([k, n]) => `${k} ${((100 * n) / total).toFixed(0)}%`)
    .join(", ");
}
