/**
 * The inventory of open issues on PostgreSQL (migration 17; SQLite's in
 * sqlite/inventory.ts, the rules in inventory-rules.ts, the ready walk in
 * ready-walk.ts). A batch of snapshots is one transaction: the rows stored
 * are read locked (two replicas writing one issue take turns), the rules
 * decide, and what applies is written in a few set statements.
 */
import type pg from "pg";
import { labelKeys, type ReadyRow, snapshotApplies, type StoredIssue } from "../inventory/inventory-rules.js";
import type { InventoryFill, IssueSnapshot, ReadyPage, ReadyQuery } from "../inventory/inventory-types.js";
import { MAX_OWNER_REPOS, walkReady } from "../inventory/ready-walk.js";
import type { Inventory } from "../inventory/inventory-roles.js";
import type { RepoInfo } from "../repos/repo-memory.js";
import { nowParam, type PostgresConnection } from "./connection.js";
import { liveSql } from "../leases/tenure-rules.js";

/** The issue's label rows to drop and to add, as the three arrays `unnest` takes. */
interface LabelRows {
  labels: string[];
  created: number[];
  issues: number[];
}

const push = (rows: LabelRows, labels: string[], createdAt: number, issue: number) => {
  for (const label of labels) {
    rows.labels.push(label);
    rows.created.push(createdAt);
    rows.issues.push(issue);
  }
};

export class PostgresInventory implements Inventory {
  private readonly sql;

  /** `s`: the quoted schema. */
  constructor(
    s: string,
    private readonly db: PostgresConnection,
  ) {
    // A live lease on the issue, as a scalar subquery: evaluated row by row as the index is read in order, where an
    // EXISTS in WHERE may be planned as an anti-join over every lease. A ready row's extras: the repository's name, an
    // open pull request that closes it (pull_links_by_issue), a live lease. $6: only free issues.
    const held = `(SELECT true FROM ${s}.leases l WHERE l.repo_id = i.repo_id AND l.issue = i.issue AND ${liveSql(nowParam(5), "l")} LIMIT 1) IS NOT NULL`;
    const extras = `r.repo, EXISTS (SELECT 1 FROM ${s}.pull_links p WHERE p.repo_id = i.repo_id AND p.issue = i.issue) AS pulls, ${held} AS held`;
    this.sql = {
      // A row to lock for each issue not stored yet (its time before any payload's): two transactions writing one new
      // issue take turns on it, as on a stored one, instead of both reading nothing and the later insert winning.
      placeholders: `INSERT INTO ${s}.inventory (repo_id, issue, title, labels, assignees, created_at, state, updated_at)
                     SELECT $1, i, '', '[]', '[]', 0, 'new', -1 FROM unnest($2::bigint[]) AS i ON CONFLICT DO NOTHING`,
      stored: `SELECT issue, state, updated_at, labels, created_at FROM ${s}.inventory WHERE repo_id = $1 AND issue = ANY($2::bigint[]) ORDER BY issue FOR UPDATE`,
      put: `INSERT INTO ${s}.inventory AS k (repo_id, issue, title, labels, assignees, milestone, author_id, author_login, created_at, state,
                                            blocked_by_open, open_sub_issues, updated_at)
            SELECT * FROM jsonb_to_recordset($1::jsonb) AS x (repo_id bigint, issue bigint, title text, labels text, assignees text,
              milestone text, author_id bigint, author_login text, created_at bigint, state text, blocked_by_open integer,
              open_sub_issues integer, updated_at bigint)
            ON CONFLICT (repo_id, issue) DO UPDATE SET title = EXCLUDED.title, labels = EXCLUDED.labels, assignees = EXCLUDED.assignees,
              milestone = EXCLUDED.milestone, author_id = EXCLUDED.author_id, author_login = EXCLUDED.author_login,
              created_at = EXCLUDED.created_at, state = EXCLUDED.state, blocked_by_open = EXCLUDED.blocked_by_open,
              open_sub_issues = EXCLUDED.open_sub_issues, updated_at = EXCLUDED.updated_at`,
      dropLabels: `DELETE FROM ${s}.inventory_labels x USING unnest($2::text[], $3::bigint[], $4::bigint[]) AS d (label, created_at, issue)
                   WHERE x.repo_id = $1 AND x.label = d.label AND x.created_at = d.created_at AND x.issue = d.issue`,
      addLabels: `INSERT INTO ${s}.inventory_labels (repo_id, label, created_at, issue)
                  SELECT $1, label, created_at, issue FROM unnest($2::text[], $3::bigint[], $4::bigint[]) AS a (label, created_at, issue)
                  ON CONFLICT DO NOTHING`,
      openOf: `SELECT issue, updated_at, labels, created_at FROM ${s}.inventory WHERE repo_id = $1 AND state = 'open' FOR UPDATE`,
      close: `UPDATE ${s}.inventory SET state = 'closed' WHERE repo_id = $1 AND issue = ANY($2::bigint[])`,
      markFilled: `INSERT INTO ${s}.inventory_fills (repo_id, filled_at, issues) VALUES ($1, $2, $3)
                   ON CONFLICT (repo_id) DO UPDATE SET filled_at = EXCLUDED.filled_at, issues = EXCLUDED.issues`,
      lastFill: `SELECT filled_at, issues FROM ${s}.inventory_fills WHERE repo_id = $1`,
      stale: `SELECT r.repo_id, r.repo, r.installation FROM ${s}.repos r LEFT JOIN ${s}.inventory_fills f ON f.repo_id = r.repo_id
              WHERE f.repo_id IS NULL OR f.filled_at < $1 ORDER BY coalesce(f.filled_at, 0), r.repo_id LIMIT $2`,
      ofOwner: `SELECT r.repo_id, r.repo, r.installation FROM ${s}.inventory_fills f JOIN ${s}.repos r ON r.repo_id = f.repo_id
                WHERE left(lower(r.repo), length($1)) = $1 ORDER BY r.repo_id LIMIT $2`,
      forget: `WITH issues AS (DELETE FROM ${s}.inventory WHERE repo_id = ANY($1::bigint[]) RETURNING 1),
                    labels AS (DELETE FROM ${s}.inventory_labels WHERE repo_id = ANY($1::bigint[])),
                    fills AS (DELETE FROM ${s}.inventory_fills WHERE repo_id = ANY($1::bigint[]))
               SELECT count(*)::int AS n FROM issues`,
      // Through inventory_open, in its order: the walk stops reading once it has enough.
      openPage: `SELECT i.*, ${extras} FROM ${s}.inventory i LEFT JOIN ${s}.repos r ON r.repo_id = i.repo_id
                 WHERE i.repo_id = $1 AND i.state = 'open' AND (i.created_at, i.issue) > ($2, $3) AND (NOT $6::boolean OR NOT (${held}))
                 ORDER BY i.created_at, i.issue LIMIT $4`,
      // Through the label's rows (their primary key), in creation order; each issue by its primary key. Label rows are
      // an open issue's only (written with its state), so the issue's state is not asked again: asked, it could steer the
      // planner to inventory_open, read from the repository's start for each row.
      labelPage: `SELECT i.*, ${extras} FROM ${s}.inventory_labels x JOIN ${s}.inventory i ON i.repo_id = x.repo_id AND i.issue = x.issue
                    LEFT JOIN ${s}.repos r ON r.repo_id = i.repo_id
                  WHERE x.repo_id = $1 AND x.label = $7 AND (x.created_at, x.issue) > ($2, $3) AND (NOT $6::boolean OR NOT (${held}))
                  ORDER BY x.created_at, x.issue LIMIT $4`,
    };
  }

  private async relabel(c: pg.PoolClient, repoId: number, drop: LabelRows, add: LabelRows): Promise<void> {
    if (drop.labels.length > 0) await c.query(this.sql.dropLabels, [repoId, drop.labels, drop.created, drop.issues]);
    if (add.labels.length > 0) await c.query(this.sql.addLabels, [repoId, add.labels, add.created, add.issues]);
  }

  /** One repository's snapshots, inside the caller's transaction. */
  private async writeRepo(c: pg.PoolClient, repoId: number, snaps: IssueSnapshot[]): Promise<number> {
    // In issue order, so that two batches lock their rows in the same order.
    const issues = [...new Set(snaps.map((x) => x.issue))].sort((a, b) => a - b);
    await c.query(this.sql.placeholders, [repoId, issues]);
    const { rows } = await c.query<StoredIssue & { issue: number }>(this.sql.stored, [repoId, issues]);
    const stored = new Map(rows.map((r) => [Number(r.issue), r]));
    const drop: LabelRows = { labels: [], created: [], issues: [] };
    const add: LabelRows = { labels: [], created: [], issues: [] };
    const put: unknown[] = [];
    // The last snapshot of an issue in the batch is the one that counts, as if written one after another.
    const latest = new Map(snaps.map((x) => [x.issue, x]));
    for (const snap of latest.values()) {
      const before = stored.get(snap.issue);
      if (!snapshotApplies(before, snap)) continue;
      if (before) push(drop, labelKeys(JSON.parse(before.labels) as string[], before.state), Number(before.created_at), snap.issue);
      push(add, labelKeys(snap.labels, snap.state), snap.createdAt, snap.issue);
      put.push({
        repo_id: repoId, issue: snap.issue, title: snap.title, labels: JSON.stringify(snap.labels), assignees: JSON.stringify(snap.assignees),
        milestone: snap.milestone, author_id: snap.author?.id ?? null, author_login: snap.author?.login ?? null, created_at: snap.createdAt,
        state: snap.state, blocked_by_open: snap.blockedByOpen, open_sub_issues: snap.openSubIssues, updated_at: snap.updatedAt,
      });
    }
    if (put.length === 0) return 0;
    await c.query(this.sql.put, [JSON.stringify(put)]);
    await this.relabel(c, repoId, drop, add);
    return put.length;
  }

  async rememberIssues(issues: readonly IssueSnapshot[], now: number): Promise<number> {
    if (issues.length === 0) return 0;
    const byRepo = new Map<number, IssueSnapshot[]>();
    for (const snap of issues) byRepo.set(snap.repoId, [...(byRepo.get(snap.repoId) ?? []), snap]);
    return this.db.transaction(now, async (c) => {
      let written = 0;
      for (const [repoId, snaps] of [...byRepo].sort((a, b) => a[0] - b[0])) written += await this.writeRepo(c, repoId, snaps);
      return { value: written };
    });
  }

  async closeUnseen(repoId: number, seen: readonly number[], before: number, now: number): Promise<number> {
    const saw = new Set(seen);
    return this.db.transaction(now, async (c) => {
      const { rows } = await c.query<{ issue: number; updated_at: number; labels: string; created_at: number }>(this.sql.openOf, [repoId]);
      const gone = rows.filter((r) => !saw.has(Number(r.issue)) && Number(r.updated_at) < before);
      if (gone.length === 0) return { value: 0 };
      const drop: LabelRows = { labels: [], created: [], issues: [] };
      for (const r of gone) push(drop, labelKeys(JSON.parse(r.labels) as string[], "open"), Number(r.created_at), Number(r.issue));
      await c.query(this.sql.close, [repoId, gone.map((r) => r.issue)]);
      await this.relabel(c, repoId, drop, { labels: [], created: [], issues: [] });
      return { value: gone.length };
    });
  }

  async markFilled(fill: InventoryFill, _now: number): Promise<void> {
    await this.db.query(this.sql.markFilled, [fill.repoId, fill.filledAt, fill.issues]);
  }

  async lastFill(repoId: number): Promise<InventoryFill | null> {
    const { rows } = await this.db.query<{ filled_at: number; issues: number }>(this.sql.lastFill, [repoId]);
    return rows[0] ? { repoId, filledAt: Number(rows[0].filled_at), issues: rows[0].issues } : null;
  }

  async staleFills(before: number, limit: number): Promise<RepoInfo[]> {
    const { rows } = await this.db.query<{ repo_id: number; repo: string; installation: number }>(this.sql.stale, [before, limit]);
    return rows.map((r) => ({ repoId: Number(r.repo_id), repo: r.repo, installation: Number(r.installation) }));
  }

  async inventoryRepos(owner: string): Promise<RepoInfo[]> {
    const { rows } = await this.db.query<{ repo_id: number; repo: string; installation: number }>(this.sql.ofOwner, [`${owner.toLowerCase()}/`, MAX_OWNER_REPOS]);
    return rows.map((r) => ({ repoId: Number(r.repo_id), repo: r.repo, installation: Number(r.installation) }));
  }

  async forgetInventory(repoIds: readonly number[], _now: number): Promise<number> {
    if (repoIds.length === 0) return 0;
    const { rows } = await this.db.query<{ n: number }>(this.sql.forget, [repoIds]);
    return rows[0]!.n;
  }

  async readyIssues(query: ReadyQuery, now: number): Promise<ReadyPage> {
    const stmtNow = this.db.stmtNow(now);
    return walkReady(
      async (repoId, label, [c, n], limit, _now, free) => {
        const params: unknown[] = [repoId, c, n, limit, stmtNow, free];
        const { rows } = await this.db.query<ReadyRow>(label === null ? this.sql.openPage : this.sql.labelPage, label === null ? params : [...params, label]);
        return rows;
      },
      query,
      now,
    );
  }
}
