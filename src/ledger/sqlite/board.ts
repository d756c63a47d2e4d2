/**
 * The board's reads and what it remembers from webhooks, on SQLite
 * (migrations 15 and 16): issue cards (title, labels), each repository's
 * private flag and its time, and a page of live leases with its side
 * panels, read through the board's indexes. `SqliteLedger` calls in; each
 * function runs on the ledger's connection, writes inside the caller's
 * IMMEDIATE transaction.
 */
import type { UnsyncedCommit } from "./unsynced-commit.js";
import type { BoardMemory, BoardReads } from "../roles.js";
import type Database from "better-sqlite3";
import { type BoardRow, type CountRow, type EndedRow, toBoardLease, toEnded, topHolders } from "../board-rows.js";
import type { RepoInfo } from "../types.js";
import type { BoardFilter, BoardPage, BoardPanels, BoardPanelsQuery, BoardQuery, IssueCard, RepoForget, RepoVisibility } from "../board-types.js";
import { visibilityApplies, visibilityTime } from "../visibility-applies.js";

/** An open-ended lease sorts after every expiry (the year 9999). Written the same in the index and every query that reads it. */
const BOARD_AT = "coalesce(l.expires_at, 253402300799999)";
/** Rows a viewer may see: public repositories, and the private ones in @visible (a JSON array of ids). */
const VISIBLE = "(r.private = 0 OR l.repo_id IN (SELECT value FROM json_each(@visible)))";
/** The columns a board row shows; a card's tombstone (gone_at) shows no title. */
const COLUMNS = `l.repo_id, coalesce(r.repo, l.repo) AS repo, l.issue, l.holder_id, l.holder_login, l.holder_instance, l.token, l.acquired_at, l.expires_at,
  l.pulls, l.exempt, CASE WHEN c.gone_at IS NULL THEN c.title END AS title, CASE WHEN c.gone_at IS NULL THEN c.labels END AS labels`;
const JOINS = `LEFT JOIN repos r ON r.repo_id = l.repo_id
  LEFT JOIN issue_cards c ON c.repo_id = l.repo_id AND c.issue = l.issue`;
/** The same predicate as history_ended's, so that SQLite reads that index. */
const ENDED = `((h.op IN ('release', 'force_release') AND h.outcome = 'released' AND h.holder_id IS NOT NULL) OR (h.op = 'expire' AND h.outcome = 'expired'))`;

/** The filters' clauses over rows aliased `a` (leases or history), as named parameters. */
function filterClauses(q: BoardFilter, a: "l" | "h"): string[] {
  const where: string[] = [];
  if (q.repoId !== undefined) where.push(`${a}.repo_id = @repoId`);
  // A live holder's id is found by login among the counts (each holder of a live lease has one).
  if (q.holder?.id !== undefined) where.push(`${a}.holder_id = @holderId`);
  else if (q.holder && a === "l") where.push("l.holder_id IN (SELECT holder_id FROM holder_counts INDEXED BY holder_counts_login WHERE login = @login)");
  if (q.holder) where.push(`${a}.holder_login = @login COLLATE NOCASE`);
  if (q.label !== undefined) where.push(`(${a}.repo_id, ${a}.issue) IN (SELECT repo_id, issue FROM issue_labels WHERE label = @label)`);
  return where;
}

/** Which filters are set: statements are prepared once per shape. */
function shapeOf(q: BoardFilter): string {
  return `${q.repoId !== undefined ? 1 : 0}${q.holder ? 1 : 0}${q.holder?.id !== undefined ? 1 : 0}${q.label !== undefined ? 1 : 0}`;
}

const filtered = (q: BoardFilter) => q.repoId !== undefined || q.holder !== undefined || q.label !== undefined;

/** The index that leads a filtered read of live leases: a repository's held rows, a holder's, or (for a label) SQLite's choice. */
const leading = (q: BoardFilter) => (q.repoId !== undefined ? "INDEXED BY leases_held" : q.holder ? "INDEXED BY leases_board_holder" : "");

function params(q: BoardFilter, now: number): Record<string, unknown> {
  return { now, visible: JSON.stringify(q.visible), repoId: q.repoId, login: q.holder?.login, holderId: q.holder?.id, label: q.label };
}

/** The board's statements on one SQLite ledger, prepared once (those that filter, per shape of filter). */
export class SqliteBoard implements BoardMemory, BoardReads {
  private readonly st;
  private readonly shaped = new Map<string, Database.Statement<Record<string, unknown>, unknown>>();

  /** `immediate`: runs a function as one BEGIN IMMEDIATE transaction on `db`; `unsynced`, a commit that does not wait for the disk. */
  constructor(
    private readonly db: Database.Database,
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
      boardRepo: db.prepare<[string], { repo_id: number; repo: string; installation: number; private: number | null }>(
        `SELECT repo_id, repo, installation, private FROM repos WHERE repo = ? COLLATE NOCASE
         ORDER BY updated_at DESC, repo_id DESC LIMIT 1`,
      ),
      publicTop: db.prepare<{ limit: number }, CountRow>(
        `SELECT scope, holder_id, login, n FROM holder_counts INDEXED BY holder_counts_top WHERE scope = 0 AND n > 0
         ORDER BY n DESC, holder_id LIMIT @limit`,
      ),
      privateCounts: db.prepare<{ visible: string }, CountRow>(
        "SELECT scope, holder_id, login, n FROM holder_counts WHERE scope IN (SELECT value FROM json_each(@visible)) AND scope <> 0 AND n > 0",
      ),
      publicOf: db.prepare<[number], CountRow>("SELECT scope, holder_id, login, n FROM holder_counts WHERE scope = 0 AND holder_id = ?"),
      // The sweep's backlog: held rows whose expiry has passed. Counted by
      // holder_counts until the sweeper ends them, so taken off here.
      backlog: db.prepare<{ visible: string; now: number }, { holder_id: number; n: number }>(
        `SELECT l.holder_id, count(*) AS n FROM leases l INDEXED BY leases_board LEFT JOIN repos r ON r.repo_id = l.repo_id
         WHERE l.holder_id IS NOT NULL AND ${BOARD_AT} <= @now AND ${VISIBLE} GROUP BY l.holder_id`,
      ),
      // Every held row the viewer may see, from the counts: those of the public scope and of the private ones given.
      counted: db
        .prepare<{ visible: string }, number>(
          "SELECT coalesce(sum(n), 0) FROM holder_counts WHERE scope = 0 OR scope IN (SELECT value FROM json_each(@visible))",
        )
        .pluck(),
    };
  }

  /** A statement of one shape of filter, prepared on first use. */
  private prepared<R>(name: string, q: BoardFilter, sql: () => string): Database.Statement<Record<string, unknown>, R> {
    const key = `${name}:${shapeOf(q)}`;
    let st = this.shaped.get(key);
    if (!st) this.shaped.set(key, (st = this.db.prepare<Record<string, unknown>, unknown>(sql())));
    return st as Database.Statement<Record<string, unknown>, R>;
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

  async boardRepo(name: string): Promise<(RepoInfo & { private: boolean | null }) | null> {
    const row = this.st.boardRepo.get(name);
    if (!row) return null;
    return { repoId: row.repo_id, repo: row.repo, installation: row.installation, private: row.private === null ? null : row.private === 1 };
  }

  /** Call inside one read transaction, so that the total and the page agree. */
  private leases(q: BoardQuery, now: number): BoardPage {
    const where = ["l.holder_id IS NOT NULL", `${BOARD_AT} > @now`, VISIBLE, ...filterClauses(q, "l")];
    // The index that leads: a repository's held rows, a holder's, the issues
    // bearing a label, or every live lease in expiry order.
    const index = filtered(q) ? leading(q) : "INDEXED BY leases_board";
    const st = this.prepared<BoardRow>(
      "page",
      q,
      () => `SELECT ${COLUMNS} FROM leases l ${index} ${JOINS}
         WHERE ${where.join(" AND ")}
         ORDER BY ${BOARD_AT}, l.repo_id, l.issue LIMIT @limit OFFSET @offset`,
    );
    const rows = st.all({ ...params(q, now), limit: q.pageSize + 1, offset: q.page * q.pageSize });
    return { leases: rows.slice(0, q.pageSize).map(toBoardLease), more: rows.length > q.pageSize, total: this.total(q, now) };
  }

  /** How many live leases the filters match: unfiltered from the counts (a few rows), else counted through the leading index. */
  private total(q: BoardFilter, now: number): number {
    if (!filtered(q)) {
      const visible = JSON.stringify(q.visible);
      let swept = 0;
      for (const r of this.st.backlog.all({ visible, now })) swept += r.n;
      return this.st.counted.get({ visible })! - swept;
    }
    const st = this.prepared<number>(
      "total",
      q,
      () => `SELECT count(*) FROM leases l ${leading(q)} LEFT JOIN repos r ON r.repo_id = l.repo_id
         WHERE ${["l.holder_id IS NOT NULL", `${BOARD_AT} > @now`, VISIBLE, ...filterClauses(q, "l")].join(" AND ")}`,
    );
    return st.pluck().get(params(q, now))!;
  }

  /** Who holds the most: unfiltered from the counts, filtered by counting the live leases the filters match. */
  private holders(q: BoardPanelsQuery, now: number): BoardPanels["holders"] {
    const visible = JSON.stringify(q.visible);
    if (filtered(q)) {
      const st = this.prepared<CountRow>(
        "holders",
        q,
        () => `SELECT 0 AS scope, l.holder_id, max(l.holder_login) AS login, count(*) AS n FROM leases l ${leading(q)}
           LEFT JOIN repos r ON r.repo_id = l.repo_id
           WHERE ${["l.holder_id IS NOT NULL", `${BOARD_AT} > @now`, VISIBLE, ...filterClauses(q, "l")].join(" AND ")}
           GROUP BY l.holder_id`,
      );
      return topHolders(st.all(params(q, now)), [], () => undefined, new Map(), q.top);
    }
    const backlog = new Map(this.st.backlog.all({ visible, now }).map((r) => [r.holder_id, r.n]));
    const privateCounts = q.visible.length > 0 ? this.st.privateCounts.all({ visible }) : [];
    return topHolders(
      this.st.publicTop.all({ limit: q.top + privateCounts.length + backlog.size }),
      privateCounts,
      (id) => this.st.publicOf.get(id),
      backlog,
      q.top,
    );
  }

  private panels(q: BoardPanelsQuery, now: number): BoardPanels {
    const soonWhere = ["l.holder_id IS NOT NULL", `${BOARD_AT} > @now`, `${BOARD_AT} <= @soon`, VISIBLE, ...filterClauses(q, "l")].join(" AND ");
    // Unfiltered, the next day's expiries are read in expiry order; filtered, SQLite picks the index.
    const index = filtered(q) ? "" : "INDEXED BY leases_board";
    const expiring = this.prepared<BoardRow>(
      "expiring",
      q,
      () => `SELECT ${COLUMNS} FROM leases l ${index} ${JOINS} WHERE ${soonWhere} ORDER BY ${BOARD_AT}, l.repo_id, l.issue LIMIT @limit`,
    );
    const expiringCount = this.prepared<number>(
      "expiringCount",
      q,
      () => `SELECT count(*) FROM (SELECT 1 FROM leases l ${index} LEFT JOIN repos r ON r.repo_id = l.repo_id WHERE ${soonWhere} LIMIT @limit)`,
    );
    const ended = this.prepared<EndedRow>(
      "ended",
      q,
      () => `SELECT h.repo_id, coalesce(r.repo, h.repo) AS repo, h.issue, h.op, h.actor_id, h.actor_login, h.holder_id, h.holder_login, h.holder_instance,
                h.token, h.at, CASE WHEN c.gone_at IS NULL THEN c.title END AS title
         FROM history h INDEXED BY history_ended
         LEFT JOIN repos r ON r.repo_id = h.repo_id
         LEFT JOIN issue_cards c ON c.repo_id = h.repo_id AND c.issue = h.issue
         WHERE ${[ENDED, "h.at > @since", "(r.private = 0 OR h.repo_id IN (SELECT value FROM json_each(@visible)))", ...filterClauses(q, "h")].join(" AND ")}
         ORDER BY h.at DESC, h.id DESC LIMIT @limit`,
    );
    const p = params(q, now);
    const soon = { ...p, soon: now + q.soonMs };
    return {
      holders: this.holders(q, now),
      expiring: expiring.all({ ...soon, limit: q.top }).map(toBoardLease),
      expiringCount: expiringCount.pluck().get({ ...soon, limit: q.countCap })!,
      ended: ended.all({ ...p, since: now - q.endedWithinMs, limit: q.top }).map(toEnded),
    };
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

  async boardLeases(query: BoardQuery, now: number): Promise<BoardPage> {
    // One read transaction: the total agrees with the page.
    return this.db.transaction(() => this.leases(query, now))();
  }

  async boardPanels(query: BoardPanelsQuery, now: number): Promise<BoardPanels> {
    // One read transaction: the panels agree with each other.
    return this.db.transaction(() => this.panels(query, now))();
  }
}
