/**
 * The leases by role: the commands that change them (LeaseBook), the reads
 * of what stands and what happened (LeaseReads), and the sweeper's
 * (Sweeps). Each caller is typed with only the roles it uses; the ledger
 * (ledger.ts) is every role of every noun.
 */
import type { QueueEntry } from "../queue/queue-types.js";
import type { AcquireOptions, ForceReleaseOptions, NoteOptions, OpOptions, RenameOptions, RenewOptions } from "./lease-options.js";
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
