/**
 * The board's reads and what it remembers from webhooks, on PostgreSQL
 * (migrations 14 and 15; SQLite's in sqlite/board.ts): issue cards, each
 * repository's private flag and its time, and a page of live leases with its
 * side panels.
 * Each write is one transaction of the ledger's connection; each read one
 * statement (retried as connection.ts says) or one transaction.
 */
import type { BoardMemory, BoardReads } from "../roles.js";
import { nowParam, type PostgresConnection } from "./connection.js";
import type pg from "pg";
import { type BoardRow, type CountRow, type EndedRow, toBoardLease, toEnded, topHolders } from "../board-rows.js";
import type { RepoInfo } from "../types.js";
import type { BoardFilter, BoardPage, BoardPanels, BoardPanelsQuery, BoardQuery, IssueCard, RepoForget, RepoVisibility } from "../board-types.js";
import { visibilityApplies, visibilityTime } from "../visibility-applies.js";

type Query = <R extends pg.QueryResultRow>(text: string, values: unknown[]) => Promise<pg.QueryResult<R>>;

const BOARD_AT = "coalesce(l.expires_at, 253402300799999)";
/** The columns a board row shows; a card's tombstone (gone_at) shows no title. */
const COLUMNS = `l.repo_id, coalesce(r.repo, l.repo) AS repo, l.issue, l.holder_id, l.holder_login, l.holder_instance, l.token, l.acquired_at, l.expires_at,
  l.pulls, l.exempt, CASE WHEN c.gone_at IS NULL THEN c.title END AS title, CASE WHEN c.gone_at IS NULL THEN c.labels END AS labels`;
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

/** `Ledger.rememberCard`, inside the caller's transaction. */
async function rememberPostgresCard(c: pg.PoolClient, s: string, card: IssueCard, now: number, create: boolean): Promise<boolean> {
  // A title is for display, and the next event brings it again: this commit
  // does not wait for the disk. Nothing else is written so.
  await c.query("SET LOCAL synchronous_commit TO off");
  // The upsert locks the card's row: two replicas remembering one issue take turns.
  const { rows } = await c.query<{ kept: boolean; changed: number }>(
    `WITH kept AS (SELECT ($6::boolean OR EXISTS (SELECT 1 FROM ${s}.leases WHERE repo_id = $1 AND issue = $2))
                     AND NOT EXISTS (SELECT 1 FROM ${s}.issue_cards WHERE repo_id = $1 AND issue = $2 AND gone_at IS NOT NULL) AS kept),
          put AS (
            INSERT INTO ${s}.issue_cards AS k (repo_id, issue, title, labels, updated_at)
            SELECT $1, $2, $3, $4, $5 FROM kept WHERE kept.kept
            ON CONFLICT (repo_id, issue) DO UPDATE SET title = EXCLUDED.title, labels = EXCLUDED.labels, updated_at = EXCLUDED.updated_at
            WHERE k.gone_at IS NULL AND (k.title IS DISTINCT FROM EXCLUDED.title OR k.labels IS DISTINCT FROM EXCLUDED.labels)
            RETURNING 1)
     SELECT (SELECT kept FROM kept) AS kept, (SELECT count(*)::int FROM put) AS changed`,
    [card.repoId, card.issue, card.title, JSON.stringify(card.labels), now, create],
  );
  if (!rows[0]!.kept) return false;
  if (rows[0]!.changed === 0) return true;
  await c.query(`DELETE FROM ${s}.issue_labels WHERE repo_id = $1 AND issue = $2`, [card.repoId, card.issue]);
  await c.query(
    `INSERT INTO ${s}.issue_labels (repo_id, issue, label) SELECT $1, $2, lower(x) FROM unnest($3::text[]) AS x ON CONFLICT DO NOTHING`,
    [card.repoId, card.issue, card.labels],
  );
  return true;
}

/** Moves the per-holder counts of a repository's leases from one scope to another (0: public), under the caller's table lock. */
async function moveCounts(c: pg.PoolClient, s: string, repoId: number, from: number, to: number): Promise<void> {
  if (from === to) return;
  await c.query(
    `WITH h AS (SELECT holder_id, max(holder_login) AS login, count(*)::int AS n FROM ${s}.leases
                WHERE repo_id = $1 AND holder_id IS NOT NULL GROUP BY holder_id),
          down AS (UPDATE ${s}.holder_counts k SET n = k.n - h.n FROM h WHERE k.scope = $2 AND k.holder_id = h.holder_id)
     INSERT INTO ${s}.holder_counts AS k (scope, holder_id, login, n) SELECT $3, holder_id, login, n FROM h
     ON CONFLICT (scope, holder_id) DO UPDATE SET n = k.n + EXCLUDED.n`,
    [repoId, from, to],
  );
}

/**
 * `Ledger.rememberVisibility`, inside the caller's transaction. Decided on
 * the repository's row locked (a placeholder inserted first when there is
 * none), so that two events of one repository take turns and the newer
 * flag stays. When the flag moves the repository's leases to another count
 * scope, lease writes are held back (SHARE ROW EXCLUSIVE waits for those
 * under way and blocks new ones until commit) so that none counts in the
 * scope being left after its leases were moved: a flag changes once per
 * repository, or when it is made private or public.
 */
async function rememberPostgresVisibility(c: pg.PoolClient, s: string, repo: RepoVisibility, now: number): Promise<boolean> {
  const read = async (lock: boolean) => {
    const row = (
      await c.query<{ private: boolean | null; repo: string; installation: number; visibility_at: number | null }>(
        `SELECT private, repo, installation, visibility_at FROM ${s}.repos WHERE repo_id = $1${lock ? " FOR UPDATE" : ""}`,
        [repo.repoId],
      )
    ).rows[0];
    return row && { ...row, at: row.visibility_at };
  };
  const seen = { private: repo.private, at: repo.updatedAt === undefined ? now : repo.updatedAt, reportsChange: repo.reportsChange === true };
  const scopeOf = (priv: boolean | null | undefined) => (priv === false ? 0 : repo.repoId);
  const to = scopeOf(repo.private);
  /** Whether the row would change; its flag's time if so. */
  const change = (before: Awaited<ReturnType<typeof read>>): { at: number | null } | null => {
    if (!visibilityApplies(before, seen)) return null;
    const at = visibilityTime(before, seen);
    const same = before && before.private === repo.private && before.repo === repo.repo && before.installation === repo.installation && before.at === at;
    return same ? null : { at };
  };
  let before = await read(false);
  if (!change(before)) return false;
  let locked = false;
  const lockLeases = async () => {
    if (locked) return;
    await c.query(`LOCK TABLE ${s}.leases IN SHARE ROW EXCLUSIVE MODE`);
    locked = true;
  };
  if (scopeOf(before?.private) !== to) await lockLeases();
  if (!before) {
    await c.query(
      `INSERT INTO ${s}.repos (repo_id, repo, installation, updated_at) VALUES ($1, $2, $3, $4) ON CONFLICT (repo_id) DO NOTHING`,
      [repo.repoId, repo.repo, repo.installation, now],
    );
  }
  before = await read(true);
  const decided = change(before);
  if (!decided) return false;
  // Another event moved the flag in between: this one moves the counts after all (a deadlock here is retried).
  if (scopeOf(before?.private) !== to) await lockLeases();
  await c.query(
    `UPDATE ${s}.repos SET repo = $2, installation = $3, updated_at = $4, private = $5, visibility_at = $6 WHERE repo_id = $1`,
    [repo.repoId, repo.repo, repo.installation, now, repo.private, decided.at],
  );
  await moveCounts(c, s, repo.repoId, scopeOf(before?.private), to);
  return before?.private !== repo.private;
}

/** `Ledger.forgetRepos`, inside the caller's transaction. */
async function forgetPostgresRepos(c: pg.PoolClient, s: string, forget: RepoForget, now: number): Promise<number> {
  // Rare (an installation going), so lease writes are held back whether or not a count moves.
  await c.query(`LOCK TABLE ${s}.leases IN SHARE ROW EXCLUSIVE MODE`);
  const { rows } = await c.query<{ repo_id: number; private: boolean | null }>(
    `SELECT repo_id, private FROM ${s}.repos WHERE installation = $1 AND ($2::bigint[] IS NULL OR repo_id = ANY($2::bigint[])) FOR UPDATE`,
    [forget.installation, forget.repoIds === "all" ? null : [...forget.repoIds]],
  );
  for (const r of rows) {
    await c.query(
      `UPDATE ${s}.repos SET private = NULL, updated_at = $2, visibility_at = CASE WHEN $3::boolean THEN NULL ELSE visibility_at END WHERE repo_id = $1`,
      [r.repo_id, now, forget.times === true],
    );
    await moveCounts(c, s, r.repo_id, r.private === false ? 0 : r.repo_id, r.repo_id);
  }
  if (rows.length > 0) {
    const ids = rows.map((r) => r.repo_id);
    await c.query(`DELETE FROM ${s}.issue_cards WHERE repo_id = ANY($1::bigint[]) AND gone_at IS NULL`, [ids]);
    await c.query(`DELETE FROM ${s}.issue_labels WHERE repo_id = ANY($1::bigint[])`, [ids]);
  }
  return rows.length;
}

/** `Ledger.dropCard`, inside the caller's transaction: a tombstone where the ledger knows the issue. */
async function dropPostgresCard(c: pg.PoolClient, s: string, key: { repoId: number; issue: number }, now: number): Promise<void> {
  await c.query(
    `INSERT INTO ${s}.issue_cards AS k (repo_id, issue, title, labels, updated_at, gone_at)
     SELECT $1, $2, '', '[]', $3, $3
     WHERE EXISTS (SELECT 1 FROM ${s}.leases WHERE repo_id = $1 AND issue = $2) OR EXISTS (SELECT 1 FROM ${s}.issue_cards WHERE repo_id = $1 AND issue = $2)
     ON CONFLICT (repo_id, issue) DO UPDATE SET title = '', labels = '[]', updated_at = EXCLUDED.updated_at, gone_at = coalesce(k.gone_at, EXCLUDED.gone_at)`,
    [key.repoId, key.issue, now],
  );
  await c.query(`DELETE FROM ${s}.issue_labels WHERE repo_id = $1 AND issue = $2`, [key.repoId, key.issue]);
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
  const live = ["l.holder_id IS NOT NULL", `${BOARD_AT} > ${now}`, visible(2)];
  const where = [...live, ...filterClauses(s, q, "l", param)];
  const total = filtered(q)
    ? `(SELECT count(*)::int FROM ${s}.leases l LEFT JOIN ${s}.repos r ON r.repo_id = l.repo_id WHERE ${[...live, ...filterClauses(s, q, "l", param)].join(" AND ")})`
    : `((SELECT coalesce(sum(n), 0)::int FROM ${s}.holder_counts WHERE scope = 0 OR scope = ANY($2::bigint[]))
        - (SELECT count(*)::int FROM ${s}.leases l LEFT JOIN ${s}.repos r ON r.repo_id = l.repo_id
           WHERE l.holder_id IS NOT NULL AND ${BOARD_AT} <= ${now} AND ${visible(2)}))`;
  const { rows } = await query<BoardRow & { total: number }>(
    `SELECT t.total, p.* FROM (SELECT ${total} AS total) t
     LEFT JOIN LATERAL (
       SELECT ${COLUMNS} FROM ${s}.leases l ${joins(s)}
       WHERE ${where.join(" AND ")}
       ORDER BY ${BOARD_AT}, l.repo_id, l.issue LIMIT ${param(q.pageSize + 1)} OFFSET ${param(q.page * q.pageSize)}
     ) p ON true
     ORDER BY coalesce(p.expires_at, 253402300799999), p.repo_id, p.issue`,
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
    const where = ["l.holder_id IS NOT NULL", `${BOARD_AT} > $1`, visible(2), ...filterClauses(s, q, "l", param)];
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
  const soonWhere = [`l.holder_id IS NOT NULL AND ${BOARD_AT} > $1 AND ${BOARD_AT} <= $2 AND ${visible(3)}`, ...filterClauses(s, q, "l", soonParam)].join(" AND ");
  const limit = soonValues.push(q.top);
  const expiring = await c.query<BoardRow>(
    `SELECT ${COLUMNS} FROM ${s}.leases l ${joins(s)} WHERE ${soonWhere} ORDER BY ${BOARD_AT}, l.repo_id, l.issue LIMIT $${limit}`,
    soonValues,
  );
  soonValues[limit - 1] = q.countCap;
  const expiringCount = await c.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM (SELECT 1 FROM ${s}.leases l LEFT JOIN ${s}.repos r ON r.repo_id = l.repo_id WHERE ${soonWhere} LIMIT $${limit}) x`,
    soonValues,
  );
  const endedValues: unknown[] = [now - q.endedWithinMs, ids, q.top];
  const endedWhere = [
    "((h.op IN ('release', 'force_release') AND h.outcome = 'released' AND h.holder_id IS NOT NULL) OR (h.op = 'expire' AND h.outcome = 'expired'))",
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

/** The board's roles on PostgreSQL: its writes each one transaction, its reads one statement or one transaction. */
export class PostgresBoard implements BoardMemory, BoardReads {
  /** `s`: the quoted schema. */
  constructor(
    private readonly s: string,
    private readonly db: PostgresConnection,
  ) {}

  async rememberCard(card: IssueCard, now: number, create: boolean): Promise<boolean> {
    return this.db.transaction(now, async (c, now) => ({ value: await rememberPostgresCard(c, this.s, card, now, create) }));
  }

  async rememberVisibility(repo: RepoVisibility, now: number): Promise<boolean> {
    return this.db.transaction(now, async (c, now) => ({ value: await rememberPostgresVisibility(c, this.s, repo, now) }));
  }

  async dropCard(key: { repoId: number; issue: number }, now: number): Promise<void> {
    return this.db.transaction(now, async (c, now) => ({ value: await dropPostgresCard(c, this.s, key, now) }));
  }

  async forgetRepos(forget: RepoForget, now: number): Promise<number> {
    return this.db.transaction(now, async (c, now) => ({ value: await forgetPostgresRepos(c, this.s, forget, now) }));
  }

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
