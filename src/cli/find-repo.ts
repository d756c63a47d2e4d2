/** The repository an operator named, as the ledger knows it. */
import type { RepoInfo, RepoMemory } from "../ledger/repos/repo-memory.js";
import { CliError, EXIT } from "./cli-error.js";

export async function findRepo(ledger: RepoMemory, typed: string): Promise<RepoInfo> {
  const info = await ledger.findRepo(typed);
  if (!info) {
    throw new CliError(
      `unknown repository ${typed}: the app has not seen a command in it (check the spelling, or \`issue-leases list\`)`,
      EXIT.notFound,
    );
  }
  return info;
}
