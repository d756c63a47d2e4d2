/**
 * The PostgreSQL ledger's named locks (the sweep lock, a repository's label
 * and pull request link turns): session advisory locks, all held on one
 * connection of their own, outside the pool. A lock ends with the session
 * that holds it, so a replica killed with -9 lets go the moment the server
 * sees its socket close, and the next replica (or the one restarted in its
 * place) takes over at once; a lock row with an expiry would stop everyone
 * until it expired.
 *
 * The connection is the lock: it is never returned to a pool, and when it
 * fails, closes, or stops answering the checks run on it every few seconds,
 * every lock held on it is lost at once (their signals abort) and the next
 * `hold` opens another. The server, for its part, drops a connection that
 * went silent (a dead host, a partition) through TCP keepalives set for the
 * session, later than this side gives up on it, so two holders never work
 * at once for long. Needs a session of its own on the server: behind
 * PgBouncer, session pooling (or a direct connection), not transaction
 * pooling.
 */
import { createHash } from "node:crypto";
import pg from "pg";
import { isConnectionError, synchronousCommit } from "./connection.js";
import type { HeldLock } from "../admin/admin-roles.js";

/** How often the lock connection is asked `SELECT 1`: keeps it from looking idle, and finds out it is dead. */
const CHECK_EVERY_MS = 5_000;
/** A check unanswered this long loses every lock: well before the server's keepalives free them (10 s + 2 × 5 s after its last packet). */
const CHECK_DEADLINE_MS = 10_000;
const SERVER_KEEPALIVES = "-c tcp_keepalives_idle=10 -c tcp_keepalives_interval=5 -c tcp_keepalives_count=2";
const CONNECT_TIMEOUT_MS = 3_000;

/**
 * The advisory lock key of `name` in `schema`: advisory locks are the
 * database's, not a schema's, and several apps (or tests) may share a
 * database under schemas of their own. 64 bits of a hash: two names sharing
 * a key would only take turns they need not take. The single-bigint key
 * space is apart from the (int, int) one the migrations and the claim limits use.
 */
export function advisoryKey(schema: string, name: string): bigint {
  return createHash("sha256").update(`issue-leases\0${schema}\0${name}`).digest().readBigInt64BE(0);
}

interface LockConnection {
  client: pg.Client;
  timer: NodeJS.Timeout;
  checking: boolean;
}

export class PostgresSessionLocks {
  /** The lock connection, once asked for; shared by every `hold` while it lives. */
  private conn: Promise<LockConnection> | null = null;
  /** The same, once connected. */
  private current: LockConnection | null = null;
  /** Per name, what aborts its holder: a name in here (held, or being taken) is busy for this process too. */
  private readonly held = new Map<string, AbortController>();
  private closed = false;

  constructor(
    private readonly o: {
      connectionString: string;
      schema: string;
      log: (message: string, error: unknown) => void;
    },
  ) {}

  /** Takes the lock `name` if no session holds it, and keeps it until released; null if another holder has it. */
  async hold(name: string): Promise<HeldLock | null> {
    if (this.closed) throw new Error("the ledger is closed");
    // Advisory locks count per session: this session taking it twice would succeed twice.
    if (this.held.has(name)) return null;
    const lost = new AbortController();
    this.held.set(name, lost);
    const key = advisoryKey(this.o.schema, name).toString();
    let conn: LockConnection | undefined;
    let ok: boolean;
    try {
      conn = await this.connection();
      const { rows } = await conn.client.query<{ ok: boolean }>("SELECT pg_try_advisory_lock($1::bigint) AS ok", [key]);
      ok = rows[0]?.ok === true;
    } catch (err) {
      if (this.held.get(name) === lost) this.held.delete(name);
      if (conn && isConnectionError(err)) this.discard(conn, "the lock connection failed", err);
      throw err;
    }
    const on = conn;
    // The connection was lost while the answer came: the lock went with it.
    if (lost.signal.aborted) return null;
    if (!ok) {
      this.held.delete(name);
      return null;
    }
    return {
      signal: lost.signal,
      release: async () => {
        if (this.held.get(name) !== lost) return;
        this.held.delete(name);
        try {
          await on.client.query("SELECT pg_advisory_unlock($1::bigint)", [key]);
        } catch (err) {
          // Not known to be let go: only ending the session surely lets go of it.
          this.discard(on, `the lock connection failed letting go of ${name}`, err);
        }
      },
    };
  }

  /** Loses every lock and closes the connection. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.conn?.catch(() => null);
    const conn = this.current;
    if (conn) {
      this.discard(conn, "the ledger closed", null);
      await conn.client.end().catch(() => undefined);
    }
  }

  private connection(): Promise<LockConnection> {
    this.conn ??= this.connect().catch((err: unknown) => {
      this.conn = null;
      throw err;
    });
    return this.conn;
  }

  private async connect(): Promise<LockConnection> {
    const settings = synchronousCommit(this.o.connectionString);
    const client = new pg.Client({
      connectionString: settings.connectionString,
      options: `${settings.options} ${SERVER_KEEPALIVES}`,
      connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
      keepAlive: true,
      fallback_application_name: "issue-leases locks",
    });
    // Before connecting: an error without a listener would crash the process.
    client.on("error", (err) => this.current?.client === client && this.discard(this.current, "the lock connection failed", err));
    client.on("end", () => this.current?.client === client && this.discard(this.current, "the lock connection closed", null));
    try {
      await client.connect();
    } catch (err) {
      await client.end().catch(() => undefined);
      throw err;
    }
    const conn: LockConnection = { client, checking: false, timer: setInterval(() => this.check(conn), CHECK_EVERY_MS) };
    conn.timer.unref();
    this.current = conn;
    return conn;
  }

  private check(conn: LockConnection): void {
    if (conn.checking) return;
    conn.checking = true;
    const silent = () => this.discard(conn, `the lock connection did not answer within ${CHECK_DEADLINE_MS} ms`, null);
    const deadline = setTimeout(silent, CHECK_DEADLINE_MS);
    deadline.unref();
    conn.client.query("SELECT 1").then(
      () => {
        clearTimeout(deadline);
        conn.checking = false;
      },
      (err: unknown) => {
        clearTimeout(deadline);
        this.discard(conn, "the lock connection failed", err);
      },
    );
  }

  /** Every lock on `conn` is lost: their holders stop, and the next `hold` opens a new connection. */
  private discard(conn: LockConnection, reason: string, err: unknown): void {
    clearInterval(conn.timer);
    if (this.current !== conn) return;
    this.current = null;
    this.conn = null;
    const names = [...this.held.keys()];
    for (const lost of this.held.values()) lost.abort(new Error(`${reason}: the lock is lost`));
    this.held.clear();
    if (!this.closed) this.o.log(`${reason}; ${names.length ? `lost ${names.join(", ")}` : "no lock was held"}`, err);
    // Ends the session if the server still has it, so that nothing stays locked behind this side's back.
    void conn.client.end().catch(() => undefined);
  }
}
