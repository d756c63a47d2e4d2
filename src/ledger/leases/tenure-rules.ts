/**
 * What is live and what ends a tenure, each written once, in code (for a row
 * already read) and in SQL (for the stores' statements, over the same
 * columns), so that a read, an operation and the board never disagree.
 * test/ledger/tenure-rules.test.ts runs both forms over the same rows, on
 * both stores.
 *
 * The migrations' indexes carry their own copies of the SQL (`leases_board`'s
 * key, `history_ended`'s predicate): a migration is applied history and is
 * never edited, so those copies stay as they were written, and the test checks
 * that each still reads as the rule here does.
 */

/** An expiry not reached at `now`; null is none (open-ended, or held by its work). */
export function unexpired(expiresAt: number | null, now: number): boolean {
  return expiresAt === null || expiresAt > now;
}

/** A lease is live at `now` while it has a holder and no expiry, or one still ahead. */
export function isLive(holder: object | null | undefined, expiresAt: number | null, now: number): boolean {
  return holder != null && unexpired(expiresAt, now);
}

const column = (alias: string | undefined, name: string) => (alias ? `${alias}.${name}` : name);

/** `unexpired` as SQL over a `leases` row (of table alias `alias`, if given); `now` is an SQL expression. */
export function unexpiredSql(now: string, alias?: string): string {
  return `(${column(alias, "expires_at")} IS NULL OR ${column(alias, "expires_at")} > ${now})`;
}

/** `isLive` as SQL over a `leases` row (of table alias `alias`, if given); `now` is an SQL expression. */
export function liveSql(now: string, alias?: string): string {
  return `${column(alias, "holder_id")} IS NOT NULL AND ${unexpiredSql(now, alias)}`;
}

/**
 * A lease's expiry as the board's index (`leases_board`) sorts it: an
 * open-ended lease after every expiry, in the year 9999. Over it, "unexpired"
 * is one range of the index (`> now`), and the leases the sweep has not
 * ended yet the range before it (`<= now`).
 */
export function boardExpirySql(alias: string): string {
  return `coalesce(${alias}.expires_at, 253402300799999)`;
}

/** `isLive` over the board's sort key, so that the board's index serves it: the same rows as `liveSql`'s. */
export function liveOnBoardSql(now: string, alias: string): string {
  return `${alias}.holder_id IS NOT NULL AND ${boardExpirySql(alias)} > ${now}`;
}

/** A history row as the rule of what ends a tenure reads it. */
export interface EndingRow {
  op: string;
  outcome: string;
  /** The holder of the lease the row names; null when it names none (a release of nothing). */
  holderId: number | null;
}

/** How a history row of `op` ends a tenure when it ends one (`tenureEnd`): the outcome it then records. */
export function endingOf(op: string): "released" | "expired" | null {
  if (op === "release" || op === "force_release") return "released";
  return op === "expire" ? "expired" : null;
}

/**
 * How a history row ends a tenure: `released` (its holder's release, or
 * anyone else's: a maintainer, a close, the label taken off), `expired`
 * (the sweep's, or an expiry another operation found), or null when it ends
 * none (a release of nothing, a refusal, a stale event, any other operation).
 * A tenure handed to the first in line begins with a row of its own (`handoff`).
 */
export function tenureEnd(row: EndingRow): "released" | "expired" | null {
  const ending = endingOf(row.op);
  if (ending === null || row.outcome !== ending) return null;
  // A release of nothing names no holder.
  return ending === "released" && row.holderId === null ? null : ending;
}

/** The rows `tenureEnd` names, as SQL over a `history` row (of table alias `alias`, if given): `history_ended`'s predicate. */
export function endsTenureSql(alias?: string): string {
  const c = (name: string) => column(alias, name);
  return (
    `((${c("op")} IN ('release', 'force_release') AND ${c("outcome")} = 'released' AND ${c("holder_id")} IS NOT NULL)` +
    ` OR (${c("op")} = 'expire' AND ${c("outcome")} = 'expired'))`
  );
}
