/**
 * The reply budget: whether an operation's reply may be posted, and how it
 * is stored in a history row's `replied` column: NULL for an operation not
 * counted (no limit applied), else one of `REPLIED`. Only rows with a reply
 * posted (> 0) are in the `history_replies` index, so the count of an
 * actor's last hour reads only those.
 */

/**
 * "reply" within the limit; "notice" for the first one over it in the hour,
 * which should say that further commands apply silently; "silent" after that.
 */
export type ReplyBudget = "reply" | "notice" | "silent";

export const REPLIED: Record<ReplyBudget, number> = { silent: 0, reply: 1, notice: 2 };

export const HOUR_MS = 3_600_000;
