/**
 * Replies per person: no one can make the app post more than a bounded
 * number of comments an hour in a repository (a comment edited back and
 * forth runs its command at every edit). The ledger counts and decides the
 * budget in the command's transaction; this module says who is limited, and
 * the outbox holds the reply back when the transaction said so
 * (github/reply-fill.ts). Past the limit commands still
 * run and are recorded, and labels still follow: only the reply is held back.
 */
import type { Config } from "../config/schema.js";

/** Maintainers, as GitHub's `author_association` tells them: never limited. */
const TRUSTED = new Set(["OWNER", "MEMBER", "COLLABORATOR"]);

/** The replies per hour a comment's author may get (0: no limit). */
export function repliesPerHour(association: string, config: Config): number {
  return TRUSTED.has(association.toUpperCase()) ? 0 : config.maxRepliesPerHour;
}
