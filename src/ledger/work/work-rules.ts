/**
 * The rules of leases that follow the work, as pure functions: what holds a
 * lease (time, the holder's open pull requests, an exempt label), what a
 * lease gets when its work lets go of it, and what the holder's activity
 * renews. The plans (work-plans.ts, and the lease plans' acquire and renew)
 * read the row in their transaction, call these, and write what they
 * decided, as they do with decide.ts.
 *
 * A lease held by its work has no expiry in the row (`expires_at` and
 * `remind_at` are NULL) for as long as the work holds it: the sweeper's
 * indexes, which hold only rows with an expiry or a reminder to come, leave
 * it out by construction, and every "live" test (no expiry, or one ahead)
 * counts it live with no change.
 */
import type { HeldBy, Lease, Ttl } from "../leases/lease-types.js";
import type { Followed, Resume } from "./work-types.js";

/** What a lease row records of the work: the holder's open pull requests that close the issue, and whether the issue is exempt. */
export interface Work {
  pulls: number[];
  exempt: boolean;
}

export function heldByOf(work: Work): HeldBy {
  const pulls = [...work.pulls].sort((a, b) => a - b);
  if (work.exempt) return { kind: "exempt", pulls };
  if (pulls.length > 0) return { kind: "pull", pulls };
  return { kind: "time" };
}

export function workOf(heldBy: HeldBy): Work {
  return heldBy.kind === "time" ? { pulls: [], exempt: false } : { pulls: heldBy.pulls, exempt: heldBy.kind === "exempt" };
}

/** The lease as `work` holds it: while the work holds it, it has no expiry. */
export function heldByWork(lease: Lease, work: Work): Lease {
  const heldBy = heldByOf(work);
  return { ...lease, heldBy, expiresAt: heldBy.kind === "time" ? lease.expiresAt : null };
}

/** A lease its work let go of: `resume.ttl` from `start`, held by time again. */
export function resumed(lease: Lease, resume: Resume, start: number): Lease {
  return { ...lease, heldBy: { kind: "time" }, expiresAt: resume.ttl === null ? null : start + resume.ttl };
}

/**
 * When to remind the holder of a term of `termMs` ending at `expiresAt`: the
 * rule commands follow (handle-command.ts), so that a term no longer than
 * `remindBefore` gets no reminder (it would come right after it began).
 */
export function remindAtFor(expiresAt: number | null, termMs: Ttl, remindBefore: number | null): number | null {
  if (expiresAt === null || termMs === null || remindBefore === null || termMs <= remindBefore) return null;
  return expiresAt - remindBefore;
}

/** How a lease changed between two holdings, as its `follow` history row names it; null: no change. */
function change(before: HeldBy, after: HeldBy): Followed["change"] | null {
  if (JSON.stringify(before) === JSON.stringify(after)) return null;
  if (before.kind === "time") return "suspended";
  if (after.kind === "time") return "resumed";
  return "linked";
}

/**
 * The live `lease` whose holder's open pull requests that close its issue are
 * now `pulls`: held by them while there are any, resumed from `start` when
 * the last goes (unless an exempt label holds it). Null when nothing changes.
 */
export function followPulls(lease: Lease, pulls: number[], resume: Resume, start: number): Followed | null {
  const work = { ...workOf(lease.heldBy), pulls };
  const how = change(lease.heldBy, heldByOf(work));
  if (how === null) return null;
  return { change: how, lease: how === "resumed" ? resumed(lease, resume, start) : heldByWork(lease, work) };
}

/** The live `lease` whose issue now carries an exempt label (`exempt`) or no longer does. Null when nothing changes. */
export function followExempt(lease: Lease, exempt: boolean, resume: Resume, start: number): Followed | null {
  const work = { ...workOf(lease.heldBy), exempt };
  const how = change(lease.heldBy, heldByOf(work));
  if (how === null) return null;
  return { change: how, lease: how === "resumed" ? resumed(lease, resume, start) : heldByWork(lease, work) };
}

/**
 * The holder's activity at `now` on the live `lease`, whose current term is
 * `termMs` long (null: not recorded, for a lease taken before terms were;
 * `fallback` then): a new term of the same length from `now`. Only a lease
 * that time holds, with an expiry, and only by its holder; null otherwise.
 */
export function renewedByActivity(
  lease: Lease,
  actorId: number,
  termMs: Ttl | undefined,
  fallback: Ttl,
  now: number,
): { lease: Lease; termMs: number } | null {
  if (lease.holder.id !== actorId || lease.heldBy.kind !== "time" || lease.expiresAt === null) return null;
  const term = termMs ?? fallback;
  if (term === null) return null;
  return { lease: { ...lease, expiresAt: Math.max(lease.expiresAt, now + term) }, termMs: term };
}

/** A lease row's `pulls` column: the numbers as JSON, or NULL for none (what the in-review predicate tests). */
export function pullsColumn(heldBy: HeldBy): string | null {
  return heldBy.kind !== "time" && heldBy.pulls.length > 0 ? JSON.stringify(heldBy.pulls) : null;
}

/** The `pulls` column read back. */
export function parsePulls(column: string | null | undefined): number[] {
  if (!column) return [];
  try {
    const value = JSON.parse(column) as unknown;
    return Array.isArray(value) ? value.filter((n): n is number => Number.isInteger(n)) : [];
  } catch {
    return [];
  }
}
