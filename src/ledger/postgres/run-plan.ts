/**
 * Runs a plan (plan.ts) on PostgreSQL, inside the caller's READ COMMITTED
 * transaction, in as few round trips as it can: a read (or a lock) is sent
 * when the plan asks for it, and the writes asked for since the last read
 * wait and go with the next read's turn, or at the end, as one statement of
 * data-modifying CTEs. The CTEs of one statement run in no set order, so a
 * second effect of the same batch gets a statement of its own, after: an
 * issue's effects apply in the order of their ids.
 */
import type pg from "pg";
import { leaseOfRow, type LiveLeaseRow, ruleRow, type StateRowFields } from "../lease-rows.js";
import { countsTowardLimits } from "../limit-counting.js";
import { type IssueRow, type LeaseWrite, type Plan, type Step, WRITES } from "../plan.js";
import { pullsColumn, workOf } from "../work-rules.js";
import { combineWrites, type Outcome, statement, type Statement } from "./connection.js";
import type { PostgresOutbox } from "./outbox.js";
import { floorOf } from "./token-floor.js";

type Client = pg.PoolClient;
type Row = StateRowFields<boolean> & { issue: number; token_floor?: number };

/** The claim limits' reads, counting leases in review or not (`count_in_review`). */
function limitSql(s: string, countInReview: boolean) {
  const counted = countsTowardLimits("l", "$4", countInReview);
  const order = "ORDER BY l.repo, l.repo_id, l.issue";
  const inRepo = `SELECT l.* FROM ${s}.leases l WHERE l.holder_id = $2 AND l.repo_id = $1 AND l.issue <> $3 AND ${counted}`;
  return {
    repo: `${inRepo} ${order}`,
    label: `${inRepo}
      AND EXISTS (SELECT 1 FROM ${s}.lease_labels x WHERE x.repo_id = l.repo_id AND x.issue = l.issue AND x.token = l.token AND x.label = $5)
      ${order}`,
    // Every repository of the installation, and this one whether or not it is remembered yet.
    org: `SELECT l.* FROM (SELECT $1::bigint AS repo_id UNION SELECT repo_id FROM ${s}.repos WHERE installation = $5) r
      JOIN ${s}.leases l ON l.repo_id = r.repo_id AND l.holder_id = $2
      WHERE NOT (l.repo_id = $1 AND l.issue = $3) AND ${counted}
      ${order}`,
  };
}

export class PostgresPlans {
  private readonly sql;
  private readonly limits;

  /** `s`: the quoted schema; `schema`: its name, which the advisory locks' names carry. */
  constructor(
    s: string,
    private readonly schema: string,
    private readonly outbox: PostgresOutbox,
  ) {
    this.limits = { counted: limitSql(s, true), notInReview: limitSql(s, false) };
    this.sql = {
      lock: "SELECT pg_advisory_xact_lock(hashtext($1), hashtext($2))",
      lockRow: `SELECT * FROM ${s}.leases WHERE repo_id = $1 AND issue = $2 FOR UPDATE`,
      // Acquire's: the token floor read in the same statement, so that a floor
      // an operator raised applies to the next acquire on every replica, at no
      // extra round trip.
      lockRowFloor: `SELECT l.*, ${floorOf(s)} AS token_floor FROM ${s}.leases l WHERE l.repo_id = $1 AND l.issue = $2 FOR UPDATE OF l`,
      insertFree: `INSERT INTO ${s}.leases (repo_id, issue, repo, token, updated_at) VALUES ($1, $2, $3, 0, $4)
                   ON CONFLICT (repo_id, issue) DO NOTHING`,
      lockRows: `SELECT * FROM ${s}.leases WHERE repo_id = $1 AND issue = ANY($2::bigint[]) ORDER BY issue FOR UPDATE`,
      linksOf: `SELECT pull FROM ${s}.pull_links WHERE repo_id = $1 AND issue = $2 AND author_id = $3 ORDER BY pull`,
      closedBy: `SELECT issue FROM ${s}.pull_links WHERE repo_id = $1 AND pull = $2 ORDER BY issue`,
      replies: `SELECT count(*)::int AS n, max(replied) AS top FROM ${s}.history
                WHERE repo_id = $1 AND actor_id = $2 AND replied > 0 AND at > $3`,
      claimDelivery: `INSERT INTO ${s}.deliveries (id, result, at) VALUES ($1, '', $2) ON CONFLICT (id) DO NOTHING`,
      getDelivery: `SELECT result FROM ${s}.deliveries WHERE id = $1`,

      history: `INSERT INTO ${s}.history
                  (repo_id, repo, issue, op, outcome, actor_id, actor_login, holder_id, holder_login, token, expires_at, at, delivery, replied,
                   actor_instance, holder_instance)
                VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16)`,
      putLease: `UPDATE ${s}.leases SET repo = $3, holder_id = $4, holder_login = $5, token = $6, acquired_at = $7, expires_at = $8,
                   updated_at = $9, remind_at = $10, reminded = false, pulls = $11, exempt = $12, term_ms = $13, holder_instance = $14
                 WHERE repo_id = $1 AND issue = $2`,
      followLease: `UPDATE ${s}.leases SET expires_at = $3, remind_at = $4, reminded = false, pulls = $5, exempt = $6, term_ms = $7, updated_at = $8
                    WHERE repo_id = $1 AND issue = $2`,
      free: `UPDATE ${s}.leases SET holder_id = NULL, holder_login = NULL, holder_instance = NULL, expires_at = NULL, remind_at = NULL, reminded = false,
               updated_at = $3, pulls = NULL, exempt = false, term_ms = NULL
             WHERE repo_id = $1 AND issue = $2`,
      markReminded: `UPDATE ${s}.leases SET reminded = true, updated_at = $3 WHERE repo_id = $1 AND issue = $2`,
      rememberLabels: `INSERT INTO ${s}.lease_labels (repo_id, issue, label, token)
                       SELECT $1, $2, label, $4 FROM unnest($3::text[]) AS label
                       ON CONFLICT (repo_id, issue, label) DO UPDATE SET token = EXCLUDED.token`,
      link: `INSERT INTO ${s}.pull_links (repo_id, pull, issue, author_id) SELECT $1, $2, i, $4 FROM unnest($3::bigint[]) AS i
             ON CONFLICT (repo_id, pull, issue) DO UPDATE SET author_id = excluded.author_id`,
      unlink: `DELETE FROM ${s}.pull_links WHERE repo_id = $1 AND pull = $2 AND issue = ANY($3::bigint[])`,
      putDelivery: `UPDATE ${s}.deliveries SET result = $2 WHERE id = $1`,
    };
  }

  /**
   * Runs `plan` on `c`, the caller's transaction. A redelivery (its delivery id
   * taken) rolls back: nothing of it is kept.
   */
  async run<T>(c: Client, plan: Plan<T>): Promise<Outcome<T>> {
    const waiting: Statement[] = [];
    let effectWaiting = false;
    let rollback = false;
    const flush = async (): Promise<void> => {
      if (waiting.length === 0) return;
      const all = combineWrites(waiting.splice(0));
      effectWaiting = false;
      await c.query(all.text, all.values);
    };
    let next = plan.next();
    while (!next.done) {
      const step = next.value;
      let answer: unknown;
      if (WRITES.has(step.op)) {
        if (step.op === "enqueue" && effectWaiting) await flush();
        waiting.push(...this.writes(step));
        if (step.op === "enqueue") effectWaiting = true;
        // PostgreSQL's history keeps no chain: there is no id to name.
        answer = step.op === "history" ? 0 : undefined;
      } else {
        await flush();
        answer = await this.read(c, step);
        if (step.op === "delivery" && answer !== null) rollback = true;
      }
      next = plan.next(answer);
    }
    await flush();
    return rollback ? { value: next.value, rollback } : { value: next.value };
  }

  private async read(c: Client, s: Step): Promise<unknown> {
    switch (s.op) {
      case "delivery": {
        // First, so that a replica handling the same delivery at the same time
        // waits here on our uncommitted row (unique index), then sees the conflict.
        const claimed = await c.query(this.sql.claimDelivery, [s.id, s.now]);
        if ((claimed.rowCount ?? 0) > 0) return null;
        const { rows } = await c.query<{ result: string }>(this.sql.getDelivery, [s.id]);
        return JSON.parse(rows[0]!.result) as unknown;
      }
      case "serialize":
        for (const [name, key] of s.locks) await c.query(this.sql.lock, [`${this.schema}/${name}`, key]);
        return undefined;
      case "row": {
        // An issue never seen gets a free row with token 0 first, so that two
        // first claims have a row to queue on; it reads exactly like no row.
        const text = s.floor ? this.sql.lockRowFloor : this.sql.lockRow;
        const args = [s.key.repoId, s.key.issue];
        let found = (await c.query<Row>(text, args)).rows[0];
        if (!found) {
          await c.query(this.sql.insertFree, [...args, s.key.repo, s.now]);
          found = (await c.query<Row>(text, args)).rows[0];
        }
        return { ...issueRow(found), floor: found?.token_floor ?? 0 };
      }
      case "rows": {
        const issues = [...new Set(s.issues)];
        if (issues.length === 0) return [];
        return (await c.query<Row>(this.sql.lockRows, [s.repoId, issues])).rows.map((r) => ({ issue: r.issue, ...issueRow(r) }));
      }
      case "held": {
        const text = (s.countInReview ? this.limits.counted : this.limits.notInReview)[s.kind];
        const extra = s.kind === "label" ? [s.label] : s.kind === "org" ? [s.installation] : [];
        const { rows } = await c.query<LiveLeaseRow>(text, [s.key.repoId, s.holderId, s.key.issue, s.now, ...extra]);
        return rows.length >= s.limit ? rows.map(leaseOfRow) : null;
      }
      case "pullsOf":
        return (await c.query<{ pull: number }>(this.sql.linksOf, [s.repoId, s.issue, s.authorId])).rows.map((r) => r.pull);
      case "closedBy":
        return (await c.query<{ issue: number }>(this.sql.closedBy, [s.repoId, s.pull])).rows.map((r) => r.issue);
      case "replies":
        return (await c.query<{ n: number; top: number | null }>(this.sql.replies, [s.repoId, s.actorId, s.since])).rows[0]!;
      default:
        throw new Error(`not a read: ${s.op}`);
    }
  }

  private writes(s: Step): Statement[] {
    switch (s.op) {
      case "history": {
        const { key, actor, lease, ...h } = s.row;
        return [
          statement(this.sql.history, [
            key.repoId,
            key.repo,
            key.issue,
            h.op,
            h.outcome,
            actor?.id ?? null,
            actor?.login ?? null,
            lease?.holder.id ?? null,
            lease?.holder.login ?? null,
            lease ? lease.token : null,
            lease ? lease.expiresAt : null,
            h.at,
            h.delivery,
            h.replied,
            actor?.instance ?? null,
            lease?.holder.instance ?? null,
          ]),
        ];
      }
      case "putLease": {
        // The row exists (the row step made it): a new tenure and the same one carrying on are one UPDATE.
        const { key, lease } = s.write;
        return [
          statement(this.sql.putLease, [
            key.repoId,
            key.issue,
            key.repo,
            lease.holder.id,
            lease.holder.login,
            lease.token,
            lease.acquiredAt,
            lease.expiresAt,
            s.now,
            s.write.remindAt,
            ...work(s.write),
            lease.holder.instance ?? null,
          ]),
        ];
      }
      case "followLease": {
        const { key, lease } = s.write;
        return [statement(this.sql.followLease, [key.repoId, key.issue, lease.expiresAt, s.write.remindAt, ...work(s.write), s.now])];
      }
      case "freeLease":
        return [statement(this.sql.free, [s.key.repoId, s.key.issue, s.now])];
      case "markReminded":
        return [statement(this.sql.markReminded, [s.key.repoId, s.key.issue, s.now])];
      case "setHead":
      case "dropHead":
        // The history's chain is SQLite's: PostgreSQL reads an issue's history through its index.
        return [];
      case "rememberLabels":
        return [statement(this.sql.rememberLabels, [s.key.repoId, s.key.issue, s.labels, s.token])];
      case "relink":
        return [
          ...(s.remove.length > 0 ? [statement(this.sql.unlink, [s.repoId, s.pull, s.remove])] : []),
          ...(s.add.length > 0 ? [statement(this.sql.link, [s.repoId, s.pull, s.add, s.authorId])] : []),
        ];
      case "putDelivery":
        return [statement(this.sql.putDelivery, [s.id, s.result])];
      case "enqueue":
        return [this.outbox.enqueue(s.repoId, s.issue, s.effect, s.now)];
      default:
        throw new Error(`not a write: ${s.op}`);
    }
  }
}

/** What holds a lease, as its row's columns (pulls, exempt, term_ms). */
function work(w: LeaseWrite): [string | null, boolean, number | null] {
  return [pullsColumn(w.lease.heldBy), workOf(w.lease.heldBy).exempt, w.termMs];
}

function issueRow(found: Row | undefined): IssueRow {
  return { rule: ruleRow(found), exists: found !== undefined, head: null };
}
