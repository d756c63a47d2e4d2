/**
 * What the SQLite ledger keeps besides leases and the outbox: the
 * repositories it has seen (name and installation), what the outbox last
 * applied to each issue elsewhere (reflections), and named locks with an
 * expiry. Each is one statement, run alone, but for `info` (read in a
 * rename's transaction) and `unlockAll` (on taking over a file); the named
 * locks are the ledger's own `holdLock` (keep-lock.ts).
 */
import type Database from "better-sqlite3";
import type { Reflections } from "../outbox/outbox-roles.js";
import type { RepoMemory, RepoInfo } from "../repos/repo-memory.js";
import type { UnsyncedCommit } from "./unsynced-commit.js";

export class SqliteRepos implements RepoMemory, Reflections {
  private readonly st;

  /** `unsynced`: a commit that does not wait for the disk. */
  constructor(
    db: Database.Database,
    private readonly unsynced: UnsyncedCommit,
  ) {
    this.st = {
      unlockAll: db.prepare("DELETE FROM locks"),
      getReflection: db.prepare<[number, number], { state: string }>(
        "SELECT state FROM reflections WHERE repo_id = ? AND issue = ?",
      ),
      putReflection: db.prepare(
        `INSERT INTO reflections (repo_id, issue, state, updated_at) VALUES (@repoId, @issue, @state, @now)
         ON CONFLICT (repo_id, issue) DO UPDATE SET state = excluded.state, updated_at = excluded.updated_at`,
      ),
      rememberRepo: db.prepare(
        `INSERT INTO repos (repo_id, repo, installation, updated_at) VALUES (@repoId, @repo, @installation, @now)
         ON CONFLICT (repo_id) DO UPDATE SET repo = excluded.repo, installation = excluded.installation, updated_at = excluded.updated_at`,
      ),
      repoInfo: db.prepare<[number], { repo_id: number; repo: string; installation: number }>(
        "SELECT repo_id, repo, installation FROM repos WHERE repo_id = ?",
      ),
      findRepo: db.prepare<[string], { repo_id: number; repo: string; installation: number }>(
        `SELECT repo_id, repo, installation FROM repos WHERE repo = ? COLLATE NOCASE
         ORDER BY updated_at DESC, repo_id DESC LIMIT 1`,
      ),
      tryLock: db.prepare(
        `INSERT INTO locks (name, owner, until) VALUES (@name, @owner, @until)
         ON CONFLICT (name) DO UPDATE SET owner = excluded.owner, until = excluded.until
         WHERE locks.until <= @now OR locks.owner = excluded.owner`,
      ),
      unlockNamed: db.prepare("DELETE FROM locks WHERE name = ? AND owner = ?"),
    };
  }

  async getReflection(repoId: number, issue: number): Promise<unknown> {
    const row = this.st.getReflection.get(repoId, issue);
    return row ? (JSON.parse(row.state) as unknown) : null;
  }

  async putReflection(repoId: number, issue: number, state: unknown, now: number): Promise<void> {
    // Unsynced: written by an attempt that has not completed yet, so lost to
    // a power cut only with its completion, and the effect is applied again.
    this.unsynced.run(() => this.st.putReflection.run({ repoId, issue, state: JSON.stringify(state), now }));
  }

  async rememberRepo(repo: RepoInfo, now: number): Promise<void> {
    this.st.rememberRepo.run({ ...repo, now });
  }

  async repoInfo(repoId: number): Promise<RepoInfo | null> {
    return this.info(repoId);
  }

  /** The repository remembered under `repoId`, read on the caller's transaction. */
  info(repoId: number): RepoInfo | null {
    const row = this.st.repoInfo.get(repoId);
    return row ? { repoId: row.repo_id, repo: row.repo, installation: row.installation } : null;
  }

  async findRepo(name: string): Promise<RepoInfo | null> {
    const row = this.st.findRepo.get(name);
    return row ? { repoId: row.repo_id, repo: row.repo, installation: row.installation } : null;
  }

  tryLock(name: string, owner: string, now: number, ttlMs: number): boolean {
    return this.st.tryLock.run({ name, owner, now, until: now + ttlMs }).changes > 0;
  }

  unlock(name: string, owner: string): void {
    this.st.unlockNamed.run(name, owner);
  }

  /** Every named lock is a dead process's when the ledger starts serving its file. */
  unlockAll(): void {
    this.st.unlockAll.run();
  }
}
