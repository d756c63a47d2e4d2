/**
 * The two places where an e2e test looks inside the server's SQLite file
 * rather than at GitHub: when the ledger decided something (GitHub only shows
 * when the throttled effect landed), and standing in for the passage of time
 * a real process cannot be asked to skip.
 */
import Database from "better-sqlite3";

export interface HistoryRow {
  issue: number;
  op: string;
  outcome: string;
  token: number | null;
  expiresAt: number | null;
  at: number;
}

/** The ledger's history, oldest first (read-only; the server may be running: the file is in WAL mode). */
export function history(dbFile: string): HistoryRow[] {
  const db = new Database(dbFile, { readonly: true, fileMustExist: true });
  try {
    return db
      .prepare("SELECT issue, op, outcome, token, expires_at AS expiresAt, at FROM history ORDER BY id")
      .all() as HistoryRow[];
  } finally {
    db.close();
  }
}

export interface EventRowView {
  pos: number;
  installation: number;
  seq: number;
  issue: number;
  type: string;
  holder: string;
  token: number;
  actor: string | null;
  cause: string;
}

/** The lease events, in order (read-only, as `history`). */
export function events(dbFile: string): EventRowView[] {
  const db = new Database(dbFile, { readonly: true, fileMustExist: true });
  try {
    return db
      .prepare("SELECT pos, installation, seq, issue, type, holder_login AS holder, token, actor_login AS actor, cause FROM events ORDER BY pos")
      .all() as EventRowView[];
  } finally {
    db.close();
  }
}
