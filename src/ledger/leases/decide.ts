/**
 * The ledger's rules, as pure functions of the issue's row and `now`.
 * SQLite and PostgreSQL read the row inside their transaction, call one of
 * these, and write what it decided: the rules live in one place.
 */
import type {
  AcquireResult,
  ExpireResult,
  ForceReleaseResult,
  Holder,
  IssueKey,
  Lease,
  LimitScope,
  NoteResult,
  ReleaseResult,
  RemindResult,
  RenewResult,
  Term,
  Ttl,
} from "./lease-types.js";
import type { ForceReleaseOptions } from "./lease-roles.js";
import type { ReplyBudget } from "./reply-budget.js";
import { heldByOf } from "../work/work-rules.js";
import { isLive, unexpired } from "./tenure-rules.js";

/** An issue's stored state: `holder` null means free; the token is that of the latest tenure (0 before any). */
export interface Row {
  holder: Holder | null;
  token: number;
  acquiredAt: number | null;
  expiresAt: number | null;
  /** Whether the current term was reminded already. */
  reminded?: boolean;
  /** The holder's open pull requests that close the issue (work-rules.ts): while any, the lease does not expire. */
  pulls?: number[];
  /** The issue carries an exempt label: the lease does not expire. */
  exempt?: boolean;
  /** The length of the current term (for renewals by activity); null: open-ended or not recorded. */
  termMs?: number | null;
}

/**
 * How far apart GitHub's clock and the one a tenure's start is read from
 * (the app's, or PostgreSQL's) may be. Both keep to NTP, well within this;
 * it only widens the time in which a close is checked with GitHub.
 */
export const CLOCKS_APART_MS = 2_000;

/** Where an event GitHub stamped falls beside a tenure's start (decide.eventBeside). */
export type EventPlace = "before" | "near" | "after";

function expiry(ttl: Ttl, now: number): number | null {
  return ttl === null ? null : now + ttl;
}

/** The live lease of a row at `now`: a holder, and no expiry or one still ahead. */
function live(key: IssueKey, row: Row | null, now: number): Lease | null {
  return row && isLive(row.holder, row.expiresAt, now) ? lease(key, row) : null;
}

/** The row's tenure as a lease, live or not (for naming what just ended). */
function lease(key: IssueKey, row: Row): Lease {
  return {
    repoId: key.repoId,
    repo: key.repo,
    issue: key.issue,
    holder: row.holder!,
    token: row.token,
    acquiredAt: row.acquiredAt ?? 0,
    expiresAt: row.expiresAt,
    heldBy: heldByOf({ pulls: row.pulls ?? [], exempt: row.exempt ?? false }),
  };
}

/** Whether two holders are one: the same account and the same instance (a comment's holder has none). */
export function sameHolder(a: Holder, b: Holder): boolean {
  return a.id === b.id && (a.instance ?? null) === (b.instance ?? null);
}

/**
 * Where an event GitHub stamped at `eventAt` (whole seconds, GitHub's
 * clock) falls beside a tenure that began at `acquiredAt` (ms, the app's
 * or the database's clock). `before`: its second ended before the tenure
 * began. `after`: its second began later than the clocks can be apart.
 * `near`: either is possible. A close, a reopen, a release and a new
 * claim can all fall in one second (bots act that fast), and a stamp in
 * whole seconds cannot order them: only GitHub's state now can (`undone`).
 */
function eventBeside(eventAt: number, acquiredAt: number): EventPlace {
  if (eventAt + 1000 <= acquiredAt) return "before";
  return eventAt < acquiredAt + CLOCKS_APART_MS ? "near" : "after";
}

export const decide = {
  live,

  eventBeside,

  acquire(
    key: IssueKey,
    row: Row | null,
    holder: Holder,
    ttl: Ttl,
    now: number,
    limit?: { limit: number; held: Lease[]; scope?: LimitScope },
    /** Tokens up to the floor may have been handed out before a restore from a backup: a new tenure gets one above it. */
    floor = 0,
  ): AcquireResult {
    const current = live(key, row, now);
    if (current && sameHolder(current.holder, holder)) {
      // Idempotent: the same tenure, its expiry set from this call's ttl. The
      // login is refreshed, so a renamed account shows its new name.
      return { outcome: "acquired", newTenure: false, lease: { ...current, holder, expiresAt: expiry(ttl, now) } };
    }
    if (current) return { outcome: "held", lease: current };
    if (limit && limit.held.length >= limit.limit) {
      return { outcome: "limit", limit: limit.limit, held: limit.held, ...(limit.scope ? { scope: limit.scope } : {}) };
    }
    return {
      outcome: "acquired",
      newTenure: true,
      lease: { ...key, holder, token: Math.max(row?.token ?? 0, floor) + 1, acquiredAt: now, expiresAt: expiry(ttl, now), heldBy: { kind: "time" } },
    };
  },

  renew(key: IssueKey, row: Row | null, holder: Holder, ttl: Ttl, now: number): RenewResult {
    const current = live(key, row, now);
    if (!current || !sameHolder(current.holder, holder)) return { outcome: "not_holder", lease: current };
    return { outcome: "renewed", lease: { ...current, holder, expiresAt: expiry(ttl, now) } };
  },

  release(key: IssueKey, row: Row | null, holder: Holder, now: number): ReleaseResult {
    const current = live(key, row, now);
    if (current && !sameHolder(current.holder, holder)) return { outcome: "not_holder", lease: current };
    // Releasing nothing (or an expired lease) succeeds: a client retrying after
    // a dropped connection must not fail.
    return { outcome: "released", lease: current };
  },

  forceRelease(
    key: IssueKey,
    row: Row | null,
    now: number,
    guard: Pick<ForceReleaseOptions, "ifHolder" | "ifToken" | "eventAt" | "undone"> = {},
  ): ForceReleaseResult {
    const current = live(key, row, now);
    if (current && guard.ifToken !== undefined && current.token !== guard.ifToken) return { outcome: "stale", lease: current };
    // An event from before the tenure is not about it. One near its start
    // may be either: it ends the tenure unless GitHub says it was undone
    // since (a close of an earlier tenure, then a reopen, then this claim).
    if (current && guard.eventAt !== undefined) {
      const place = eventBeside(guard.eventAt, current.acquiredAt);
      if (place === "before" || (place === "near" && guard.undone === true)) return { outcome: "stale", lease: current };
    }
    if (guard.ifHolder !== undefined && current?.holder.login.toLowerCase() !== guard.ifHolder.toLowerCase()) {
      return { outcome: "not_holder", lease: current };
    }
    return { outcome: "released", lease: current };
  },

  note(key: IssueKey, row: Row | null, now: number): NoteResult {
    return { outcome: "noted", lease: live(key, row, now) };
  },

  /** Ends the tenure `token` if it is still the row's and has expired; anything else is stale. */
  expire(key: IssueKey, row: Row | null, token: number, now: number): ExpireResult {
    if (!row?.holder || row.token !== token || row.expiresAt === null || unexpired(row.expiresAt, now)) {
      return { outcome: "stale", lease: live(key, row, now) };
    }
    return { outcome: "expired", lease: lease(key, row) };
  },

  /** Reminds the term it was computed for, once: a renewed or already reminded term is stale. */
  remind(key: IssueKey, row: Row | null, term: Term, now: number): RemindResult {
    const current = live(key, row, now);
    if (!current || current.token !== term.token || current.expiresAt !== term.expiresAt || row?.reminded) {
      return { outcome: "stale", lease: current };
    }
    return { outcome: "reminded", lease: current };
  },

  /**
   * The reply budget of an actor who got `replied` replies (notices
   * included) in the last hour, `noticed` whether one was the notice: at
   * most `limit` replies and one notice in any rolling hour.
   */
  replyBudget(limit: number, replied: number, noticed: boolean): ReplyBudget {
    if (replied < limit) return "reply";
    return noticed ? "silent" : "notice";
  },
};
