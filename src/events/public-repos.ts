/**
 * Which events anyone may see: those of repositories the ledger knows to be
 * public now, as the board decides (the flag from the last webhook that
 * showed it, visibility-applies.ts). A repository never seen in a webhook,
 * or whose name the ledger now gives to another id (renamed, or another
 * repository took the name), counts as private: the safe side.
 *
 * Remembered for a few seconds per repository, so that the stream's one
 * reader and every replay ask the ledger once per repository, not per event:
 * a repository made private stops reaching anonymous clients within that.
 * A repository the ledger has no flag for is asked again each time.
 */
import type { StoredEvent } from "../ledger/events/event-types.js";
import type { BoardReads } from "../ledger/board/board-roles.js";

const MAX_ENTRIES = 10_000;

export class PublicRepos {
  private readonly known = new Map<number, { public: boolean; at: number }>();

  constructor(
    private readonly ledger: Pick<BoardReads, "boardRepo">,
    private readonly clock: () => number,
    private readonly ttlMs = 5_000,
  ) {}

  /** The ids, among the events' repositories, of those that are public. */
  async of(events: readonly StoredEvent[]): Promise<Set<number>> {
    const now = this.clock();
    const names = new Map<number, string>();
    const found = new Set<number>();
    for (const e of events) {
      const hit = this.known.get(e.repoId);
      if (hit && now - hit.at < this.ttlMs) {
        if (hit.public) found.add(e.repoId);
      } else names.set(e.repoId, e.event.repo);
    }
    await Promise.all(
      [...names].map(async ([repoId, name]) => {
        const repo = await this.ledger.boardRepo(name);
        const known = repo !== null && repo.repoId === repoId && repo.private !== null;
        // Only a flag a webhook showed is remembered: the first event of a repository may come before it is written.
        if (known) this.remember(repoId, repo.private === false, now);
        if (known && repo.private === false) found.add(repoId);
      }),
    );
    return found;
  }

  private remember(repoId: number, open: boolean, at: number): void {
    this.known.delete(repoId);
    this.known.set(repoId, { public: open, at });
    if (this.known.size > MAX_ENTRIES) this.known.delete(this.known.keys().next().value!);
  }
}
