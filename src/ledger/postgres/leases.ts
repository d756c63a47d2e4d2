/**
 * The PostgreSQL ledger's leases outside its operations (SQLite's are
 * sqlite/leases.ts): an issue's live lease and latest token, the lists and
 * sweeps of held rows, an issue's history and line, a delivery's recorded
 * result, the check before a renewal by activity, and a holder's rename. Each
 * is one statement on its own, retried once when its connection fails
 * (connection.ts), but a rename, one transaction with its effects; `now` is
 * the caller's or the database's clock.
 */
import type { LeasePart } from "../compose-ledger.js";
import { decide } from "../leases/decide.js";
import { effectIn } from "../leases/effect-cases.js";
import type { LeaseMatch, RenameOptions } from "../leases/lease-roles.js";
import { leaseOfRow, type LiveLeaseRow, matchOf, ruleRow, type StateRowFields } from "../leases/lease-rows.js";
import { DB_CLOCK, nowParam, type PostgresConnection } from "./connection.js";
import type { HistoryEntry, HistoryOp, Holder, IssueKey, Lease } from "../leases/lease-types.js";
import { holderOf } from "../leases/lease-types.js";
import { LINE_ORDER, liveEntries, PLACE_COLUMNS, placeOfRow, type PlaceRow, type QueueEntry } from "../queue/queue-types.js";
import { liveSql, unexpiredSql } from "../leases/tenure-rules.js";
import type { PostgresOutbox } from "./outbox.js";

/** A row of `leases`, as the reads here get it. */
export interface LeaseRow extends StateRowFields<boolean> {
  repo_id: number;
  issue: number;
  repo: string;
  remind_at: number | null;
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

/** A row the query read as held (a live lease): the shared mapping of lease-rows.ts. */
export function toLease(row: LeaseRow): Lease {
  return leaseOfRow(row as LiveLeaseRow);
}


export class PostgresLeases implements LeasePart {
  readonly sql;

  /** `s`: the quoted schema; `db`: the ledger's connection; `outbox`: where a rename's effects go. */
  constructor(
    s: string,
    private readonly db: PostgresConnection,
    private readonly outbox: PostgresOutbox,
  ) {
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
      // Also read by the ledger's operations, in their transaction, when a delivery was already claimed.
      getDelivery: `SELECT result FROM ${s}.deliveries WHERE id = $1`,
      current: `SELECT *, ${nowParam(3)} AS now FROM ${s}.leases WHERE repo_id = $1 AND issue = $2`,
      list: `SELECT * FROM ${s}.leases WHERE repo_id = $1 AND ${liveSql(nowParam(2))} ORDER BY issue`,
      // As SQLite's: one pass over the repository's held rows for each list that has names.
      liveAmong: `SELECT DISTINCT lower(holder_login) AS login, NULL::bigint AS token FROM ${s}.leases
                  WHERE cardinality($3::text[]) > 0 AND repo_id = $1 AND ${liveSql(nowParam(2))} AND issue IS DISTINCT FROM $5
                    AND lower(holder_login) = ANY($3::text[])
                  UNION ALL
                  SELECT DISTINCT NULL, token FROM ${s}.leases
                  WHERE cardinality($4::bigint[]) > 0 AND repo_id = $1 AND ${liveSql(nowParam(2))} AND issue IS DISTINCT FROM $5
                    AND token = ANY($4::bigint[])`,
      listHeldBy: `SELECT * FROM ${s}.leases WHERE holder_id = $1 AND ${liveSql(nowParam(2))} ORDER BY repo_id, issue`,
      listAll: `SELECT * FROM ${s}.leases WHERE ${liveSql(nowParam(1))} ORDER BY lower(repo), repo_id, issue`,
      expired: `SELECT * FROM ${s}.leases
                WHERE holder_id IS NOT NULL AND expires_at IS NOT NULL AND expires_at <= ${nowParam(1)}
                ORDER BY expires_at, repo_id, issue LIMIT $2`,
      dueReminders: `WITH now AS MATERIALIZED (SELECT COALESCE($1::bigint, ${DB_CLOCK}) AS v)
                     SELECT l.* FROM ${s}.leases l, now
                     WHERE l.holder_id IS NOT NULL AND NOT l.reminded AND l.remind_at IS NOT NULL AND l.remind_at <= now.v
                       AND ${unexpiredSql("now.v", "l")}
                     ORDER BY l.remind_at, l.repo_id, l.issue LIMIT $2`,
      // The chain from the issue's latest row (named by its lease row, or by
      // history_heads for an issue without one) back through prev, $3 rows at
      // most (always the latest), oldest first: migration 16.
      historyOf: `WITH RECURSIVE back AS (
                    SELECT h.*, 1 AS depth FROM ${s}.history h
                    WHERE h.id = coalesce((SELECT last_history FROM ${s}.leases WHERE repo_id = $1 AND issue = $2),
                                          (SELECT last FROM ${s}.history_heads WHERE repo_id = $1 AND issue = $2))
                    UNION ALL
                    SELECT h.*, back.depth + 1 FROM back JOIN ${s}.history h ON h.id = back.prev WHERE back.depth < $3
                  )
                  SELECT * FROM back ORDER BY id`,
      latestToken: `SELECT token FROM ${s}.leases WHERE repo_id = $1 AND issue = $2`,
      line: `SELECT ${PLACE_COLUMNS} FROM ${s}.queue WHERE repo_id = $1 AND issue = $2 AND ended_at IS NULL ORDER BY ${LINE_ORDER}`,
    };
  }

  async mayRenew(key: IssueKey, actor: Holder, now: number): Promise<boolean> {
    const found = await this.db.query(this.sql.mayRenew, [key.repoId, actor.id, key.issue, this.db.stmtNow(now)]);
    return found.rows.length > 0;
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
        for (const effect of effectIn(opts?.effect, repos.get(lease.repoId))) {
          for (const e of this.outbox.enqueue(lease.repoId, lease.issue, effect, now)) await c.query(e.text, e.values);
        }
      }
      return { value: renamed };
    });
  }

  async recorded(delivery: string): Promise<unknown> {
    const { rows } = await this.db.query<{ result: string }>(this.sql.getDelivery, [delivery]);
    // '' while the transaction that claimed it has not committed: not recorded yet.
    return rows[0] && rows[0].result !== "" ? (JSON.parse(rows[0].result) as unknown) : null;
  }

  async current(key: IssueKey, now: number): Promise<Lease | null> {
    const { rows } = await this.db.query<LeaseRow & { now: number }>(this.sql.current, [key.repoId, key.issue, this.db.stmtNow(now)]);
    // With the database's clock, `now` is the one read by the statement.
    return decide.live(key, ruleRow(rows[0]), rows[0]?.now ?? now);
  }

  async list(repoId: number, now: number): Promise<Lease[]> {
    return (await this.db.query<LeaseRow>(this.sql.list, [repoId, this.db.stmtNow(now)])).rows.map(toLease);
  }

  async liveAmong(repoId: number, now: number, match: LeaseMatch, except: number | null): Promise<LeaseMatch> {
    const values = [repoId, this.db.stmtNow(now), match.logins.map((l) => l.toLowerCase()), match.tokens, except];
    return matchOf((await this.db.query<{ login: string | null; token: number | null }>(this.sql.liveAmong, values)).rows);
  }

  async listHeldBy(holderId: number, now: number): Promise<Lease[]> {
    return (await this.db.query<LeaseRow>(this.sql.listHeldBy, [holderId, this.db.stmtNow(now)])).rows.map(toLease);
  }

  async listAll(now: number): Promise<Lease[]> {
    return (await this.db.query<LeaseRow>(this.sql.listAll, [this.db.stmtNow(now)])).rows.map(toLease);
  }

  async expiredSince(now: number, limit = 1000): Promise<Lease[]> {
    return (await this.db.query<LeaseRow>(this.sql.expired, [this.db.stmtNow(now), limit])).rows.map(toLease);
  }

  async dueReminders(now: number, limit = 1000): Promise<Lease[]> {
    return (await this.db.query<LeaseRow>(this.sql.dueReminders, [this.db.stmtNow(now), limit])).rows.map(toLease);
  }

  async history(key: { repoId: number; issue: number }, limit = 1000): Promise<HistoryEntry[]> {
    const { rows } = await this.db.query<HistoryRow>(this.sql.historyOf, [key.repoId, key.issue, limit]);
    return rows.map((r) => ({
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

  async queue(key: { repoId: number; issue: number }, now: number): Promise<QueueEntry[]> {
    const { rows } = await this.db.query<PlaceRow>(this.sql.line, [key.repoId, key.issue]);
    return liveEntries(rows.map(placeOfRow), now);
  }

  async latestToken(key: { repoId: number; issue: number }): Promise<number | null> {
    const { rows } = await this.db.query<{ token: number }>(this.sql.latestToken, [key.repoId, key.issue]);
    // A row may exist with token 0 before any tenure (a note on a fresh issue).
    const token = rows[0]?.token ?? 0;
    return token > 0 ? token : null;
  }
}
