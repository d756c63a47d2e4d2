/** `issue-leases list`: the live leases, as a table or JSON. */
import { leaseJson as apiLeaseJson, iso } from "../api/answers.js";
import type { Lease } from "../ledger/leases/lease-types.js";
import type { LeaseReads } from "../ledger/leases/lease-roles.js";
import type { RepoMemory } from "../ledger/repos/repo-memory.js";
import { EXIT, usageError } from "./cli-error.js";
import { DATABASE_HELP } from "./database-help.js";
import { findRepo } from "./find-repo.js";
import { formatTable, isoTime } from "./format-table.js";
import { parseRepoName } from "./parse-issue-ref.js";
import type { CliIo } from "./cli-io.js";

export const LIST_HELP = `Usage: issue-leases list [--repo owner/name] [--holder login] [--json]

Lists the live leases: repository, issue, holder and its instance (an API
client's worker: two instances of one account are two holders), fencing
token, when the tenure was acquired and when it expires (UTC), ordered by
repository and issue.

  --repo owner/name  only this repository (exit 3 if the app never saw it)
  --holder login     only leases held by this GitHub login (case-insensitive),
                     every instance
  --json             a JSON array instead of a table, with the API's field names
                     (repo, repo_id, issue, holder {login, id, instance}, token,
                     expires_at, held_by, acquired_at)

Database:
${DATABASE_HELP}`;

/**
 * A lease as the API shows one (snake_case, the holder with its instance,
 * null when none), with the repository's id and when the tenure began, as
 * `GET /api/v1/leases` has it: a script reads both the same way.
 */
function leaseJson(l: Lease) {
  const { repo, ...api } = apiLeaseJson(l.repo, l.issue, l);
  return { repo, repo_id: l.repoId, ...api, acquired_at: iso(l.acquiredAt) };
}

type Values = Record<string, string | boolean | undefined>;

export function repoOption(values: Values): string | null {
  if (typeof values.repo !== "string") return null;
  const name = parseRepoName(values.repo);
  if (!name) throw usageError(`not a repository: ${JSON.stringify(values.repo)}; write it as owner/name`);
  return name;
}

export async function runList(ledger: LeaseReads & RepoMemory, values: Values, io: CliIo): Promise<number> {
  const now = io.clock();
  const repo = repoOption(values);
  let leases: Lease[];
  if (repo !== null) {
    leases = await ledger.list((await findRepo(ledger, repo)).repoId, now);
  } else {
    leases = await ledger.listAll(now);
  }
  if (typeof values.holder === "string") {
    const login = values.holder.replace(/^@/, "").toLowerCase();
    leases = leases.filter((l) => l.holder.login.toLowerCase() === login);
  }
  if (values.json) {
    io.out(JSON.stringify(leases.map(leaseJson), null, 2));
  } else if (leases.length === 0) {
    io.out("no live leases");
  } else {
    io.out(
      formatTable(
        ["REPO", "ISSUE", "HOLDER", "INSTANCE", "TOKEN", "ACQUIRED", "EXPIRES"],
        leases.map((l) => [
          l.repo,
          `#${l.issue}`,
          l.holder.login,
          l.holder.instance ?? "-",
          String(l.token),
          isoTime(l.acquiredAt)!,
          isoTime(l.expiresAt) ?? "never",
        ]),
      ),
    );
  }
  return EXIT.ok;
}
