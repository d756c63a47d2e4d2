/**
 * The lease ledger: one interface, implemented on SQLite (`sqlite.ts`) and
 * PostgreSQL (`postgres.ts`). It knows nothing of GitHub.
 *
 * Time is a parameter (`now`, milliseconds since the epoch) of every call and
 * is never read inside, so that tests drive the clock. Every call is one
 * transaction. Rows are a per-issue tenure ledger and are never deleted: the
 * fencing token of an issue only ever goes up.
 */

import type { BoardPage, BoardPanels, BoardPanelsQuery, BoardQuery, IssueCard, RepoForget, RepoVisibility } from "./board-types.js";
import type { ActivityOptions, ActivityResult, ExemptOptions, ExemptResult, LinkPullOptions, LinkPullResult } from "./work-types.js";

export type * from "./board-types.js";
export type * from "./work-types.js";

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
  | { outcome: "held"; lease: Lease }
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
  /** `lease` is the tenure that ended, or null when there was nothing to release. */
  | { outcome: "released"; lease: Lease | null }
  | { outcome: "not_holder"; lease: Lease | null };

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

export type ExpireResult = { outcome: "expired"; lease: Lease } | { outcome: "stale"; lease: Lease | null };
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
   * The webhook delivery id. An operation carrying a delivery id already
   * recorded changes nothing, writes no effects, and returns the first
   * result with `duplicate: true`.
   */
  delivery?: string;
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
   * redelivered close of an earlier tenure) is `stale`.
   */
  eventAt?: number;
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
export type HistoryOp = "acquire" | "renew" | "release" | "force_release" | "expire" | "remind" | "note" | "restore" | "follow";

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

export interface Ledger {
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

  current(key: IssueKey, now: number): Promise<Lease | null>;
  list(repoId: number, now: number): Promise<Lease[]>;
  listHeldBy(holderId: number, now: number): Promise<Lease[]>;
  /** Every live lease in every repository, ordered by repository and issue (for operators). */
  listAll(now: number): Promise<Lease[]>;
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
  history(key: { repoId: number; issue: number }, limit?: number): Promise<HistoryEntry[]>;

  /**
   * Takes up to `limit` due effects, the oldest pending one of each issue,
   * locking each until `now + lockMs` and counting an attempt. Effects in
   * `skipIds` (those the caller is applying) and of `skipInstallations` are
   * not taken.
   */
  takeEffects(now: number, limit: number, lockMs: number, skipInstallations?: number[], skipIds?: number[]): Promise<Effect[]>;
  /** Extends the locks of the attempts still current until `now + lockMs`; returns the ids extended (the others were lost). */
  extendEffects(fences: EffectFence[], now: number, lockMs: number): Promise<number[]>;
  /** Marks the attempt's effect done; false (and nothing changed) when the attempt is no longer the current one. */
  completeEffect(fence: EffectFence, now: number): Promise<boolean>;
  /**
   * Schedules another attempt at `retryAt`, or parks the effect as failed when
   * `retryAt` is null; false (and nothing changed) when the attempt is no
   * longer the current one.
   */
  failEffect(fence: EffectFence, now: number, error: string, retryAt: number | null): Promise<boolean>;
  /**
   * Makes parked effects pending again (on start-up). Their attempts are kept,
   * so that a reply that may have been posted is looked for before it is
   * posted again; one that a newer effect of its issue overtook is marked late.
   */
  unparkEffects(now: number): Promise<number>;
  outboxStats(): Promise<OutboxStats>;
  /** The schema version the database is at, and the latest this code knows (for `issue-leases doctor`). */
  schemaVersion(): Promise<SchemaVersion>;

  /**
   * What the outbox last applied to an issue elsewhere (labels, assignee), as
   * opaque JSON, so that reconciling needs no read of GitHub. Issue 0 holds
   * repository-wide state.
   */
  getReflection(repoId: number, issue: number): Promise<unknown>;
  putReflection(repoId: number, issue: number, state: unknown, now: number): Promise<void>;
  /** Remembers which installation serves a repository, for work that starts from the ledger (sweeps). */
  rememberRepo(repo: RepoInfo, now: number): Promise<void>;
  repoInfo(repoId: number): Promise<RepoInfo | null>;
  /**
   * The repository remembered under `owner/name` (case-insensitive, as GitHub
   * names are), for work that starts from a name typed by a person (the
   * operator CLI); the most recently seen one if two ids bore the name.
   */
  findRepo(name: string): Promise<RepoInfo | null>;

  /**
   * Takes the named lock for `owner` if no one holds it, and keeps it until
   * released; null if another holder (of this process or another) has it.
   * Used so that one replica sweeps at a time, and for work done in turns
   * across replicas. The lock's signal aborts when it is lost: the holder
   * must stop the work it guards. A holder that dies lets go at once on
   * PostgreSQL (a session advisory lock ends with its connection); SQLite's
   * row lock would last `ttlMs` past its last extension, but a process that
   * starts serving the file takes a dead one's locks over at once.
   */
  holdLock(name: string, owner: string, clock: () => number, ttlMs: number): Promise<HeldLock | null>;
  /**
   * Whether other processes may use this ledger at the same time (PostgreSQL
   * behind replicas), so that work done in turns within one process must also
   * take a lock in the ledger. One process serves a SQLite file.
   */
  readonly sharedByProcesses: boolean;
  /** Whether the database answers (for /health). */
  ping(): Promise<boolean>;
  close(): Promise<void>;
  /**
   * The token of the issue's latest tenure, live or ended (a free row keeps
   * it), or null when the issue was never leased: what a `Lease-Token` is
   * fenced against when the issue is free.
   */
  latestToken(key: { repoId: number; issue: number }): Promise<number | null>;
  /**
   * Raises the token floor (never lowers it), for the operator after a
   * restore from a backup: every new tenure, on any issue, then gets a token
   * above it. Free rows take the floor as their token, so that "the next
   * lease gets token N + 1" stays true; live leases keep theirs. Every
   * issue's history records it (op `restore`, outcome `floor_raised`, actor
   * `actor`). A floor given below the ledger's highest token is refused
   * (RangeError), as it looks like a mistake.
   */
  raiseTokenFloor(raise: TokenFloorRaise, actor: Holder, setBy: string, now: number): Promise<TokenFloorResult>;

  // Leases that follow the work (sqlite-work.ts, postgres-work.ts; the rules in work-rules.ts).

  /**
   * Pull request `pull` (its repository and number), by `author`, is open and
   * closes `issues` of its repository, as GitHub said when its lease check
   * was posted; `[]` when it closed (merged or not) or closes nothing now.
   * Records which open pull requests close which issues, and in the same
   * transaction: a live lease on one of them held by `author` does not expire
   * while any of their open pull requests closes it (`heldBy: pull`,
   * `expiresAt` null, no reminder); one whose last such pull request went
   * gets `opts.resume` from `opts.at`. Each lease changed gets a `follow`
   * history row and the effects `opts.effects` gives. Applying the same
   * links again changes nothing and writes nothing. The links outlive
   * tenures: a holder who claims an issue their open pull request closes is
   * held by it from the claim.
   */
  linkPull(pull: IssueKey, author: Holder, issues: number[], now: number, opts: LinkPullOptions): Promise<LinkPullResult>;
  /**
   * `actor` did something on issue `key` (a comment), or on pull request
   * `key` (a push, a comment, a review): each live lease they hold on that
   * issue, or on an issue that pull request closes (by anyone's links), and
   * that time holds, gets a new term of its current length from `now`: the
   * length of the term that the claim, `/renew`, resume or activity renewal
   * before it started (`expiresAt - start`), so `expiresAt` becomes
   * `now + length` (never earlier than it was). The reminder of the old term
   * is cancelled; the new term gets its own. Writes no effect, ever. Checked
   * first with one indexed read and no write; `opts.policy` is asked only
   * when there is something to renew. `duplicate` is present only when a
   * transaction ran (nothing else records the delivery).
   */
  renewOnActivity(key: IssueKey, actor: Holder, now: number, opts: ActivityOptions): Promise<ActivityResult & { duplicate?: boolean }>;
  /**
   * The issue `key` now carries (`exempt`) or no longer carries one of the
   * repository's `exempt_labels`. Its live lease, if any, does not expire while
   * it does (`heldBy: exempt`); when the last one goes, it gets `opts.resume`
   * from `now` (unless an open pull request still holds it). No effect is
   * written: the labels that show the lease do not change.
   */
  setExempt(key: IssueKey, actor: Holder, exempt: boolean, now: number, opts: ExemptOptions): Promise<Applied<ExemptResult>>;

  // --- The board (issue 12): what a page of leases shows, remembered from webhooks and read through indexes.

  /**
   * Remembers an issue's title and labels, as a webhook payload showed them,
   * so that the board draws its page without a read of GitHub. Written when
   * `create` (a comment carrying a command: a lease may follow) or when the
   * issue has a row in the ledger (leased now or before); otherwise nothing
   * is written, so issues the app never leases leave no trace. Returns
   * whether the issue has its card now (false: it was not kept). An issue
   * whose card was dropped (`dropCard`) never gets one again.
   */
  rememberCard(card: IssueCard, now: number, create: boolean): Promise<boolean>;
  /**
   * The issue was deleted or transferred away: its title and labels are
   * forgotten, and no later event (a late or redelivered one) writes them
   * again; GitHub never gives its number to another issue. The ledger's rows
   * of its leases stay.
   */
  dropCard(key: { repoId: number; issue: number }, now: number): Promise<void>;
  /**
   * Remembers whether a repository is private, as a webhook payload showed
   * it (with its name and installation, as `rememberRepo`). A repository
   * never seen this way counts as private: the board shows its leases only
   * to viewers allowed to see it. Returns true when the flag changed; the
   * per-holder counts of the repository's leases move with it in the same
   * transaction. Events arrive in any order, so the flag is stored with its
   * time (`updatedAt`, default `now`) and one older than that is ignored; at
   * the same time private wins, unless `reportsChange` (visibility-applies.ts).
   */
  rememberVisibility(repo: RepoVisibility, now: number): Promise<boolean>;
  /**
   * The installation no longer serves these repositories (uninstalled, the
   * repositories removed from it, suspended): their private flags become
   * unknown (counted as private) and their issues' titles and labels are
   * forgotten, for those the ledger has under that installation. Their flag
   * time stays, so that only an event newer than the last one seen, or one
   * that reports the flag, makes them visible again. Returns how many
   * repositories were forgotten.
   */
  forgetRepos(forget: RepoForget, now: number): Promise<number>;
  /** The repository remembered under `owner/name` (case-insensitive), with its private flag (null: never seen in a webhook). */
  boardRepo(name: string): Promise<(RepoInfo & { private: boolean | null }) | null>;
  /**
   * One page of live leases a viewer may see, sorted by expiry (open-ended
   * last), then repository id and issue; filtered by repository, holder
   * and label. Reads only the page (and the rows of private repositories
   * the viewer may not see that lie between), through indexes; the total
   * unfiltered comes from the per-holder counts, a filtered one is counted.
   */
  boardLeases(query: BoardQuery, now: number): Promise<BoardPage>;
  /**
   * The board's side panels for a viewer: who holds the most (from counts
   * kept in each lease's own transaction; counted when filtered), what
   * expires within `soonMs`, and the tenures that ended since
   * `now - endedWithinMs`: each under the same filters as the page.
   */
  boardPanels(query: BoardPanelsQuery, now: number): Promise<BoardPanels>;
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
