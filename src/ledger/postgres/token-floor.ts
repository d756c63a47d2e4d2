/**
 * The token floor of a PostgreSQL ledger (migration 10), raised by
 * `issue-leases token-floor` after a `pg_restore` of an older dump: the dump
 * knows fewer tokens than GitHub saw, and no token may be handed out twice.
 * Acquires read the floor in the statement that locks the issue's row
 * (plan-statements.ts), so a raise applies to the next acquire on every replica.
 */
import type pg from "pg";
import { TokenFloorBelowError } from "../admin/token-floor-below-error.js";
import type { Holder } from "../leases/lease-types.js";
import type { TokenFloorRaise, TokenFloorResult } from "../admin/admin-roles.js";

/** A scalar subquery: the floor, 0 when none was ever set. */
export const floorOf = (s: string): string => `COALESCE((SELECT floor FROM ${s}.token_floor WHERE id = 1), 0)`;

/** `Ledger.raiseTokenFloor` on PostgreSQL, inside the caller's transaction on `c`; `s` is the quoted schema. */
export async function raisePostgresTokenFloor(
  c: pg.PoolClient,
  s: string,
  raise: TokenFloorRaise,
  actor: Holder,
  setBy: string,
  now: number,
): Promise<TokenFloorResult> {
  // Waits for the operations under way on leases to commit, and holds back
  // new ones (FOR UPDATE conflicts with EXCLUSIVE) until the floor is
  // committed: none can take a token from the floor being replaced.
  await c.query(`LOCK TABLE ${s}.leases IN EXCLUSIVE MODE`);
  const { rows } = await c.query<{ before: number; top: number }>(
    `SELECT ${floorOf(s)} AS before,
            GREATEST((SELECT COALESCE(max(token), 0) FROM ${s}.leases), (SELECT COALESCE(max(token), 0) FROM ${s}.history)) AS top`,
  );
  const { before, top } = rows[0]!;
  const floor = "floor" in raise ? raise.floor : Math.max(top, before) + raise.gap;
  // Never lowered: a floor at or below the one set changes nothing.
  if (floor <= before) return { before, floor: before, highestToken: top, raised: false, issues: 0 };
  if ("floor" in raise && raise.floor < top) throw new TokenFloorBelowError(raise.floor, top);

  await c.query(
    `INSERT INTO ${s}.token_floor (id, floor, set_at, backup) VALUES (1, $1, $2, $3)
     ON CONFLICT (id) DO UPDATE SET floor = GREATEST(${s}.token_floor.floor, excluded.floor), set_at = excluded.set_at,
       backup = excluded.backup`,
    [floor, now, setBy],
  );
  // A free row's token is the one its next tenure follows (and what replies
  // announce as "the next lease gets token N + 1"): raising it keeps them
  // right. A held row keeps its token: its holder has it.
  await c.query(`UPDATE ${s}.leases SET token = $1 WHERE holder_id IS NULL AND token < $1`, [floor]);
  // Effects a dump had not applied yet may have been applied after it was
  // taken: their next attempt must look for the reply it would post, as a
  // retry does, instead of posting it again. Attempts in flight (1 or more)
  // are left alone, so running replicas' fences hold.
  await c.query(`UPDATE ${s}.outbox SET attempts = 1 WHERE state <> 'done' AND attempts = 0`);
  // Every issue the ledger knows: those with a row, and those only in the
  // history (history_heads). Each new row follows the issue's latest (prev)
  // and becomes it, in one statement: the table lock above keeps every
  // operation, and its reserved history ids (run-plan.ts), out meanwhile.
  const recorded = await c.query<{ n: number }>(
    `WITH issues AS (
       SELECT repo_id, issue, repo, holder_id, holder_login, last_history AS prev FROM ${s}.leases
       UNION ALL
       SELECT hh.repo_id, hh.issue, h.repo, NULL::bigint, NULL::text, hh.last FROM ${s}.history_heads hh JOIN ${s}.history h ON h.id = hh.last
     ),
     added AS (
       INSERT INTO ${s}.history (repo_id, repo, issue, op, outcome, actor_id, actor_login, holder_id, holder_login, token, expires_at, at, prev)
       SELECT i.repo_id, i.repo, i.issue, 'restore', 'floor_raised', $1, $2, i.holder_id, i.holder_login, NULL, NULL, $3, i.prev
       FROM issues i ORDER BY i.repo_id, i.issue
       RETURNING id, repo_id, issue
     ),
     rows AS (UPDATE ${s}.leases l SET last_history = a.id FROM added a WHERE l.repo_id = a.repo_id AND l.issue = a.issue),
     heads AS (UPDATE ${s}.history_heads hh SET last = a.id FROM added a WHERE hh.repo_id = a.repo_id AND hh.issue = a.issue)
     SELECT count(*)::int AS n FROM added`,
    [actor.id, actor.login, now],
  );
  return { before, floor, highestToken: top, raised: true, issues: recorded.rows[0]!.n };
}
