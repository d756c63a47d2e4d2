import pg from "pg";
import { DatabaseConfigError } from "../admin/database-config-error.js";
import { LedgerBase } from "../ledger-base.js";
import type { Plan } from "../plan.js";
import type { QueueEntry } from "../queue/queue-types.js";
import type { Ledger } from "../ledger.js";
import type { LeaseMatch } from "../leases/lease-roles.js";
import { SchemaBehindError } from "../admin/schema-behind-error.js";
import type { HeldLock, SchemaVersion, TokenFloorRaise, TokenFloorResult } from "../admin/admin-roles.js";
import type { HistoryEntry, Holder, IssueKey, Lease } from "../leases/lease-types.js";
import type { RenameOptions } from "../leases/lease-options.js";
import { PostgresBoardMemory } from "./board-memory.js";
import { PostgresBoardReads } from "./board-reads.js";
import { PostgresEventWatch } from "./event-watch.js";
import { eventChannel, PostgresEvents } from "./events.js";
import { PostgresInventory } from "./inventory.js";
import { isConnectionError, nowParam, PostgresConnection, type PostgresLedgerOptions } from "./connection.js";
import { migratePostgres, postgresSchemaVersion } from "./migrate.js";
import { PostgresOutbox } from "./outbox.js";
import { PostgresReads, toLease, type LeaseRow } from "./leases.js";
import { PostgresRepos } from "./repos.js";
import { PostgresPlans } from "./run-plan.js";
import { PostgresSessionLocks } from "./session-locks.js";
import { raisePostgresTokenFloor } from "./token-floor.js";
import { liveSql } from "../leases/tenure-rules.js";


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

/**
 * The ledger on PostgreSQL, shared by any number of replicas. Every operation
 * is one READ COMMITTED transaction that locks the issue's row
 * (`SELECT ... FOR UPDATE`) before deciding, so operations on one issue
 * serialise and operations on different issues run in parallel.
 */
export class PostgresLedger extends LedgerBase implements Ledger {
  readonly sharedByProcesses = true;
  readonly pool: pg.Pool;
  readonly schema: string;
  /** The pool, and the retries around what runs on it (connection.ts). */
  private readonly db: PostgresConnection;
  private readonly sql;
  /** What the board remembers from webhooks (board-memory.ts). */
  protected readonly boardMemory: PostgresBoardMemory;
  /** The board's page of leases and side panels (board-reads.ts). */
  protected readonly boardReads: PostgresBoardReads;
  /** The inventory of open issues (inventory.ts). */
  protected readonly inventory: PostgresInventory;
  /** Runs the operations written once (lease-plans.ts, work-plans.ts) in a transaction (run-plan.ts). */
  private readonly plans: PostgresPlans;
  /** The outbox's statements and operations (postgres/outbox.ts). */
  protected readonly outbox: PostgresOutbox;
  /** Repositories and reflections (postgres/repos.ts). */
  protected readonly repos: PostgresRepos;
  /** Named locks: session advisory locks on a connection of their own (postgres/session-locks.ts). */
  private readonly locks: PostgresSessionLocks;
  /** The reads of leases, history and deliveries outside the operations (postgres/reads.ts). */
  private readonly reads: PostgresReads;
  /** The lease events: their statement, reads and cursors (events.ts), and every replica's heard (event-watch.ts). */
  protected readonly events: PostgresEvents;
  private readonly eventWatch: PostgresEventWatch;

  constructor(opts: PostgresLedgerOptions) {
    super();
    this.schema = opts.schema ?? "public";
    this.db = new PostgresConnection(opts);
    this.pool = this.db.pool;

    const s = pg.escapeIdentifier(this.schema);
    this.outbox = new PostgresOutbox(s, this.db);
    this.repos = new PostgresRepos(s, this.db);
    this.boardMemory = new PostgresBoardMemory(s, this.db);
    this.boardReads = new PostgresBoardReads(s, this.db);
    this.inventory = new PostgresInventory(s, this.db);
    const log = opts.log ?? ((message: string, error: unknown) => console.error(`[issue-leases] ${message}`, error));
    this.locks = new PostgresSessionLocks({ connectionString: opts.connectionString, schema: this.schema, log });
    this.reads = new PostgresReads(s, this.db);
    const channel = eventChannel(this.schema);
    this.eventWatch = new PostgresEventWatch({ connectionString: opts.connectionString, channel, log });
    this.events = new PostgresEvents(s, channel, this.db, this.outbox, this.eventWatch);
    this.plans = new PostgresPlans(s, this.schema, this.outbox, opts.events === false ? null : this.events);
    this.sql = {
      // What every comment by anyone costs when it is no command: the actor's
      // leases in the repository that time holds (leases_held), on the issue
      // or on one the pull request closes. One read, no write.
      mayRenew: `SELECT 1 FROM ${s}.leases
                 WHERE repo_id = $1 AND holder_id = $2 AND expires_at IS NOT NULL AND expires_at > ${nowParam(4)}
                   AND (issue = $3 OR issue IN (SELECT issue FROM ${s}.pull_links WHERE repo_id = $1 AND pull = $3))
                 LIMIT 1`,
      // One repository, through leases_held (repo_id, holder_id): what every webhook's sender may cost.
      renamedIn: `SELECT 1 FROM ${s}.leases WHERE repo_id = $1 AND holder_id = $2 AND holder_login <> $3 AND ${liveSql(nowParam(4))} LIMIT 1`,
      rename: `UPDATE ${s}.leases SET holder_login = $2, updated_at = $3
               WHERE holder_id = $1 AND holder_login <> $2 AND ${liveSql("$3")} RETURNING *`,
      reposOf: `SELECT repo_id, repo, installation FROM ${s}.repos WHERE repo_id = ANY($1::bigint[])`,
    };
  }

  /** Brings the schema to the latest version; safe to run from several replicas at once. */
  async migrate(upTo?: number): Promise<number> {
    return migratePostgres(this.pool, this.schema, upTo);
  }

  /** For health checks (connection.ts). */
  async ping(timeoutMs?: number): Promise<boolean> {
    return this.db.ping(timeoutMs);
  }

  /** Runs one operation as one transaction (run-plan.ts), made again when connection.ts retries it. */
  protected runPlan<T>(callerNow: number, make: (now: number) => Plan<T>): Promise<T> {
    return this.db.transaction(callerNow, (c, now) => this.plans.run(c, make(now)));
  }

  protected async mayRenew(key: IssueKey, actor: Holder, now: number): Promise<boolean> {
    const found = await this.db.query(this.sql.mayRenew, [key.repoId, actor.id, key.issue, this.db.stmtNow(now)]);
    return found.rows.length > 0;
  }

  async recorded(delivery: string): Promise<unknown> {
    return this.reads.recorded(delivery);
  }

  async renameHolder(repoId: number, holder: Holder, now: number, opts?: RenameOptions): Promise<Lease[]> {
    const found = await this.db.query(this.sql.renamedIn, [repoId, holder.id, holder.login, this.db.stmtNow(now)]);
    if (found.rows.length === 0) return [];
    return this.db.transaction(now, async (c, now) => {
      const renamed = (await c.query<LeaseRow>(this.sql.rename, [holder.id, holder.login, now])).rows.map(toLease);
      const repoIds = [...new Set(renamed.map((l) => l.repoId))];
      const { rows } = await c.query<{ repo_id: number; repo: string; installation: number }>(this.sql.reposOf, [repoIds]);
      const repos = new Map(rows.map((r) => [r.repo_id, { repoId: r.repo_id, repo: r.repo, installation: r.installation }]));
      // In the order of the issues, one statement each: an issue's effects apply in the order of their ids.
      for (const lease of renamed.sort((a, b) => a.repoId - b.repoId || a.issue - b.issue)) {
        for (const effect of opts?.effects?.(lease, repos.get(lease.repoId) ?? null) ?? []) {
          for (const e of this.outbox.enqueue(lease.repoId, lease.issue, effect, now)) await c.query(e.text, e.values);
        }
      }
      return { value: renamed };
    });
  }

  async current(key: IssueKey, now: number): Promise<Lease | null> {
    return this.reads.current(key, now);
  }

  async list(repoId: number, now: number): Promise<Lease[]> {
    return this.reads.list(repoId, now);
  }

  async liveAmong(repoId: number, now: number, match: LeaseMatch, except: number | null): Promise<LeaseMatch> {
    return this.reads.liveAmong(repoId, now, match, except);
  }

  async listHeldBy(holderId: number, now: number): Promise<Lease[]> {
    return this.reads.listHeldBy(holderId, now);
  }

  async listAll(now: number): Promise<Lease[]> {
    return this.reads.listAll(now);
  }

  async expiredSince(now: number, limit = 1000): Promise<Lease[]> {
    return this.reads.expiredSince(now, limit);
  }


  async dueReminders(now: number, limit = 1000): Promise<Lease[]> {
    return this.reads.dueReminders(now, limit);
  }


  async history(key: { repoId: number; issue: number }, limit = 1000): Promise<HistoryEntry[]> {
    return this.reads.history(key, limit);
  }

  // The outbox (postgres/outbox.ts).






  async schemaVersion(): Promise<SchemaVersion> {
    return postgresSchemaVersion(this.pool, this.schema);
  }

  // Repositories, reflections and named locks (postgres/repos.ts).





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




  async queue(key: { repoId: number; issue: number }, now: number): Promise<QueueEntry[]> {
    return this.reads.queue(key, now);
  }

  async latestToken(key: { repoId: number; issue: number }): Promise<number | null> {
    return this.reads.latestToken(key);
  }







}
