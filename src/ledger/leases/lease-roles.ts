/**
 * The leases by role: the commands that change them (LeaseBook), the reads
 * of what stands and what happened (LeaseReads), and the sweeper's (Sweeps),
 * with what each command takes besides its key, holder and time: the options
 * every operation shares (its delivery id, the effects written with it, the
 * reply budget, the cause of its event) and each one's own. Each caller is
 * typed with only the roles it uses; the ledger (ledger.ts) is every role of
 * every noun.
 */
import type { EventCause } from "../events/event-types.js";
import type { NewEffect } from "../outbox/outbox-types.js";
import type { EffectCases } from "./effect-cases.js";
import type { QueueAsk, QueueEntry } from "../queue/queue-types.js";
import type {
  AcquireResult,
  Applied,
  ExpireResult,
  ExpiredLease,
  ForceReleaseResult,
  HistoryEntry,
  Holder,
  IssueKey,
  Lease,
  NoteResult,
  ReleaseResult,
  RemindResult,
  RenewResult,
  Term,
  Ttl,
} from "./lease-types.js";

/** The leases' commands: each one transaction (its history row, delivery id, reply budget and effects written with it). What handlers, the API and the CLI use. */
export interface LeaseBook {
  acquire(key: IssueKey, holder: Holder, ttl: Ttl, now: number, opts?: AcquireOptions): Promise<Applied<AcquireResult>>;
  renew(key: IssueKey, holder: Holder, ttl: Ttl, now: number, opts?: RenewOptions): Promise<Applied<RenewResult>>;
  release(key: IssueKey, holder: Holder, now: number, opts?: OpOptions<ReleaseResult>): Promise<Applied<ReleaseResult>>;
  /** Frees a live lease whoever holds it. The caller checks the actor's permission first. */
  forceRelease(key: IssueKey, actor: Holder, now: number, opts?: ForceReleaseOptions): Promise<Applied<ForceReleaseResult>>;
  /**
   * The result first recorded with a delivery id (as a duplicate returns
   * it), or null when none was: lets the API answer an idempotent retry
   * before it asks GitHub anything.
   */
  recorded(delivery: string): Promise<unknown>;
  /** Records a command that changes no lease (for history, delivery de-duplication and its reply). */
  note(key: IssueKey, actor: Holder | null, now: number, opts?: NoteOptions): Promise<Applied<NoteResult>>;
  /**
   * `holder`'s account shows a new login (GitHub accounts are renamed; the
   * numeric id stays): every live lease of theirs, in any repository, takes
   * it, with `effects` (given each lease and its repository, when known)
   * written in the same transaction. Returns the leases renamed. Checked
   * first in `repoId` only, with one indexed read and no write: the cost of
   * a login that did not change, which is nearly every call.
   */
  renameHolder(repoId: number, holder: Holder, now: number, opts?: RenameOptions): Promise<Lease[]>;
}

/** Holder logins and tokens, for `liveAmong`. */
export interface LeaseMatch {
  logins: readonly string[];
  tokens: readonly number[];
}

/** What stands and what happened: reads only, for those who show leases or decide from them without changing them (the outbox, the CLI's listings). */
export interface LeaseReads {
  current(key: IssueKey, now: number): Promise<Lease | null>;
  list(repoId: number, now: number): Promise<Lease[]>;
  /**
   * Those of `match`'s logins (answered in lower case, matched in any case)
   * and tokens that a live lease of the repository has, the lease of issue
   * `except` aside: whether another lease still calls for a label, without
   * reading the repository's every lease.
   */
  liveAmong(repoId: number, now: number, match: LeaseMatch, except: number | null): Promise<LeaseMatch>;
  listHeldBy(holderId: number, now: number): Promise<Lease[]>;
  /** Every live lease in every repository, ordered by repository and issue (for operators). */
  listAll(now: number): Promise<Lease[]>;
  /**
   * The token of the issue's latest tenure, live or ended (a free row keeps
   * it), or null when the issue was never leased: what a `Lease-Token` is
   * fenced against when the issue is free.
   */
  latestToken(key: { repoId: number; issue: number }): Promise<number | null>;
  history(key: { repoId: number; issue: number }, limit?: number): Promise<HistoryEntry[]>;
  /** The issue's wait list at `now`: its live places in order, each with its position (1 first). */
  queue(key: { repoId: number; issue: number }, now: number): Promise<QueueEntry[]>;
}

/** What the sweeper asks: leases past their time or due a reminder, and the transactions that end or remind them. */
export interface Sweeps {
  /** Leases whose expiry is at or before `now` and that were not yet swept. Changes nothing. */
  expiredSince(now: number, limit?: number): Promise<ExpiredLease[]>;
  /** Ends an expired tenure (frees the row, keeps the token) if it is still the one given. */
  markExpired(key: IssueKey, token: number, now: number, opts?: OpOptions<ExpireResult>): Promise<Applied<ExpireResult>>;
  /** Live leases whose reminder time has come and which were not yet reminded in this tenure's current term. */
  dueReminders(now: number, limit?: number): Promise<Lease[]>;
  /**
   * Marks the term reminded if it is still the live one (same token, same
   * expiry) and was not reminded yet: a `/renew` in between makes a new term,
   * which gets a reminder of its own, and two sweeps never remind one term twice.
   */
  markReminded(key: IssueKey, term: Term, now: number, opts?: OpOptions<RemindResult>): Promise<Applied<RemindResult>>;
}

/**
 * Claim limits besides `maxPerHolder`, each checked in the acquire's
 * transaction, like it (see claim-limits.ts for what counts).
 */
export interface ClaimPolicies {
  /**
   * The issue's labels as the claim saw them: remembered with a new tenure,
   * so that later claims count the lease under each of them.
   */
  labels?: readonly string[];
  /**
   * Live leases one holder may have in the repository on issues that carried
   * a label when they were claimed, per label (case-insensitive). Only the
   * labels in `labels` bear on this claim; a limit of 0 is none.
   */
  byLabel?: ReadonlyArray<{ label: string; limit: number }>;
  /** Live leases one holder may have across every repository the ledger knows to be served by `installation`. */
  org?: { installation: number; limit: number };
}

export interface OpOptions<R> {
  /**
   * What brought the change about, for its lease event (event-types.ts).
   * Absent: the operation's own (a claim, renewal or release: `command`; a
   * maintainer's release: `maintainer`; an expiry: `expiry`; a handoff: `handoff`).
   */
  cause?: EventCause;
  /**
   * The installation serving the repository, for the lease event, when the
   * caller knows it (a webhook, the API); absent: the one the ledger
   * remembers for the repository (`rememberRepo`), 0 when none.
   */
  installation?: number;
  /**
   * The webhook delivery id. An operation carrying a delivery id already
   * recorded changes nothing, writes no effects, and returns the first
   * result with `duplicate: true`.
   */
  delivery?: string;
  /**
   * Record `delivery` only with a result of one of these outcomes; otherwise
   * the id stays free, for another operation to record. `next` tries issue
   * after issue under one id: only the claim that takes one records it, so
   * that an attempt lost to another claimer does not answer a retry.
   */
  recordOnly?: readonly string[];
  /**
   * The effects the caller decided for each case the result may come to,
   * written to the outbox in the same transaction (effect-cases.ts).
   */
  effects?: EffectCases;
  /**
   * Replies the actor may get in this repository in any rolling hour; 0 or
   * absent: no limit, and the operation is not counted. Counted and decided
   * in the operation's transaction, from the history, so the limit holds
   * across replicas and costs no API call.
   */
  repliesPerHour?: number;
  /**
   * Only a result whose case writes an effect counts toward
   * `repliesPerHour` (default: every result does). The API posts only when a
   * tenure begins or ends: a claim refused as `held` posts nothing, and must
   * not use up the budget.
   */
  countsOnlyPosts?: boolean;
}

export interface AcquireOptions extends OpOptions<AcquireResult> {
  /** Live leases one holder may have in the repository; 0 or absent: no limit. Checked in the acquire's transaction. */
  maxPerHolder?: number;
  /** Limits by label and across the organisation, and the issue's labels to remember. */
  policies?: ClaimPolicies;
  /** Who gave the lease, when not the holder (a maintainer's `/claim @user`): history's actor. Default the holder. */
  actor?: Holder;
  /**
   * Whether the holder's leases in review (an open pull request of theirs
   * closes the issue: see `in-review.ts`) count toward `maxPerHolder`;
   * default true (every live lease counts).
   */
  countInReview?: boolean;
  /** When to remind the holder, in ms before expiry; null: never. */
  remindBefore?: number | null;
  /** The issue carries one of the repository's `exempt_labels` (as the claim's webhook showed it): the lease does not expire. */
  exempt?: boolean;
  /** Wait in line when someone else holds the issue (answers `queued`); absent: answer `held`. */
  queue?: QueueAsk;
}

export interface ForceReleaseOptions extends OpOptions<ForceReleaseResult> {
  /** Release only if this login (case-insensitive) holds the live lease; otherwise `not_holder`. */
  ifHolder?: string;
  /**
   * The tenure the event saw: release only if it is still the live one;
   * otherwise `stale`. A lease that changed hands between reading it and
   * this transaction is not the one the event meant to end.
   */
  ifToken?: number;
  /**
   * When GitHub says the event happened (its `closed_at` or `updated_at`,
   * whole seconds). An event from before the live tenure began (a late or
   * redelivered close of an earlier tenure) is `stale`; one GitHub's stamp
   * cannot place before or after the tenure's start (decide.eventBeside:
   * `near`) is `stale` only when `undone`.
   */
  eventAt?: number;
  /**
   * What GitHub says now: the event's change was undone since (the closed
   * issue is open again). Asked by the caller only for an event `near` the
   * tenure's start, where it tells a close of an earlier tenure (reopened,
   * then claimed) from one of this tenure.
   */
  undone?: boolean;
  /**
   * The issue closed, or is gone: every place in line ends (`closed`) and
   * nobody is handed the lease.
   */
  closing?: boolean;
}

export interface RenameOptions {
  /** The effect written for each lease renamed, in its repository (effect-cases.ts `effectIn`): none in one never remembered. */
  effect?: NewEffect;
}

export interface RenewOptions extends OpOptions<RenewResult> {
  remindBefore?: number | null;
}

export interface NoteOptions extends OpOptions<NoteResult> {
  /** The history row's outcome (default `noted`). */
  outcome?: string;
  /** Kept with the delivery id and returned with the result (the API's refusals: which rule, and why). */
  detail?: Record<string, string>;
}
