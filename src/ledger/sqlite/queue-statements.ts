/**
 * The SQLite ledger's statements on the wait list (queue-plans.ts): an
 * issue's places not yet ended, in the line's order (through queue_line), a
 * place written or renewed, places ended. Run by SqlitePlans inside its
 * operations' transactions, and by the status read.
 */
import type Database from "better-sqlite3";
import { LINE_ORDER, PLACE_COLUMNS, type PlaceRow } from "../queue/queue-types.js";

export interface QueueStatements {
  line: Database.Statement<{ repoId: number; issue: number }, PlaceRow>;
  add: Database.Statement;
  renew: Database.Statement;
  end: Database.Statement;
}

export function queueStatements(db: Database.Database): QueueStatements {
  return {
    line: db.prepare<{ repoId: number; issue: number }, PlaceRow>(
      `SELECT ${PLACE_COLUMNS} FROM queue INDEXED BY queue_line
         WHERE repo_id = @repoId AND issue = @issue AND ended_at IS NULL ORDER BY ${LINE_ORDER}`,
    ),
    add: db.prepare(
      `INSERT INTO queue (repo_id, issue, holder_id, holder_login, holder_instance, author_first, queued_at, until, ttl_ms, remind_ms, updated_at)
         VALUES (@repoId, @issue, @holderId, @holderLogin, @holderInstance, @authorFirst, @now, @until, @ttlMs, @remindMs, @now)`,
    ),
    // The place keeps its arrival (and so its position); the login follows a rename.
    renew: db.prepare(
      `UPDATE queue SET holder_login = @holderLogin, until = @until, ttl_ms = @ttlMs, remind_ms = @remindMs, updated_at = @now
         WHERE id = @id AND ended_at IS NULL`,
    ),
    end: db.prepare("UPDATE queue SET ended_at = @now, ended_why = @why, updated_at = @now WHERE id = @id AND ended_at IS NULL"),
  };
}
