import type Database from "better-sqlite3";
import { decide, type Row } from "./decide.js";
import { holdRowLock } from "./keep-lock.js";
import { ruleRow } from "./lease-rows.js";
import { HOUR_MS, REPLIED } from "./reply-budget.js";
import { SQLITE_MIGRATIONS } from "./sqlite-migrations.js";
import { SqlitePolicies } from "./sqlite-policies.js";
import { SqliteBoard } from "./sqlite-board.js";
import { GroupCommit } from "./sqlite-group-commit.js";
import { leaseStatements, toLease } from "./sqlite-lease-statements.js";
import { openSqlite, type SqliteLedgerOptions } from "./sqlite-open.js";
import { SqliteOutbox } from "./sqlite-outbox.js";
import { SqliteRepos } from "./sqlite-repos.js";
import { claimServing } from "./sqlite-serving.js";
import { raiseSqliteTokenFloor } from "./sqlite-token-floor.js";
import { UnsyncedCommit } from "./sqlite-unsynced-commit.js";
import { SqliteWork } from "./sqlite-work.js";
import { heldByWork, pullsColumn, workOf } from "./work-rules.js";
import type {
  AcquireOptions,
  AcquireResult,
  Applied,
  BoardPage,
  BoardPanels,
  BoardPanelsQuery,
  BoardQuery,
  Effect,
  ExpireResult,
  ForceReleaseOptions,
  ForceReleaseResult,
  HeldLock,
  HistoryEntry,
  HistoryOp,
  Holder,
  IssueCard,
  IssueKey,
  Lease,
  Ledger,
  LedgerResult,
  NoteOptions,
  NoteResult,
  OpOptions,
  OutboxStats,
  ReleaseResult,
  RemindResult,
  RenameOptions,
  RepoInfo,
  RepoForget,
  RepoVisibility,
  RenewOptions,
  SchemaVersion,
  RenewResult,
  ReplyBudget,
  Term,
  TokenFloorRaise,
  TokenFloorResult,
  Ttl,
  EffectFence,
  ActivityOptions,
  ActivityResult,
  ExemptOptions,
  ExemptResult,
  LinkPullOptions,
  LinkPullResult,
} from "./types.js";
import { holderOf } from "./types.js";

// Opening and migrating a file, imported from here by the CLI, benchmarks and tests.
export { migrateSqlite, openSqlite, type SqliteLedgerOptions } from "./sqlite-open.js";

/** The ledger on one SQLite file: every call is one `BEGIN IMMEDIATE` transaction. */
export class SqliteLedger implements Ledger {
  readonly db: Database.Database;
  readonly sharedByProcesses: boolean = false;
  private readonly st;
  /** Runs `f` as one BEGIN IMMEDIATE transaction. Made once: making a transaction function costs more than the statements most operations run. */
  private readonly immediate: <T>(f: () => T) => T;
  /** The operations' transactions, committed in groups (sqlite-group-commit.ts). */
  private readonly grouped: GroupCommit;

  /** The claim limits (sqlite-policies.ts). */
  private readonly policies: SqlitePolicies;
  /** Leases that follow the work: their statements and operations (sqlite-work.ts). */
  private readonly work: SqliteWork;

  /** The outbox's statements and operations (sqlite-outbox.ts). */
  private readonly outbox: SqliteOutbox;
  /** Repositories, reflections and named locks (sqlite-repos.ts). */
  private readonly repos: SqliteRepos;

  /** Commits that do not wait for the disk: the outbox's record of an applied attempt, board cards (sqlite-unsynced-commit.ts). */
  private readonly unsynced: UnsyncedCommit;

  /** The serving lock, held while this ledger serves its file as the app. */
  private readonly serving: Database.Database | null = null;

  constructor(fileOrDb: string | Database.Database, opts: SqliteLedgerOptions = {}) {
    const serves = opts.serve === true && typeof fileOrDb === "string" && fileOrDb !== ":memory:";
    // Before the database is opened: a refused process changes nothing in it.
    if (serves) this.serving = claimServing(fileOrDb);
    try {
      this.db = typeof fileOrDb === "string" ? openSqlite(fileOrDb, opts) : fileOrDb;
    } catch (error) {
      this.serving?.close();
      throw error;
    }
    const db = this.db;
    this.work = new SqliteWork(db);
    const tx = db.transaction((f: () => unknown) => f());
    this.immediate = <T>(f: () => T) => tx.immediate(f) as T;
    this.grouped = new GroupCommit(db);
    this.policies = new SqlitePolicies(db);
    this.st = leaseStatements(db);
    this.outbox = new SqliteOutbox(db);
    this.repos = new SqliteRepos(db);
    this.unsynced = new UnsyncedCommit(db);
    if (serves) {
      // Every lock in the file is a dead process's: take them over now, not when they expire.
      this.immediate(() => {
        this.outbox.unlockAll();
        this.repos.unlockAll();
      });
    }
  }

  /**
   * Runs one operation as one transaction (a savepoint of a group commit):
   * the delivery check, the decision, the history row and the outbox rows
   * commit together, and the promise settles once they have.
   */
  private run<R extends LedgerResult>(
    key: IssueKey,
    op: HistoryOp,
    actor: Holder | null,
    now: number,
    opts: OpOptions<R> | undefined,
    body: (row: Row | null) => { result: R; write?: (lastHistory: number) => void },
    historyOutcome?: string,
  ): Promise<Applied<R>> {
    return this.grouped.run((): Applied<R> => {
      if (opts?.delivery !== undefined) {
        const seen = this.st.getDelivery.get(opts.delivery);
        if (seen) return { ...(JSON.parse(seen.result) as R), duplicate: true };
      }
      const state = this.st.get.get(key.repoId, key.issue);
      const { result, write } = body(ruleRow(state));
      const lease = "lease" in result ? result.lease : null;
      const counted = opts?.countsReply?.(result) ?? true;
      const budget = counted ? this.replyBudget(key.repoId, actor, now, opts?.repliesPerHour) : null;
      // The issue's latest history row, which the new one follows: the lease
      // row names it, or history_heads for an issue that has no lease row.
      const head = state ? state.last_history : this.st.historyHead.get(key.repoId, key.issue);
      const { lastInsertRowid } = this.st.history.run({
        repoId: key.repoId,
        repo: key.repo,
        issue: key.issue,
        op,
        outcome: historyOutcome ?? result.outcome,
        actorId: actor?.id ?? null,
        actorLogin: actor?.login ?? null,
        actorInstance: actor?.instance ?? null,
        holderId: lease?.holder.id ?? null,
        holderLogin: lease?.holder.login ?? null,
        holderInstance: lease?.holder.instance ?? null,
        token: lease ? lease.token : null,
        expiresAt: lease ? lease.expiresAt : null,
        at: now,
        delivery: opts?.delivery ?? null,
        prev: head ?? null,
        replied: budget === null ? null : REPLIED[budget],
      });
      // The history row goes first, so that an operation that writes the
      // lease row names the new head in the same statement. An issue never
      // held has no lease row: history_heads names its head.
      const last = { repoId: key.repoId, issue: key.issue, id: Number(lastInsertRowid) };
      if (write) {
        write(last.id);
        // Its first tenure made the lease row, which names the head from now on.
        if (!state && head !== undefined) this.st.dropHistoryHead.run(key.repoId, key.issue);
      } else if (state) this.st.setLastHistory.run(last);
      else this.st.putHistoryHead.run(last);
      if (opts?.delivery !== undefined) this.st.putDelivery.run(opts.delivery, JSON.stringify(result), now);
      this.outbox.enqueue(key.repoId, key.issue, opts?.effects?.(result, budget ?? "reply") ?? [], now);
      return { ...result, duplicate: false };
    });
  }

  /** The actor's reply budget under `limit` (null: not counted), read in the operation's transaction. */
  private replyBudget(repoId: number, actor: Holder | null, now: number, limit: number | undefined): ReplyBudget | null {
    if (!limit || !actor) return null;
    const { n, top } = this.st.replies.get({ repoId, actorId: actor.id, since: now - HOUR_MS })!;
    return decide.replyBudget(limit, n, top === REPLIED.notice);
  }

  /** Stores `lease`: a new tenure rewrites the row; the same tenure carrying on only extends it. `termMs`: the term's length. */
  private write(
    key: IssueKey,
    lease: Lease,
    now: number,
    remindBefore: number | null | undefined,
    newTenure: boolean,
    lastHistory: number,
    termMs: Ttl,
  ): void {
    const remindAt =
      lease.expiresAt !== null && remindBefore !== null && remindBefore !== undefined ? lease.expiresAt - remindBefore : null;
    const work = { pulls: pullsColumn(lease.heldBy), exempt: workOf(lease.heldBy).exempt ? 1 : 0, termMs };
    if (!newTenure) {
      this.st.extend.run({
        repoId: key.repoId,
        issue: key.issue,
        repo: key.repo,
        holderLogin: lease.holder.login,
        expiresAt: lease.expiresAt,
        remindAt,
        now,
        lastHistory,
        ...work,
      });
      return;
    }
    this.st.upsert.run({
      repoId: key.repoId,
      issue: key.issue,
      repo: key.repo,
      holderId: lease.holder.id,
      holderLogin: lease.holder.login,
      holderInstance: lease.holder.instance ?? null,
      token: lease.token,
      acquiredAt: lease.acquiredAt,
      expiresAt: lease.expiresAt,
      remindAt,
      now,
      lastHistory,
      ...work,
    });
  }

  async acquire(key: IssueKey, holder: Holder, ttl: Ttl, now: number, opts?: AcquireOptions): Promise<Applied<AcquireResult>> {
    return this.run(key, "acquire", opts?.actor ?? holder, now, opts, (row) => {
      const floor = this.st.tokenFloor.get() ?? 0;
      let result = decide.acquire(key, row, holder, ttl, now, undefined, floor);
      // Limits bear only on a new tenure, and only once the holder is at one:
      // counted then, and only at a limit are their leases read and the rules
      // asked again.
      if (result.outcome === "acquired" && result.newTenure) {
        const reached = this.policies.reached(key, holder, now, opts?.maxPerHolder ?? 0, opts?.policies, opts?.countInReview);
        if (reached) result = decide.acquire(key, row, holder, ttl, now, reached, floor);
        else this.policies.remember(key, result.lease.token, opts?.policies);
      }
      // The holder's open pull requests and an exempt label hold it from the claim.
      if (result.outcome === "acquired") result = { ...result, lease: this.work.claimed(key, result.lease, result.newTenure, opts?.exempt) };
      return {
        result,
        write:
          result.outcome === "acquired"
            ? (last) => this.write(key, result.lease, now, opts?.remindBefore, result.newTenure, last, ttl)
            : undefined,
      };
    });
  }

  async renew(key: IssueKey, holder: Holder, ttl: Ttl, now: number, opts?: RenewOptions): Promise<Applied<RenewResult>> {
    return this.run(key, "renew", holder, now, opts, (row) => {
      let result = decide.renew(key, row, holder, ttl, now);
      // Still held by its work, if it was: the new term is what it gets when the work lets go.
      if (result.outcome === "renewed") result = { ...result, lease: heldByWork(result.lease, workOf(result.lease.heldBy)) };
      return {
        result,
        write: result.outcome === "renewed" ? (last) => this.write(key, result.lease, now, opts?.remindBefore, false, last, ttl) : undefined,
      };
    });
  }

  async release(key: IssueKey, holder: Holder, now: number, opts?: OpOptions<ReleaseResult>): Promise<Applied<ReleaseResult>> {
    return this.run(key, "release", holder, now, opts, (row) => {
      const result = decide.release(key, row, holder, now);
      return { result, write: this.freeIfReleased(key, row, result, now) };
    });
  }

  async forceRelease(key: IssueKey, actor: Holder, now: number, opts?: ForceReleaseOptions): Promise<Applied<ForceReleaseResult>> {
    return this.run(key, "force_release", actor, now, opts, (row) => {
      const result = decide.forceRelease(key, row, now, opts);
      return { result, write: this.freeIfReleased(key, row, result, now) };
    });
  }

  private freeIfReleased(key: IssueKey, row: Row | null, result: ForceReleaseResult, now: number): ((last: number) => void) | undefined {
    // Freeing keeps the row and its token: the next tenure gets token + 1.
    if (result.outcome !== "released" || row?.holder == null) return undefined;
    return (lastHistory) => this.st.free.run({ repoId: key.repoId, issue: key.issue, now, lastHistory });
  }

  async note(
    key: IssueKey,
    actor: Holder | null,
    now: number,
    opts?: NoteOptions,
  ): Promise<Applied<NoteResult>> {
    const detail = opts?.detail ? { detail: opts.detail } : {};
    return this.run(key, "note", actor, now, opts, (row) => ({ result: { ...decide.note(key, row, now), ...detail } }), opts?.outcome);
  }

  async recorded(delivery: string): Promise<unknown> {
    const seen = this.st.getDelivery.get(delivery);
    return seen ? (JSON.parse(seen.result) as unknown) : null;
  }

  async renameHolder(repoId: number, holder: Holder, now: number, opts?: RenameOptions): Promise<Lease[]> {
    const args = { holderId: holder.id, login: holder.login, now };
    if (this.st.renamedIn.get({ ...args, repoId }) === undefined) return [];
    return this.immediate(() => {
      const renamed = this.st.rename.all(args).map(toLease);
      for (const lease of renamed) {
        const repo = this.repos.repoInfo(lease.repoId);
        this.outbox.enqueue(lease.repoId, lease.issue, opts?.effects?.(lease, repo) ?? [], now);
      }
      return renamed;
    });
  }

  async current(key: IssueKey, now: number): Promise<Lease | null> {
    return decide.live(key, ruleRow(this.st.get.get(key.repoId, key.issue)), now);
  }

  async list(repoId: number, now: number): Promise<Lease[]> {
    return this.st.list.all({ repoId, now }).map(toLease);
  }

  async listHeldBy(holderId: number, now: number): Promise<Lease[]> {
    return this.st.listHeldBy.all({ holderId, now }).map(toLease);
  }

  async listAll(now: number): Promise<Lease[]> {
    return this.st.listAll.all({ now }).map(toLease);
  }

  async expiredSince(now: number, limit = 1000): Promise<Lease[]> {
    return this.st.expired.all({ now, limit }).map(toLease);
  }

  async markExpired(key: IssueKey, token: number, now: number, opts?: OpOptions<ExpireResult>): Promise<Applied<ExpireResult>> {
    return this.run(key, "expire", null, now, opts, (row) => {
      const result = decide.expire(key, row, token, now);
      return {
        result,
        write:
          result.outcome === "expired"
            ? (lastHistory) => this.st.free.run({ repoId: key.repoId, issue: key.issue, now, lastHistory })
            : undefined,
      };
    });
  }

  async dueReminders(now: number, limit = 1000): Promise<Lease[]> {
    return this.st.dueReminders.all({ now, limit }).map(toLease);
  }

  async markReminded(key: IssueKey, term: Term, now: number, opts?: OpOptions<RemindResult>): Promise<Applied<RemindResult>> {
    return this.run(key, "remind", null, now, opts, (row) => {
      const result = decide.remind(key, row, term, now);
      return {
        result,
        write:
          result.outcome === "reminded"
            ? (lastHistory) => this.st.markReminded.run({ repoId: key.repoId, issue: key.issue, now, lastHistory })
            : undefined,
      };
    });
  }

  async history(key: { repoId: number; issue: number }, limit = 1000): Promise<HistoryEntry[]> {
    return this.st.historyOf.all({ ...key, limit }).map((r) => ({
      id: r.id as number,
      repoId: r.repo_id as number,
      repo: r.repo as string,
      issue: r.issue as number,
      op: r.op as HistoryOp,
      outcome: r.outcome as string,
      actor: r.actor_id === null ? null : holderOf(r.actor_id as number, r.actor_login as string, r.actor_instance as string | null),
      holder: r.holder_id === null ? null : holderOf(r.holder_id as number, r.holder_login as string, r.holder_instance as string | null),
      token: r.token as number | null,
      expiresAt: r.expires_at as number | null,
      at: r.at as number,
      delivery: r.delivery as string | null,
    }));
  }

  async takeEffects(
    now: number,
    limit: number,
    lockMs: number,
    skipInstallations: number[] = [],
    skipIds: number[] = [],
  ): Promise<Effect[]> {
    // Nothing due: no write transaction (a drained outbox is asked after every pass).
    if (!this.outbox.anyDue(now)) return [];
    const skip = new Set(skipInstallations);
    const applying = new Set(skipIds);
    return this.immediate(() => this.outbox.take(now, limit, lockMs, skip, applying));
  }

  async extendEffects(fences: EffectFence[], now: number, lockMs: number): Promise<number[]> {
    if (fences.length === 0) return [];
    return this.immediate(() => this.outbox.extend(fences, now, lockMs));
  }

  async completeEffect(fence: EffectFence, now: number): Promise<boolean> {
    // Unsynced: lost to a power cut, the effect is applied again (idempotent,
    // and its reply looked for first: the attempt's count was synced when it
    // was taken). A failure's retry time is synced, as before: it is rare.
    return this.unsynced.run(() => this.outbox.complete(fence, now));
  }

  async failEffect(fence: EffectFence, now: number, error: string, retryAt: number | null): Promise<boolean> {
    return this.outbox.fail(fence, now, error, retryAt);
  }

  async unparkEffects(now: number): Promise<number> {
    return this.outbox.unpark(now);
  }

  async outboxStats(): Promise<OutboxStats> {
    return this.outbox.stats();
  }

  async schemaVersion(): Promise<SchemaVersion> {
    return { current: this.db.pragma("user_version", { simple: true }) as number, latest: SQLITE_MIGRATIONS.length };
  }

  async getReflection(repoId: number, issue: number): Promise<unknown> {
    return this.repos.getReflection(repoId, issue);
  }

  async putReflection(repoId: number, issue: number, state: unknown, now: number): Promise<void> {
    // Unsynced: written by an attempt that has not completed yet, so lost to
    // a power cut only with its completion, and the effect is applied again.
    this.unsynced.run(() => this.repos.putReflection(repoId, issue, state, now));
  }

  async rememberRepo(repo: RepoInfo, now: number): Promise<void> {
    this.repos.rememberRepo(repo, now);
  }

  async repoInfo(repoId: number): Promise<RepoInfo | null> {
    return this.repos.repoInfo(repoId);
  }

  async findRepo(name: string): Promise<RepoInfo | null> {
    return this.repos.findRepo(name);
  }

  async holdLock(name: string, owner: string, clock: () => number, ttlMs: number): Promise<HeldLock | null> {
    return holdRowLock(this, name, owner, clock, ttlMs);
  }

  /** Takes or extends the row lock for `owner` until `now + ttlMs`, if it is free, expired or already `owner`'s. */
  async tryLock(name: string, owner: string, now: number, ttlMs: number): Promise<boolean> {
    return this.repos.tryLock(name, owner, now, ttlMs);
  }

  /** Lets go of the row lock if `owner` holds it; nothing otherwise. */
  async unlock(name: string, owner: string): Promise<void> {
    this.repos.unlock(name, owner);
  }

  async ping(): Promise<boolean> {
    try {
      return this.db.open && this.db.prepare("SELECT 1 AS ok").get() !== undefined;
    } catch {
      return false;
    }
  }

  async close(): Promise<void> {
    if (this.db.open) this.grouped.flush();
    if (this.db.open) this.db.close();
    if (this.serving?.open) this.serving.close();
  }

  async latestToken(key: { repoId: number; issue: number }): Promise<number | null> {
    // A row may exist with token 0 before any tenure (a note on a fresh issue).
    const token = this.st.get.get(key.repoId, key.issue)?.token ?? 0;
    return token > 0 ? token : null;
  }

  async raiseTokenFloor(raise: TokenFloorRaise, actor: Holder, setBy: string, now: number): Promise<TokenFloorResult> {
    return this.immediate(() => raiseSqliteTokenFloor(this.db, raise, actor, setBy, now));
  }

  async linkPull(pull: IssueKey, author: Holder, issues: number[], now: number, opts: LinkPullOptions): Promise<LinkPullResult> {
    return this.immediate(() => this.work.linkPull(pull, author, issues, now, opts));
  }

  async renewOnActivity(key: IssueKey, actor: Holder, now: number, opts: ActivityOptions): Promise<ActivityResult & { duplicate?: boolean }> {
    if (!this.work.mayRenew(key, actor, now)) return { outcome: "none", renewed: [] };
    const policy = await opts.policy();
    if (!policy) return { outcome: "none", renewed: [] };
    return this.immediate(() => this.work.renewOnActivity(key, actor, now, policy, opts.delivery));
  }

  async setExempt(key: IssueKey, actor: Holder, exempt: boolean, now: number, opts: ExemptOptions): Promise<Applied<ExemptResult>> {
    return this.immediate(() => this.work.setExempt(key, actor, exempt, now, opts));
  }

  // The board's statements (sqlite-board.ts), prepared on first use.
  private boardSt: SqliteBoard | undefined;
  private get board(): SqliteBoard {
    return (this.boardSt ??= new SqliteBoard(this.db));
  }

  async rememberCard(card: IssueCard, now: number, create: boolean): Promise<boolean> {
    const write = this.board.cardWrite(card, create);
    if (write !== true) return write === false;
    // A title is for display, and the next event brings it again: its
    // commit does not wait for the disk (the next commit of a lease syncs
    // it along). Lease writes always wait.
    return this.unsynced.run(() => this.immediate(() => this.board.rememberCard(card, now, create)));
  }

  async rememberVisibility(repo: RepoVisibility, now: number): Promise<boolean> {
    return this.immediate(() => this.board.rememberVisibility(repo, now));
  }

  async dropCard(key: { repoId: number; issue: number }, now: number): Promise<void> {
    this.immediate(() => this.board.dropCard(key, now));
  }

  async forgetRepos(forget: RepoForget, now: number): Promise<number> {
    return this.immediate(() => this.board.forgetRepos(forget, now));
  }

  async boardRepo(name: string): Promise<(RepoInfo & { private: boolean | null }) | null> {
    return this.board.boardRepo(name);
  }

  async boardLeases(query: BoardQuery, now: number): Promise<BoardPage> {
    // One read transaction: the total agrees with the page.
    return this.db.transaction(() => this.board.leases(query, now))();
  }

  async boardPanels(query: BoardPanelsQuery, now: number): Promise<BoardPanels> {
    // One read transaction: the panels agree with each other.
    return this.db.transaction(() => this.board.panels(query, now))();
  }
}
