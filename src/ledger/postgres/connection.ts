/**
 * How the PostgreSQL ledger (postgres-ledger.ts) and its helpers reach the server:
 * the pool, `now` from the database's clock or the caller's, one statement
 * retried once when its connection fails, and a transaction retried from the
 * start after a deadlock, a serialization failure or a connection lost
 * before COMMIT. Nothing here knows the ledger's tables.
 */
import pg from "pg";

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
  /**
   * Told each time PostgreSQL rolled a transaction back for a deadlock
   * (`40P01`) or a serialization failure (`40001`), before it is run again:
   * contention, which a lock taken out of order turns into a second's stall.
   */
  onConflict?: (sqlstate: string) => void;
  /**
   * false: operations write no lease events (`events` stays empty), for the
   * benchmark that measures what events cost. Default true.
   */
  events?: boolean;
}

/** The database's clock in epoch milliseconds: one clock for all replicas. */
export const DB_CLOCK = "(extract(epoch from clock_timestamp()) * 1000)::bigint";

/** `now` inside a single statement: the caller's value, or (when it is null) the database's clock read once. */
export function nowParam(n: number): string {
  // An uncorrelated scalar subquery is an InitPlan, evaluated once per statement.
  return `(SELECT COALESCE($${n}::bigint, ${DB_CLOCK}))`;
}

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

export function errorCode(err: unknown): string | undefined {
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

type Client = pg.PoolClient;

/** One SQL statement and its parameters, not yet sent. */
export interface Statement {
  text: string;
  values: unknown[];
}

export const statement = (text: string, values: unknown[]): Statement => ({ text, values });

/**
 * Several writes as one statement, each a data-modifying CTE with its
 * parameters renumbered after those before it: one round trip instead of one
 * each. They touch different tables (or rows), so that PostgreSQL running
 * them on one snapshot, in no set order, changes nothing.
 */
export function combineWrites(writes: Statement[]): Statement {
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
export interface Outcome<T> {
  value: T;
  rollback?: boolean;
}

/** The ledger's pool, and the retries around what runs on it; one per `PostgresLedger`. */
export class PostgresConnection {
  readonly pool: pg.Pool;
  private readonly clock: "caller" | "database";
  private readonly log: (message: string, error: unknown) => void;
  private readonly onConflict: ((sqlstate: string) => void) | undefined;
  private closed = false;

  constructor(opts: PostgresLedgerOptions) {
    this.clock = opts.clock ?? "database";
    this.onConflict = opts.onConflict;
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
  stmtNow(now: number): number | null {
    return this.clock === "caller" ? now : null;
  }

  /**
   * One statement outside an explicit transaction. Retried once when the
   * connection fails: the pool discards the broken connection and opens another.
   * Only for reads and for writes that may safely run twice.
   */
  async query<R extends pg.QueryResultRow>(text: string, values: unknown[]): Promise<pg.QueryResult<R>> {
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
  async transaction<T>(callerNow: number, body: (c: Client, now: number) => Promise<Outcome<T>>): Promise<T> {
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
          this.onConflict?.(code);
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

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.pool.end();
  }
}
