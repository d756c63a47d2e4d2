/**
 * The ledger by role: each caller is typed with only the part it uses (the
 * drainer the outbox, the board its reads), and `Ledger` is every role, as
 * each backend (sqlite/, postgres/) implements it. Time is a parameter
 * (`now`) of every call and never read inside; rows are never deleted.
 */
import type { StoredEvent } from "./event-types.js";
import type { QueueEntry } from "./queue-types.js";
import type { BoardPage, BoardPanels, BoardPanelsQuery, BoardQuery, IssueCard, RepoForget, RepoVisibility } from "./board-types.js";
import type {
  AcquireOptions, AcquireResult, Applied, Effect, EffectFence, ExpireResult, ExpiredLease, ForceReleaseOptions, ForceReleaseResult, HeldLock, Hold,
  HistoryEntry, Holder, IssueKey, Lease, NewEffect, NoteOptions, NoteResult, OpOptions, OutboxStats, ReleaseResult, RemindResult, RenameOptions,
  RenewOptions, RenewResult, RepoInfo, SchemaVersion, Term, TokenFloorRaise, TokenFloorResult, Ttl,
} from "./types.js";
import type { InventoryFill, IssueSnapshot, ReadyPage, ReadyQuery } from "./inventory-types.js";
import type { ActivityOptions, ActivityResult, ExemptOptions, ExemptResult, LinkPullOptions, LinkPullResult } from "./work-types.js";

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

/** The outbox as the drainer sees it: effects taken, extended, completed or failed, attempt by attempt. */
export interface OutboxStore {
  /**
   * Takes up to `limit` due effects, the oldest pending one of each issue,
   * locking each until `now + lockMs` and counting an attempt. Effects in
   * `skipIds` (those the caller is applying) are not taken, nor those an
   * entry of `hold` holds back (of its installation, of its priority or
   * above: a rate limit, a budget short for a tier).
   */
  takeEffects(now: number, limit: number, lockMs: number, hold?: Hold[], skipIds?: number[]): Promise<Effect[]>;
  /**
   * Takes the effects of `kind` that wait behind `head` on its issue, oldest
   * first, up to `limit`: due and unlocked ones, stopping at the first that
   * is not (or is of another kind), so the issue's order holds. Each is
   * locked until `now + lockMs` and counted an attempt, as `takeEffects`
   * does; none when `head` is no longer the caller's current attempt.
   */
  takeFollowers(head: Pick<Effect, "id" | "repoId" | "issue" | "attempts">, kind: string, now: number, limit: number, lockMs: number): Promise<Effect[]>;
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
}

/** What /health, /metrics and `issue-leases doctor` read: whether the database answers, and the outbox's backlog. */
export interface LedgerHealth {
  outboxStats(): Promise<OutboxStats>;
  /** Whether the database answers (for /health). */
  ping(): Promise<boolean>;
}

/** What the outbox last applied on GitHub, so that applying an effect needs no read of GitHub. */
export interface Reflections {
  /**
   * What the outbox last applied to an issue elsewhere (labels, assignee), as
   * opaque JSON, so that reconciling needs no read of GitHub. Issue 0 holds
   * repository-wide state.
   */
  getReflection(repoId: number, issue: number): Promise<unknown>;
  putReflection(repoId: number, issue: number, state: unknown, now: number): Promise<void>;
}

/** Which repositories the app has seen, and the installation serving each. */
export interface RepoMemory {
  /** Remembers which installation serves a repository, for work that starts from the ledger (sweeps). */
  rememberRepo(repo: RepoInfo, now: number): Promise<void>;
  repoInfo(repoId: number): Promise<RepoInfo | null>;
  /**
   * The repository remembered under `owner/name` (case-insensitive, as GitHub
   * names are), for work that starts from a name typed by a person (the
   * operator CLI); the most recently seen one if two ids bore the name.
   */
  findRepo(name: string): Promise<RepoInfo | null>;
}

/** Named locks, for work done in turns across replicas. */
export interface NamedLocks {
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
}

/** Leases that follow the work (work-rules.ts): pull requests that close issues, the holder's activity, exempt labels. */
export interface FollowLinks {
  // Leases that follow the work (sqlite/work.ts, postgres/work.ts; the rules in work-rules.ts).
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
}

/** What the board remembers from webhooks: issue titles and labels, and which repositories are private. */
export interface BoardMemory {
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
}

/** What the board reads: a page of leases and its side panels, through indexes. */
export interface BoardReads {
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

/**
 * The inventory of open issues (issue 22): every issue of a served
 * repository as webhooks and fills from GitHub's issue list showed it, so
 * that `next` and the board's Ready view read no GitHub. Writes are
 * idempotent and keep the newest payload (an older one never overwrites
 * it); a deleted or transferred issue stays gone.
 */
export interface Inventory {
  /** Writes the snapshots that are newer than what is stored (in one transaction). Returns how many were written. */
  rememberIssues(issues: readonly IssueSnapshot[], now: number): Promise<number>;
  /**
   * A fill of `repoId` started at `before` saw the open issues `seen`: each
   * other issue stored open and unchanged since `before` was closed without an
   * event reaching the app, and is marked closed, its time kept: an event
   * older than it does not reopen it, and a later fill that sees it open
   * (a page that shifted while it was read) does. Returns how many.
   */
  closeUnseen(repoId: number, seen: readonly number[], before: number, now: number): Promise<number>;
  markFilled(fill: InventoryFill, now: number): Promise<void>;
  lastFill(repoId: number): Promise<InventoryFill | null>;
  /** Up to `limit` remembered repositories never filled, or last filled before `before`, the longest waiting first. */
  staleFills(before: number, limit: number): Promise<RepoInfo[]>;
  /** The repositories of `owner` (case-insensitive) whose inventory was filled: what the organisation form of `next` walks. */
  inventoryRepos(owner: string): Promise<RepoInfo[]>;
  /** The app no longer serves these repositories: their issues and fills are forgotten (a new fill brings them back). */
  forgetInventory(repoIds: readonly number[], now: number): Promise<number>;
  /**
   * Open issues of `query.repoIds` that match the filter and are free (no
   * live lease, not in `skip`), in the filter's order, at most `limit`,
   * read through indexes in order; with how many matched and how many of
   * those are held (inventory-types.ts).
   */
  readyIssues(query: ReadyQuery, now: number): Promise<ReadyPage>;
}

/**
 * The lease events (event-types.ts), written by the lease operations in their
 * own transactions; read here in their one order (`pos`), which on every store
 * is the order their transactions committed in, so that a reader that has
 * seen `pos` never later finds an event below it.
 */
export interface EventLog {
  /** Events after position `after` (0: from the first kept), in order, at most `limit` (default 500); only of `repoIds` when given. */
  eventsAfter(after: number, opts?: { limit?: number; repoIds?: readonly number[] }): Promise<StoredEvent[]>;
  /** Events made at or after `since` (ms), in order, at most `limit` (default 500): the CLI's `events --since`. */
  eventsSince(since: number, limit?: number): Promise<StoredEvent[]>;
  /** The highest position written so far; 0 when none. */
  lastEventPos(): Promise<number>;
  /**
   * Calls `listener` soon after events are committed: this process's, and on
   * PostgreSQL every replica's (LISTEN/NOTIFY); also after the watch
   * reconnects, since a notice may have been missed. The listener then reads
   * `eventsAfter`. Returns the unsubscribe.
   */
  watchEvents(listener: () => void): () => void;
  /** Deletes events made before `before` (ms), keeping the positions and sequences of later ones; answers how many. */
  pruneEvents(before: number): Promise<number>;
  /** The named reader's position (0 when it has none): the outgoing webhooks' dispatcher keeps one. */
  eventCursor(name: string): Promise<number>;
  /**
   * In one transaction: when `name`'s position is still `from`, moves it to
   * `to` and queues `effects` in the outbox; answers whether it did (false:
   * another replica moved it first, and nothing was written).
   */
  advanceEventCursor(name: string, from: number, to: number, effects: Array<{ repoId: number; issue: number; effect: NewEffect }>, now: number): Promise<boolean>;
}

/** The operator's side: the schema version, the token floor, closing. */
export interface LedgerAdmin {
  /** The schema version the database is at, and the latest this code knows (for `issue-leases doctor`). */
  schemaVersion(): Promise<SchemaVersion>;
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
  close(): Promise<void>;
}

/** Every role: what a backend implements, and what only wiring (app.ts, the CLI's opening of a database) holds. */
export interface Ledger
  extends LeaseBook, LeaseReads, Sweeps, OutboxStore, LedgerHealth, Reflections, RepoMemory, NamedLocks, FollowLinks, BoardMemory, BoardReads, Inventory,
    EventLog, LedgerAdmin {}
