/**
 * GitHub's budget, kept by the app per installation, below GitHub's
 * documented secondary limits (GitHub's "Rate limits for the REST API" and
 * "for the GraphQL API" pages): no more than 80 content-generating requests
 * a minute and 500 an hour, 900 points a minute for REST (a write costs 5, a
 * read 1), and fewer than 100 requests at once. An integration that keeps
 * going past a secondary limit "may be banned", so the app never relies on
 * GitHub's refusals: every request of the outbox first takes a slot here,
 * and waits for one when the budget is short.
 *
 * - What is waiting goes in tiers: replies to commands first (someone is
 *   waiting), then expiry and reminder notices, then label-only work. A
 *   lower tier stops short of the limit (by default 1 % of each window kept
 *   for replies, 3 % for replies and notices: an expiry wave uses 99 % of
 *   GitHub's allowance), and a waiting request of a higher tier is served
 *   first.
 * - A request counts from when it is sent until a window's length after its
 *   answer came: GitHub counts it when it arrives, somewhere in between, so
 *   no window of GitHub's ever holds more than the app's.
 * - A secondary limit GitHub answers anyway pauses the installation (`pause`),
 *   for at least a minute; the drainer takes none of its effects meanwhile.
 * - The drainer asks `held` before taking effects: an installation whose
 *   budget is short for a tier has no effect of that tier taken, so that the
 *   effects it holds in flight are the ones that can go. Effects in flight
 *   count what they may still create (`demand`): while the budget is short,
 *   a notice is taken only once the replies in flight have their slots.
 *
 * One process's budget: replicas each keep their own (divide the settings
 * among them; README, "GitHub's limits"). An installation's windows, and
 * their arithmetic, are budget-windows.ts.
 */

import { type BudgetSettings, type Cost, DEFAULT_BUDGET, type Tier } from "./budget-settings.js";
import { type Demand, type Entry, fits, Installation, limitFor, nextChange, prune, type Slot, used, type Waiter } from "./budget-windows.js";

export type { Demand, Slot } from "./budget-windows.js";

/** Content-generating requests an effect makes at most on the REST path: labels, the assignee, the reply. */
export const CONTENT_PER_EFFECT = 3;

export class GitHubBudget {
  readonly settings: BudgetSettings;
  private readonly installations = new Map<number, Installation>();

  constructor(settings: Partial<BudgetSettings> = {}) {
    this.settings = { ...DEFAULT_BUDGET, ...settings };
  }

  private of(installation: number): Installation {
    let i = this.installations.get(installation);
    if (!i) {
      i = new Installation(installation);
      this.installations.set(installation, i);
    }
    return i;
  }

  /**
   * Waits for a slot for one request and takes it. Waiters are served by
   * tier, then in order; one that cannot go holds back those after it that
   * need the same kind of room. Rejects when `signal` aborts.
   */
  acquire(installation: number, tier: Tier, cost: Cost, signal?: AbortSignal, demand?: Demand): Promise<Slot> {
    signal?.throwIfAborted();
    const i = this.of(installation);
    const now = this.settings.clock();
    prune(i, this.settings, now);
    const granted = (slot: Slot) => {
      if (demand && cost.content) demand.remaining = Math.max(0, demand.remaining - 1);
      return slot;
    };
    if (i.waiters.length === 0 && fits(i, this.settings, tier, cost, now)) return Promise.resolve(granted(this.take(i, cost)));
    return new Promise<Slot>((resolve, reject) => {
      const waiter: Waiter = { tier, cost, grant: (slot) => resolve(granted(slot)) };
      const at = i.waiters.findIndex((w) => w.tier > tier);
      i.waiters.splice(at === -1 ? i.waiters.length : at, 0, waiter);
      signal?.addEventListener(
        "abort",
        () => {
          const k = i.waiters.indexOf(waiter);
          if (k === -1) return;
          i.waiters.splice(k, 1);
          reject(signal.reason);
          this.pump(installation);
        },
        { once: true },
      );
      this.pump(installation);
    });
  }

  private take(i: Installation, cost: Cost): Slot {
    const entry: Entry = { at: Number.POSITIVE_INFINITY, points: cost.points };
    i.points.push(entry);
    const content: Entry | null = cost.content ? { at: Number.POSITIVE_INFINITY, points: 0 } : null;
    if (content) i.content.push(content);
    i.inFlight += 1;
    let released = false;
    return {
      release: () => {
        if (released) return;
        released = true;
        const now = this.settings.clock();
        entry.at = now;
        if (content) content.at = now;
        i.inFlight -= 1;
        this.pump(i.id);
      },
      cancel: () => {
        if (released) return;
        released = true;
        i.points.splice(i.points.indexOf(entry), 1);
        if (content) i.content.splice(i.content.indexOf(content), 1);
        i.inFlight -= 1;
        this.pump(i.id);
      },
    };
  }

  /** Grants what fits, in order; sets a timer for when more may. */
  private pump(installation: number): void {
    const i = this.of(installation);
    const now = this.settings.clock();
    prune(i, this.settings, now);
    let contentBlocked = false;
    let pointsBlocked = false;
    for (let k = 0; k < i.waiters.length; ) {
      const w = i.waiters[k]!;
      const blocked = (w.cost.content && contentBlocked) || pointsBlocked;
      if (!blocked && fits(i, this.settings, w.tier, w.cost, now)) {
        i.waiters.splice(k, 1);
        w.grant(this.take(i, w.cost));
        continue;
      }
      if (w.cost.content) contentBlocked = true;
      else pointsBlocked = true;
      k += 1;
    }
    if (i.timer) clearTimeout(i.timer);
    i.timer = null;
    if (i.waiters.length === 0) return;
    const next = nextChange(i, this.settings, now);
    // In flight only: a release pumps again.
    if (next === null) return;
    i.timer = setTimeout(() => {
      i.timer = null;
      this.pump(installation);
    }, Math.max(1, next - now));
    i.timer.unref?.();
  }

  /** An effect of `tier` begins: what it may still create counts against lower tiers until it has its slots or ends. */
  demand(installation: number, tier: Tier): Demand {
    const i = this.of(installation);
    const d: Demand = {
      installation,
      tier,
      remaining: CONTENT_PER_EFFECT,
      end: () => {
        i.demands.delete(d);
      },
    };
    i.demands.add(d);
    return d;
  }

  /** A rate limit GitHub answered: nothing of this installation is sent for `waitMs` (the drainer's `minPauseMs` at least). */
  pause(installation: number, waitMs: number): void {
    const i = this.of(installation);
    i.pausedUntil = Math.max(i.pausedUntil, this.settings.clock() + waitMs);
    this.pump(installation);
  }

  /**
   * What the drainer should not take now, per installation: effects of
   * `fromPriority` and above (0: all of them, while paused or out of
   * budget). A content request of the tier must fit, with room for the
   * requests of that tier already waiting.
   */
  held(): Array<{ installation: number; fromPriority: number }> {
    const s = this.settings;
    const now = s.clock();
    const out: Array<{ installation: number; fromPriority: number }> = [];
    for (const [id, i] of this.installations) {
      prune(i, this.settings, now);
      if (i.pausedUntil > now) {
        out.push({ installation: id, fromPriority: 0 });
        continue;
      }
      const u = used(i, this.settings, now);
      // Short: more than half of either window used (for notices' limits).
      const pressed = u.minute * 2 >= limitFor(s, s.contentPerMinute, 1) || u.hour * 2 >= limitFor(s, s.contentPerHour, 1);
      for (const tier of [0, 1, 2] as const) {
        let ahead = i.waiters.filter((w) => w.cost.content && w.tier <= tier).length;
        let above = 0;
        for (const d of i.demands) if (d.tier < tier) above += d.remaining;
        ahead += above;
        const short =
          u.minute + ahead >= limitFor(s, s.contentPerMinute, tier) ||
          u.hour + ahead >= limitFor(s, s.contentPerHour, tier) ||
          (pressed && above > 0);
        if (tier === 1 && u.hour + ahead >= limitFor(s, s.contentPerHour, 1)) i.hourShortAt = now;
        if (short) {
          out.push({ installation: id, fromPriority: tier });
          break;
        }
      }
    }
    return out;
  }

  /**
   * Whether notices that can wait are folded for this installation: while its
   * hour's budget is short for notices, and for an hour after.
   */
  folding(installation: number): boolean {
    const i = this.installations.get(installation);
    if (!i) return false;
    const now = this.settings.clock();
    prune(i, this.settings, now);
    if (i.content.length >= limitFor(this.settings, this.settings.contentPerHour, 1)) i.hourShortAt = now;
    return i.hourShortAt + this.settings.hourMs > now;
  }

  /** Content-generating requests counted in the installation's current minute and hour windows (for metrics and tests). */
  usage(installation: number): { minute: number; hour: number; points: number; inFlight: number } {
    const i = this.of(installation);
    const now = this.settings.clock();
    prune(i, this.settings, now);
    return { ...used(i, this.settings, now), inFlight: i.inFlight };
  }
}
