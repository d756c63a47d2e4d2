/**
 * The board's reads on PostgreSQL (migrations 14 and 15; SQLite's in
 * sqlite/board-reads.ts; what they read is remembered by board-memory.ts): a
 * repository by name, and a page of live leases with its side panels. Each
 * read is one statement (retried as connection.ts says) or one transaction.
 */
import type { BoardReads } from "../board/board-roles.js";
import { nowParam, type PostgresConnection } from "./connection.js";
import type pg from "pg";
import { type BoardRow, type CountRow, type EndedRow, toBoardLease, toEnded, topHolders } from "../board/board-rows.js";
import type { RepoInfo } from "../repos/repo-memory.js";
import type { BoardFilter, BoardPage, BoardPanels, BoardPanelsQuery, BoardQuery } from "../board/board-types.js";
import { boardExpirySql, endsTenureSql, liveOnBoardSql } from "../leases/tenure-rules.js";

type Query = <R extends pg.QueryResultRow>(text: string, values: unknown[]) => Promise<pg.QueryResult<R>>;

const BOARD_AT = boardExpirySql("l");
/** The columns a board row shows; a card's tombstone (gone_at) shows no title; `waiting`: the line (queue_line). */
const columns = (s: string) => `l.repo_id, coalesce(r.repo, l.repo) AS repo, l.issue, l.holder_id, l.holder_login, l.holder_instance, l.token,
  l.acquired_at, l.expires_at, l.pulls, l.exempt, CASE WHEN c.gone_at IS NULL THEN c.title END AS title,
  CASE WHEN c.gone_at IS NULL THEN c.labels END AS labels,
  (SELECT count(*)::int FROM ${s}.queue q WHERE q.repo_id = l.repo_id AND q.issue = l.issue AND q.ended_at IS NULL) AS waiting`;
const joins = (s: string) => `LEFT JOIN ${s}.repos r ON r.repo_id = l.repo_id
  LEFT JOIN ${s}.issue_cards c ON c.repo_id = l.repo_id AND c.issue = l.issue`;
/** Public repositories, and the private ones in the array parameter $n. */
const visible = (n: number, alias = "l") => `(r.private = false OR ${alias}.repo_id = ANY($${n}::bigint[]))`;

const filtered = (q: BoardFilter) => q.repoId !== undefined || q.holder !== undefined || q.label !== undefined;

/** The filters' clauses over rows aliased `a` (leases or history), each value a parameter given by `param`. */
function filterClauses(s: string, q: BoardFilter, a: "l" | "h", param: (v: unknown) => string): string[] {
  const where: string[] = [];
  if (q.repoId !== undefined) where.push(`${a}.repo_id = ${param(q.repoId)}`);
  if (q.holder) where.push(`lower(${a}.holder_login) = lower(${param(q.holder.login)})`);
  if (q.holder?.id !== undefined) where.push(`${a}.holder_id = ${param(q.holder.id)}`);
  if (q.label !== undefined) {
    where.push(`(${a}.repo_id, ${a}.issue) IN (SELECT repo_id, issue FROM ${s}.issue_labels WHERE label = lower(${param(q.label)}))`);
  }
  return where;
}

async function postgresBoardRepo(query: Query, s: string, name: string): Promise<(RepoInfo & { private: boolean | null }) | null> {
  const { rows } = await query<{ repo_id: number; repo: string; installation: number; private: boolean | null }>(
    `SELECT repo_id, repo, installation, private FROM ${s}.repos WHERE lower(repo) = lower($1)
     ORDER BY updated_at DESC, repo_id DESC LIMIT 1`,
    [name],
  );
  const row = rows[0];
  return row ? { repoId: row.repo_id, repo: row.repo, installation: row.installation, private: row.private } : null;
}

/**
 * `Ledger.boardLeases` as one statement, so that the total agrees with the
 * page; `now` is the statement's clock expression (the caller's value or the
 * database's). Unfiltered, the total comes from the per-holder counts.
 */
async function postgresBoardLeases(query: Query, s: string, q: BoardQuery, now: string, nowValue: number | null): Promise<BoardPage> {
  const values: unknown[] = [nowValue, [...q.visible]];
  const param = (v: unknown) => `$${values.push(v)}`;
  const live = [liveOnBoardSql(now, "l"), visible(2)];
  const where = [...live, ...filterClauses(s, q, "l", param)];
  const total = filtered(q)
    ? `(SELECT count(*)::int FROM ${s}.leases l LEFT JOIN ${s}.repos r ON r.repo_id = l.repo_id WHERE ${[...live, ...filterClauses(s, q, "l", param)].join(" AND ")})`
    : `((SELECT coalesce(sum(n), 0)::int FROM ${s}.holder_counts WHERE scope = 0 OR scope = ANY($2::bigint[]))
        - (SELECT count(*)::int FROM ${s}.leases l LEFT JOIN ${s}.repos r ON r.repo_id = l.repo_id
           WHERE l.holder_id IS NOT NULL AND ${BOARD_AT} <= ${now} AND ${visible(2)}))`;
  const { rows } = await query<BoardRow & { total: number }>(
    `SELECT t.total, p.* FROM (SELECT ${total} AS total) t
     LEFT JOIN LATERAL (
       SELECT ${columns(s)} FROM ${s}.leases l ${joins(s)}
       WHERE ${where.join(" AND ")}
       ORDER BY ${BOARD_AT}, l.repo_id, l.issue LIMIT ${param(q.pageSize + 1)} OFFSET ${param(q.page * q.pageSize)}
     ) p ON true
     ORDER BY ${boardExpirySql("p")}, p.repo_id, p.issue`,
    values,
  );
  const found = rows.filter((r) => r.repo_id !== null);
  return { leases: found.slice(0, q.pageSize).map(toBoardLease), more: found.length > q.pageSize, total: rows[0]!.total };
}

/** Who holds the most: unfiltered from the counts, filtered by counting the live leases the filters match. */
async function postgresHolders(c: pg.PoolClient, s: string, q: BoardPanelsQuery, now: number): Promise<BoardPanels["holders"]> {
  const ids = [...q.visible];
  if (filtered(q)) {
    const values: unknown[] = [now, ids];
    const param = (v: unknown) => `$${values.push(v)}`;
    const where = [liveOnBoardSql("$1", "l"), visible(2), ...filterClauses(s, q, "l", param)];
    const { rows } = await c.query<CountRow>(
      `SELECT 0 AS scope, l.holder_id, max(l.holder_login) AS login, count(*)::int AS n FROM ${s}.leases l
       LEFT JOIN ${s}.repos r ON r.repo_id = l.repo_id WHERE ${where.join(" AND ")} GROUP BY l.holder_id`,
      values,
    );
    return topHolders(rows, [], () => undefined, new Map(), q.top);
  }
  const backlogRows = (
    await c.query<{ holder_id: number; n: number }>(
      `SELECT l.holder_id, count(*)::int AS n FROM ${s}.leases l LEFT JOIN ${s}.repos r ON r.repo_id = l.repo_id
       WHERE l.holder_id IS NOT NULL AND ${BOARD_AT} <= $1 AND ${visible(2)} GROUP BY l.holder_id`,
      [now, ids],
    )
  ).rows;
  const backlog = new Map(backlogRows.map((r) => [r.holder_id, r.n]));
  const privateCounts =
    ids.length > 0
      ? (await c.query<CountRow>(`SELECT scope, holder_id, login, n FROM ${s}.holder_counts WHERE scope = ANY($1::bigint[]) AND scope <> 0 AND n > 0`, [ids]))
          .rows
      : [];
  const publicTop = (
    await c.query<CountRow>(`SELECT scope, holder_id, login, n FROM ${s}.holder_counts WHERE scope = 0 AND n > 0 ORDER BY n DESC, holder_id LIMIT $1`, [
      q.top + privateCounts.length + backlog.size,
    ])
  ).rows;
  const publicOf = new Map(
    privateCounts.length > 0
      ? (
          await c.query<CountRow>(`SELECT scope, holder_id, login, n FROM ${s}.holder_counts WHERE scope = 0 AND holder_id = ANY($1::bigint[])`, [
            privateCounts.map((r) => r.holder_id),
          ])
        ).rows.map((r) => [r.holder_id, r])
      : [],
  );
  return topHolders(publicTop, privateCounts, (id) => publicOf.get(id), backlog, q.top);
}

/** `Ledger.boardPanels`, on one connection at one `now`, under the page's filters. */
async function postgresBoardPanels(c: pg.PoolClient, s: string, q: BoardPanelsQuery, now: number): Promise<BoardPanels> {
  const ids = [...q.visible];
  const soonValues: unknown[] = [now, now + q.soonMs, ids];
  const soonParam = (v: unknown) => `$${soonValues.push(v)}`;
  const soonWhere = [`${liveOnBoardSql("$1", "l")} AND ${BOARD_AT} <= $2 AND ${visible(3)}`, ...filterClauses(s, q, "l", soonParam)].join(" AND ");
  const limit = soonValues.push(q.top);
  const expiring = await c.query<BoardRow>(
    `SELECT ${columns(s)} FROM ${s}.leases l ${joins(s)} WHERE ${soonWhere} ORDER BY ${BOARD_AT}, l.repo_id, l.issue LIMIT $${limit}`,
    soonValues,
  );
  soonValues[limit - 1] = q.countCap;
  const expiringCount = await c.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM (SELECT 1 FROM ${s}.leases l LEFT JOIN ${s}.repos r ON r.repo_id = l.repo_id WHERE ${soonWhere} LIMIT $${limit}) x`,
    soonValues,
  );
  const endedValues: unknown[] = [now - q.endedWithinMs, ids, q.top];
  const endedWhere = [
    endsTenureSql("h"),
    "h.at > $1",
    visible(2, "h"),
    ...filterClauses(s, q, "h", (v) => `$${endedValues.push(v)}`),
  ];
  const ended = await c.query<EndedRow>(
    `SELECT h.repo_id, coalesce(r.repo, h.repo) AS repo, h.issue, h.op, h.actor_id, h.actor_login, h.holder_id, h.holder_login, h.holder_instance,
            h.token, h.at, CASE WHEN c.gone_at IS NULL THEN c.title END AS title
     FROM ${s}.history h
     LEFT JOIN ${s}.repos r ON r.repo_id = h.repo_id
     LEFT JOIN ${s}.issue_cards c ON c.repo_id = h.repo_id AND c.issue = h.issue
     WHERE ${endedWhere.join(" AND ")}
     ORDER BY h.at DESC, h.id DESC LIMIT $3`,
    endedValues,
  );
  return {
    holders: await postgresHolders(c, s, q, now),
    expiring: expiring.rows.map(toBoardLease),
    expiringCount: expiringCount.rows[0]!.n,
    ended: ended.rows.map(toEnded),
  };
}

/** The board's reads on PostgreSQL: each one statement or one transaction. */
export class PostgresBoardReads implements BoardReads {
  /** `s`: the quoted schema. */
  constructor(
    private readonly s: string,
    private readonly db: PostgresConnection,
  ) {}

  async boardRepo(name: string): Promise<(RepoInfo & { private: boolean | null }) | null> {
    return postgresBoardRepo((text, values) => this.db.query(text, values), this.s, name);
  }

  async boardLeases(query: BoardQuery, now: number): Promise<BoardPage> {
    return postgresBoardLeases((text, values) => this.db.query(text, values), this.s, query, nowParam(1), this.db.stmtNow(now));
  }

  async boardPanels(query: BoardPanelsQuery, now: number): Promise<BoardPanels> {
    return this.db.transaction(now, async (c, now) => ({ value: await postgresBoardPanels(c, this.s, query, now) }));
  }
}
