/**
 * What the board remembers from webhooks, on PostgreSQL (migrations 14 and
 * 15; SQLite's in sqlite/board-memory.ts, the reads in board-reads.ts): issue
 * cards, each repository's private flag and its time, and the per-holder
 * counts that move with the flag. Each write is one transaction of the
 * ledger's connection, a card's commit not waiting for the disk.
 */
import type { BoardMemory } from "../board/board-roles.js";
import type { PostgresConnection } from "./connection.js";
import type pg from "pg";
import type { IssueCard, RepoForget, RepoVisibility } from "../board/board-types.js";
import { visibilityApplies, visibilityTime } from "../board/visibility-applies.js";

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

/** The board's writes on PostgreSQL, each one transaction. */
export class PostgresBoardMemory implements BoardMemory {
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
}
