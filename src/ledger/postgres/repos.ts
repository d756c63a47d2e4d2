/**
 * What the PostgreSQL ledger keeps beside the leases, each read or written
 * in one statement of its own (SQLite's are sqlite/repos.ts): the repositories
 * seen (name and installation) and each issue's reflection state. (Its
 * `locks` table, named locks with an expiry, is no longer used: the named
 * locks are session advisory locks, postgres/session-locks.ts.)
 */
import type { Reflections } from "../outbox/outbox-roles.js";
import type { RepoMemory, RepoInfo } from "../repos/repo-memory.js";
import { nowParam, type PostgresConnection } from "./connection.js";

export class PostgresRepos implements RepoMemory, Reflections {
  readonly sql;

  /** `s`: the quoted schema; `db`: the ledger's connection. */
  constructor(
    s: string,
    private readonly db: PostgresConnection,
  ) {
    this.sql = {
      getReflection: `SELECT state FROM ${s}.reflections WHERE repo_id = $1 AND issue = $2`,
      putReflection: `INSERT INTO ${s}.reflections (repo_id, issue, state, updated_at) VALUES ($1, $2, $3, ${nowParam(4)})
                      ON CONFLICT (repo_id, issue) DO UPDATE SET state = excluded.state, updated_at = excluded.updated_at`,
      rememberRepo: `INSERT INTO ${s}.repos (repo_id, repo, installation, updated_at) VALUES ($1, $2, $3, ${nowParam(4)})
                     ON CONFLICT (repo_id) DO UPDATE SET repo = excluded.repo, installation = excluded.installation,
                       updated_at = excluded.updated_at`,
      repoInfo: `SELECT repo_id, repo, installation FROM ${s}.repos WHERE repo_id = $1`,
      findRepo: `SELECT repo_id, repo, installation FROM ${s}.repos WHERE lower(repo) = lower($1)
                 ORDER BY updated_at DESC, repo_id DESC LIMIT 1`,
    };
  }

  async getReflection(repoId: number, issue: number): Promise<unknown> {
    const { rows } = await this.db.query<{ state: string }>(this.sql.getReflection, [repoId, issue]);
    return rows[0] ? (JSON.parse(rows[0].state) as unknown) : null;
  }

  async putReflection(repoId: number, issue: number, state: unknown, now: number): Promise<void> {
    await this.db.query(this.sql.putReflection, [repoId, issue, JSON.stringify(state), this.db.stmtNow(now)]);
  }

  async rememberRepo(repo: RepoInfo, now: number): Promise<void> {
    await this.db.query(this.sql.rememberRepo, [repo.repoId, repo.repo, repo.installation, this.db.stmtNow(now)]);
  }

  async repoInfo(repoId: number): Promise<RepoInfo | null> {
    const { rows } = await this.db.query<{ repo_id: number; repo: string; installation: number }>(this.sql.repoInfo, [repoId]);
    const r = rows[0];
    return r ? { repoId: r.repo_id, repo: r.repo, installation: r.installation } : null;
  }

  async findRepo(name: string): Promise<RepoInfo | null> {
    const { rows } = await this.db.query<{ repo_id: number; repo: string; installation: number }>(this.sql.findRepo, [name]);
    const r = rows[0];
    return r ? { repoId: r.repo_id, repo: r.repo, installation: r.installation } : null;
  }
}
