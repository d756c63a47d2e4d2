/**
 * Leases that follow the work, on PostgreSQL (migration 12; SQLite's
 * sqlite/work.ts): which open pull requests close which issues
 * (`pull_links`), the leases they hold, the holder's activity that renews a
 * lease, and exempt labels. The rules are work-rules.ts's. Each operation
 * runs on the caller's transaction (postgres.ts) and locks the lease rows it
 * may change, in the order of their issues, before reading them: operations
 * on one row lock it alone, so no two transactions wait on each other in a
 * circle.
 */
import type pg from "pg";
import { decide } from "../decide.js";
import { ruleRow, type StateRowFields } from "../lease-rows.js";
import { nowParam } from "./connection.js";
import type { Applied, Holder, IssueKey, Lease } from "../types.js";
import type { ActivityPolicy, ActivityResult, ExemptOptions, ExemptResult, Followed, LinkPullOptions, LinkPullResult } from "../work-types.js";
import {
  followExempt,
  followPulls,
  heldByWork,
  pullsColumn,
  remindAtFor,
  renewedByActivity,
  workOf,
} from "../work-rules.js";

type Client = pg.PoolClient;

interface WorkRow extends StateRowFields<boolean> {
  issue: number;
}

/** An operation's value, and whether to roll back (a redelivery: nothing of it is kept). */
interface Outcome<T> {
  value: T;
  rollback?: boolean;
}

export class PostgresWork {
  readonly sql;

  /** `s`: the quoted schema. */
  constructor(s: string) {
    this.sql = {
      linksOf: `SELECT pull FROM ${s}.pull_links WHERE repo_id = $1 AND issue = $2 AND author_id = $3 ORDER BY pull`,
      closedBy: `SELECT issue FROM ${s}.pull_links WHERE repo_id = $1 AND pull = $2 ORDER BY issue`,
      link: `INSERT INTO ${s}.pull_links (repo_id, pull, issue, author_id) SELECT $1, $2, i, $4 FROM unnest($3::bigint[]) AS i
             ON CONFLICT (repo_id, pull, issue) DO UPDATE SET author_id = excluded.author_id`,
      unlink: `DELETE FROM ${s}.pull_links WHERE repo_id = $1 AND pull = $2 AND issue = ANY($3::bigint[])`,
      lockRows: `SELECT * FROM ${s}.leases WHERE repo_id = $1 AND issue = ANY($2::bigint[]) ORDER BY issue FOR UPDATE`,
      write: `UPDATE ${s}.leases SET expires_at = $3, remind_at = $4, reminded = false, pulls = $5, exempt = $6, term_ms = $7, updated_at = $8
              WHERE repo_id = $1 AND issue = $2`,
      history: `INSERT INTO ${s}.history
                  (repo_id, repo, issue, op, outcome, actor_id, actor_login, holder_id, holder_login, token, expires_at, at, delivery,
                   actor_instance, holder_instance)
                VALUES ($1, $2, $3, 'follow', $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14)`,
      enqueue: `INSERT INTO ${s}.outbox (repo_id, issue, installation, kind, payload, next_at, created_at, priority, nonce)
                VALUES ($1, $2, $3, $4, $5, $6, $6, $7, replace(gen_random_uuid()::text, '-', ''))`,
      claimDelivery: `INSERT INTO ${s}.deliveries (id, result, at) VALUES ($1, '', $2) ON CONFLICT (id) DO NOTHING`,
      getDelivery: `SELECT result FROM ${s}.deliveries WHERE id = $1`,
      putDelivery: `UPDATE ${s}.deliveries SET result = $2 WHERE id = $1`,
      // What every comment by anyone costs when it is no command: the actor's
      // leases in the repository that time holds (leases_held), on the issue
      // or on one the pull request closes. One read, no write.
      mayRenew: `SELECT 1 FROM ${s}.leases
                 WHERE repo_id = $1 AND holder_id = $2 AND expires_at IS NOT NULL AND expires_at > ${nowParam(4)}
                   AND (issue = $3 OR issue IN (SELECT issue FROM ${s}.pull_links WHERE repo_id = $1 AND pull = $3))
                 LIMIT 1`,
    };
  }

  /** A claim's lease as its work holds it (see SqliteWork.claimed). */
  async claimed(c: Client, key: IssueKey, lease: Lease, newTenure: boolean, exempt: boolean | undefined): Promise<Lease> {
    const pulls = (await c.query<{ pull: number }>(this.sql.linksOf, [key.repoId, key.issue, lease.holder.id])).rows.map((r) => r.pull);
    return heldByWork(lease, { pulls, exempt: exempt ?? (newTenure ? false : workOf(lease.heldBy).exempt) });
  }

  async linkPull(c: Client, pull: IssueKey, author: Holder, issues: number[], now: number, opts: LinkPullOptions): Promise<LinkPullResult> {
    const repoId = pull.repoId;
    const before = (await c.query<{ issue: number }>(this.sql.closedBy, [repoId, pull.issue])).rows.map((r) => r.issue);
    const wanted = [...new Set(issues)].filter((i) => i > 0 && i !== pull.issue);
    const gone = before.filter((i) => !wanted.includes(i));
    if (gone.length > 0) await c.query(this.sql.unlink, [repoId, pull.issue, gone]);
    if (wanted.length > 0) await c.query(this.sql.link, [repoId, pull.issue, wanted, author.id]);

    const start = Math.min(opts.at ?? now, now);
    const changed: Followed[] = [];
    // Locked before the links are read again: a pull request linking the same issue at once waits here, then reads ours.
    for (const state of await this.lock(c, repoId, [...before, ...wanted])) {
      const key = { repoId, repo: pull.repo, issue: state.issue };
      const current = decide.live(key, ruleRow(state), now);
      // A pull request holds only its author's lease.
      if (!current || current.holder.id !== author.id) continue;
      const pulls = (await c.query<{ pull: number }>(this.sql.linksOf, [repoId, state.issue, author.id])).rows.map((r) => r.pull);
      const followed = followPulls(current, pulls, opts.resume, start);
      if (!followed) continue;
      const resumed = followed.change === "resumed";
      await this.store(c, key, followed, author, now, null, resumed ? opts.resume.ttl : state.term_ms, resumed ? opts.resume.remindBefore : null);
      changed.push(followed);
    }
    for (const e of opts.effects?.(changed) ?? []) {
      await c.query(this.sql.enqueue, [repoId, e.issue, e.installation, e.kind, JSON.stringify(e.payload), now, e.priority ?? 0]);
    }
    return { outcome: "linked", changed };
  }

  /** The read `renewOnActivity` makes first, outside any transaction; `now` null reads the database's clock. */
  mayRenew(key: IssueKey, actor: Holder, now: number | null): { text: string; values: unknown[] } {
    return { text: this.sql.mayRenew, values: [key.repoId, actor.id, key.issue, now] };
  }

  async renewOnActivity(
    c: Client,
    key: IssueKey,
    actor: Holder,
    now: number,
    policy: ActivityPolicy,
    delivery: string | undefined,
  ): Promise<Outcome<Applied<ActivityResult>>> {
    const seen = await this.claimDelivery<ActivityResult>(c, delivery, now);
    if (seen) return { value: { ...seen, duplicate: true }, rollback: true };
    const linked = (await c.query<{ issue: number }>(this.sql.closedBy, [key.repoId, key.issue])).rows.map((r) => r.issue);
    const renewed: Lease[] = [];
    for (const state of await this.lock(c, key.repoId, [key.issue, ...linked])) {
      const k = { ...key, issue: state.issue };
      const current = decide.live(k, ruleRow(state), now);
      const r = current && renewedByActivity(current, actor.id, state.term_ms, policy.fallbackTtl, now);
      if (!r) continue;
      await this.store(c, k, { change: "renewed", lease: r.lease }, actor, now, delivery ?? null, r.termMs, policy.remindBefore);
      renewed.push(r.lease);
    }
    const result: ActivityResult = { outcome: renewed.length > 0 ? "renewed" : "none", renewed };
    if (delivery !== undefined) await c.query(this.sql.putDelivery, [delivery, JSON.stringify(result)]);
    return { value: { ...result, duplicate: false } };
  }

  async setExempt(
    c: Client,
    key: IssueKey,
    actor: Holder,
    exempt: boolean,
    now: number,
    opts: ExemptOptions,
  ): Promise<Outcome<Applied<ExemptResult>>> {
    const seen = await this.claimDelivery<ExemptResult>(c, opts.delivery, now);
    if (seen) return { value: { ...seen, duplicate: true }, rollback: true };
    const [state] = await this.lock(c, key.repoId, [key.issue]);
    const current = decide.live(key, ruleRow(state), now);
    const followed = current && followExempt(current, exempt, opts.resume, now);
    let result: ExemptResult = { outcome: "unchanged", lease: current };
    if (state && followed) {
      const resumed = followed.change === "resumed";
      const term = resumed ? opts.resume.ttl : state.term_ms;
      await this.store(c, key, followed, actor, now, opts.delivery ?? null, term, resumed ? opts.resume.remindBefore : null);
      result = { outcome: resumed ? "resumed" : "suspended", lease: followed.lease };
    }
    if (opts.delivery !== undefined) await c.query(this.sql.putDelivery, [opts.delivery, JSON.stringify(result)]);
    return { value: { ...result, duplicate: false } };
  }

  /** The lease rows of `issues` that exist, locked, in the order of their issues. */
  private async lock(c: Client, repoId: number, issues: number[]): Promise<WorkRow[]> {
    const unique = [...new Set(issues)];
    if (unique.length === 0) return [];
    return (await c.query<WorkRow>(this.sql.lockRows, [repoId, unique])).rows;
  }

  /**
   * Claims the delivery id first (a replica handling the same delivery waits
   * on it, then sees it taken); returns the first result when it was.
   */
  private async claimDelivery<R>(c: Client, delivery: string | undefined, now: number): Promise<R | null> {
    if (delivery === undefined) return null;
    const claimed = await c.query(this.sql.claimDelivery, [delivery, now]);
    if ((claimed.rowCount ?? 0) > 0) return null;
    const { rows } = await c.query<{ result: string }>(this.sql.getDelivery, [delivery]);
    return JSON.parse(rows[0]!.result) as R;
  }

  /** Writes a lease the work changed, and its `follow` history row. */
  private async store(
    c: Client,
    key: IssueKey,
    followed: Followed,
    actor: Holder,
    now: number,
    delivery: string | null,
    termMs: number | null,
    remindBefore: number | null,
  ): Promise<void> {
    const { lease } = followed;
    await c.query(this.sql.write, [
      key.repoId,
      key.issue,
      lease.expiresAt,
      remindAtFor(lease.expiresAt, termMs, remindBefore),
      pullsColumn(lease.heldBy),
      workOf(lease.heldBy).exempt,
      termMs,
      now,
    ]);
    await c.query(this.sql.history, [
      key.repoId,
      key.repo,
      key.issue,
      followed.change,
      actor.id,
      actor.login,
      lease.holder.id,
      lease.holder.login,
      lease.token,
      lease.expiresAt,
      now,
      delivery,
      actor.instance ?? null,
      lease.holder.instance ?? null,
    ]);
  }
}
