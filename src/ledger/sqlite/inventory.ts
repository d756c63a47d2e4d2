/**
 * The inventory of open issues on SQLite (migration 17; the rules in
 * inventory-rules.ts, the ready walk in ready-walk.ts). Each write is one
 * BEGIN IMMEDIATE transaction whose commit does not wait for the disk
 * (unsynced-commit.ts): the inventory is what GitHub shows, and the next
 * event or reconcile brings a lost write back; lease writes always wait.
 */
import type Database from "better-sqlite3";
import { labelKeys, type ReadyRow, snapshotApplies, type StoredIssue } from "../inventory/inventory-rules.js";
import type { InventoryFill, IssueSnapshot, ReadyPage, ReadyQuery } from "../inventory/inventory-types.js";
import { MAX_OWNER_REPOS, walkReady } from "../inventory/ready-walk.js";
import type { Inventory } from "../inventory/inventory-roles.js";
import type { RepoInfo } from "../repos/repo-memory.js";
import type { UnsyncedCommit } from "./unsynced-commit.js";
import { liveSql } from "../leases/tenure-rules.js";

// A live lease on the issue (the lease row's primary key).
const HELD = `EXISTS (SELECT 1 FROM leases l WHERE l.repo_id = i.repo_id AND l.issue = i.issue AND ${liveSql("@now", "l")})`;
// What a ready row carries besides the issue's own columns: its repository's name, an open pull request that closes it
// (pull_links_by_issue), a live lease.
const READY_COLUMNS = `i.repo_id, r.repo, i.issue, i.title, i.labels, i.assignees, i.milestone, i.author_id, i.author_login, i.created_at,
  i.blocked_by_open, i.open_sub_issues,
  EXISTS (SELECT 1 FROM pull_links p WHERE p.repo_id = i.repo_id AND p.issue = i.issue) AS pulls, ${HELD} AS held`;

type PageParams = { repoId: number; label?: string; c: number; n: number; limit: number; now: number; free: number };

export class SqliteInventory implements Inventory {
  private readonly st;

  private readonly immediate: <T>(f: () => T) => T;
  private readonly unsynced: UnsyncedCommit;

  /** `tx`: the ledger's BEGIN IMMEDIATE transactions on `db`, and its commit that does not wait for the disk. */
  constructor(db: Database.Database, tx: { immediate: <T>(f: () => T) => T; unsynced: UnsyncedCommit }) {
    this.immediate = tx.immediate;
    this.unsynced = tx.unsynced;
    this.st = {
      stored: db.prepare<[number, number], StoredIssue>("SELECT state, updated_at, labels, created_at FROM inventory WHERE repo_id = ? AND issue = ?"),
      put: db.prepare(
        `INSERT INTO inventory (repo_id, issue, title, labels, assignees, milestone, author_id, author_login, created_at, state,
                                blocked_by_open, open_sub_issues, updated_at)
         VALUES (@repoId, @issue, @title, @labels, @assignees, @milestone, @authorId, @authorLogin, @createdAt, @state,
                 @blockedByOpen, @openSubIssues, @updatedAt)
         ON CONFLICT (repo_id, issue) DO UPDATE SET title = excluded.title, labels = excluded.labels, assignees = excluded.assignees,
           milestone = excluded.milestone, author_id = excluded.author_id, author_login = excluded.author_login,
           created_at = excluded.created_at, state = excluded.state, blocked_by_open = excluded.blocked_by_open,
           open_sub_issues = excluded.open_sub_issues, updated_at = excluded.updated_at`,
      ),
      dropLabel: db.prepare("DELETE FROM inventory_labels WHERE repo_id = ? AND label = ? AND created_at = ? AND issue = ?"),
      addLabel: db.prepare("INSERT OR IGNORE INTO inventory_labels (repo_id, label, created_at, issue) VALUES (?, ?, ?, ?)"),
      openOf: db.prepare<[number], { issue: number; updated_at: number; labels: string; created_at: number }>(
        "SELECT issue, updated_at, labels, created_at FROM inventory WHERE repo_id = ? AND state = 'open'",
      ),
      close: db.prepare("UPDATE inventory SET state = 'closed' WHERE repo_id = ? AND issue = ?"),
      markFilled: db.prepare(
        `INSERT INTO inventory_fills (repo_id, filled_at, issues) VALUES (@repoId, @filledAt, @issues)
         ON CONFLICT (repo_id) DO UPDATE SET filled_at = excluded.filled_at, issues = excluded.issues`,
      ),
      lastFill: db.prepare<[number], { filled_at: number; issues: number }>("SELECT filled_at, issues FROM inventory_fills WHERE repo_id = ?"),
      stale: db.prepare<[number, number], { repo_id: number; repo: string; installation: number }>(
        `SELECT r.repo_id, r.repo, r.installation FROM repos r LEFT JOIN inventory_fills f ON f.repo_id = r.repo_id
         WHERE f.repo_id IS NULL OR f.filled_at < ? ORDER BY coalesce(f.filled_at, 0), r.repo_id LIMIT ?`,
      ),
      // The prefix compared as text, not with LIKE, whose `_` a name may contain.
      ofOwner: db.prepare<{ prefix: string; limit: number }, { repo_id: number; repo: string; installation: number }>(
        `SELECT r.repo_id, r.repo, r.installation FROM inventory_fills f JOIN repos r ON r.repo_id = f.repo_id
         WHERE substr(lower(r.repo), 1, length(@prefix)) = @prefix ORDER BY r.repo_id LIMIT @limit`,
      ),
      forgetIssues: db.prepare("DELETE FROM inventory WHERE repo_id = ?"),
      forgetLabels: db.prepare("DELETE FROM inventory_labels WHERE repo_id = ?"),
      forgetFill: db.prepare("DELETE FROM inventory_fills WHERE repo_id = ?"),
      // Through inventory_open, in its order: the walk stops reading once it has enough.
      openPage: db.prepare<PageParams, ReadyRow>(
        `SELECT ${READY_COLUMNS} FROM inventory i INDEXED BY inventory_open LEFT JOIN repos r ON r.repo_id = i.repo_id
         WHERE i.repo_id = @repoId AND i.state = 'open' AND (i.created_at, i.issue) > (@c, @n) AND (@free = 0 OR NOT ${HELD})
         ORDER BY i.created_at, i.issue LIMIT @limit`,
      ),
      // Through the label's rows (their primary key), in creation order; each issue by its primary key (label rows are an
      // open issue's only, written with its state).
      labelPage: db.prepare<PageParams, ReadyRow>(
        `SELECT ${READY_COLUMNS} FROM inventory_labels x JOIN inventory i ON i.repo_id = x.repo_id AND i.issue = x.issue
           LEFT JOIN repos r ON r.repo_id = i.repo_id
         WHERE x.repo_id = @repoId AND x.label = @label AND (x.created_at, x.issue) > (@c, @n) AND (@free = 0 OR NOT ${HELD})
         ORDER BY x.created_at, x.issue LIMIT @limit`,
      ),
    };
  }

  /** Inside the caller's transaction: moves the issue's label rows from what was stored to what is written. */
  private relabel(repoId: number, issue: number, before: StoredIssue | { labels: string; created_at: number; state: string } | undefined, after: string[], createdAt: number): void {
    const had = before ? labelKeys(JSON.parse(before.labels) as string[], before.state) : [];
    for (const label of had) this.st.dropLabel.run(repoId, label, before!.created_at, issue);
    for (const label of after) this.st.addLabel.run(repoId, label, createdAt, issue);
  }

  private write(snap: IssueSnapshot): boolean {
    const before = this.st.stored.get(snap.repoId, snap.issue);
    if (!snapshotApplies(before, snap)) return false;
    this.st.put.run({
      repoId: snap.repoId,
      issue: snap.issue,
      title: snap.title,
      labels: JSON.stringify(snap.labels),
      assignees: JSON.stringify(snap.assignees),
      milestone: snap.milestone,
      authorId: snap.author?.id ?? null,
      authorLogin: snap.author?.login ?? null,
      createdAt: snap.createdAt,
      state: snap.state,
      blockedByOpen: snap.blockedByOpen,
      openSubIssues: snap.openSubIssues,
      updatedAt: snap.updatedAt,
    });
    this.relabel(snap.repoId, snap.issue, before, labelKeys(snap.labels, snap.state), snap.createdAt);
    return true;
  }

  async rememberIssues(issues: readonly IssueSnapshot[], _now: number): Promise<number> {
    if (issues.length === 0) return 0;
    return this.unsynced.run(() => this.immediate(() => issues.filter((snap) => this.write(snap)).length));
  }

  async closeUnseen(repoId: number, seen: readonly number[], before: number, _now: number): Promise<number> {
    const saw = new Set(seen);
    return this.unsynced.run(() =>
      this.immediate(() => {
        let closed = 0;
        for (const row of this.st.openOf.all(repoId)) {
          if (saw.has(row.issue) || row.updated_at >= before) continue;
          this.st.close.run(repoId, row.issue);
          this.relabel(repoId, row.issue, { ...row, state: "open" }, [], row.created_at);
          closed++;
        }
        return closed;
      }),
    );
  }

  async markFilled(fill: InventoryFill, _now: number): Promise<void> {
    this.immediate(() => this.st.markFilled.run(fill));
  }

  async lastFill(repoId: number): Promise<InventoryFill | null> {
    const row = this.st.lastFill.get(repoId);
    return row ? { repoId, filledAt: row.filled_at, issues: row.issues } : null;
  }

  async staleFills(before: number, limit: number): Promise<RepoInfo[]> {
    return this.st.stale.all(before, limit).map((r) => ({ repoId: r.repo_id, repo: r.repo, installation: r.installation }));
  }

  async inventoryRepos(owner: string): Promise<RepoInfo[]> {
    return this.st.ofOwner.all({ prefix: `${owner.toLowerCase()}/`, limit: MAX_OWNER_REPOS }).map((r) => ({ repoId: r.repo_id, repo: r.repo, installation: r.installation }));
  }

  async forgetInventory(repoIds: readonly number[], _now: number): Promise<number> {
    return this.immediate(() => {
      let forgotten = 0;
      for (const repoId of repoIds) {
        forgotten += this.st.forgetIssues.run(repoId).changes;
        this.st.forgetLabels.run(repoId);
        this.st.forgetFill.run(repoId);
      }
      return forgotten;
    });
  }

  async readyIssues(query: ReadyQuery, now: number): Promise<ReadyPage> {
    return walkReady(
      async (repoId, label, [c, n], limit, now, free) => {
        const at = { repoId, c, n, limit, now, free: free ? 1 : 0 };
        return label === null ? this.st.openPage.all(at) : this.st.labelPage.all({ ...at, label });
      },
      query,
      now,
    );
  }
}
