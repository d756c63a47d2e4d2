import { mkdirSync } from "node:fs";
import { dirname } from "node:path";
import Database from "better-sqlite3";
import { decide, type Row } from "./decide.js";
import { ruleRow } from "./lease-rows.js";
import { HOUR_MS, REPLIED } from "./reply-budget.js";
import { SchemaBehindError } from "./schema-behind-error.js";
import { SQLITE_MIGRATIONS } from "./sqlite-migrations.js";
import { SqlitePolicies } from "./sqlite-policies.js";
import { SqliteBoard } from "./sqlite-board.js";
import { GroupCommit } from "./sqlite-group-commit.js";
import { claimServing } from "./sqlite-serving.js";
import { raiseSqliteTokenFloor } from "./sqlite-token-floor.js";
import { SqliteWork } from "./sqlite-work.js";
import { heldByOf, heldByWork, parsePulls, pullsColumn, workOf } from "./work-rules.js";
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
  RepoInfo,
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

export interface SqliteLedgerOptions {
  /** How long a writer waits for another process's transaction before failing; generous, since waits are short. */
  busyTimeoutMs?: number;
  /** false: throw SchemaBehindError on a schema that is behind, instead of migrating it. */
  migrate?: boolean;
  /**
   * This process serves the file as the app: refuse to open it while another
   * process serves it, and take over the locks of one that died.
   */
  serve?: boolean;
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
  reminded: number;
  due_at: number | null;
  last_history: number | null;
  pulls: string | null;
  exempt: number;
  term_ms: number | null;
}

/** Opens (creating if needed) a SQLite database with the ledger's durability settings and migrates it. */
export function openSqlite(file: string, opts: SqliteLedgerOptions = {}): Database.Database {
  if (file !== ":memory:") mkdirSync(dirname(file), { recursive: true });
  const db = new Database(file);
  // A concurrent writer waits instead of surfacing SQLITE_BUSY to the caller.
  db.pragma(`busy_timeout = ${opts.busyTimeoutMs ?? 60_000}`);
  if (opts.migrate === false) {
    // Before any pragma that writes: a database refused is left as it was.
    const version = { current: db.pragma("user_version", { simple: true }) as number, latest: SQLITE_MIGRATIONS.length };
    if (version.current < version.latest) {
      db.close();
      throw new SchemaBehindError(version);
    }
  }
  db.pragma("journal_mode = WAL");
  // FULL, not NORMAL: under NORMAL a committed transaction can roll back after
  // an OS crash or power loss, and a token already handed out would be handed
  // to someone else.
  db.pragma("synchronous = FULL");
  db.pragma("foreign_keys = ON");
  if (opts.migrate ?? true) migrateSqlite(db);
  return db;
}

/** Applies the migrations the database has not seen yet, each in its own IMMEDIATE transaction. */
export function migrateSqlite(db: Database.Database, upTo = SQLITE_MIGRATIONS.length): number {
  for (;;) {
    const step = db.transaction(() => {
      const version = db.pragma("user_version", { simple: true }) as number;
      if (version >= upTo) return false;
      db.exec(SQLITE_MIGRATIONS[version]!);
      db.pragma(`user_version = ${version + 1}`);
      return true;
    });
    // IMMEDIATE: two processes starting at once must not both run a migration.
    if (!step.immediate()) break;
  }
  return db.pragma("user_version", { simple: true }) as number;
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
    heldBy: heldByOf({ pulls: parsePulls(row.pulls), exempt: row.exempt === 1 }),
  };
}

/** What an operation reads of its issue's row: what the rules need (decide.ts's Row), and the latest history row. */
type StateRow = Pick<
  LeaseRow,
  "holder_id" | "holder_login" | "holder_instance" | "token" | "acquired_at" | "expires_at" | "reminded" | "last_history" | "pulls" | "exempt" | "term_ms"
>;


const LIVE = "holder_id IS NOT NULL AND (expires_at IS NULL OR expires_at > @now)";

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
    this.st = {
      get: db.prepare<[number, number], StateRow>(
        `SELECT holder_id, holder_login, holder_instance, token, acquired_at, expires_at, reminded, last_history, pulls, exempt, term_ms
         FROM leases WHERE repo_id = ? AND issue = ?`,
      ),
      upsert: db.prepare(
        `INSERT INTO leases (repo_id, issue, repo, holder_id, holder_login, holder_instance, token, acquired_at, expires_at, updated_at, remind_at,
           reminded, last_history, pulls, exempt, term_ms)
         VALUES (@repoId, @issue, @repo, @holderId, @holderLogin, @holderInstance, @token, @acquiredAt, @expiresAt, @now, @remindAt, 0, @lastHistory,
           @pulls, @exempt, @termMs)
         ON CONFLICT (repo_id, issue) DO UPDATE SET
           repo = excluded.repo, holder_id = excluded.holder_id, holder_login = excluded.holder_login, holder_instance = excluded.holder_instance,
           token = excluded.token, acquired_at = excluded.acquired_at, expires_at = excluded.expires_at,
           updated_at = excluded.updated_at, remind_at = excluded.remind_at, reminded = 0, last_history = excluded.last_history,
           pulls = excluded.pulls, exempt = excluded.exempt, term_ms = excluded.term_ms`,
      ),
      // The same tenure carries on: its expiry (and the login, for display)
      // changes. Not naming holder_id leaves leases_held untouched.
      extend: db.prepare(
        `UPDATE leases SET repo = @repo, holder_login = @holderLogin, expires_at = @expiresAt, updated_at = @now,
           remind_at = @remindAt, reminded = 0, last_history = @lastHistory, pulls = @pulls, exempt = @exempt, term_ms = @termMs
         WHERE repo_id = @repoId AND issue = @issue`,
      ),
      free: db.prepare(
        `UPDATE leases SET holder_id = NULL, holder_login = NULL, holder_instance = NULL, expires_at = NULL, remind_at = NULL, reminded = 0,
           updated_at = @now, last_history = @lastHistory, pulls = NULL, exempt = 0, term_ms = NULL
         WHERE repo_id = @repoId AND issue = @issue`,
      ),
      history: db.prepare(
        `INSERT INTO history (repo_id, repo, issue, op, outcome, actor_id, actor_login, actor_instance, holder_id, holder_login, holder_instance,
           token, expires_at, at, delivery, prev, replied)
         VALUES (@repoId, @repo, @issue, @op, @outcome, @actorId, @actorLogin, @actorInstance, @holderId, @holderLogin, @holderInstance,
           @token, @expiresAt, @at, @delivery, @prev, @replied)`,
      ),
      // The replies an actor got in a repository since @since, and whether one was the notice.
      replies: db.prepare<{ repoId: number; actorId: number; since: number }, { n: number; top: number | null }>(
        `SELECT count(*) AS n, max(replied) AS top FROM history INDEXED BY history_replies
         WHERE repo_id = @repoId AND actor_id = @actorId AND replied > 0 AND at > @since`,
      ),
      setLastHistory: db.prepare("UPDATE leases SET last_history = @id WHERE repo_id = @repoId AND issue = @issue"),
      historyHead: db.prepare<[number, number], number>("SELECT last FROM history_heads WHERE repo_id = ? AND issue = ?").pluck(),
      putHistoryHead: db.prepare(
        `INSERT INTO history_heads (repo_id, issue, last) VALUES (@repoId, @issue, @id)
         ON CONFLICT (repo_id, issue) DO UPDATE SET last = excluded.last`,
      ),
      dropHistoryHead: db.prepare("DELETE FROM history_heads WHERE repo_id = ? AND issue = ?"),
      // Read in each acquire's transaction, not once: `issue-leases token-floor`
      // may raise it while the app serves the file.
      tokenFloor: db.prepare<[], number>("SELECT floor FROM token_floor WHERE id = 1").pluck(),
      // The lists read held rows only (leases_held): free rows, which are
      // never deleted, outnumber them more every day.
      list: db.prepare<{ repoId: number; now: number }, LeaseRow>(
        `SELECT * FROM leases INDEXED BY leases_held WHERE repo_id = @repoId AND ${LIVE} ORDER BY issue`,
      ),
      listHeldBy: db.prepare<{ holderId: number; now: number }, LeaseRow>(
        `SELECT * FROM leases INDEXED BY leases_held WHERE holder_id = @holderId AND ${LIVE} ORDER BY repo_id, issue`,
      ),
      listAll: db.prepare<{ now: number }, LeaseRow>(
        `SELECT * FROM leases INDEXED BY leases_held WHERE ${LIVE} ORDER BY repo COLLATE NOCASE, repo_id, issue`,
      ),
      // Both sweeps read leases_by_due. due_at is the earlier of the expiry
      // and the reminder not yet sent, so every row either wants has
      // due_at <= now, and the rows in that range are the sweeper's backlog;
      // the rest of each WHERE picks its rows exactly. Ties in the order go by
      // the primary key, as they did in the expiry and reminder indexes.
      expired: db.prepare<{ now: number; limit: number }, LeaseRow>(
        `SELECT * FROM leases INDEXED BY leases_by_due
         WHERE due_at <= @now AND holder_id IS NOT NULL AND expires_at <= @now
         ORDER BY expires_at, repo_id, issue LIMIT @limit`,
      ),
      dueReminders: db.prepare<{ now: number; limit: number }, LeaseRow>(
        `SELECT * FROM leases INDEXED BY leases_by_due
         WHERE due_at <= @now AND holder_id IS NOT NULL AND reminded = 0 AND remind_at <= @now
           AND (expires_at IS NULL OR expires_at > @now)
         ORDER BY remind_at, repo_id, issue LIMIT @limit`,
      ),
      // In one repository, through leases_held (repo_id, holder_id): what
      // every webhook's sender may cost, so an index probe and no more.
      renamedIn: db
        .prepare<{ repoId: number; holderId: number; login: string; now: number }, number>(
          `SELECT 1 FROM leases INDEXED BY leases_held
           WHERE repo_id = @repoId AND holder_id = @holderId AND holder_login <> @login AND ${LIVE} LIMIT 1`,
        )
        .pluck(),
      // Every repository: reads all held rows, which only a rename (rare) pays for.
      rename: db.prepare<{ holderId: number; login: string; now: number }, LeaseRow>(
        `UPDATE leases INDEXED BY leases_held SET holder_login = @login, updated_at = @now
         WHERE holder_id = @holderId AND holder_login <> @login AND ${LIVE} RETURNING *`,
      ),
      markReminded: db.prepare(
        "UPDATE leases SET reminded = 1, updated_at = @now, last_history = @lastHistory WHERE repo_id = @repoId AND issue = @issue",
      ),
      getDelivery: db.prepare<[string], { result: string }>("SELECT result FROM deliveries WHERE id = ?"),
      putDelivery: db.prepare("INSERT INTO deliveries (id, result, at) VALUES (?, ?, ?)"),
      historyOf: db.prepare<{ repoId: number; issue: number; limit: number }, Record<string, unknown>>(
        `WITH RECURSIVE chain (id, n) AS (
           SELECT coalesce(
             (SELECT last_history FROM leases WHERE repo_id = @repoId AND issue = @issue),
             (SELECT last FROM history_heads WHERE repo_id = @repoId AND issue = @issue)), 1
           UNION ALL
           SELECT h.prev, chain.n + 1 FROM chain JOIN history h ON h.id = chain.id WHERE chain.n < @limit
         )
         SELECT h.* FROM chain JOIN history h ON h.id = chain.id ORDER BY h.id`,
      ),
      enqueue: db.prepare(
        `INSERT INTO outbox (repo_id, issue, installation, kind, payload, next_at, created_at, priority, nonce)
         VALUES (@repoId, @issue, @installation, @kind, @payload, @now, @now, @priority, lower(hex(randomblob(12))))`,
      ),
      heads: db.prepare<{ now: number; limit: number }, Record<string, unknown>>(
        `SELECT o.* FROM outbox o
         WHERE o.state = 'pending' AND o.next_at <= @now AND o.locked_until <= @now
           AND o.id = (SELECT MIN(p.id) FROM outbox p WHERE p.state = 'pending' AND p.repo_id = o.repo_id AND p.issue = o.issue)
         ORDER BY o.priority, o.next_at, o.id LIMIT @limit`,
      ),
      lock: db.prepare("UPDATE outbox SET locked_until = @until, attempts = attempts + 1 WHERE id = @id"),
      // Each write of an attempt names it: a drainer whose lock was taken over changes nothing.
      extendEffect: db.prepare("UPDATE outbox SET locked_until = @until WHERE id = @id AND attempts = @attempt AND state = 'pending'"),
      complete: db.prepare(
        "UPDATE outbox SET state = 'done', done_at = @now, locked_until = 0 WHERE id = @id AND attempts = @attempt AND state = 'pending'",
      ),
      retry: db.prepare(
        `UPDATE outbox SET next_at = @retryAt, locked_until = 0, last_error = @error
         WHERE id = @id AND attempts = @attempt AND state = 'pending'`,
      ),
      park: db.prepare(
        `UPDATE outbox SET state = 'parked', locked_until = 0, last_error = @error
         WHERE id = @id AND attempts = @attempt AND state = 'pending'`,
      ),
      // Attempts are kept: the first attempt after this looks for a reply already posted.
      unpark: db.prepare(
        `UPDATE outbox SET state = 'pending', next_at = @now,
           late = EXISTS (SELECT 1 FROM outbox n WHERE n.repo_id = outbox.repo_id AND n.issue = outbox.issue
                            AND n.id > outbox.id AND n.state = 'done')
         WHERE state = 'parked'`,
      ),
      unlockEffects: db.prepare("UPDATE outbox SET locked_until = 0 WHERE state = 'pending' AND locked_until > 0"),
      unlockAll: db.prepare("DELETE FROM locks"),
      getReflection: db.prepare<[number, number], { state: string }>(
        "SELECT state FROM reflections WHERE repo_id = ? AND issue = ?",
      ),
      putReflection: db.prepare(
        `INSERT INTO reflections (repo_id, issue, state, updated_at) VALUES (@repoId, @issue, @state, @now)
         ON CONFLICT (repo_id, issue) DO UPDATE SET state = excluded.state, updated_at = excluded.updated_at`,
      ),
      rememberRepo: db.prepare(
        `INSERT INTO repos (repo_id, repo, installation, updated_at) VALUES (@repoId, @repo, @installation, @now)
         ON CONFLICT (repo_id) DO UPDATE SET repo = excluded.repo, installation = excluded.installation, updated_at = excluded.updated_at`,
      ),
      repoInfo: db.prepare<[number], { repo_id: number; repo: string; installation: number }>(
        "SELECT repo_id, repo, installation FROM repos WHERE repo_id = ?",
      ),
      findRepo: db.prepare<[string], { repo_id: number; repo: string; installation: number }>(
        `SELECT repo_id, repo, installation FROM repos WHERE repo = ? COLLATE NOCASE
         ORDER BY updated_at DESC, repo_id DESC LIMIT 1`,
      ),
      tryLock: db.prepare(
        `INSERT INTO locks (name, owner, until) VALUES (@name, @owner, @until)
         ON CONFLICT (name) DO UPDATE SET owner = excluded.owner, until = excluded.until
         WHERE locks.until <= @now OR locks.owner = excluded.owner`,
      ),
      unlockNamed: db.prepare("DELETE FROM locks WHERE name = ? AND owner = ?"),
      stats: db.prepare<[], { pending: number; parked: number; oldest: number | null }>(
        `SELECT
           (SELECT COUNT(*) FROM outbox WHERE state = 'pending') AS pending,
           (SELECT COUNT(*) FROM outbox WHERE state = 'parked') AS parked,
           (SELECT MIN(created_at) FROM outbox WHERE state = 'pending') AS oldest`,
      ),
    };
    if (serves) {
      // Every lock in the file is a dead process's: take them over now, not when they expire.
      this.immediate(() => {
        this.st.unlockEffects.run();
        this.st.unlockAll.run();
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
      for (const effect of opts?.effects?.(result, budget ?? "reply") ?? []) {
        this.st.enqueue.run({
          repoId: key.repoId,
          issue: key.issue,
          installation: effect.installation,
          kind: effect.kind,
          payload: JSON.stringify(effect.payload),
          now,
          priority: effect.priority ?? 0,
        });
      }
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
        const info = this.st.repoInfo.get(lease.repoId);
        const repo = info ? { repoId: info.repo_id, repo: info.repo, installation: info.installation } : null;
        for (const effect of opts?.effects?.(lease, repo) ?? []) {
          this.st.enqueue.run({
            repoId: lease.repoId,
            issue: lease.issue,
            installation: effect.installation,
            kind: effect.kind,
            payload: JSON.stringify(effect.payload),
            now,
            priority: effect.priority ?? 0,
          });
        }
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
    const skip = new Set(skipInstallations);
    const applying = new Set(skipIds);
    return this.immediate((): Effect[] => {
      // Over-fetch a little so that skipped installations and effects do not starve the others.
      const rows = this.st.heads.all({ now, limit: limit + skip.size * limit + applying.size });
      const taken: Effect[] = [];
      for (const r of rows) {
        if (taken.length >= limit) break;
        if (skip.has(r.installation as number) || applying.has(r.id as number)) continue;
        this.st.lock.run({ id: r.id, until: now + lockMs });
        taken.push({
          id: r.id as number,
          repoId: r.repo_id as number,
          issue: r.issue as number,
          installation: r.installation as number,
          kind: r.kind as string,
          payload: JSON.parse(r.payload as string) as unknown,
          attempts: (r.attempts as number) + 1,
          createdAt: r.created_at as number,
          nonce: (r.nonce as string | null) ?? null,
          late: r.late === 1,
        });
      }
      return taken;
    });
  }

  async extendEffects(fences: EffectFence[], now: number, lockMs: number): Promise<number[]> {
    if (fences.length === 0) return [];
    return this.immediate(() =>
      fences.filter((f) => this.st.extendEffect.run({ id: f.id, attempt: f.attempt, until: now + lockMs }).changes > 0).map((f) => f.id),
    );
  }

  async completeEffect(fence: EffectFence, now: number): Promise<boolean> {
    return this.st.complete.run({ id: fence.id, attempt: fence.attempt, now }).changes > 0;
  }

  async failEffect(fence: EffectFence, now: number, error: string, retryAt: number | null): Promise<boolean> {
    const at = { id: fence.id, attempt: fence.attempt, error };
    const r = retryAt === null ? this.st.park.run(at) : this.st.retry.run({ ...at, retryAt: Math.max(retryAt, now) });
    return r.changes > 0;
  }

  async unparkEffects(now: number): Promise<number> {
    return this.st.unpark.run({ now }).changes;
  }

  async outboxStats(): Promise<OutboxStats> {
    const s = this.st.stats.get()!;
    return { pending: s.pending, parked: s.parked, oldestPendingAt: s.oldest };
  }

  async schemaVersion(): Promise<SchemaVersion> {
    return { current: this.db.pragma("user_version", { simple: true }) as number, latest: SQLITE_MIGRATIONS.length };
  }

  async getReflection(repoId: number, issue: number): Promise<unknown> {
    const row = this.st.getReflection.get(repoId, issue);
    return row ? (JSON.parse(row.state) as unknown) : null;
  }

  async putReflection(repoId: number, issue: number, state: unknown, now: number): Promise<void> {
    this.st.putReflection.run({ repoId, issue, state: JSON.stringify(state), now });
  }

  async rememberRepo(repo: RepoInfo, now: number): Promise<void> {
    this.st.rememberRepo.run({ ...repo, now });
  }

  async repoInfo(repoId: number): Promise<RepoInfo | null> {
    const row = this.st.repoInfo.get(repoId);
    return row ? { repoId: row.repo_id, repo: row.repo, installation: row.installation } : null;
  }

  async findRepo(name: string): Promise<RepoInfo | null> {
    const row = this.st.findRepo.get(name);
    return row ? { repoId: row.repo_id, repo: row.repo, installation: row.installation } : null;
  }

  async tryLock(name: string, owner: string, now: number, ttlMs: number): Promise<boolean> {
    return this.st.tryLock.run({ name, owner, now, until: now + ttlMs }).changes > 0;
  }

  async unlock(name: string, owner: string): Promise<void> {
    this.st.unlockNamed.run(name, owner);
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
    // commit does not wait for the disk (synchronous NORMAL in WAL mode; the
    // next commit of a lease syncs it along). Nothing else is written so.
    const sync = this.db.pragma("synchronous", { simple: true }) as number;
    if (sync > 1) this.db.pragma("synchronous = NORMAL");
    try {
      return this.immediate(() => this.board.rememberCard(card, now, create));
    } finally {
      if (sync > 1) this.db.pragma(`synchronous = ${sync}`);
    }
  }

  async rememberVisibility(repo: RepoVisibility, now: number): Promise<boolean> {
    return this.immediate(() => this.board.rememberVisibility(repo, now));
  }

  async boardRepo(name: string): Promise<(RepoInfo & { private: boolean | null }) | null> {
    return this.board.boardRepo(name);
  }

  async boardLeases(query: BoardQuery, now: number): Promise<BoardPage> {
    return this.board.leases(query, now);
  }

  async boardPanels(query: BoardPanelsQuery, now: number): Promise<BoardPanels> {
    // One read transaction: the panels agree with each other.
    return this.db.transaction(() => this.board.panels(query, now))();
  }
}
