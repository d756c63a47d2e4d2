/**
 * The statements of leases that follow the work, on SQLite (migration 13):
 * which open pull requests close which issues (`pull_links`), and the write
 * of what the work decided. The operations are work-plans.ts's; run-plan.ts
 * runs them with these.
 */
import type Database from "better-sqlite3";
import { liveSql } from "../leases/tenure-rules.js";

const LIVE = liveSql("@now");

export interface WorkStatements {
  linksOf: Database.Statement<[number, number, number], number>;
  closedBy: Database.Statement<[number, number], number>;
  link: Database.Statement;
  unlink: Database.Statement;
  write: Database.Statement;
  mayRenew: Database.Statement<{ repoId: number; holderId: number; issue: number; now: number }, number>;
}

export function workStatements(db: Database.Database): WorkStatements {
  return {
    // Through pull_links_by_issue: the holder's open pull requests that close the issue.
    linksOf: db.prepare<[number, number, number], number>("SELECT pull FROM pull_links WHERE repo_id = ? AND issue = ? AND author_id = ? ORDER BY pull").pluck(),
    // By the primary key's prefix: the issues a pull request closes.
    closedBy: db.prepare<[number, number], number>("SELECT issue FROM pull_links WHERE repo_id = ? AND pull = ? ORDER BY issue").pluck(),
    link: db.prepare(
      `INSERT INTO pull_links (repo_id, pull, issue, author_id) VALUES (@repoId, @pull, @issue, @authorId)
       ON CONFLICT (repo_id, pull, issue) DO UPDATE SET author_id = excluded.author_id`,
    ),
    unlink: db.prepare("DELETE FROM pull_links WHERE repo_id = @repoId AND pull = @pull AND issue = @issue"),
    // What the work decided: the same tenure, its expiry and reminder, and what holds it.
    write: db.prepare(
      `UPDATE leases SET expires_at = @expiresAt, remind_at = @remindAt, reminded = 0, pulls = @pulls, exempt = @exempt,
         term_ms = @termMs, updated_at = @now, last_history = @lastHistory
       WHERE repo_id = @repoId AND issue = @issue`,
    ),
    // What every comment by anyone costs when it is no command: through
    // leases_held (repo_id, holder_id), the actor's leases in the
    // repository that time holds, on the issue or on one the pull request
    // closes. An index probe, and no write.
    mayRenew: db
      .prepare<{ repoId: number; holderId: number; issue: number; now: number }, number>(
        `SELECT 1 FROM leases INDEXED BY leases_held
         WHERE repo_id = @repoId AND holder_id = @holderId AND ${LIVE} AND expires_at IS NOT NULL
           AND (issue = @issue OR issue IN (SELECT issue FROM pull_links WHERE repo_id = @repoId AND pull = @issue))
         LIMIT 1`,
      )
      .pluck(),
  };
}
