/**
 * Tells the ledger which repository a command came from, its name and
 * installation, once per process unless either changed: most deliveries
 * then cost no write.
 */
import type { RepoMemory } from "../ledger/roles.js";

export function rememberRepos(ledger: RepoMemory, clock: () => number): (repoId: number, full: string, installation: number) => Promise<void> {
  const known = new Map<number, string>();
  return async (repoId: number, full: string, installation: number) => {
    const stamp = `${full}@${installation}`;
    if (known.get(repoId) === stamp) return;
    await ledger.rememberRepo({ repoId, repo: full, installation }, clock());
    known.set(repoId, stamp);
  };
}
