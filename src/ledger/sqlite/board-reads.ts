/**
 * The board's reads on SQLite (migrations 15 and 16; what they read is
 * remembered by board-memory.ts): a repository by name, and a page of live
 * leases with its side panels, read through the board's indexes. Each page,
 * and each set of panels, is one read transaction on the ledger's connection.
 */
import type { BoardReads } from "../board/board-roles.js";
import type Database from "better-sqlite3";
import { type BoardRow, type CountRow, type EndedRow, toBoardLease, toEnded, topHolders } from "../board/board-rows.js";
import type { RepoInfo } from "../repos/repo-memory.js";
import type { BoardFilter, BoardPage, BoardPanels, BoardPanelsQuery, BoardQuery } from "../board/board-types.js";
import { boardExpirySql, endsTenureSql, liveOnBoardSql } from "../leases/tenure-rules.js";

/** An open-ended lease sorts after every expiry (the year 9999). Written the same in the index and every query that reads it. */
const BOARD_AT = boardExpirySql("l");
/** Rows a viewer may see: public repositories, and the private ones in @visible (a JSON array of ids). */
const VISIBLE = "(r.private = 0 OR l.repo_id IN (SELECT value FROM json_each(@visible)))";
/** The columns a board row shows; a card's tombstone (gone_at) shows no title; `waiting`: the line, through queue_line. */
const COLUMNS = `l.repo_id, coalesce(r.repo, l.repo) AS repo, l.issue, l.holder_id, l.holder_login, l.holder_instance, l.token, l.acquired_at, l.expires_at,
  l.pulls, l.exempt, CASE WHEN c.gone_at IS NULL THEN c.title END AS title, CASE WHEN c.gone_at IS NULL THEN c.labels END AS labels,
  (SELECT count(*) FROM queue q INDEXED BY queue_line WHERE q.repo_id = l.repo_id AND q.issue = l.issue AND q.ended_at IS NULL) AS waiting`;
const JOINS = `LEFT JOIN repos r ON r.repo_id = l.repo_id
  LEFT JOIN issue_cards c ON c.repo_id = l.repo_id AND c.issue = l.issue`;
/** The same predicate as history_ended's, so that SQLite reads that index. */
const ENDED = endsTenureSql("h");

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

/** The board's reads on one SQLite ledger, their statements prepared once (those that filter, per shape of filter). */
export class SqliteBoardReads implements BoardReads {
  private readonly st;
  private readonly shaped = new Map<string, Database.Statement<Record<string, unknown>, unknown>>();

  constructor(private readonly db: Database.Database) {
    this.st = {
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

  async boardRepo(name: string): Promise<(RepoInfo & { private: boolean | null }) | null> {
    const row = this.st.boardRepo.get(name);
    if (!row) return null;
    return { repoId: row.repo_id, repo: row.repo, installation: row.installation, private: row.private === null ? null : row.private === 1 };
  }

  /** Call inside one read transaction, so that the total and the page agree. */
  private leases(q: BoardQuery, now: number): BoardPage {
    const where = [liveOnBoardSql("@now", "l"), VISIBLE, ...filterClauses(q, "l")];
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
         WHERE ${[liveOnBoardSql("@now", "l"), VISIBLE, ...filterClauses(q, "l")].join(" AND ")}`,
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
           WHERE ${[liveOnBoardSql("@now", "l"), VISIBLE, ...filterClauses(q, "l")].join(" AND ")}
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
    const soonWhere = [liveOnBoardSql("@now", "l"), `${BOARD_AT} <= @soon`, VISIBLE, ...filterClauses(q, "l")].join(" AND ");
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

  async boardLeases(query: BoardQuery, now: number): Promise<BoardPage> {
    // One read transaction: the total agrees with the page.
    return this.db.transaction(() => this.leases(query, now))();
  }

  async boardPanels(query: BoardPanelsQuery, now: number): Promise<BoardPanels> {
    // One read transaction: the panels agree with each other.
    return this.db.transaction(() => this.panels(query, now))();
  }
}
