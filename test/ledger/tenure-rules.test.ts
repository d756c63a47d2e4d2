/**
 * What is live and what ends a tenure are each written once
 * (src/ledger/leases/tenure-rules.ts), in code and in SQL: both forms answer
 * the same for every kind of row, on SQLite and on PostgreSQL, and the
 * migrations' indexes, which keep frozen copies of the SQL, still read as the
 * rule does.
 */
import Database from "better-sqlite3";
import { describe, expect, it } from "vitest";
import {
  boardExpirySql,
  endingOf,
  endsTenureSql,
  isLive,
  liveOnBoardSql,
  liveSql,
  tenureEnd,
  unexpired,
  unexpiredSql,
} from "../../src/ledger/leases/tenure-rules.js";
import { POSTGRES_MIGRATIONS } from "../../src/ledger/postgres/migrations.js";
import { SQLITE_MIGRATIONS } from "../../src/ledger/sqlite/migrations.js";
import { skipPostgres, withClient } from "../support/pg-schema.js";

const NOW = 1_000_000;
/** Every kind of lease row: free or held, open-ended, expired before, at or after `NOW`. */
const LEASE_ROWS = [null, 7].flatMap((holder) => [null, NOW - 1, NOW, NOW + 1].map((expiresAt) => ({ holder, expiresAt })));
/** Every operation's row with every outcome an ending could be confused with, naming a holder or none. */
const OPS = ["acquire", "renew", "release", "force_release", "expire", "remind", "note", "restore", "follow", "handoff"];
const OUTCOMES = ["acquired", "released", "expired", "not_holder", "stale", "noted", "reminded"];
const HISTORY_ROWS = OPS.flatMap((op) => OUTCOMES.flatMap((outcome) => [null, 7].map((holderId) => ({ op, outcome, holderId }))));

/** What the code says of each lease row: live, unexpired, and live by the board's spelling (the same rule). */
const liveInCode = LEASE_ROWS.map((r) => [isLive(r.holder === null ? null : { id: r.holder }, r.expiresAt, NOW), unexpired(r.expiresAt, NOW)]);
const endsInCode = HISTORY_ROWS.map((r) => tenureEnd(r) !== null);

/** One SELECT over a row given as values, aliased `l` (a lease) or `h` (a history row), answering each rule as 0 or 1. */
const leaseSelect = (now: string, row: string) =>
  `SELECT CASE WHEN ${liveSql(now)} THEN 1 ELSE 0 END AS live, CASE WHEN ${unexpiredSql(now, "l")} THEN 1 ELSE 0 END AS unexpired,
     CASE WHEN ${liveOnBoardSql(now, "l")} THEN 1 ELSE 0 END AS board FROM (${row}) l`;
const historySelect = (row: string) => `SELECT CASE WHEN ${endsTenureSql("h")} THEN 1 ELSE 0 END AS ends FROM (${row}) h`;

describe("the rules of tenures", () => {
  it("what is live answers the same in code and in SQLite, through the leases' columns and the board's sort key", () => {
    const db = new Database(":memory:");
    try {
      const select = db.prepare<[number | null, number | null], { live: number; unexpired: number; board: number }>(
        leaseSelect("1000000", "SELECT ? AS holder_id, ? AS expires_at"),
      );
      const inSql = LEASE_ROWS.map((r) => select.get(r.holder, r.expiresAt)!);
      expect(inSql.map((r) => [r.live === 1, r.unexpired === 1])).toEqual(liveInCode);
      expect(inSql.map((r) => r.board === 1)).toEqual(liveInCode.map(([live]) => live));
    } finally {
      db.close();
    }
  });

  it("what ends a tenure answers the same in code and in SQLite", () => {
    const db = new Database(":memory:");
    try {
      const select = db.prepare<[string, string, number | null], { ends: number }>(historySelect("SELECT ? AS op, ? AS outcome, ? AS holder_id"));
      expect(HISTORY_ROWS.map((r) => select.get(r.op, r.outcome, r.holderId)!.ends === 1)).toEqual(endsInCode);
    } finally {
      db.close();
    }
  });

  it.skipIf(skipPostgres)("both rules answer the same in code and in PostgreSQL", async () => {
    await withClient(async (c) => {
      const live = [];
      for (const r of LEASE_ROWS) {
        const { rows } = await c.query<{ live: number; unexpired: number; board: number }>(
          leaseSelect("$3::bigint", "SELECT $1::bigint AS holder_id, $2::bigint AS expires_at"),
          [r.holder, r.expiresAt, NOW],
        );
        live.push(rows[0]!);
      }
      expect(live.map((r) => [r.live === 1, r.unexpired === 1])).toEqual(liveInCode);
      expect(live.map((r) => r.board === 1)).toEqual(liveInCode.map(([l]) => l));
      const ends = [];
      for (const r of HISTORY_ROWS) {
        const { rows } = await c.query<{ ends: number }>(historySelect("SELECT $1::text AS op, $2::text AS outcome, $3::bigint AS holder_id"), [
          r.op,
          r.outcome,
          r.holderId,
        ]);
        ends.push(rows[0]!.ends === 1);
      }
      expect(ends).toEqual(endsInCode);
    });
  });

  it("a tenure ends by a release that freed a holder's lease or by an expiry, and by nothing else", () => {
    expect(HISTORY_ROWS.filter((r) => tenureEnd(r) !== null).map((r) => `${r.op}:${r.outcome}:${r.holderId ?? "-"}`)).toEqual([
      "release:released:7",
      "force_release:released:7",
      "expire:expired:-",
      "expire:expired:7",
    ]);
    expect(OPS.map(endingOf)).toEqual([null, null, "released", "released", "expired", null, null, null, null, null]);
  });

  it("the migrations' indexes keep the rules' SQL as they were written: history_ended's predicate and leases_board's key", () => {
    const predicate = endsTenureSql().slice(1, -1);
    const key = boardExpirySql("x").replace("x.", "");
    const sqlite = SQLITE_MIGRATIONS.join("\n");
    const postgres = POSTGRES_MIGRATIONS.map((m) => m("s")).join("\n");
    for (const migrations of [sqlite, postgres]) {
      expect(migrations).toMatch(new RegExp(`CREATE INDEX history_ended ON [^;]*WHERE ${escape(predicate)};`));
      expect(migrations).toMatch(new RegExp(`CREATE INDEX leases_board ON [^;]*${escape(key)}[^;]*WHERE holder_id IS NOT NULL;`));
    }
  });
});

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}
