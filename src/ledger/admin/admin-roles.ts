/**
 * The ledger's own side, which no noun keeps: whether the database answers,
 * its schema version, the token floor an operator raises after a restore,
 * named locks for work done in turns across replicas, and closing. Each
 * store keeps these itself (sqlite-ledger.ts, postgres-ledger.ts).
 */
import type { Holder } from "../leases/lease-types.js";
import type { OutboxStats } from "../outbox/outbox-types.js";

/** What /health, /metrics and `issue-leases doctor` read: whether the database answers, and the outbox's backlog. */
export interface LedgerHealth {
  outboxStats(): Promise<OutboxStats>;
  /** Whether the database answers (for /health). */
  ping(): Promise<boolean>;
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
