/** `issue-leases history owner/name#N`: every operation the ledger recorded on an issue. */
import type { HistoryEntry, Holder } from "../ledger/leases/lease-types.js";
import type { LeaseReads } from "../ledger/leases/lease-roles.js";
import type { RepoMemory } from "../ledger/repos/repo-memory.js";
import { CliError, EXIT } from "./cli-error.js";
import { DATABASE_HELP } from "./database-help.js";
import { findRepo } from "./find-repo.js";
import { formatTable, isoTime } from "./format-table.js";
import type { IssueRef } from "./parse-issue-ref.js";
import type { CliIo } from "./cli-io.js";

export const HISTORY_HELP = `Usage: issue-leases history owner/name#N [--json]

Every operation the ledger recorded on an issue, oldest first: time (UTC), op,
outcome, actor, holder and its instance, token, expiry and the webhook
delivery it came from.
Exit 3 if the repository or the issue is unknown to the ledger.

  --json  a JSON array instead of a table, with the API's field names
          (actor and holder as {login, id, instance}, expires_at)

Database:
${DATABASE_HELP}`;

/** Enough of an issue's history for any issue a person works on; the ledger returns the latest ones. */
const HISTORY_LIMIT = 1_000_000;

/** A person or bot as the API shows one: the instance null when none. */
function holderJson(h: Holder | null) {
  return h === null ? null : { login: h.login, id: h.id, instance: h.instance ?? null };
}

/** An entry with the API's field names (snake_case), as `list --json` has them. */
function historyJson(h: HistoryEntry) {
  return {
    id: h.id,
    at: isoTime(h.at),
    op: h.op,
    outcome: h.outcome,
    actor: holderJson(h.actor),
    holder: holderJson(h.holder),
    token: h.token,
    expires_at: isoTime(h.expiresAt),
    delivery: h.delivery,
  };
}

type Values = Record<string, string | boolean | undefined>;

export async function runHistory(ledger: LeaseReads & RepoMemory, ref: IssueRef, values: Values, io: CliIo): Promise<number> {
  const info = await findRepo(ledger, ref.repo);
  const entries = await ledger.history({ repoId: info.repoId, issue: ref.issue }, HISTORY_LIMIT);
  if (entries.length === 0) {
    throw new CliError(
      `no history for ${info.repo}#${ref.issue}: the app has recorded no operation on this issue`,
      EXIT.notFound,
    );
  }
  if (values.json) {
    io.out(JSON.stringify(entries.map(historyJson), null, 2));
    return EXIT.ok;
  }
  const dash = (v: string | number | null | undefined) => (v === null || v === undefined ? "-" : String(v));
  io.out(
    formatTable(
      ["TIME", "OP", "OUTCOME", "ACTOR", "HOLDER", "INSTANCE", "TOKEN", "EXPIRES", "DELIVERY"],
      entries.map((h) => [
        isoTime(h.at)!,
        h.op,
        h.outcome,
        dash(h.actor?.login),
        dash(h.holder?.login),
        dash(h.holder?.instance),
        dash(h.token),
        // A lease's expiry null is open-ended; an entry without a lease has none.
        h.token === null ? "-" : (isoTime(h.expiresAt) ?? "never"),
        dash(h.delivery),
      ]),
    ),
  );
  return EXIT.ok;
}
