import pg from "pg";
import { decide, type Row } from "./decide.js";
import { ruleRow } from "./lease-rows.js";
import { POSTGRES_MIGRATIONS } from "./postgres-migrations.js";
import { limitReached, policyLocks, policySqls, rememberLabels } from "./postgres-policies.js";
import {
  postgresBoardLeases,
  postgresBoardPanels,
  postgresBoardRepo,
  rememberPostgresCard,
  rememberPostgresVisibility,
} from "./postgres-board.js";
import { floorOf, raisePostgresTokenFloor } from "./postgres-token-floor.js";
import { PostgresWork } from "./postgres-work.js";
import { HOUR_MS, REPLIED } from "./reply-budget.js";
import { DatabaseConfigError } from "./database-config-error.js";
import { SchemaBehindError } from "./schema-behind-error.js";
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
  RenewOptions,
  RepoInfo,
  RepoVisibility,
  RenewResult,
  ReplyBudget,
  SchemaVersion,
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
import { heldByOf, heldByWork, parsePulls, pullsColumn, workOf } from "./work-rules.js";
import { holderOf } from "./types.js";

export interface PostgresLedgerOptions {
  /** DATABASE_URL, `postgres://user:password@host:port/database`. */
  connectionString: string;
  /** The schema the tables live in, created if absent; default "public". */
  schema?: string;
  /** Connections in this replica's pool; default 10. */
  poolSize?: number;
  /**
   * "database" (the default): every operation ignores its `now` argument and
   * reads the database's clock once at the start of its transaction, so that
   * all replicas share one clock. "caller": use the `now` passed in (tests).
   */
  clock?: "caller" | "database";
  /** Where connection failures are reported (they are retried, not thrown at the process); default console.error. */
  log?: (message: string, error: unknown) => void;
}

interface LeaseRow {
  repo_id: number;
  issue: number;
  repo: string;
  holder_id: number | null;
  holder_login: string | null;
  holder_instance: string | null;
  token: number;
  acquired_at: number | null;
  expires_at: number | null;
  remind_at: number | null;
  reminded: boolean;
  pulls: string | null;
  exempt: boolean;
  term_ms: number | null;
}

interface OutboxRow {
  id: number;
  repo_id: number;
  issue: number;
  installation: number;
  kind: string;
  payload: string;
  attempts: number;
  next_at: number;
  created_at: number;
  priority: number;
  nonce: string | null;
  late: boolean;
}

interface HistoryRow {
  id: number;
  repo_id: number;
  repo: string;
  issue: number;
  op: string;
  outcome: string;
  actor_id: number | null;
  actor_login: string | null;
  actor_instance: string | null;
  holder_id: number | null;
  holder_login: string | null;
  holder_instance: string | null;
  token: number | null;
  expires_at: number | null;
  at: number;
  delivery: string | null;
}

/** The database's clock in epoch milliseconds: one clock for all replicas. */
const DB_CLOCK = "(extract(epoch from clock_timestamp()) * 1000)::bigint";

/** `now` inside a single statement: the caller's value, or (when it is null) the database's clock read once. */
function nowParam(n: number): string {
  // An uncorrelated scalar subquery is an InitPlan, evaluated once per statement.
  return `(SELECT COALESCE($${n}::bigint, ${DB_CLOCK}))`;
}

/** Key for `pg_advisory_xact_lock(int, int)` held while migrating one schema; any constant, "lease" in hex-speak. */
const MIGRATION_LOCK = 0x1ea5e;

const INT8_OID = 20;
/** Deadlocks and serialization failures: PostgreSQL rolled the transaction back, so running it again is safe. */
const RETRY_SQLSTATES = new Set(["40001", "40P01"]);
const MAX_CONFLICT_RETRIES = 5;
/**
 * Before retrying on a new connection: a server restart breaks every pooled
 * connection at once, and this lets their errors arrive, so that the pool
 * discards them instead of handing the retry another dead one.
 */
const RECONNECT_DELAY_MS = 100;
/** How long to wait for a connection (a new one, or a free one from the pool). */
const CONNECT_TIMEOUT_MS = 3_000;
const NODE_CONNECTION_CODES = new Set(["ECONNRESET", "ECONNREFUSED", "ECONNABORTED", "EPIPE", "ETIMEDOUT", "EHOSTUNREACH", "ENETUNREACH"]);

function errorCode(err: unknown): string | undefined {
  if (typeof err !== "object" || err === null || !("code" in err)) return undefined;
  return typeof err.code === "string" ? err.code : undefined;
}

/** True when the error says the connection (not the statement) failed: the server rolled back any open transaction. */
export function isConnectionError(err: unknown): boolean {
  const code = errorCode(err);
  if (code !== undefined) {
    // Class 08: connection exception; 57P01-03: the server is shutting down or starting up.
    return code.startsWith("08") || code === "57P01" || code === "57P02" || code === "57P03" || NODE_CONNECTION_CODES.has(code);
  }
  const message = err instanceof Error ? err.message : String(err);
  return /connection terminated|not queryable|connection error|timeout exceeded when trying to connect/i.test(message);
}

/**
 * The connection settings with `synchronous_commit = on` for the session. A
 * token handed out must survive a crash of the server, whatever the database,
 * the role or DATABASE_URL say: the setting goes in the connection's startup
 * `options`, after any the URL gives (the last `-c` of a setting wins), so
 * it is in force before the first statement, with no query of its own.
 */
export function synchronousCommit(connectionString: string): { connectionString: string; options: string } {
  let url: URL;
  try {
    url = new URL(connectionString);
  } catch {
    return { connectionString, options: "-c synchronous_commit=on" };
  }
  const given = url.searchParams.get("options");
  // Removed from the URL: pg lets the URL's parameters override the config's.
  url.searchParams.delete("options");
  return { connectionString: url.toString(), options: `${given ?? ""} -c synchronous_commit=on`.trim() };
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** The URL without its password, for error messages. */
function describeUrl(connectionString: string): string {
  try {
    const url = new URL(connectionString);
    return `${url.hostname}:${url.port || "5432"}${url.pathname}`;
  } catch {
    return "the server in DATABASE_URL";
  }
}

function toLease(row: LeaseRow): Lease {
  return {
    repoId: row.repo_id,
    repo: row.repo,
    issue: row.issue,
    holder: holderOf(row.holder_id!, row.holder_login!, row.holder_instance),
    token: row.token,
    acquiredAt: row.acquired_at!,
    expiresAt: row.expires_at,
    heldBy: heldByOf({ pulls: parsePulls(row.pulls), exempt: row.exempt }),
  };
}


function toEffect(r: OutboxRow): Effect {
  return {
    id: r.id,
    repoId: r.repo_id,
    issue: r.issue,
    installation: r.installation,
    kind: r.kind,
    payload: JSON.parse(r.payload) as unknown,
    attempts: r.attempts,
    createdAt: r.created_at,
    nonce: r.nonce,
    late: r.late,
  };
}

/** Applies the migrations the schema has not seen yet, each in its own transaction; returns the schema's version. */
export async function migratePostgres(pool: pg.Pool, schema: string, upTo = POSTGRES_MIGRATIONS.length): Promise<number> {
  const s = pg.escapeIdentifier(schema);
  for (;;) {
    const client = await pool.connect();
    // A socket error between statements surfaces as the next statement's error;
    // unlistened, it would crash the process.
    const ignore = (): void => undefined;
    client.on("error", ignore);
    let failed: unknown;
    try {
      await client.query("BEGIN");
      // Replicas starting at once queue here, so each migration runs once. The
      // lock is per schema: tests migrating their own schemas do not wait on each other.
      await client.query("SELECT pg_advisory_xact_lock($1, hashtext($2))", [MIGRATION_LOCK, schema]);
      const exists = await client.query("SELECT 1 FROM pg_namespace WHERE nspname = $1", [schema]);
      // Checked first: a role allowed to use an existing schema may not be allowed to create one.
      if (exists.rowCount === 0) await client.query(`CREATE SCHEMA ${s}`);
      await client.query(
        `CREATE TABLE IF NOT EXISTS ${s}.schema_version (version integer PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())`,
      );
      const { rows } = await client.query<{ version: number }>(`SELECT COALESCE(MAX(version), 0) AS version FROM ${s}.schema_version`);
      const version = rows[0]!.version;
      if (version >= upTo) {
        await client.query("COMMIT");
        return version;
      }
      try {
        await client.query(POSTGRES_MIGRATIONS[version]!(s));
      } catch (err) {
        throw new Error(`migration ${version + 1} of schema ${s} failed: ${(err as Error).message}`, { cause: err });
      }
      await client.query(`INSERT INTO ${s}.schema_version (version) VALUES ($1)`, [version + 1]);
      await client.query("COMMIT");
    } catch (err) {
      failed = err;
      await client.query("ROLLBACK").catch(() => undefined);
      throw err;
    } finally {
      client.removeListener("error", ignore);
      client.release(failed !== undefined);
    }
  }
}

/** Creates the pool, migrates the schema and returns the ledger. */
/** The version of the ledger's schema `schema`: 0 for one never migrated. */
async function postgresSchemaVersion(pool: pg.Pool, schema: string): Promise<SchemaVersion> {
  try {
    const { rows } = await pool.query<{ version: number }>(
      `SELECT COALESCE(MAX(version), 0) AS version FROM ${pg.escapeIdentifier(schema)}.schema_version`,
    );
    return { current: rows[0]!.version, latest: POSTGRES_MIGRATIONS.length };
  } catch (err) {
    // 42P01, undefined_table: a schema never migrated is at version 0.
    if (errorCode(err) === "42P01") return { current: 0, latest: POSTGRES_MIGRATIONS.length };
    throw err;
  }
}

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

type Client = pg.PoolClient;

/** One SQL statement and its parameters, not yet sent. */
interface Statement {
  text: string;
  values: unknown[];
}

const statement = (text: string, values: unknown[]): Statement => ({ text, values });

/**
 * Several writes as one statement, each a data-modifying CTE with its
 * parameters renumbered after those before it: one round trip instead of one
 * each. They touch different tables (or rows), so that PostgreSQL running
 * them on one snapshot, in no set order, changes nothing.
 */
function combineWrites(writes: Statement[]): Statement {
  if (writes.length === 1) return writes[0]!;
  const values: unknown[] = [];
  const ctes = writes.map((w, i) => {
    const offset = values.length;
    values.push(...w.values);
    // `$n` outside identifiers: a schema's quoted name may hold a `$`.
    return `w${i} AS (${w.text.replace(/(?<![\w"$])\$(\d+)\b/g, (_, n: string) => `$${Number(n) + offset}`)})`;
  });
  return { text: `WITH ${ctes.join(",\n")}\nSELECT 1`, values };
}

/** What a transaction's body decided: its value, and whether to roll back instead of committing. */
interface Outcome<T> {
  value: T;
  rollback?: boolean;
}

/**
 * The ledger on PostgreSQL, shared by any number of replicas. Every operation
 * is one READ COMMITTED transaction that locks the issue's row
 * (`SELECT ... FOR UPDATE`) before deciding, so operations on one issue
 * serialise and operations on different issues run in parallel.
 */
export class PostgresLedger implements Ledger {
  readonly sharedByProcesses = true;
  readonly pool: pg.Pool;
  readonly schema: string;
  private readonly clock: "caller" | "database";
  private readonly log: (message: string, error: unknown) => void;
  private readonly sql;
  /** The claim limits' statements (postgres-policies.ts). */
  private readonly policySql;
  /** Leases that follow the work: their SQL and operations (postgres-work.ts). */
  private readonly work: PostgresWork;
  private closed = false;

  constructor(opts: PostgresLedgerOptions) {
    this.schema = opts.schema ?? "public";
    this.clock = opts.clock ?? "database";
    this.log = opts.log ?? ((message, error) => console.error(`[issue-leases] ${message}`, error));
    // Per pool, not pg.types globally: other code in the process may want bigint as strings.
    const types = new pg.TypeOverrides();
    types.setTypeParser(INT8_OID, (value: string) => Number(value));
    this.pool = new pg.Pool({
      ...synchronousCommit(opts.connectionString),
      max: opts.poolSize ?? 10,
      types,
      // Fail instead of waiting when the server is unreachable or the pool is
      // exhausted: well within the 9 s after which GitHub's delivery is
      // answered 202 whatever happens, so that a delivery that cannot commit
      // is answered 500 (and can be redelivered), with room for one retry.
      connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
      idleTimeoutMillis: 30_000,
      keepAlive: true,
      fallback_application_name: "issue-leases",
      // A replica that stalls mid-transaction must not keep an issue locked for long.
      idle_in_transaction_session_timeout: 60_000,
    });
    // An idle connection dropped by the server (restart, failover, idle timeout)
    // is reported here; without a listener it would crash the process. The pool
    // discards it and opens another when needed.
    this.pool.on("error", (err) => this.log("an idle PostgreSQL connection failed; the pool will open a new one", err));

    const s = pg.escapeIdentifier(this.schema);
    this.work = new PostgresWork(s);
    const live = (now: string) => `holder_id IS NOT NULL AND (expires_at IS NULL OR expires_at > ${now})`;
    this.policySql = policySqls(s);
    this.sql = {
      lockHolder: "SELECT pg_advisory_xact_lock(hashtext($1), hashtext($2))",
      lockRow: `SELECT * FROM ${s}.leases WHERE repo_id = $1 AND issue = $2 FOR UPDATE`,
      // Acquire's: the token floor read in the same statement, so that a floor
      // an operator raised applies to the next acquire on every replica, at no
      // extra round trip.
      lockRowFloor: `SELECT l.*, ${floorOf(s)} AS token_floor FROM ${s}.leases l WHERE l.repo_id = $1 AND l.issue = $2 FOR UPDATE OF l`,
      insertFree: `INSERT INTO ${s}.leases (repo_id, issue, repo, token, updated_at) VALUES ($1, $2, $3, 0, $4)
                   ON CONFLICT (repo_id, issue) DO NOTHING`,
      write: `UPDATE ${s}.leases SET repo = $3, holder_id = $4, holder_login = $5, token = $6, acquired_at = $7, expires_at = $8,
                updated_at = $9, remind_at = $10, reminded = false, pulls = $11, exempt = $12, term_ms = $13, holder_instance = $14
              WHERE repo_id = $1 AND issue = $2`,
      free: `UPDATE ${s}.leases SET holder_id = NULL, holder_login = NULL, holder_instance = NULL, expires_at = NULL, remind_at = NULL, reminded = false,
               updated_at = $3, pulls = NULL, exempt = false, term_ms = NULL
             WHERE repo_id = $1 AND issue = $2`,
      markReminded: `UPDATE ${s}.leases SET reminded = true, updated_at = $3 WHERE repo_id = $1 AND issue = $2`,
      history: `INSERT INTO ${s}.history
                  (repo_id, repo, issue, op, outcome, actor_id, actor_login, holder_id, holder_login, token, expires_at, at, delivery, replied,
                   actor_instance, holder_instance)
                VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16)`,
      replies: `SELECT count(*)::int AS n, max(replied) AS top FROM ${s}.history
                WHERE repo_id = $1 AND actor_id = $2 AND replied > 0 AND at > $3`,
      claimDelivery: `INSERT INTO ${s}.deliveries (id, result, at) VALUES ($1, '', $2) ON CONFLICT (id) DO NOTHING`,
      getDelivery: `SELECT result FROM ${s}.deliveries WHERE id = $1`,
      putDelivery: `UPDATE ${s}.deliveries SET result = $2 WHERE id = $1`,
      enqueue: `INSERT INTO ${s}.outbox (repo_id, issue, installation, kind, payload, next_at, created_at, priority, nonce)
                VALUES ($1, $2, $3, $4, $5, $6, $6, $7, replace(gen_random_uuid()::text, '-', ''))`,
      tryLock: `WITH now AS MATERIALIZED (SELECT COALESCE($3::bigint, ${DB_CLOCK}) AS v)
                INSERT INTO ${s}.locks (name, owner, until) SELECT $1, $2, v + $4 FROM now
                ON CONFLICT (name) DO UPDATE SET owner = EXCLUDED.owner, until = EXCLUDED.until
                WHERE ${s}.locks.until <= (SELECT v FROM now) OR ${s}.locks.owner = EXCLUDED.owner
                RETURNING owner`,
      unlock: `DELETE FROM ${s}.locks WHERE name = $1 AND owner = $2`,
      // One repository, through leases_held (repo_id, holder_id): what every webhook's sender may cost.
      renamedIn: `SELECT 1 FROM ${s}.leases WHERE repo_id = $1 AND holder_id = $2 AND holder_login <> $3 AND ${live(nowParam(4))} LIMIT 1`,
      rename: `UPDATE ${s}.leases SET holder_login = $2, updated_at = $3
               WHERE holder_id = $1 AND holder_login <> $2 AND ${live("$3")} RETURNING *`,
      reposOf: `SELECT repo_id, repo, installation FROM ${s}.repos WHERE repo_id = ANY($1::bigint[])`,
      current: `SELECT *, ${nowParam(3)} AS now FROM ${s}.leases WHERE repo_id = $1 AND issue = $2`,
      list: `SELECT * FROM ${s}.leases WHERE repo_id = $1 AND ${live(nowParam(2))} ORDER BY issue`,
      listHeldBy: `SELECT * FROM ${s}.leases WHERE holder_id = $1 AND ${live(nowParam(2))} ORDER BY repo_id, issue`,
      listAll: `SELECT * FROM ${s}.leases WHERE ${live(nowParam(1))} ORDER BY lower(repo), repo_id, issue`,
      expired: `SELECT * FROM ${s}.leases
                WHERE holder_id IS NOT NULL AND expires_at IS NOT NULL AND expires_at <= ${nowParam(1)}
                ORDER BY expires_at, repo_id, issue LIMIT $2`,
      dueReminders: `WITH now AS MATERIALIZED (SELECT COALESCE($1::bigint, ${DB_CLOCK}) AS v)
                     SELECT l.* FROM ${s}.leases l, now
                     WHERE l.holder_id IS NOT NULL AND NOT l.reminded AND l.remind_at IS NOT NULL AND l.remind_at <= now.v
                       AND (l.expires_at IS NULL OR l.expires_at > now.v)
                     ORDER BY l.remind_at, l.repo_id, l.issue LIMIT $2`,
      historyOf: `SELECT * FROM ${s}.history WHERE repo_id = $1 AND issue = $2 ORDER BY id DESC LIMIT $3`,
      // Only the head (oldest pending effect) of each issue is eligible, so one
      // issue's effects apply in order; SKIP LOCKED lets replicas take different
      // heads at once without ever taking the same one. A head locked by another
      // replica's take (row lock) or by its lease (locked_until) holds back its issue.
      take: `WITH now AS MATERIALIZED (SELECT COALESCE($1::bigint, ${DB_CLOCK}) AS v)
             UPDATE ${s}.outbox SET locked_until = (SELECT v FROM now) + $4, attempts = attempts + 1
             WHERE id IN (
               SELECT o.id FROM ${s}.outbox o
               WHERE o.state = 'pending' AND o.next_at <= (SELECT v FROM now) AND o.locked_until <= (SELECT v FROM now)
                 AND o.installation <> ALL($3::bigint[]) AND o.id <> ALL($5::bigint[])
                 AND o.id = (SELECT MIN(p.id) FROM ${s}.outbox p
                             WHERE p.state = 'pending' AND p.repo_id = o.repo_id AND p.issue = o.issue)
               ORDER BY o.priority, o.next_at, o.id
               LIMIT $2
               FOR UPDATE SKIP LOCKED)
             RETURNING *`,
      // Each write of an attempt names it: a drainer whose lock was taken over
      // changes nothing. Completing twice (a statement retried) is no change.
      extend: `UPDATE ${s}.outbox o SET locked_until = ${nowParam(3)} + $4
               FROM unnest($1::bigint[], $2::int[]) AS f(id, attempt)
               WHERE o.id = f.id AND o.attempts = f.attempt AND o.state = 'pending'
               RETURNING o.id`,
      complete: `UPDATE ${s}.outbox SET state = 'done', done_at = COALESCE(done_at, ${nowParam(2)}), locked_until = 0
                 WHERE id = $1 AND attempts = $3 AND state <> 'parked'`,
      retry: `UPDATE ${s}.outbox SET next_at = GREATEST($3::bigint, ${nowParam(2)}), locked_until = 0, last_error = $4
              WHERE id = $1 AND attempts = $5 AND state = 'pending'`,
      park: `UPDATE ${s}.outbox SET state = 'parked', locked_until = 0, last_error = $2 WHERE id = $1 AND attempts = $3 AND state = 'pending'`,
      // Attempts are kept: the first attempt after this looks for a reply already posted.
      unpark: `UPDATE ${s}.outbox o SET state = 'pending', next_at = ${nowParam(1)},
                 late = EXISTS (SELECT 1 FROM ${s}.outbox n WHERE n.repo_id = o.repo_id AND n.issue = o.issue
                                  AND n.id > o.id AND n.state = 'done')
               WHERE o.state = 'parked'`,
      getReflection: `SELECT state FROM ${s}.reflections WHERE repo_id = $1 AND issue = $2`,
      putReflection: `INSERT INTO ${s}.reflections (repo_id, issue, state, updated_at) VALUES ($1, $2, $3, ${nowParam(4)})
                      ON CONFLICT (repo_id, issue) DO UPDATE SET state = excluded.state, updated_at = excluded.updated_at`,
      rememberRepo: `INSERT INTO ${s}.repos (repo_id, repo, installation, updated_at) VALUES ($1, $2, $3, ${nowParam(4)})
                     ON CONFLICT (repo_id) DO UPDATE SET repo = excluded.repo, installation = excluded.installation,
                       updated_at = excluded.updated_at`,
      repoInfo: `SELECT repo_id, repo, installation FROM ${s}.repos WHERE repo_id = $1`,
      findRepo: `SELECT repo_id, repo, installation FROM ${s}.repos WHERE lower(repo) = lower($1)
                 ORDER BY updated_at DESC, repo_id DESC LIMIT 1`,
      stats: `SELECT
                (SELECT COUNT(*) FROM ${s}.outbox WHERE state = 'pending') AS pending,
                (SELECT COUNT(*) FROM ${s}.outbox WHERE state = 'parked') AS parked,
                (SELECT MIN(created_at) FROM ${s}.outbox WHERE state = 'pending') AS oldest`,
    };
  }

  /** Brings the schema to the latest version; safe to run from several replicas at once. */
  async migrate(upTo?: number): Promise<number> {
    return migratePostgres(this.pool, this.schema, upTo);
  }

  /** For health checks: can a connection run `SELECT 1` within `timeoutMs`? */
  async ping(timeoutMs = 2_000): Promise<boolean> {
    if (this.closed) return false;
    let timer: NodeJS.Timeout | undefined;
    try {
      return await Promise.race([
        this.pool.query("SELECT 1").then(() => true),
        new Promise<boolean>((resolve) => {
          timer = setTimeout(() => resolve(false), timeoutMs);
        }),
      ]);
    } catch {
      return false;
    } finally {
      clearTimeout(timer);
    }
  }

  /** The `now` parameter of a single statement: null makes the statement read the database's clock. */
  private stmtNow(now: number): number | null {
    return this.clock === "caller" ? now : null;
  }

  /**
   * One statement outside an explicit transaction. Retried once when the
   * connection fails: the pool discards the broken connection and opens another.
   * Only for reads and for writes that may safely run twice.
   */
  private async query<R extends pg.QueryResultRow>(text: string, values: unknown[]): Promise<pg.QueryResult<R>> {
    try {
      return await this.pool.query<R>(text, values);
    } catch (err) {
      if (this.closed || !isConnectionError(err)) throw err;
      this.log("a PostgreSQL connection failed; retrying the statement once", err);
      await sleep(RECONNECT_DELAY_MS);
      return this.pool.query<R>(text, values);
    }
  }

  /**
   * Runs `body` in one transaction on one connection, with `now` the caller's
   * or the database's clock read once at its start. Retried from the start
   * after a deadlock or serialization failure (PostgreSQL rolled it back), and
   * once after a connection lost before COMMIT was sent (the server rolled it
   * back). A connection lost during COMMIT leaves the outcome unknown: that is
   * thrown, not retried, since running the operation again might apply it twice.
   */
  private async transaction<T>(callerNow: number, body: (c: Client, now: number) => Promise<Outcome<T>>): Promise<T> {
    let conflicts = 0;
    let reconnects = 0;
    for (;;) {
      let client: Client | undefined;
      let lost: unknown;
      const onError = (err: Error): void => {
        // A checked-out connection has no pool listener: without this one, a
        // socket error between two statements would crash the process.
        lost = err;
        this.log("a PostgreSQL connection failed during a transaction", err);
      };
      let committing = false;
      try {
        client = await this.pool.connect();
        client.on("error", onError);
        let now = callerNow;
        if (this.clock === "caller") await client.query("BEGIN");
        else {
          // One round trip: a query without parameters may carry two statements.
          const [, clock] = (await client.query(`BEGIN; SELECT ${DB_CLOCK} AS now`)) as unknown as [unknown, pg.QueryResult<{ now: number }>];
          now = clock.rows[0]!.now;
        }
        const { value, rollback } = await body(client, now);
        if (rollback) {
          await client.query("ROLLBACK");
        } else {
          committing = true;
          await client.query("COMMIT");
        }
        client.removeListener("error", onError);
        client.release();
        return value;
      } catch (err) {
        if (client) {
          let broken = lost !== undefined || isConnectionError(err);
          if (!broken && !committing) {
            broken = await client.query("ROLLBACK").then(
              () => false,
              () => true,
            );
          }
          // Removed only now: the ROLLBACK too may meet a dead socket.
          client.removeListener("error", onError);
          // A broken connection is destroyed, not returned to the pool.
          client.release(broken);
        }
        const code = errorCode(err);
        if (code !== undefined && RETRY_SQLSTATES.has(code) && conflicts < MAX_CONFLICT_RETRIES) {
          conflicts += 1;
          await sleep(Math.random() * 10 * 2 ** conflicts);
          continue;
        }
        if (!this.closed && (isConnectionError(err) || lost !== undefined)) {
          if (committing) {
            throw new Error(
              "the connection to PostgreSQL was lost during COMMIT: the operation may or may not have been applied",
              { cause: err },
            );
          }
          if (reconnects < 1) {
            reconnects += 1;
            this.log("retrying a transaction on a new PostgreSQL connection", err);
            await sleep(RECONNECT_DELAY_MS);
            continue;
          }
        }
        throw err;
      }
    }
  }

  /**
   * One ledger operation: claims the delivery id, takes the holder's lock when
   * a per-holder limit applies, locks the issue's row, decides, writes, and
   * appends history and effects, all in one transaction.
   */
  private run<R extends LedgerResult>(
    key: IssueKey,
    op: HistoryOp,
    actor: Holder | null,
    callerNow: number,
    opts: OpOptions<R> | undefined,
    body: (c: Client, row: Row | null, now: number, floor: number) => Promise<{ result: R; write?: Statement | Statement[] }>,
    /** `locks`: advisory locks (namespace, key) taken in order before the row lock, in place of the reply limit's. */
    extra: { historyOutcome?: string; locks?: Array<[string, string]>; readFloor?: boolean } = {},
  ): Promise<Applied<R>> {
    return this.transaction(callerNow, async (c, now): Promise<Outcome<Applied<R>>> => {
      const delivery = opts?.delivery;
      if (delivery !== undefined) {
        // First, so that a replica handling the same delivery at the same time
        // waits here on our uncommitted row (unique index), then sees the conflict.
        const claimed = await c.query(this.sql.claimDelivery, [delivery, now]);
        if (claimed.rowCount === 0) {
          const seen = await c.query<{ result: string }>(this.sql.getDelivery, [delivery]);
          return { value: { ...(JSON.parse(seen.rows[0]!.result) as R), duplicate: true }, rollback: true };
        }
      }
      const limit = actor ? (opts?.repliesPerHour ?? 0) : 0;
      // A reply limit counts the actor's replies: the same lock (acquire's
      // holder is its actor) keeps two of their commands from both seeing the
      // last reply left. An acquire's claim limits take the holder's locks
      // (postgres-policies.ts), this one among them.
      const locks = extra.locks?.length ? extra.locks : limit > 0 ? [[`${this.schema}/holder`, `${key.repoId}/${actor!.id}`] as [string, string]] : [];
      for (const lock of locks) {
        // Serialises this holder's acquires in the repository (or the
        // installation), so two of them on different issues cannot both pass
        // a limit. Taken before the row lock, always in this order: no
        // deadlock with other acquires.
        await c.query(this.sql.lockHolder, lock);
      }
      const { row, floor } = await this.lockRow(c, key, now, extra.readFloor === true);
      const { result, write } = await body(c, row, now, floor);
      const lease = "lease" in result ? result.lease : null;
      let budget: ReplyBudget | null = null;
      if (limit > 0 && (opts?.countsReply?.(result) ?? true)) {
        const { rows } = await c.query<{ n: number; top: number | null }>(this.sql.replies, [key.repoId, actor!.id, now - HOUR_MS]);
        budget = decide.replyBudget(limit, rows[0]!.n, rows[0]!.top === REPLIED.notice);
      }
      // Everything the decision writes goes in one round trip.
      const history = statement(this.sql.history, [
        key.repoId,
        key.repo,
        key.issue,
        op,
        extra.historyOutcome ?? result.outcome,
        actor?.id ?? null,
        actor?.login ?? null,
        lease?.holder.id ?? null,
        lease?.holder.login ?? null,
        lease ? lease.token : null,
        lease ? lease.expiresAt : null,
        now,
        delivery ?? null,
        budget === null ? null : REPLIED[budget],
        actor?.instance ?? null,
        lease?.holder.instance ?? null,
      ]);
      const writes = write ? [...(Array.isArray(write) ? write : [write]), history] : [history];
      if (delivery !== undefined) writes.push(statement(this.sql.putDelivery, [delivery, JSON.stringify(result)]));
      const enqueues = (opts?.effects?.(result, budget ?? "reply") ?? []).map((effect) =>
        statement(this.sql.enqueue, [
          key.repoId,
          key.issue,
          effect.installation,
          effect.kind,
          JSON.stringify(effect.payload),
          now,
          effect.priority ?? 0,
        ]),
      );
      // An issue's effects are applied in the order of their ids. The CTEs of
      // one statement run in no set order, so a second effect has a
      // statement of its own, after.
      const [first, ...rest] = enqueues;
      const all = combineWrites(first ? [...writes, first] : writes);
      await c.query(all.text, all.values);
      for (const e of rest) await c.query(e.text, e.values);
      return { value: { ...result, duplicate: false } };
    });
  }

  /**
   * Locks the issue's row for the rest of the transaction. An issue never seen
   * gets a free row with token 0 first, so that two first claims have a row to
   * queue on; it reads exactly like no row. With `readFloor`, the token
   * floor comes with the row (0 otherwise).
   */
  private async lockRow(c: Client, key: IssueKey, now: number, readFloor: boolean): Promise<{ row: Row | null; floor: number }> {
    const text = readFloor ? this.sql.lockRowFloor : this.sql.lockRow;
    let found = (await c.query<LeaseRow & { token_floor?: number }>(text, [key.repoId, key.issue])).rows[0];
    if (!found) {
      await c.query(this.sql.insertFree, [key.repoId, key.issue, key.repo, now]);
      found = (await c.query<LeaseRow & { token_floor?: number }>(text, [key.repoId, key.issue])).rows[0];
    }
    return { row: ruleRow(found), floor: found?.token_floor ?? 0 };
  }

  /** `termMs`: the length of the term (for renewals by activity). */
  private write(key: IssueKey, lease: Lease, now: number, remindBefore: number | null | undefined, termMs: Ttl): Statement {
    const remindAt =
      lease.expiresAt !== null && remindBefore !== null && remindBefore !== undefined ? lease.expiresAt - remindBefore : null;
    return statement(this.sql.write, [
      key.repoId,
      key.issue,
      key.repo,
      lease.holder.id,
      lease.holder.login,
      lease.token,
      lease.acquiredAt,
      lease.expiresAt,
      now,
      remindAt,
      pullsColumn(lease.heldBy),
      workOf(lease.heldBy).exempt,
      termMs,
      lease.holder.instance ?? null,
    ]);
  }

  async acquire(key: IssueKey, holder: Holder, ttl: Ttl, now: number, opts?: AcquireOptions): Promise<Applied<AcquireResult>> {
    const maxPerHolder = opts?.maxPerHolder ?? 0;
    return this.run(
      key,
      "acquire",
      opts?.actor ?? holder,
      now,
      opts,
      async (c, row, now, floor) => {
        let result = decide.acquire(key, row, holder, ttl, now, undefined, floor);
        // Limits bear only on a new tenure: read then, and the rules asked again at one.
        if (result.outcome === "acquired" && result.newTenure) {
          const reached = await limitReached(c, this.policySql, key, holder, now, maxPerHolder, opts?.policies, opts?.countInReview);
          if (reached) result = decide.acquire(key, row, holder, ttl, now, reached, floor);
        }
        if (result.outcome !== "acquired") return { result };
        // The holder's open pull requests and an exempt label hold it from the claim.
        result = { ...result, lease: await this.work.claimed(c, key, result.lease, result.newTenure, opts?.exempt) };
        const labels = result.newTenure ? rememberLabels(this.policySql.counted, key, result.lease.token, opts?.policies) : null;
        const write = this.write(key, result.lease, now, opts?.remindBefore, ttl);
        return { result, write: labels ? [write, statement(labels.text, labels.values)] : write };
      },
      { locks: policyLocks(this.schema, key, holder, maxPerHolder, opts?.policies), readFloor: true },
    );
  }

  async renew(key: IssueKey, holder: Holder, ttl: Ttl, now: number, opts?: RenewOptions): Promise<Applied<RenewResult>> {
    return this.run(key, "renew", holder, now, opts, async (c, row, now) => {
      let result = decide.renew(key, row, holder, ttl, now);
      // Still held by its work, if it was: the new term is what it gets when the work lets go.
      if (result.outcome === "renewed") result = { ...result, lease: heldByWork(result.lease, workOf(result.lease.heldBy)) };
      return {
        result,
        write: result.outcome === "renewed" ? this.write(key, result.lease, now, opts?.remindBefore, ttl) : undefined,
      };
    });
  }

  async release(key: IssueKey, holder: Holder, now: number, opts?: OpOptions<ReleaseResult>): Promise<Applied<ReleaseResult>> {
    return this.run(key, "release", holder, now, opts, async (c, row, now) => {
      const result = decide.release(key, row, holder, now);
      return { result, write: this.freeIfReleased(key, row, result, now) };
    });
  }

  async forceRelease(key: IssueKey, actor: Holder, now: number, opts?: ForceReleaseOptions): Promise<Applied<ForceReleaseResult>> {
    return this.run(key, "force_release", actor, now, opts, async (c, row, now) => {
      const result = decide.forceRelease(key, row, now, opts);
      return { result, write: this.freeIfReleased(key, row, result, now) };
    });
  }

  private freeIfReleased(key: IssueKey, row: Row | null, result: ForceReleaseResult, now: number): Statement | undefined {
    // Freeing keeps the row and its token: the next tenure gets token + 1.
    if (result.outcome !== "released" || row?.holder == null) return undefined;
    return statement(this.sql.free, [key.repoId, key.issue, now]);
  }

  async note(
    key: IssueKey,
    actor: Holder | null,
    now: number,
    opts?: NoteOptions,
  ): Promise<Applied<NoteResult>> {
    const detail = opts?.detail ? { detail: opts.detail } : {};
    // The row is locked even though nothing changes: effects of one issue must
    // enter the outbox in the order of the decisions they follow.
    return this.run(key, "note", actor, now, opts, async (_c, row, now) => ({ result: { ...decide.note(key, row, now), ...detail } }), {
      historyOutcome: opts?.outcome,
    });
  }

  async recorded(delivery: string): Promise<unknown> {
    const { rows } = await this.query<{ result: string }>(this.sql.getDelivery, [delivery]);
    // '' while the transaction that claimed it has not committed: not recorded yet.
    return rows[0] && rows[0].result !== "" ? (JSON.parse(rows[0].result) as unknown) : null;
  }

  async renameHolder(repoId: number, holder: Holder, now: number, opts?: RenameOptions): Promise<Lease[]> {
    const found = await this.query(this.sql.renamedIn, [repoId, holder.id, holder.login, this.stmtNow(now)]);
    if (found.rows.length === 0) return [];
    return this.transaction(now, async (c, now) => {
      const renamed = (await c.query<LeaseRow>(this.sql.rename, [holder.id, holder.login, now])).rows.map(toLease);
      const repoIds = [...new Set(renamed.map((l) => l.repoId))];
      const { rows } = await c.query<{ repo_id: number; repo: string; installation: number }>(this.sql.reposOf, [repoIds]);
      const repos = new Map(rows.map((r) => [r.repo_id, { repoId: r.repo_id, repo: r.repo, installation: r.installation }]));
      // In the order of the issues, one statement each: an issue's effects apply in the order of their ids.
      for (const lease of renamed.sort((a, b) => a.repoId - b.repoId || a.issue - b.issue)) {
        for (const effect of opts?.effects?.(lease, repos.get(lease.repoId) ?? null) ?? []) {
          const e = JSON.stringify(effect.payload);
          await c.query(this.sql.enqueue, [lease.repoId, lease.issue, effect.installation, effect.kind, e, now, effect.priority ?? 0]);
        }
      }
      return { value: renamed };
    });
  }

  async current(key: IssueKey, now: number): Promise<Lease | null> {
    const { rows } = await this.query<LeaseRow & { now: number }>(this.sql.current, [key.repoId, key.issue, this.stmtNow(now)]);
    // With the database's clock, `now` is the one read by the statement.
    return decide.live(key, ruleRow(rows[0]), rows[0]?.now ?? now);
  }

  async list(repoId: number, now: number): Promise<Lease[]> {
    return (await this.query<LeaseRow>(this.sql.list, [repoId, this.stmtNow(now)])).rows.map(toLease);
  }

  async listHeldBy(holderId: number, now: number): Promise<Lease[]> {
    return (await this.query<LeaseRow>(this.sql.listHeldBy, [holderId, this.stmtNow(now)])).rows.map(toLease);
  }

  async listAll(now: number): Promise<Lease[]> {
    return (await this.query<LeaseRow>(this.sql.listAll, [this.stmtNow(now)])).rows.map(toLease);
  }

  async expiredSince(now: number, limit = 1000): Promise<Lease[]> {
    return (await this.query<LeaseRow>(this.sql.expired, [this.stmtNow(now), limit])).rows.map(toLease);
  }

  async markExpired(key: IssueKey, token: number, now: number, opts?: OpOptions<ExpireResult>): Promise<Applied<ExpireResult>> {
    return this.run(key, "expire", null, now, opts, async (c, row, now) => {
      const result = decide.expire(key, row, token, now);
      return {
        result,
        write: result.outcome === "expired" ? statement(this.sql.free, [key.repoId, key.issue, now]) : undefined,
      };
    });
  }

  async dueReminders(now: number, limit = 1000): Promise<Lease[]> {
    return (await this.query<LeaseRow>(this.sql.dueReminders, [this.stmtNow(now), limit])).rows.map(toLease);
  }

  async markReminded(key: IssueKey, term: Term, now: number, opts?: OpOptions<RemindResult>): Promise<Applied<RemindResult>> {
    return this.run(key, "remind", null, now, opts, async (c, row, now) => {
      const result = decide.remind(key, row, term, now);
      return {
        result,
        write: result.outcome === "reminded" ? statement(this.sql.markReminded, [key.repoId, key.issue, now]) : undefined,
      };
    });
  }

  async history(key: { repoId: number; issue: number }, limit = 1000): Promise<HistoryEntry[]> {
    const { rows } = await this.query<HistoryRow>(this.sql.historyOf, [key.repoId, key.issue, limit]);
    return rows.reverse().map((r) => ({
      id: r.id,
      repoId: r.repo_id,
      repo: r.repo,
      issue: r.issue,
      op: r.op as HistoryOp,
      outcome: r.outcome,
      actor: r.actor_id === null ? null : holderOf(r.actor_id, r.actor_login!, r.actor_instance),
      holder: r.holder_id === null ? null : holderOf(r.holder_id, r.holder_login!, r.holder_instance),
      token: r.token,
      expiresAt: r.expires_at,
      at: r.at,
      delivery: r.delivery,
    }));
  }

  async takeEffects(
    now: number,
    limit: number,
    lockMs: number,
    skipInstallations: number[] = [],
    skipIds: number[] = [],
  ): Promise<Effect[]> {
    if (limit <= 0) return [];
    // One statement, so one transaction: if its reply is lost, the effects it
    // took stay locked until `now + lockMs` and are then taken again.
    const { rows } = await this.query<OutboxRow>(this.sql.take, [this.stmtNow(now), limit, skipInstallations, lockMs, skipIds]);
    return rows.sort((a, b) => a.priority - b.priority || a.next_at - b.next_at || a.id - b.id).map(toEffect);
  }

  async extendEffects(fences: EffectFence[], now: number, lockMs: number): Promise<number[]> {
    if (fences.length === 0) return [];
    const { rows } = await this.query<{ id: number }>(this.sql.extend, [
      fences.map((f) => f.id),
      fences.map((f) => f.attempt),
      this.stmtNow(now),
      lockMs,
    ]);
    return rows.map((r) => r.id);
  }

  async completeEffect(fence: EffectFence, now: number): Promise<boolean> {
    return ((await this.query(this.sql.complete, [fence.id, this.stmtNow(now), fence.attempt])).rowCount ?? 0) > 0;
  }

  async failEffect(fence: EffectFence, now: number, error: string, retryAt: number | null): Promise<boolean> {
    const r =
      retryAt === null
        ? await this.query(this.sql.park, [fence.id, error, fence.attempt])
        : await this.query(this.sql.retry, [fence.id, this.stmtNow(now), retryAt, error, fence.attempt]);
    return (r.rowCount ?? 0) > 0;
  }

  async unparkEffects(now: number): Promise<number> {
    return (await this.query(this.sql.unpark, [this.stmtNow(now)])).rowCount ?? 0;
  }

  async outboxStats(): Promise<OutboxStats> {
    const { rows } = await this.query<{ pending: number; parked: number; oldest: number | null }>(this.sql.stats, []);
    const s = rows[0]!;
    return { pending: s.pending, parked: s.parked, oldestPendingAt: s.oldest };
  }

  async schemaVersion(): Promise<SchemaVersion> {
    return postgresSchemaVersion(this.pool, this.schema);
  }

  async getReflection(repoId: number, issue: number): Promise<unknown> {
    const { rows } = await this.query<{ state: string }>(this.sql.getReflection, [repoId, issue]);
    return rows[0] ? (JSON.parse(rows[0].state) as unknown) : null;
  }

  async putReflection(repoId: number, issue: number, state: unknown, now: number): Promise<void> {
    await this.query(this.sql.putReflection, [repoId, issue, JSON.stringify(state), this.stmtNow(now)]);
  }

  async rememberRepo(repo: RepoInfo, now: number): Promise<void> {
    await this.query(this.sql.rememberRepo, [repo.repoId, repo.repo, repo.installation, this.stmtNow(now)]);
  }

  async repoInfo(repoId: number): Promise<RepoInfo | null> {
    const { rows } = await this.query<{ repo_id: number; repo: string; installation: number }>(this.sql.repoInfo, [repoId]);
    const r = rows[0];
    return r ? { repoId: r.repo_id, repo: r.repo, installation: r.installation } : null;
  }

  async findRepo(name: string): Promise<RepoInfo | null> {
    const { rows } = await this.query<{ repo_id: number; repo: string; installation: number }>(this.sql.findRepo, [name]);
    const r = rows[0];
    return r ? { repoId: r.repo_id, repo: r.repo, installation: r.installation } : null;
  }

  async tryLock(name: string, owner: string, now: number, ttlMs: number): Promise<boolean> {
    const { rows } = await this.query(this.sql.tryLock, [name, owner, this.stmtNow(now), ttlMs]);
    return rows.length > 0;
  }

  async unlock(name: string, owner: string): Promise<void> {
    await this.query(this.sql.unlock, [name, owner]);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.pool.end();
  }

  async raiseTokenFloor(raise: TokenFloorRaise, actor: Holder, setBy: string, now: number): Promise<TokenFloorResult> {
    const s = pg.escapeIdentifier(this.schema);
    return this.transaction(now, async (c, now) => ({ value: await raisePostgresTokenFloor(c, s, raise, actor, setBy, now) }));
  }

  async linkPull(pull: IssueKey, author: Holder, issues: number[], now: number, opts: LinkPullOptions): Promise<LinkPullResult> {
    return this.transaction(now, async (c, now) => ({ value: await this.work.linkPull(c, pull, author, issues, now, opts) }));
  }

  async renewOnActivity(key: IssueKey, actor: Holder, now: number, opts: ActivityOptions): Promise<ActivityResult & { duplicate?: boolean }> {
    const { text, values } = this.work.mayRenew(key, actor, this.stmtNow(now));
    if ((await this.query(text, values)).rows.length === 0) return { outcome: "none", renewed: [] };
    const policy = await opts.policy();
    if (!policy) return { outcome: "none", renewed: [] };
    return this.transaction(now, async (c, now) => this.work.renewOnActivity(c, key, actor, now, policy, opts.delivery));
  }

  async setExempt(key: IssueKey, actor: Holder, exempt: boolean, now: number, opts: ExemptOptions): Promise<Applied<ExemptResult>> {
    return this.transaction(now, async (c, now) => this.work.setExempt(c, key, actor, exempt, now, opts));
  }

  async latestToken(key: { repoId: number; issue: number }): Promise<number | null> {
    const { rows } = await this.query<{ token: number }>(
      `SELECT token FROM ${pg.escapeIdentifier(this.schema)}.leases WHERE repo_id = $1 AND issue = $2`,
      [key.repoId, key.issue],
    );
    // A row may exist with token 0 before any tenure (a note on a fresh issue).
    const token = rows[0]?.token ?? 0;
    return token > 0 ? token : null;
  }

  // The board (postgres-board.ts).
  async rememberCard(card: IssueCard, now: number, create: boolean): Promise<boolean> {
    const s = pg.escapeIdentifier(this.schema);
    return this.transaction(now, async (c, now) => ({ value: await rememberPostgresCard(c, s, card, now, create) }));
  }

  async rememberVisibility(repo: RepoVisibility, now: number): Promise<boolean> {
    const s = pg.escapeIdentifier(this.schema);
    return this.transaction(now, async (c, now) => ({ value: await rememberPostgresVisibility(c, s, repo, now) }));
  }

  async boardRepo(name: string): Promise<(RepoInfo & { private: boolean | null }) | null> {
    return postgresBoardRepo((text, values) => this.query(text, values), pg.escapeIdentifier(this.schema), name);
  }

  async boardLeases(query: BoardQuery, now: number): Promise<BoardPage> {
    const s = pg.escapeIdentifier(this.schema);
    return postgresBoardLeases((text, values) => this.query(text, values), s, query, nowParam(1), this.stmtNow(now));
  }

  async boardPanels(query: BoardPanelsQuery, now: number): Promise<BoardPanels> {
    const s = pg.escapeIdentifier(this.schema);
    return this.transaction(now, async (c, now) => ({ value: await postgresBoardPanels(c, s, query, now) }));
  }
}
