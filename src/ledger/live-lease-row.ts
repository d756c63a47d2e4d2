/**
 * A live lease as a row of `leases` reads on either backend (SQLite's 0/1
 * for `exempt`, PostgreSQL's boolean), and the Lease it stands for: one
 * mapping for the reads that list leases (the limits' refusals, the board).
 */
import { holderOf, type Lease } from "./types.js";
import { heldByOf, parsePulls } from "./work-rules.js";

export interface LiveLeaseRow {
  repo_id: number;
  repo: string;
  issue: number;
  holder_id: number;
  holder_login: string;
  holder_instance: string | null;
  token: number;
  acquired_at: number;
  expires_at: number | null;
  /** What holds it besides time (leases that follow the work): JSON pull numbers or NULL, and the exempt flag. */
  pulls: string | null;
  exempt: number | boolean;
}

export function leaseOfRow(row: LiveLeaseRow): Lease {
  return {
    repoId: row.repo_id,
    repo: row.repo,
    issue: row.issue,
    holder: holderOf(row.holder_id, row.holder_login, row.holder_instance),
    token: row.token,
    acquiredAt: row.acquired_at,
    expiresAt: row.expires_at,
    heldBy: heldByOf({ pulls: parsePulls(row.pulls), exempt: row.exempt === true || row.exempt === 1 }),
  };
}
