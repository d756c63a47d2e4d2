/**
 * Rows of `leases` as either backend reads them (SQLite's 0/1 where
 * PostgreSQL has booleans), and what they stand for: the rules' Row of an
 * issue (decide.ts), read by every operation, and a live Lease, for the reads
 * that list leases (the limits' refusals, the board). One mapping each.
 */
import type { Row } from "./decide.js";
import { holderOf, type Lease } from "./lease-types.js";
import { heldByOf, parsePulls } from "../work/work-rules.js";

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

/**
 * An issue's row as an operation reads it: the fields the rules need. `Flag`
 * is how the backend gives a boolean column (SQLite 0/1, PostgreSQL boolean);
 * each backend's row types extend this with its own.
 */
export interface StateRowFields<Flag extends number | boolean = number | boolean> {
  holder_id: number | null;
  holder_login: string | null;
  holder_instance: string | null;
  token: number;
  acquired_at: number | null;
  expires_at: number | null;
  reminded: Flag;
  pulls: string | null;
  exempt: Flag;
  term_ms: number | null;
}

/** The rules' Row of an issue's row; null when the issue has none. */
export function ruleRow(r: StateRowFields | undefined): Row | null {
  if (!r) return null;
  return {
    holder: r.holder_id === null ? null : holderOf(r.holder_id, r.holder_login!, r.holder_instance),
    token: r.token,
    acquiredAt: r.acquired_at,
    expiresAt: r.expires_at,
    reminded: r.reminded === true || r.reminded === 1,
    pulls: parsePulls(r.pulls),
    exempt: r.exempt === true || r.exempt === 1,
    termMs: r.term_ms,
  };
}

/** What `liveAmong` found, from its rows (one per login or token, the other column null). */
export function matchOf(rows: ReadonlyArray<{ login: string | null; token: number | string | null }>): { logins: string[]; tokens: number[] } {
  return {
    logins: rows.flatMap((r) => (r.login === null ? [] : [r.login])),
    tokens: rows.flatMap((r) => (r.token === null ? [] : [Number(r.token)])),
  };
}
