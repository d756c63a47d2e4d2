import pg from "pg";
import type { HeldLock, SchemaVersion, TokenFloorRaise, TokenFloorResult } from "../admin/admin-roles.js";
import { DatabaseConfigError } from "../admin/database-config-error.js";
import { SchemaBehindError } from "../admin/schema-behind-error.js";
import { type ComposedLedger, composeLedger } from "../compose-ledger.js";
import type { Ledger } from "../ledger.js";
import type { Holder } from "../leases/lease-types.js";
import { PostgresBoardMemory } from "./board-memory.js";
import { PostgresBoardReads } from "./board-reads.js";
import { PostgresEventWatch } from "./event-watch.js";
import { eventChannel, PostgresEvents } from "./events.js";
import { PostgresInventory } from "./inventory.js";
import { isConnectionError, PostgresConnection, type PostgresLedgerOptions } from "./connection.js";
import { PostgresLeases } from "./leases.js";
import { migratePostgres, postgresSchemaVersion } from "./migrate.js";
import { PostgresOutbox } from "./outbox.js";
import { PostgresRepos } from "./repos.js";
import { PostgresPlans } from "./run-plan.js";
import { PostgresSessionLocks } from "./session-locks.js";
import { raisePostgresTokenFloor } from "./token-floor.js";

/** The URL without its password, for error messages. */
function describeUrl(connectionString: string): string {
  try {
    const url = new URL(connectionString);
    return `${url.hostname}:${url.port || "5432"}${url.pathname}`;
  } catch {
    return "the server in DATABASE_URL";
  }
}

/** Creates the pool, migrates the schema and returns the ledger. */
export async function openPostgres(opts: PostgresLedgerOptions & { migrate?: boolean }): Promise<PostgresLedger> {
  const ledger = new PostgresLedger(opts);
  try {
    if (opts.migrate ?? true) await ledger.migrate();
    else {
      // Read once, not through the ledger's statement retry, which logs: a
      // server that does not answer is said below, in one line.
      const version = await postgresSchemaVersion(ledger.pool, ledger.schema);
      if (version.current < version.latest) throw new SchemaBehindError(version);
    }
  } catch (err) {
    await ledger.close();
    if (isConnectionError(err)) {
      throw new DatabaseConfigError(
        `cannot reach PostgreSQL at ${describeUrl(opts.connectionString)} (${(err as Error).message}): ` +
          "check DATABASE_URL and that the server accepts connections from this host",
        { cause: err },
      );
    }
    throw err;
  }
  return ledger;
}

/** Every method its parts keep (compose-ledger.ts), put on it as it opens. */
export interface PostgresLedger extends ComposedLedger {}

/**
 * The ledger on PostgreSQL, shared by any number of replicas. Every operation
 * is one READ COMMITTED transaction that locks the row
 * (`SELECT ... FOR UPDATE`) before deciding, so operations on one issue
 * serialise and operations on different issues run in parallel.
 */
export class PostgresLedger implements Ledger {
  readonly sharedByProcesses = true;
  readonly pool: pg.Pool;
  readonly schema: string;
  /** The pool, and the retries around what runs on it (connection.ts). */
  private readonly db: PostgresConnection;
  /** Named locks: session advisory locks on a connection of their own (postgres/session-locks.ts). */
  private readonly locks: PostgresSessionLocks;
  /** Every replica's lease events, heard (event-watch.ts). */
  private readonly eventWatch: PostgresEventWatch;

  constructor(opts: PostgresLedgerOptions) {
    this.schema = opts.schema ?? "public";
    this.db = new PostgresConnection(opts);
    this.pool = this.db.pool;

    const s = pg.escapeIdentifier(this.schema);
    const outbox = new PostgresOutbox(s, this.db);
    const repos = new PostgresRepos(s, this.db);
    const boardMemory = new PostgresBoardMemory(s, this.db);
    const boardReads = new PostgresBoardReads(s, this.db);
    const inventory = new PostgresInventory(s, this.db);
    const log = opts.log ?? ((message: string, error: unknown) => console.error(`[issue-leases] ${message}`, error));
    this.locks = new PostgresSessionLocks({ connectionString: opts.connectionString, schema: this.schema, log });
    const leases = new PostgresLeases(s, this.db, outbox);
    const channel = eventChannel(this.schema);
    this.eventWatch = new PostgresEventWatch({ connectionString: opts.connectionString, channel, log });
    const events = new PostgresEvents(s, channel, this.db, outbox, this.eventWatch);
    const plans = new PostgresPlans(s, this.schema, outbox, opts.events === false ? null : events);
    composeLedger(this, {
      // Each operation one transaction (run-plan.ts), its plan made again when connection.ts retries it.
      run: (callerNow, make) => this.db.transaction(callerNow, (c, now) => plans.run(c, make(now))),
      leases,
      outbox,
      repos,
      boardMemory,
      boardReads,
      inventory,
      events,
    });
  }

  /** Brings the schema to the latest version; safe to run from several replicas at once. */
  async migrate(upTo?: number): Promise<number> {
    return migratePostgres(this.pool, this.schema, upTo);
  }

  /** For health checks (connection.ts). */
  async ping(timeoutMs?: number): Promise<boolean> {
    return this.db.ping(timeoutMs);
  }

  async schemaVersion(): Promise<SchemaVersion> {
    return postgresSchemaVersion(this.pool, this.schema);
  }

  /** The lock ends with this process's lock connection, not after `ttlMs`: a replica that dies lets go at once. */
  async holdLock(name: string, _owner: string, _clock: () => number, _ttlMs: number): Promise<HeldLock | null> {
    return this.locks.hold(name);
  }

  async close(): Promise<void> {
    await this.eventWatch.close();
    await this.locks.close();
    return this.db.close();
  }

  async raiseTokenFloor(raise: TokenFloorRaise, actor: Holder, setBy: string, now: number): Promise<TokenFloorResult> {
    const s = pg.escapeIdentifier(this.schema);
    return this.db.transaction(now, async (c, now) => ({ value: await raisePostgresTokenFloor(c, s, raise, actor, setBy, now) }));
  }
}
