/**
 * The outbox on PostgreSQL (SQLite's is SqliteLedger's own): effects enqueued in
 * the transaction of the decision they follow (the caller sends the
 * statement), then taken, extended, completed, retried or parked by the
 * drainers of any replica, each write fenced by the attempt it belongs to.
 */
import type { LedgerHealth } from "../admin/admin-roles.js";
import type { OutboxStore } from "../outbox/outbox-roles.js";
import { DB_CLOCK, nowParam, statement, type PostgresConnection, type Statement } from "./connection.js";
import type { Effect, EffectFence, Hold, NewEffect, OutboxStats } from "../outbox/outbox-types.js";

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
    priority: r.priority,
  };
}

export class PostgresOutbox implements OutboxStore, Pick<LedgerHealth, "outboxStats"> {
  readonly sql;

  /** `s`: the quoted schema; `db`: the ledger's connection, for the statements run on their own. */
  constructor(
    s: string,
    private readonly db: PostgresConnection,
  ) {
    this.sql = {
      // An issue's effects apply in order: those before a new effect go at its priority if it is ahead of theirs,
      // so that a reply to a command never waits behind label-only work of its issue held back by GitHub's budget.
      // Their rows are locked in id order, as `followers` locks them: in the order an index on (priority, next_at)
      // reads them (a failed group's backoffs), the two would deadlock.
      inherit: `UPDATE ${s}.outbox SET priority = $3
                WHERE id IN (SELECT id FROM ${s}.outbox
                             WHERE repo_id = $1 AND issue = $2 AND state = 'pending' AND priority > $3
                             ORDER BY id FOR UPDATE)`,
      enqueue: `INSERT INTO ${s}.outbox (repo_id, issue, installation, kind, payload, next_at, created_at, priority, nonce)
                VALUES ($1, $2, $3, $4, $5, $6, $6, $7, replace(gen_random_uuid()::text, '-', ''))`,
      // Only the head (oldest pending effect) of each issue is eligible, so one
      // issue's effects apply in order; SKIP LOCKED lets replicas take different
      // heads at once without ever taking the same one. A head locked by another
      // replica's take (row lock) or by its lease (locked_until) holds back its issue.
      take: `WITH now AS MATERIALIZED (SELECT COALESCE($1::bigint, ${DB_CLOCK}) AS v)
             UPDATE ${s}.outbox SET locked_until = (SELECT v FROM now) + $4, attempts = attempts + 1
             WHERE id IN (
               SELECT o.id FROM ${s}.outbox o
               WHERE o.state = 'pending' AND o.next_at <= (SELECT v FROM now) AND o.locked_until <= (SELECT v FROM now)
                 AND o.id <> ALL($5::bigint[])
                 AND NOT EXISTS (SELECT 1 FROM unnest($3::bigint[], $6::int[]) AS h(installation, priority)
                                 WHERE h.installation = o.installation AND o.priority >= h.priority)
                 AND o.id = (SELECT MIN(p.id) FROM ${s}.outbox p
                             WHERE p.state = 'pending' AND p.repo_id = o.repo_id AND p.issue = o.issue)
               ORDER BY o.priority, o.next_at, o.id
               LIMIT $2
               FOR UPDATE SKIP LOCKED)
             RETURNING *`,
      // What waits behind a head the caller holds (its current attempt, locked), oldest first: the due and
      // unlocked effects of `kind` before the first that is not. Rows locked by FOR UPDATE (no SKIP LOCKED: a
      // row skipped would break the order) are only ever another take of the same issue, which finds it locked.
      followers: `WITH now AS MATERIALIZED (SELECT COALESCE($1::bigint, ${DB_CLOCK}) AS v)
             UPDATE ${s}.outbox SET locked_until = (SELECT v FROM now) + $8, attempts = attempts + 1
             WHERE id IN (
               SELECT o.id FROM ${s}.outbox o
               WHERE o.repo_id = $4 AND o.issue = $5 AND o.state = 'pending' AND o.id > $2
                 AND EXISTS (SELECT 1 FROM ${s}.outbox h WHERE h.id = $2 AND h.attempts = $3 AND h.state = 'pending'
                               AND h.locked_until > (SELECT v FROM now))
                 AND o.id < COALESCE((SELECT MIN(b.id) FROM ${s}.outbox b
                                      WHERE b.repo_id = $4 AND b.issue = $5 AND b.state = 'pending' AND b.id > $2
                                        AND (b.kind <> $6 OR b.next_at > (SELECT v FROM now) OR b.locked_until > (SELECT v FROM now))),
                                     9223372036854775807)
               ORDER BY o.id
               LIMIT $7
               FOR UPDATE)
             RETURNING *`,
      // Each write of an attempt names it: a drainer whose lock was taken over
      // changes nothing. Completing twice (a statement retried) is no change.
      // Rows locked in id order, as `inherit` and `followers` lock an issue's.
      extend: `UPDATE ${s}.outbox o SET locked_until = ${nowParam(3)} + $4
               WHERE o.id IN (SELECT x.id FROM ${s}.outbox x
                              JOIN unnest($1::bigint[], $2::int[]) AS f(id, attempt) ON x.id = f.id AND x.attempts = f.attempt
                              WHERE x.state = 'pending'
                              ORDER BY x.id FOR UPDATE OF x)
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
      stats: `SELECT
                (SELECT COUNT(*) FROM ${s}.outbox WHERE state = 'pending') AS pending,
                (SELECT COUNT(*) FROM ${s}.outbox WHERE state = 'parked') AS parked,
                (SELECT MIN(created_at) FROM ${s}.outbox WHERE state = 'pending') AS oldest`,
    };
  }

  /**
   * One effect's statements, for the caller to send in the transaction of the
   * decision it follows: the issue's pending effects brought up to its
   * priority, and its INSERT.
   */
  enqueue(repoId: number, issue: number, effect: NewEffect, now: number): Statement[] {
    const priority = effect.priority ?? 0;
    return [
      statement(this.sql.inherit, [repoId, issue, priority]),
      statement(this.sql.enqueue, [repoId, issue, effect.installation, effect.kind, JSON.stringify(effect.payload), now, priority]),
    ];
  }

  async takeEffects(
    now: number,
    limit: number,
    lockMs: number,
    hold: Hold[] = [],
    skipIds: number[] = [],
  ): Promise<Effect[]> {
    if (limit <= 0) return [];
    // One statement, so one transaction: if its reply is lost, the effects it
    // took stay locked until `now + lockMs` and are then taken again.
    const { rows } = await this.db.query<OutboxRow>(this.sql.take, [
      this.db.stmtNow(now),
      limit,
      hold.map((h) => h.installation),
      lockMs,
      skipIds,
      hold.map((h) => h.fromPriority),
    ]);
    return rows.sort((a, b) => a.priority - b.priority || a.next_at - b.next_at || a.id - b.id).map(toEffect);
  }

  async takeFollowers(head: Pick<Effect, "id" | "repoId" | "issue" | "attempts">, kind: string, now: number, limit: number, lockMs: number): Promise<Effect[]> {
    if (limit <= 0) return [];
    const { rows } = await this.db.query<OutboxRow>(this.sql.followers, [
      this.db.stmtNow(now),
      head.id,
      head.attempts,
      head.repoId,
      head.issue,
      kind,
      limit,
      lockMs,
    ]);
    return rows.sort((a, b) => a.id - b.id).map(toEffect);
  }

  async extendEffects(fences: EffectFence[], now: number, lockMs: number): Promise<number[]> {
    if (fences.length === 0) return [];
    const { rows } = await this.db.query<{ id: number }>(this.sql.extend, [
      fences.map((f) => f.id),
      fences.map((f) => f.attempt),
      this.db.stmtNow(now),
      lockMs,
    ]);
    return rows.map((r) => r.id);
  }

  async completeEffect(fence: EffectFence, now: number): Promise<boolean> {
    return ((await this.db.query(this.sql.complete, [fence.id, this.db.stmtNow(now), fence.attempt])).rowCount ?? 0) > 0;
  }

  async failEffect(fence: EffectFence, now: number, error: string, retryAt: number | null): Promise<boolean> {
    const r =
      retryAt === null
        ? await this.db.query(this.sql.park, [fence.id, error, fence.attempt])
        : await this.db.query(this.sql.retry, [fence.id, this.db.stmtNow(now), retryAt, error, fence.attempt]);
    return (r.rowCount ?? 0) > 0;
  }

  async unparkEffects(now: number): Promise<number> {
    return (await this.db.query(this.sql.unpark, [this.db.stmtNow(now)])).rowCount ?? 0;
  }

  async outboxStats(): Promise<OutboxStats> {
    const { rows } = await this.db.query<{ pending: number; parked: number; oldest: number | null }>(this.sql.stats, []);
    const s = rows[0]!;
    return { pending: s.pending, parked: s.parked, oldestPendingAt: s.oldest };
  }
}
