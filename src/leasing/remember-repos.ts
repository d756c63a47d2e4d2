/**
 * Tells the ledger which repository a command came from, its name and
 * installation, once per process unless either changed: most deliveries
 * then cost no write. The API also says whether GitHub showed the
 * repository private (`GET /repos/{owner}/{repo}` with the caller's token):
 * remembered as an untimed flag, which never makes public a repository a
 * webhook showed private later (visibility-applies.ts), so that the lease
 * events of a repository only ever used through the API reach who may see
 * them.
 */
import type { BoardMemory } from "../ledger/board/board-roles.js";
import type { RepoMemory } from "../ledger/repos/repo-memory.js";

export function rememberRepos(
  ledger: RepoMemory & Pick<BoardMemory, "rememberVisibility">,
  clock: () => number,
): (repoId: number, full: string, installation: number, isPrivate?: boolean) => Promise<void> {
  const known = new Map<number, string>();
  return async (repoId: number, full: string, installation: number, isPrivate?: boolean) => {
    const stamp = `${full}@${installation}${isPrivate === undefined ? "" : isPrivate ? ":private" : ":public"}`;
    if (known.get(repoId) === stamp) return;
    const repo = { repoId, repo: full, installation };
    await ledger.rememberRepo(repo, clock());
    if (isPrivate !== undefined) await ledger.rememberVisibility({ ...repo, private: isPrivate, updatedAt: null }, clock());
    known.set(repoId, stamp);
  };
}
