/**
 * The repositories the ledger has seen: each one's name and the installation
 * serving it, remembered from webhooks, for work that starts from the ledger
 * (sweeps, lease events) or from a name a person typed (the operator CLI).
 */

export interface RepoInfo {
  repoId: number;
  /** `owner/name` as last seen. */
  repo: string;
  installation: number;
}

/** Which repositories the app has seen, and the installation serving each. */
export interface RepoMemory {
  /** Remembers which installation serves a repository, for work that starts from the ledger (sweeps). */
  rememberRepo(repo: RepoInfo, now: number): Promise<void>;
  repoInfo(repoId: number): Promise<RepoInfo | null>;
  /**
   * The repository remembered under `owner/name` (case-insensitive, as GitHub
   * names are), for work that starts from a name typed by a person (the
   * operator CLI); the most recently seen one if two ids bore the name.
   */
  findRepo(name: string): Promise<RepoInfo | null>;
}
