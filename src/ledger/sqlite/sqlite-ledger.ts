import type Database from "better-sqlite3";
import { decide } from "../leases/decide.js";
import { LedgerBase } from "../ledger-base.js";
import { matchOf, ruleRow } from "../leases/lease-rows.js";
import type { Plan } from "../plan.js";
import { liveEntries, placeOfRow, type QueueEntry } from "../queue/queue-types.js";
import type { Ledger } from "../ledger.js";
import type { LeaseMatch } from "../leases/lease-roles.js";
import type { HeldLock, SchemaVersion, TokenFloorRaise, TokenFloorResult } from "../admin/admin-roles.js";
import type { HistoryEntry, HistoryOp, Holder, IssueKey, Lease } from "../leases/lease-types.js";
import type { RenameOptions } from "../leases/lease-options.js";
import { holderOf } from "../leases/lease-types.js";
import { SqliteBoardMemory } from "./board-memory.js";
import { SqliteInventory } from "./inventory.js";
import { SqliteBoardReads } from "./board-reads.js";
import { SqliteEvents } from "./events.js";
import { GroupCommit } from "./group-commit.js";
import { holdRowLock } from "./keep-lock.js";
import { type LeaseStatements, toLease } from "./lease-statements.js";
import { SQLITE_MIGRATIONS } from "./migrations.js";
import { openSqlite, type SqliteLedgerOptions } from "./open.js";
import { SqliteOutbox } from "./outbox.js";
import { SqliteRepos } from "./repos.js";
import { UnsyncedCommit } from "./unsynced-commit.js";
import { SqlitePlans } from "./run-plan.js";
import { claimServing } from "./serving.js";
import { raiseSqliteTokenFloor } from "./token-floor.js";


/** The ledger on one SQLite file: every call is one `BEGIN IMMEDIATE` transaction. */
export class SqliteLedger extends LedgerBase implements Ledger {
  readonly db: Database.Database;
  readonly sharedByProcesses: boolean = false;
  /** The lease statements (lease-statements.ts), shared with the plans. */
  private readonly st: LeaseStatements;
  /** Runs `f` as one BEGIN IMMEDIATE transaction. Made once: making a transaction function costs more than the statements most operations run. */
  private readonly immediate: <T>(f: () => T) => T;
  /** The operations' transactions, committed in groups (sqlite/group-commit.ts). */
  private readonly groups: GroupCommit;
  /** Runs the operations written once (lease-plans.ts, work-plans.ts) on this file (run-plan.ts). */
  private readonly plans: SqlitePlans;
  /** The lease events the operations write, and their reads (events.ts). */
  protected readonly events: SqliteEvents;

  /** The outbox's statements and operations (sqlite/outbox.ts). */
  protected readonly outbox: SqliteOutbox;
  /** Repositories, reflections and named locks (sqlite/repos.ts). */
  protected readonly repos: SqliteRepos;

  /** Commits that do not wait for the disk: the outbox's record of an applied attempt, board cards (unsynced-commit.ts). */
  private readonly unsynced: UnsyncedCommit;

  /** The serving lock, held while this ledger serves its file as the app. */
  private readonly serving: Database.Database | null = null;

  constructor(fileOrDb: string | Database.Database, opts: SqliteLedgerOptions = {}) {
    super();
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
    const tx = db.transaction((f: () => unknown) => f());
    this.immediate = <T>(f: () => T) => tx.immediate(f) as T;
    this.groups = new GroupCommit(db);
    const unsynced = new UnsyncedCommit(db);
    this.outbox = new SqliteOutbox(db, this.immediate, unsynced);
    this.events = new SqliteEvents(db, this.immediate, this.outbox, opts.events ?? true);
    this.plans = new SqlitePlans(db, this.outbox, this.events);
    this.st = this.plans.st;
    this.repos = new SqliteRepos(db, unsynced);
    this.unsynced = unsynced;
    if (serves) {
      // Every lock in the file is a dead process's: take them over now, not when they expire.
      this.immediate(() => {
        this.outbox.unlockAll();
        this.repos.unlockAll();
      });
    }
  }

  /**
   * Runs one operation as one transaction, a savepoint of a group commit: the
   * delivery check, the decision, the history row and the outbox rows commit
   * together, and the promise settles once they have.
   */
  protected runPlan<T>(now: number, make: (now: number) => Plan<T>): Promise<T> {
    return this.groups.run(() => this.plans.run(make(now))).then((value) => {
      // Committed: listeners may read the events now.
      this.events.committed();
      return value;
    });
  }

  protected async mayRenew(key: IssueKey, actor: Holder, now: number): Promise<boolean> {
    return this.plans.work.mayRenew.get({ repoId: key.repoId, holderId: actor.id, issue: key.issue, now }) !== undefined;
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
        const repo = this.repos.info(lease.repoId);
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

  async liveAmong(repoId: number, now: number, match: LeaseMatch, except: number | null): Promise<LeaseMatch> {
    const logins = JSON.stringify(match.logins.map((l) => l.toLowerCase()));
    return matchOf(this.st.liveAmong.all({ repoId, now, logins, tokens: JSON.stringify(match.tokens), except }));
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


  async dueReminders(now: number, limit = 1000): Promise<Lease[]> {
    return this.st.dueReminders.all({ now, limit }).map(toLease);
  }


  async queue(key: { repoId: number; issue: number }, now: number): Promise<QueueEntry[]> {
    return liveEntries(this.plans.queue.line.all({ repoId: key.repoId, issue: key.issue }).map(placeOfRow), now);
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







  async schemaVersion(): Promise<SchemaVersion> {
    return { current: this.db.pragma("user_version", { simple: true }) as number, latest: SQLITE_MIGRATIONS.length };
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
    if (this.db.open) this.groups.flush();
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




  // The board's statements (board-memory.ts, board-reads.ts), each half prepared on first use.
  private boardMemorySt: SqliteBoardMemory | undefined;
  protected get boardMemory(): SqliteBoardMemory {
    return (this.boardMemorySt ??= new SqliteBoardMemory(this.db, this.immediate, this.unsynced));
  }
  private boardReadsSt: SqliteBoardReads | undefined;
  protected get boardReads(): SqliteBoardReads {
    return (this.boardReadsSt ??= new SqliteBoardReads(this.db));
  }
  // The inventory of open issues (inventory.ts), prepared on first use.
  private inventorySt: SqliteInventory | undefined;
  protected get inventory(): SqliteInventory {
    return (this.inventorySt ??= new SqliteInventory(this.db, { immediate: this.immediate, unsynced: this.unsynced }));
  }







}
