/**
 * What the board remembers from webhooks, on SQLite (migrations 15 and 16;
 * its reads in board-reads.ts): issue cards (title, labels), each
 * repository's private flag and its time, and the per-holder counts that
 * move with the flag. Each write is one BEGIN IMMEDIATE transaction on the
 * ledger's connection (the ledger's `immediate`), a card's commit not waiting
 * for the disk (unsynced-commit.ts).
 */
import type { UnsyncedCommit } from "./unsynced-commit.js";
import type { BoardMemory } from "../board/board-roles.js";
import type Database from "better-sqlite3";
import type { IssueCard, RepoForget, RepoVisibility } from "../board/board-types.js";
import { visibilityApplies, visibilityTime } from "../board/visibility-applies.js";

/** The board's writes on one SQLite ledger, their statements prepared once. */
export class SqliteBoardMemory implements BoardMemory {
  private readonly st;

  /** `immediate`: runs a function as one BEGIN IMMEDIATE transaction on `db`; `unsynced`, a commit that does not wait for the disk. */
  constructor(
    db: Database.Database,
    private readonly immediate: <T>(f: () => T) => T,
    private readonly unsynced: UnsyncedCommit,
  ) {
    this.st = {
      hasRow: db.prepare<[number, number], number>("SELECT 1 FROM leases WHERE repo_id = ? AND issue = ?").pluck(),
      card: db.prepare<[number, number], { title: string; labels: string; gone_at: number | null }>(
        "SELECT title, labels, gone_at FROM issue_cards WHERE repo_id = ? AND issue = ?",
      ),
      putCard: db.prepare(
        `INSERT INTO issue_cards (repo_id, issue, title, labels, updated_at) VALUES (@repoId, @issue, @title, @labels, @now)
         ON CONFLICT (repo_id, issue) DO UPDATE SET title = excluded.title, labels = excluded.labels, updated_at = excluded.updated_at`,
      ),
      buryCard: db.prepare(
        `INSERT INTO issue_cards (repo_id, issue, title, labels, updated_at, gone_at) VALUES (@repoId, @issue, '', '[]', @now, @now)
         ON CONFLICT (repo_id, issue) DO UPDATE SET title = '', labels = '[]', updated_at = excluded.updated_at, gone_at = coalesce(gone_at, excluded.gone_at)`,
      ),
      dropLabels: db.prepare("DELETE FROM issue_labels WHERE repo_id = ? AND issue = ?"),
      addLabel: db.prepare("INSERT OR IGNORE INTO issue_labels (repo_id, issue, label) VALUES (?, ?, ?)"),
      visibility: db.prepare<[number], { private: number | null; repo: string; installation: number; visibility_at: number | null }>(
        "SELECT private, repo, installation, visibility_at FROM repos WHERE repo_id = ?",
      ),
      putVisibility: db.prepare(
        `INSERT INTO repos (repo_id, repo, installation, updated_at, private, visibility_at) VALUES (@repoId, @repo, @installation, @now, @private, @at)
         ON CONFLICT (repo_id) DO UPDATE SET repo = excluded.repo, installation = excluded.installation,
           updated_at = excluded.updated_at, private = excluded.private, visibility_at = excluded.visibility_at`,
      ),
      served: db.prepare<{ installation: number; ids: string | null }, { repo_id: number; private: number | null }>(
        `SELECT repo_id, private FROM repos WHERE installation = @installation
         AND (@ids IS NULL OR repo_id IN (SELECT value FROM json_each(@ids)))`,
      ),
      forget: db.prepare(
        "UPDATE repos SET private = NULL, updated_at = @now, visibility_at = CASE WHEN @times THEN NULL ELSE visibility_at END WHERE repo_id = @repoId",
      ),
      forgetCards: db.prepare("DELETE FROM issue_cards WHERE repo_id = ? AND gone_at IS NULL"),
      forgetLabels: db.prepare("DELETE FROM issue_labels WHERE repo_id = ?"),
      repoHolders: db.prepare<[number], { holder_id: number; login: string; n: number }>(
        `SELECT holder_id, max(holder_login) AS login, count(*) AS n FROM leases INDEXED BY leases_held
         WHERE repo_id = ? AND holder_id IS NOT NULL GROUP BY holder_id`,
      ),
      countDown: db.prepare("UPDATE holder_counts SET n = n - @n WHERE scope = @scope AND holder_id = @holderId"),
      countUp: db.prepare(
        `INSERT INTO holder_counts (scope, holder_id, login, n) VALUES (@scope, @holderId, @login, @n)
         ON CONFLICT (scope, holder_id) DO UPDATE SET n = n + excluded.n`,
      ),
    };
  }

  /**
   * Whether rememberCard would change nothing (false) or has something to
   * write (true), or the card is not to be kept (null): read without the
   * write lock, so that the events of issues never leased cost a read.
   */
  private cardWrite(card: IssueCard, create: boolean): boolean | null {
    const before = this.st.card.get(card.repoId, card.issue);
    if (before?.gone_at != null) return null;
    if (!create && this.st.hasRow.get(card.repoId, card.issue) === undefined) return null;
    return !(before && before.title === card.title && before.labels === JSON.stringify(card.labels));
  }

  /** Inside the caller's transaction. */
  private writeCard(card: IssueCard, now: number, create: boolean): boolean {
    const before = this.st.card.get(card.repoId, card.issue);
    if (before?.gone_at != null) return false;
    if (!create && this.st.hasRow.get(card.repoId, card.issue) === undefined) return false;
    const labels = JSON.stringify(card.labels);
    if (before && before.title === card.title && before.labels === labels) return true;
    this.st.putCard.run({ repoId: card.repoId, issue: card.issue, title: card.title, labels, now });
    if (before?.labels === labels) return true;
    this.st.dropLabels.run(card.repoId, card.issue);
    for (const label of card.labels) this.st.addLabel.run(card.repoId, card.issue, label);
    return true;
  }

  /** Inside the caller's transaction: a tombstone where the ledger knows the issue; nothing for one it never knew. */
  private writeDrop(key: { repoId: number; issue: number }, now: number): void {
    if (this.st.hasRow.get(key.repoId, key.issue) === undefined && this.st.card.get(key.repoId, key.issue) === undefined) return;
    this.st.buryCard.run({ ...key, now });
    this.st.dropLabels.run(key.repoId, key.issue);
  }

  /** Moves the per-holder counts of a repository's leases when its flag moves them to another scope (0: public). */
  private moveCounts(repoId: number, before: number | null, after: number | null): void {
    const scopeOf = (priv: number | null) => (priv === 0 ? 0 : repoId);
    const from = scopeOf(before);
    const to = scopeOf(after);
    if (from === to) return;
    for (const h of this.st.repoHolders.all(repoId)) {
      const at = { holderId: h.holder_id, n: h.n };
      this.st.countDown.run({ ...at, scope: from });
      this.st.countUp.run({ ...at, scope: to, login: h.login });
    }
  }

  /** Inside the caller's IMMEDIATE transaction: no lease write comes between the flag and the counts moved with it. */
  private writeVisibility(repo: RepoVisibility, now: number): boolean {
    const row = this.st.visibility.get(repo.repoId);
    const before = row && { private: row.private === null ? null : row.private === 1, at: row.visibility_at };
    const seen = { private: repo.private, at: repo.updatedAt === undefined ? now : repo.updatedAt, reportsChange: repo.reportsChange === true };
    if (!visibilityApplies(before, seen)) return false;
    const flag = repo.private ? 1 : 0;
    const at = visibilityTime(before, seen);
    if (row && row.private === flag && row.repo === repo.repo && row.installation === repo.installation && row.visibility_at === at) return false;
    this.st.putVisibility.run({ repoId: repo.repoId, repo: repo.repo, installation: repo.installation, now, private: flag, at });
    this.moveCounts(repo.repoId, row?.private ?? null, flag);
    return row?.private !== flag;
  }

  /** Inside the caller's IMMEDIATE transaction. */
  private writeForget(forget: RepoForget, now: number): number {
    const rows = this.st.served.all({ installation: forget.installation, ids: forget.repoIds === "all" ? null : JSON.stringify(forget.repoIds) });
    for (const r of rows) {
      this.st.forget.run({ repoId: r.repo_id, now, times: forget.times ? 1 : 0 });
      this.moveCounts(r.repo_id, r.private, null);
      this.st.forgetCards.run(r.repo_id);
      this.st.forgetLabels.run(r.repo_id);
    }
    return rows.length;
  }

  async rememberCard(card: IssueCard, now: number, create: boolean): Promise<boolean> {
    const write = this.cardWrite(card, create);
    if (write !== true) return write === false;
    // A title is for display, and the next event brings it again: its
    // commit does not wait for the disk (the next commit of a lease syncs
    // it along). Lease writes always wait.
    return this.unsynced.run(() => this.immediate(() => this.writeCard(card, now, create)));
  }

  async rememberVisibility(repo: RepoVisibility, now: number): Promise<boolean> {
    return this.immediate(() => this.writeVisibility(repo, now));
  }

  async dropCard(key: { repoId: number; issue: number }, now: number): Promise<void> {
    this.immediate(() => this.writeDrop(key, now));
  }

  async forgetRepos(forget: RepoForget, now: number): Promise<number> {
    return this.immediate(() => this.writeForget(forget, now));
  }
}
