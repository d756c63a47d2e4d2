/**
 * One installation's windows in GitHub's budget (budget.ts): the requests
 * it counts (content requests for an hour, points for a minute, from when
 * each is sent until a window's length after its answer came), its pause,
 * what waits for a slot and the demands of the effects in flight; and the
 * arithmetic of those windows against the settings.
 */
import type { BudgetSettings, Cost, Tier } from "./budget-settings.js";

/** A request counted in a window: `at` is Infinity while it is in flight, then when its answer came. */
export interface Entry {
  at: number;
  points: number;
}

export interface Waiter {
  tier: Tier;
  cost: Cost;
  grant: (slot: Slot) => void;
}

/** A slot taken: released when the request's answer came (or it failed). */
export interface Slot {
  release(): void;
  /** Gives back a slot no request used (taken ahead, then not needed): it counts in no window. */
  cancel(): void;
}

/** What an effect in flight may still create; its content slots count down, and `end` when it is done. */
export interface Demand {
  readonly installation: number;
  readonly tier: Tier;
  remaining: number;
  end(): void;
}

export class Installation {
  constructor(readonly id: number) {}
  readonly content: Entry[] = [];
  readonly points: Entry[] = [];
  inFlight = 0;
  pausedUntil = 0;
  /** When the hour's budget was last found short for notices: notices fold for an hour after. */
  hourShortAt = Number.NEGATIVE_INFINITY;
  readonly waiters: Waiter[] = [];
  readonly demands = new Set<Demand>();
  timer: NodeJS.Timeout | null = null;
}

/** A window's limit for a tier: the limit less what the tier leaves to those above it. */
export function limitFor(s: BudgetSettings, max: number, tier: Tier): number {
  return max - Math.ceil(max * s.reserves[tier]);
}

/** Drops what has left its window. */
export function prune(i: Installation, s: BudgetSettings, now: number): void {
  const { minuteMs, hourMs } = s;
  drop(i.content, (e) => e.at + hourMs <= now);
  drop(i.points, (e) => e.at + minuteMs <= now);
}

export function used(i: Installation, s: BudgetSettings, now: number): { minute: number; hour: number; points: number } {
  const { minuteMs } = s;
  let minute = 0;
  for (const e of i.content) if (e.at + minuteMs > now) minute++;
  let points = 0;
  for (const e of i.points) points += e.points;
  return { minute, hour: i.content.length, points };
}

/** Whether a request of `tier` costing `cost` may be sent now. */
export function fits(i: Installation, s: BudgetSettings, tier: Tier, cost: Cost, now: number): boolean {
  if (i.pausedUntil > now || i.inFlight >= s.concurrency) return false;
  const u = used(i, s, now);
  if (u.points + cost.points > s.pointsPerMinute) return false;
  if (!cost.content) return true;
  return u.minute < limitFor(s, s.contentPerMinute, tier) && u.hour < limitFor(s, s.contentPerHour, tier);
}

/** When the next answered request leaves a window, or the pause ends; null when only a release can help. */
export function nextChange(i: Installation, s: BudgetSettings, now: number): number | null {
  const { minuteMs, hourMs } = s;
  let next = i.pausedUntil > now ? i.pausedUntil : Number.POSITIVE_INFINITY;
  for (const e of i.points) if (Number.isFinite(e.at)) next = Math.min(next, e.at + minuteMs);
  for (const e of i.content) {
    if (!Number.isFinite(e.at)) continue;
    next = Math.min(next, e.at + minuteMs > now ? e.at + minuteMs : e.at + hourMs);
  }
  return Number.isFinite(next) ? next : null;
}

function drop<T>(list: T[], gone: (e: T) => boolean): void {
  let w = 0;
  for (const e of list) if (!gone(e)) list[w++] = e;
  list.length = w;
}
