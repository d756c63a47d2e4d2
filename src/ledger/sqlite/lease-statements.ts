/**
 * The SQLite ledger's statements on its leases: each issue's row, its history
 * (a chain through `prev`, headed by the row or by `history_heads`), the
 * deliveries already applied, the token floor, and the lists and sweeps that
 * read held rows through their indexes. Prepared once by `SqliteLedger`,
 * which runs them in its operations' transactions.
 */
import type Database from "better-sqlite3";
import { leaseOfRow, type LiveLeaseRow, type StateRowFields } from "../leases/lease-rows.js";
import type { Lease } from "../leases/lease-types.js";
import { liveSql, unexpiredSql } from "../leases/tenure-rules.js";

export interface LeaseRow extends StateRowFields<number> {
  repo_id: number;
  issue: number;
  repo: string;
  remind_at: number | null;
  due_at: number | null;
  last_history: number | null;
}

/** What an operation reads of its issue's row: what the rules need (decide.ts's Row), and the latest history row. */
export type StateRow = Pick<
  LeaseRow,
  "holder_id" | "holder_login" | "holder_instance" | "token" | "acquired_at" | "expires_at" | "reminded" | "last_history" | "pulls" | "exempt" | "term_ms"
>;

const LIVE = liveSql("@now");

/**
 * The columns a live lease is made of (LiveLeaseRow), for the reads that
 * list leases: not `*`, since making each row's object costs by the column,
 * and the outbox lists a repository's leases for nearly every effect it
 * applies (which labels are still in use).
 */
const LEASE_COLUMNS = "repo_id, repo, issue, holder_id, holder_login, holder_instance, token, acquired_at, expires_at, pulls, exempt";

/** A row the query read as held (a live lease): the shared mapping of lease-rows.ts. */
export function toLease(row: LiveLeaseRow | LeaseRow): Lease {
  return leaseOfRow(row as LiveLeaseRow);
}

/**
 * The statements by name. Spelled out because the package's declarations
 * (tsconfig.build.json) cannot name the type better-sqlite3 infers.
 */
export interface LeaseStatements {
  get: Database.Statement<[number, number], StateRow>;
  upsert: Database.Statement;
  extend: Database.Statement;
  free: Database.Statement;
  history: Database.Statement;
  replies: Database.Statement<{ repoId: number; actorId: number; since: number }, { n: number; top: number | null }>;
  setLastHistory: Database.Statement;
  historyHead: Database.Statement<[number, number], number>;
  putHistoryHead: Database.Statement;
  dropHistoryHead: Database.Statement;
  tokenFloor: Database.Statement<[], number>;
  list: Database.Statement<{ repoId: number; now: number }, LiveLeaseRow>;
  liveAmong: Database.Statement<{ repoId: number; now: number; logins: string; tokens: string; except: number | null }, { login: string | null; token: number | null }>;
  listHeldBy: Database.Statement<{ holderId: number; now: number }, LiveLeaseRow>;
  listAll: Database.Statement<{ now: number }, LiveLeaseRow>;
  expired: Database.Statement<{ now: number; limit: number }, LiveLeaseRow>;
  dueReminders: Database.Statement<{ now: number; limit: number }, LiveLeaseRow>;
  renamedIn: Database.Statement<{ repoId: number; holderId: number; login: string; now: number }, number>;
  rename: Database.Statement<{ holderId: number; login: string; now: number }, LeaseRow>;
  markReminded: Database.Statement;
  getDelivery: Database.Statement<[string], { result: string }>;
  putDelivery: Database.Statement;
  historyOf: Database.Statement<{ repoId: number; issue: number; limit: number }, Record<string, unknown>>;
}

/** The statements, prepared once on the ledger's connection. */
export function leaseStatements(db: Database.Database): LeaseStatements {
  return {
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
    list: db.prepare<{ repoId: number; now: number }, LiveLeaseRow>(
      `SELECT ${LEASE_COLUMNS} FROM leases INDEXED BY leases_held WHERE repo_id = @repoId AND ${LIVE} ORDER BY issue`,
    ),
    // `logins` (lower case) and `tokens`: JSON arrays. One pass over the repository's held rows for each list
    // (none for an empty one), not one per name: a repository's effects ask for dozens of names at once.
    liveAmong: db.prepare<{ repoId: number; now: number; logins: string; tokens: string; except: number | null }, { login: string | null; token: number | null }>(
      `SELECT DISTINCT lower(holder_login) AS login, NULL AS token FROM leases INDEXED BY leases_held
       WHERE json_array_length(@logins) > 0 AND repo_id = @repoId AND ${LIVE} AND issue IS NOT @except
         AND lower(holder_login) IN (SELECT value FROM json_each(@logins))
       UNION ALL
       SELECT DISTINCT NULL, token FROM leases INDEXED BY leases_held
       WHERE json_array_length(@tokens) > 0 AND repo_id = @repoId AND ${LIVE} AND issue IS NOT @except
         AND token IN (SELECT value FROM json_each(@tokens))`,
    ),
    listHeldBy: db.prepare<{ holderId: number; now: number }, LiveLeaseRow>(
      `SELECT ${LEASE_COLUMNS} FROM leases INDEXED BY leases_held WHERE holder_id = @holderId AND ${LIVE} ORDER BY repo_id, issue`,
    ),
    listAll: db.prepare<{ now: number }, LiveLeaseRow>(
      `SELECT ${LEASE_COLUMNS} FROM leases INDEXED BY leases_held WHERE ${LIVE} ORDER BY repo COLLATE NOCASE, repo_id, issue`,
    ),
    // Both sweeps read leases_by_due. due_at is the earlier of the expiry
    // and the reminder not yet sent, so every row either wants has
    // due_at <= now, and the rows in that range are the sweeper's backlog;
    // the rest of each WHERE picks its rows exactly. Ties in the order go by
    // the primary key, as they did in the expiry and reminder indexes.
    expired: db.prepare<{ now: number; limit: number }, LiveLeaseRow>(
      `SELECT ${LEASE_COLUMNS} FROM leases INDEXED BY leases_by_due
         WHERE due_at <= @now AND holder_id IS NOT NULL AND expires_at <= @now
         ORDER BY expires_at, repo_id, issue LIMIT @limit`,
    ),
    dueReminders: db.prepare<{ now: number; limit: number }, LiveLeaseRow>(
      `SELECT ${LEASE_COLUMNS} FROM leases INDEXED BY leases_by_due
         WHERE due_at <= @now AND holder_id IS NOT NULL AND reminded = 0 AND remind_at <= @now
           AND ${unexpiredSql("@now")}
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
  };
}
