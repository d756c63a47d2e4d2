/**
 * The label memory of each repository, and the turns in which effects change
 * it. Effects of one repository applied at once take turns here, so that only
 * the first creates the `claimed` label, none deletes a label twice, and none
 * deletes a label another is adding. On a ledger other processes share, a
 * turn also holds the repository's label lock in the ledger, extended while
 * the turn lasts, so that the turns of all replicas alternate.
 */
import type { GitHubPort } from "../github/github-port.js";
import { effectPort } from "../github/effect-port.js";
import type { HeldLock, NamedLocks } from "../ledger/admin/admin-roles.js";
import type { Reflections } from "../ledger/outbox/outbox-roles.js";

/** What the app knows of a repository's labels. */
export interface RepoReflection {
  /** Labels the app created with its colour and description (`claimed`). */
  created: string[];
  /** Holder and token labels the app deleted from the repository, and nothing has added since: known absent. */
  deleted: string[];
  /** Holder and token labels the app brought into the repository: the only ones it may delete. */
  made: string[];
  /** Label names that existed before the app first used them: never deleted. */
  foreign: string[];
  /**
   * Holder and token labels the app made that were taken off an issue but
   * left in the repository because another live lease called for them. That
   * lease may end before its issue ever shows them (its effects reconcile to
   * the ledger as it is when applied, past that tenure), and then no issue's
   * effect would delete them: they are deleted once no live lease calls for
   * them, by the next effect of the repository.
   */
  kept: string[];
  /**
   * Holder and token labels the app made that no live lease calls for any
   * more, taken off their issues but left in the repository since `since`
   * (ms), for a later claim to add by its id without creating it again
   * (GITHUB_WRITES=graphql, LABEL_LINGER_S): deleted by the repository's
   * first effect once they have lingered that long.
   */
  lingering?: Array<{ name: string; since: number }>;
  /** GitHub's node ids (GITHUB_WRITES=graphql): of labels by name in lower case, and of the repository. */
  ids?: Record<string, string>;
  nodeId?: string;
}

export interface RepoTurnsOptions {
  ledger: Reflections & NamedLocks;
  clock: () => number;
  /** Who this process is, in the ledger's locks. */
  owner: string;
  /** How long a repository's label lock lasts if its holder stops extending it (row locks); PostgreSQL's ends with its holder's connection. */
  labelLockMs: number;
  /** Whether the process is stopping: a wait for a label lock gives up. */
  stopping: () => boolean;
}

export class RepoTurns {
  /** Per repository, the turn in progress in this process. */
  private readonly turns = new Map<number, Promise<void>>();

  constructor(private readonly o: RepoTurnsOptions) {}

  /**
   * Runs `f` on the repository's label memory and saves what it changed.
   * Effects of one repository applied at once take turns here, so that only
   * the first creates the `claimed` label, none deletes a label twice, and
   * none deletes a label another is adding. What `f` did before failing is
   * saved too: those calls were made. On a ledger other processes share, a
   * turn also holds the repository's label lock in the ledger, extended while
   * the turn lasts, so that the turns of all replicas alternate; a turn that
   * loses it stops at its next GitHub call.
   */
  async run(
    repoId: number,
    github: GitHubPort,
    signal: AbortSignal,
    f: (repo: RepoReflection, github: GitHubPort) => Promise<void>,
  ): Promise<void> {
    const { ledger, clock } = this.o;
    const before = this.turns.get(repoId) ?? Promise.resolve();
    const turn = before.then(async () => {
      signal.throwIfAborted();
      const lock = ledger.sharedByProcesses ? await this.labelLock(repoId) : null;
      try {
        const saved = (await ledger.getReflection(repoId, 0)) as Partial<RepoReflection> | null;
        const repo: RepoReflection = {
          created: [...(saved?.created ?? [])],
          deleted: [...(saved?.deleted ?? [])],
          made: [...(saved?.made ?? [])],
          foreign: [...(saved?.foreign ?? [])],
          kept: [...(saved?.kept ?? [])],
          ...(saved?.lingering?.length ? { lingering: saved.lingering.map((l) => ({ ...l })) } : {}),
          ...(saved?.ids ? { ids: { ...saved.ids } } : {}),
          ...(saved?.nodeId ? { nodeId: saved.nodeId } : {}),
        };
        const snapshot = JSON.stringify(repo);
        try {
          await f(repo, lock ? effectPort(github, { turn: AbortSignal.any([signal, lock.signal]) }) : github);
        } finally {
          if (JSON.stringify(repo) !== snapshot && !lock?.signal.aborted) await ledger.putReflection(repoId, 0, repo, clock());
        }
      } finally {
        await lock?.release();
      }
    });
    const settled = turn.catch(() => undefined);
    this.turns.set(repoId, settled);
    try {
      await turn;
    } finally {
      if (this.turns.get(repoId) === settled) this.turns.delete(repoId);
    }
  }

  /** Waits for the repository's label lock in the ledger, and keeps it until released. */
  private async labelLock(repoId: number): Promise<HeldLock> {
    const { ledger, owner, clock, labelLockMs } = this.o;
    const name = `labels/${repoId}`;
    for (let wait = 10; ; wait = Math.min(2 * wait, 500)) {
      const lock = await ledger.holdLock(name, owner, clock, labelLockMs);
      if (lock) return lock;
      // The effect goes back to the outbox, for this replica's successor or another.
      if (this.o.stopping()) throw new Error("outbox: shutting down while waiting for a repository's label lock");
      await new Promise((resolve) => setTimeout(resolve, wait));
    }
  }
}
