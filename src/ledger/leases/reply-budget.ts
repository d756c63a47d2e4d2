/**
 * How a reply budget is stored in a history row's \`replied\` column: NULL for
 * an operation not counted (no limit applied), else one of these. Only rows
 * with a reply posted (> 0) are in the \`history_replies\` index, so the
 * count of an actor's last hour reads only those.
 */
import type { ReplyBudget } from "./lease-roles.js";

export const REPLIED: Record<ReplyBudget, number> = { silent: 0, reply: 1, notice: 2 };

export const HOUR_MS = 3_600_000;
