/**
 * The lease ledger's values: what its operations take and answer. The
 * interface, by role, is roles.ts's; SQLite (sqlite/) and PostgreSQL
 * (postgres/) implement it. It knows nothing of GitHub.
 *
 * Time is a parameter (`now`, milliseconds since the epoch) of every call and
 * is never read inside, so that tests drive the clock. Every call is one
 * transaction. Rows are a per-issue tenure ledger and are never deleted: the
 * fencing token of an issue only ever goes up.
 */
import type { EventCause } from "./event-types.js";


/** A lease is keyed by the repository's numeric id (stable across renames and transfers) and the issue number. */
export interface IssueKey {
  repoId: number;
  /** `owner/name`, kept for display only. */
  repo: string;
  issue: number;
}

/**
 * The GitHub account holding a lease: its numeric id is the identity, the
 * login is for display. `instance` is a short name an API client gives, so
 * that workers of one account exclude each other: two instances of one
 * account are two holders; a comment's holder has none (absent, never null).
 */
export interface Holder {
  id: number;
  login: string;
  instance?: string;
}

/**
 * What keeps a live lease, besides its holder's word:
 *
 * - `time`: it ends at `expiresAt` (never, when that is null: open-ended).
 * - `pull`: open pull requests by the holder that close the issue (their
 *   numbers, ascending); it does not expire while any is open, and
 *   `expiresAt` is null. When the last one closes unmerged it gets the
 *   repository's `default_ttl` from that moment.
 * - `exempt`: the issue carries one of the repository's `exempt_labels`; it
 *   does not expire (`expiresAt` null) until the label goes, then gets
 *   `default_ttl` from that moment. `pulls` are the holder's open pull
 *   requests as above (often none): the lease is also in review when there are some.
 */
export type HeldBy = { kind: "time" } | { kind: "pull"; pulls: number[] } | { kind: "exempt"; pulls: number[] };

/** A live lease as it stands. */
export interface Lease {
  repoId: number;
  repo: string;
  issue: number;
  holder: Holder;
  token: number;
  acquiredAt: number;
  /** null: open-ended, or held by its work (see `heldBy`). */
  expiresAt: number | null;
  /** What keeps it: time, the holder's open pull requests, or an exempt label. */
  heldBy: HeldBy;
}

/** A time-to-live in milliseconds; null makes the lease open-ended. */
export type Ttl = number | null;

export type AcquireResult =
  | { outcome: "acquired"; lease: Lease; /** false when the caller already held it */ newTenure: boolean }
  /**
   * `handedOver`: the issue's lease had run out before the sweep ended it,
   * and this transaction handed it to the first in line (`lease`, a new
   * tenure): the tenure that expired.
   */
  | { outcome: "held"; lease: Lease; handedOver?: Lease }
  /** The issue is held and the caller asked to wait (`AcquireOptions.queue`): their place in line (queue-types.ts), 1 for the first. */
  | { outcome: "queued"; lease: Lease; position: number; until: number; handedOver?: Lease }
  /** `scope`: which limit the holder is at (absent: `maxPerHolder`, the repository's). */
  | { outcome: "limit"; limit: number; held: Lease[]; scope?: LimitScope };

/** Which claim limit a refused acquire met. */
export type LimitScope = { kind: "repo" } | { kind: "label"; label: string } | { kind: "org" };

/**
 * Claim limits besides `maxPerHolder`, each checked in the acquire's
 * transaction, like it (see limit-counting.ts for what counts).
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

export type RenewResult =
  | { outcome: "renewed"; lease: Lease }
  | { outcome: "not_holder"; lease: Lease | null };

export type ReleaseResult =
  /**
   * `lease` is the tenure that ended, or null when there was nothing to
   * release; `handoff`: the new tenure of the first in line, who got the
   * lease in the same transaction (queue-plans.ts).
   */
  | { outcome: "released"; lease: Lease | null; handoff?: Lease }
  | { outcome: "not_holder"; lease: Lease | null }
  /** The caller held nothing but had a place in line: they left it (`lease`: the live one). */
  | { outcome: "left_queue"; lease: Lease | null };

/** A force release also answers `stale`: the event that asked for it was about an older tenure (`lease` is the live one). */
export type ForceReleaseResult = ReleaseResult | { outcome: "stale"; lease: Lease | null };

/** A reply or other note that changes no lease (an invalid command, a refusal). */
export interface NoteResult {
  outcome: "noted";
  lease: Lease | null;
  /** What the caller asked to be kept with the note (`NoteOptions.detail`): a duplicate returns it too. */
  detail?: Record<string, string>;
}

export interface NoteOptions extends OpOptions<NoteResult> {
  /** The history row's outcome (default `noted`). */
  outcome?: string;
  /** Kept with the delivery id and returned with the result (the API's refusals: which rule, and why). */
  detail?: Record<string, string>;
}

/** `handoff`: as a release's, the first in line got the lease as it expired. */
export type ExpireResult = { outcome: "expired"; lease: Lease; handoff?: Lease } | { outcome: "stale"; lease: Lease | null };
export type RemindResult = { outcome: "reminded"; lease: Lease } | { outcome: "stale"; lease: Lease | null };

export type LedgerResult = AcquireResult | RenewResult | ForceReleaseResult | NoteResult | ExpireResult | RemindResult;

/** What an operation returns: its outcome, and whether the delivery had been applied before. */
export type Applied<R> = R & { duplicate: boolean };

/** An effect to apply elsewhere (on GitHub), written to the outbox in the operation's transaction. */
export interface NewEffect {
  /** Partition for rate limits (the GitHub installation id); effects of one partition may be held back together. */
  installation: number;
  kind: string;
  payload: unknown;
  /**
   * Lower goes first across issues (0, the default, for replies to commands;
   * 1 for sweeps), so a command is answered during an expiry wave. Within one
   * issue effects always apply in order.
   */
  priority?: number;
}

export interface Effect extends NewEffect {
  id: number;
  repoId: number;
  issue: number;
  /**
   * Attempts so far, this one included. Taking an effect counts an attempt,
   * so the number also fences the attempt: completing, failing or extending
   * the effect succeeds only with the attempt number it was taken with.
   */
  attempts: number;
  createdAt: number;
  /** A random value written with the effect: what the app's reply carries so that it can be found again, and guessed by nobody. */
  nonce: string | null;
  /** Un-parked after a newer effect of the same issue was applied: a reply says it is late. */
  late: boolean;
}

/** Effects the outbox does not hand out now: those of `installation` with priority `fromPriority` or above. */
export interface Hold {
  installation: number;
  fromPriority: number;
}

/** One attempt at an effect: its id and the attempt number it was taken with. */
export interface EffectFence {
  id: number;
  attempt: number;
}

/** The term a reminder is for: a tenure's token and the expiry it had when the reminder was decided. */
export interface Term {
  token: number;
  expiresAt: number | null;
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
   * Record `delivery` only for a result this accepts; otherwise the id stays
   * free, for another operation to record. `next` tries issue after issue
   * under one id: only the claim that takes one records it, so that an
   * attempt lost to another claimer does not answer a retry.
   */
  recordIf?: (result: R) => boolean;
  /**
   * Effects derived from the result, written to the outbox in the same
   * transaction. `reply` says whether the actor may get a reply (see
   * `repliesPerHour`); always "reply" when no limit applies.
   */
  effects?: (result: R, reply: ReplyBudget) => NewEffect[];
  /**
   * Replies the actor may get in this repository in any rolling hour; 0 or
   * absent: no limit, and the operation is not counted. Counted and decided
   * in the operation's transaction, from the history, so the limit holds
   * across replicas and costs no API call.
   */
  repliesPerHour?: number;
  /**
   * Whether this result's reply counts toward `repliesPerHour` (default:
   * every result does). The API posts only when a tenure begins or ends: a
   * claim refused as `held` posts nothing, and must not use up the budget.
   */
  countsReply?: (result: R) => boolean;
}

/**
 * Whether an operation's reply may be posted: "reply" within the limit;
 * "notice" for the first one over it in the hour, which should say that
 * further commands apply silently; "silent" after that.
 */
export type ReplyBudget = "reply" | "notice" | "silent";

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

/** What joining the wait list of a held issue asks (`AcquireOptions.queue`; queue-plans.ts). */
export interface QueueAsk {
  /** How long the place lasts without its holder asking again (`queue_place_ttl`); asking again renews it. */
  placeTtl: number;
  /** The caller opened the issue and `author_first` is set: their place goes before everyone else's. */
  authorFirst: boolean;
  /** When to remind the holder the lease is handed, in ms before its expiry (as a claim's); null: never. */
  remindBefore: number | null;
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
  effects?: (lease: Lease, repo: RepoInfo | null) => NewEffect[];
}

export interface RenewOptions extends OpOptions<RenewResult> {
  remindBefore?: number | null;
}

/**
 * `follow`: the lease followed its work, with no command (`ledger-work` below):
 * outcome `suspended` (a pull request or an exempt label now holds it),
 * `resumed` (time holds it again), `linked` (its pull requests changed while
 * it stays held), `renewed` (the holder's activity).
 *
 * `restore`: the operator raised the token floor, restoring a backup
 * (`issue-leases restore`, outcome `restored`) or after restoring one with the
 * database's own tools (`issue-leases token-floor`, outcome `floor_raised`).
 */
export type HistoryOp = "acquire" | "renew" | "release" | "force_release" | "expire" | "remind" | "note" | "restore" | "follow" | "handoff";

export interface HistoryEntry {
  id: number;
  repoId: number;
  repo: string;
  issue: number;
  op: HistoryOp;
  outcome: string;
  actor: Holder | null;
  holder: Holder | null;
  token: number | null;
  expiresAt: number | null;
  at: number;
  delivery: string | null;
}

/** A lease whose expiry has passed and that the sweeper has not yet ended. */
export type ExpiredLease = Lease;

export interface RepoInfo {
  repoId: number;
  /** `owner/name` as last seen. */
  repo: string;
  installation: number;
}

export interface OutboxStats {
  pending: number;
  parked: number;
  oldestPendingAt: number | null;
}

export interface SchemaVersion {
  /** Migrations applied to the database. */
  current: number;
  /** Migrations this code knows. */
  latest: number;
}

/** A named lock of the ledger while its holder has it (`Ledger.holdLock`). */
export interface HeldLock {
  /** Aborted, with the reason, once the lock is lost (another took it, or its connection died). */
  readonly signal: AbortSignal;
  /** Lets go of the lock; nothing if it was lost. */
  release(): Promise<void>;
}


/** How `raiseTokenFloor` sets the floor: the ledger's highest token plus a gap, or a value given. */
export type TokenFloorRaise = { gap: number } | { floor: number };

export interface TokenFloorResult {
  /** The floor before, 0 when none was ever set. */
  before: number;
  /** The floor now: never below `before`. */
  floor: number;
  /** The highest token in the ledger's rows and history when the floor was raised. */
  highestToken: number;
  /** false when the floor asked for was not above the floor already set (nothing was written). */
  raised: boolean;
  /** The issues whose history records the raise (0 when not raised). */
  issues: number;
}

/** The fence of an effect's attempt as it was taken. */
export function fenceOf(effect: Effect): EffectFence {
  return { id: effect.id, attempt: effect.attempts };
}

/** A holder read back from a row: a NULL instance is no instance (absent, as a comment's holder). */
export function holderOf(id: number, login: string, instance: string | null | undefined): Holder {
  return instance == null ? { id, login } : { id, login, instance };
}
