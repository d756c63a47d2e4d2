/**
 * The token floor of a SQLite ledger (migration 11): recorded by
 * `issue-leases restore` on the copy it puts in place, or raised by
 * `issue-leases token-floor` on the ledger itself. Each function runs inside
 * the caller's transaction.
 */
import type Database from "better-sqlite3";
import { TokenFloorBelowError } from "../admin/token-floor-below-error.js";
import type { Holder } from "../leases/lease-types.js";
import type { TokenFloorRaise, TokenFloorResult } from "../admin/admin-roles.js";

/** The token floor recorded, 0 when none (or on a schema before migration 11, which the caller refuses or migrates). */
export function readTokenFloor(db: Database.Database): number {
  const hasTable = db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'token_floor'").get();
  if (!hasTable) return 0;
  return (db.prepare("SELECT floor FROM token_floor WHERE id = 1").pluck().get() as number | undefined) ?? 0;
}

/** The highest token in the rows and in the history (which keeps those of ended tenures). */
export function highestToken(db: Database.Database): number {
  return db
    .prepare("SELECT max((SELECT coalesce(max(token), 0) FROM leases), (SELECT coalesce(max(token), 0) FROM history))")
    .pluck()
    .get() as number;
}

/**
 * Records the floor (never lowering one already there), raises free rows to
 * it, and writes an entry (op `restore`, `outcome`) in every issue's history.
 * Returns the number of issues.
 */
export function recordTokenFloor(
  db: Database.Database,
  floor: number,
  setBy: string,
  outcome: string,
  actor: Holder,
  now: number,
): number {
  db.prepare(
    `INSERT INTO token_floor (id, floor, set_at, backup) VALUES (1, @floor, @now, @setBy)
     ON CONFLICT (id) DO UPDATE SET floor = max(floor, excluded.floor), set_at = excluded.set_at, backup = excluded.backup`,
  ).run({ floor, now, setBy });
  // A free row's token is the one its next tenure follows (and what replies
  // announce as "the next lease gets token N + 1"): raising it keeps them
  // right. A held row keeps its token: its holder has it.
  db.prepare("UPDATE leases SET token = @floor WHERE holder_id IS NULL AND token < @floor").run({ floor });
  // Effects a backup had not applied yet may have been applied after it was
  // taken: their next attempt must look for the reply it would post, as a
  // retry does, instead of posting it again. Attempts in flight (1 or more)
  // are left alone, so a running app's fences hold.
  db.prepare("UPDATE outbox SET attempts = 1 WHERE state <> 'done' AND attempts = 0").run();
  const append = db.prepare(
    `INSERT INTO history (repo_id, repo, issue, op, outcome, actor_id, actor_login, holder_id, holder_login, token, expires_at, at, delivery, prev)
     VALUES (@repoId, @repo, @issue, 'restore', @outcome, @actorId, @actorLogin, @holderId, @holderLogin, NULL, NULL, @now, NULL, @prev)`,
  );
  const by = { actorId: actor.id, actorLogin: actor.login, outcome, now };
  let issues = 0;
  const leases = db
    .prepare("SELECT repo_id AS repoId, repo, issue, holder_id AS holderId, holder_login AS holderLogin, last_history AS prev FROM leases")
    .all() as { repoId: number; repo: string; issue: number; holderId: number | null; holderLogin: string | null; prev: number | null }[];
  const setLast = db.prepare("UPDATE leases SET last_history = ? WHERE repo_id = ? AND issue = ?");
  for (const l of leases) {
    const id = append.run({ ...l, ...by }).lastInsertRowid;
    setLast.run(id, l.repoId, l.issue);
    issues++;
  }
  // Issues never held have no lease row; their history's head is here.
  const heads = db
    .prepare("SELECT h.repo_id AS repoId, r.repo, h.issue, h.last AS prev FROM history_heads h JOIN history r ON r.id = h.last")
    .all() as { repoId: number; repo: string; issue: number; prev: number }[];
  const setHead = db.prepare("UPDATE history_heads SET last = ? WHERE repo_id = ? AND issue = ?");
  for (const h of heads) {
    const id = append.run({ ...h, holderId: null, holderLogin: null, ...by }).lastInsertRowid;
    setHead.run(id, h.repoId, h.issue);
    issues++;
  }
  return issues;
}

/** `Ledger.raiseTokenFloor` on SQLite, inside the caller's IMMEDIATE transaction. */
export function raiseSqliteTokenFloor(
  db: Database.Database,
  raise: TokenFloorRaise,
  actor: Holder,
  setBy: string,
  now: number,
): TokenFloorResult {
  const before = readTokenFloor(db);
  const top = highestToken(db);
  const wanted = "floor" in raise ? raise.floor : Math.max(top, before) + raise.gap;
  // Never lowered: a floor at or below the one set changes nothing.
  if (wanted <= before) return { before, floor: before, highestToken: top, raised: false, issues: 0 };
  if ("floor" in raise && raise.floor < top) throw new TokenFloorBelowError(raise.floor, top);
  const issues = recordTokenFloor(db, wanted, setBy, "floor_raised", actor, now);
  return { before, floor: wanted, highestToken: top, raised: true, issues };
}
