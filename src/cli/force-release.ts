/**
 * `issue-leases force-release owner/name#N --reason "…"`: an operator ends
 * anyone's lease from the database (see operator-release.ts). Named apart
 * from \`agent release\`, which ends the caller's own lease through the API.
 */
import type { RepoInfo } from "../ledger/repos/repo-memory.js";
import type { LeaseBook, LeaseReads } from "../ledger/leases/lease-roles.js";
import { usageError } from "./cli-error.js";
import { DATABASE_HELP } from "./database-help.js";
import { operatorRelease } from "./operator-release.js";

export const FORCE_RELEASE_HELP = `Usage: issue-leases force-release owner/name#N --reason "…"

Ends the live lease on an issue, whoever holds it, as a maintainer's
\`/release @holder\` would: the next lease gets the next fencing token. The
ledger queues the update of GitHub in its outbox, and the running app applies
it: labels and assignee are removed and a reply @-mentions the holder with
the reason. History records the actor as "operator" (id 0).
An issue with no live lease is left alone (exit 0).

  --reason TEXT  required: why, posted on the issue (one line, at most 300 characters)

Database:
${DATABASE_HELP}`;

/** The old name of force-release: one line saying which of the two releases to use. */
export const RELEASE_RENAMED =
  "`issue-leases release` is now `issue-leases force-release owner/name#N --reason \"…\"` (ends anyone's lease in the database) " +
  "or `issue-leases agent release owner/name#N` (ends your own lease through the API)";

/** The --reason, required and not blank: it is posted on the issue. */
export function forceReleaseReason(values: Record<string, string | boolean | undefined>): string {
  if (typeof values.reason !== "string" || values.reason.trim() === "") {
    throw usageError(
      'force-release needs --reason "…" (posted on the issue, so its people know why); see `issue-leases force-release --help`',
    );
  }
  return values.reason;
}

export async function runForceRelease(ledger: LeaseBook & LeaseReads, info: RepoInfo, issue: number, reason: string, io: { out(text: string): void; clock(): number }): Promise<number> {
  const ended = await operatorRelease(ledger, info, issue, reason, io.clock());
  if (!ended) {
    io.out(`nothing to release: ${info.repo}#${issue} has no live lease`);
    return 0;
  }
  io.out(
    `released ${info.repo}#${issue}: ${ended.holder.login}'s lease (token ${ended.token}) has ended; ` +
      `the next gets token ${ended.token + 1}. The running app will update GitHub and post the reason.`,
  );
  return 0;
}
