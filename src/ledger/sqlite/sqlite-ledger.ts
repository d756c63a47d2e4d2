import type Database from "better-sqlite3";
import type { HeldLock, SchemaVersion, TokenFloorRaise, TokenFloorResult } from "../admin/admin-roles.js";
import { type ComposedLedger, composeLedger, OnFirstUse } from "../compose-ledger.js";
import type { Ledger } from "../ledger.js";
import type { Holder } from "../leases/lease-types.js";
import type { Plan } from "../plan.js";
import { SqliteBoardMemory } from "./board-memory.js";
import { SqliteInventory } from "./inventory.js";
import { SqliteBoardReads } from "./board-reads.js";
import { SqliteEvents } from "./events.js";
import { GroupCommit } from "./group-commit.js";
import { holdRowLock } from "./keep-lock.js";
import { SqliteLeases } from "./leases.js";
import type { LeaseStatements } from "./lease-statements.js";
import { SQLITE_MIGRATIONS } from "./migrations.js";
import { openSqlite, type SqliteLedgerOptions } from "./open.js";
import { SqliteOutbox } from "./outbox.js";
import { SqliteRepos } from "./repos.js";
import { UnsyncedCommit } from "./unsynced-commit.js";
import { SqlitePlans } from "./run-plan.js";
import { claimServing } from "./serving.js";
import { raiseSqliteTokenFloor } from "./token-floor.js";

/** Every method its parts keep (compose-ledger.ts), put on it as it opens. */
export interface SqliteLedger extends ComposedLedger {}

/** The ledger on one SQLite file: every call is one `BEGIN IMMEDIATE` transaction. */
export class SqliteLedger implements Ledger {
  readonly db: Database.Database;
  readonly sharedByProcesses: boolean = false;
  /** The lease statements (lease-statements.ts), shared by the plans and the reads. */
  private readonly st: LeaseStatements;
  /** Runs `f` as one BEGIN IMMEDIATE transaction. Made once: making a transaction function costs more than the statements most operations run. */
  private readonly immediate: <T>(f: () => T) => T;
  /** The operations' transactions, committed in groups (sqlite/group-commit.ts). */
  private readonly groups: GroupCommit;
  /** Runs the operations written once (lease-plans.ts, work-plans.ts) on this file (run-plan.ts). */
  private readonly plans: SqlitePlans;
  /** The lease events the operations write, and their reads (events.ts). */
  private readonly events: SqliteEvents;

  /** The outbox's statements and operations (sqlite/outbox.ts). */
  protected readonly outbox: SqliteOutbox;
  /** Repositories, reflections and named locks (sqlite/repos.ts). */
  private readonly repos: SqliteRepos;

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
    const tx = db.transaction((f: () => unknown) => f());
    this.immediate = <T>(f: () => T) => tx.immediate(f) as T;
    this.groups = new GroupCommit(db);
    // Commits that do not wait for the disk: the outbox's record of an applied attempt, board cards (unsynced-commit.ts).
    const unsynced = new UnsyncedCommit(db);
    this.outbox = new SqliteOutbox(db, this.immediate, unsynced);
    this.events = new SqliteEvents(db, this.immediate, this.outbox, opts.events ?? true);
    this.plans = new SqlitePlans(db, this.outbox, this.events);
    this.st = this.plans.st;
    this.repos = new SqliteRepos(db, unsynced);
    if (serves) {
      // Every lock in the file is a dead process's: take them over now, not when they expire.
      this.immediate(() => {
        this.outbox.unlockAll();
        this.repos.unlockAll();
      });
    }
    composeLedger(this, {
      run: (now, make) => this.runPlan(now, make),
      leases: new SqliteLeases(this.plans, this.repos, this.outbox, this.immediate),
      outbox: this.outbox,
      repos: this.repos,
      // The board's statements, each half, and the inventory's are prepared on first use.
      boardMemory: new OnFirstUse(() => new SqliteBoardMemory(db, this.immediate, unsynced)),
      boardReads: new OnFirstUse(() => new SqliteBoardReads(db)),
      inventory: new OnFirstUse(() => new SqliteInventory(db, { immediate: this.immediate, unsynced })),
      events: this.events,
    });
  }

  /**
   * Runs one operation as one transaction, a savepoint of a group commit: the
   * delivery check, the decision, the history row and the outbox rows commit
   * together, and the promise settles once they have.
   */
  private runPlan<T>(now: number, make: (now: number) => Plan<T>): Promise<T> {
    return this.groups.run(() => this.plans.run(make(now))).then((value) => {
      // Committed: listeners may read the events now.
      this.events.committed();
      return value;
    });
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

  async raiseTokenFloor(raise: TokenFloorRaise, actor: Holder, setBy: string, now: number): Promise<TokenFloorResult> {
    return this.immediate(() => raiseSqliteTokenFloor(this.db, raise, actor, setBy, now));
  }
}
