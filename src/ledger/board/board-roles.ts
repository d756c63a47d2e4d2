/** The board by role: what it remembers from webhooks, and what it reads (the values are board-types.ts's). */
import type { RepoInfo } from "../repos/repo-memory.js";
import type { BoardPage, BoardPanels, BoardPanelsQuery, BoardQuery, IssueCard, RepoForget, RepoVisibility } from "./board-types.js";

/** What the board remembers from webhooks: issue titles and labels, and which repositories are private. */
export interface BoardMemory {
  // --- The board (issue 12): what a page of leases shows, remembered from webhooks and read through indexes.
  /**
   * Remembers an issue's title and labels, as a webhook payload showed them,
   * so that the board draws its page without a read of GitHub. Written when
   * `create` (a comment carrying a command: a lease may follow) or when the
   * issue has a row in the ledger (leased now or before); otherwise nothing
   * is written, so issues the app never leases leave no trace. Returns
   * whether the issue has its card now (false: it was not kept). An issue
   * whose card was dropped (`dropCard`) never gets one again.
   */
  rememberCard(card: IssueCard, now: number, create: boolean): Promise<boolean>;
  /**
   * The issue was deleted or transferred away: its title and labels are
   * forgotten, and no later event (a late or redelivered one) writes them
   * again; GitHub never gives its number to another issue. The ledger's rows
   * of its leases stay.
   */
  dropCard(key: { repoId: number; issue: number }, now: number): Promise<void>;
  /**
   * Remembers whether a repository is private, as a webhook payload showed
   * it (with its name and installation, as `rememberRepo`). A repository
   * never seen this way counts as private: the board shows its leases only
   * to viewers allowed to see it. Returns true when the flag changed; the
   * per-holder counts of the repository's leases move with it in the same
   * transaction. Events arrive in any order, so the flag is stored with its
   * time (`updatedAt`, default `now`) and one older than that is ignored; at
   * the same time private wins, unless `reportsChange` (visibility-applies.ts).
   */
  rememberVisibility(repo: RepoVisibility, now: number): Promise<boolean>;
  /**
   * The installation no longer serves these repositories (uninstalled, the
   * repositories removed from it, suspended): their private flags become
   * unknown (counted as private) and their issues' titles and labels are
   * forgotten, for those the ledger has under that installation. Their flag
   * time stays, so that only an event newer than the last one seen, or one
   * that reports the flag, makes them visible again. Returns how many
   * repositories were forgotten.
   */
  forgetRepos(forget: RepoForget, now: number): Promise<number>;
}

/** What the board reads: a page of leases and its side panels, through indexes. */
export interface BoardReads {
  /** The repository remembered under `owner/name` (case-insensitive), with its private flag (null: never seen in a webhook). */
  boardRepo(name: string): Promise<(RepoInfo & { private: boolean | null }) | null>;
  /**
   * One page of live leases a viewer may see, sorted by expiry (open-ended
   * last), then repository id and issue; filtered by repository, holder
   * and label. Reads only the page (and the rows of private repositories
   * the viewer may not see that lie between), through indexes; the total
   * unfiltered comes from the per-holder counts, a filtered one is counted.
   */
  boardLeases(query: BoardQuery, now: number): Promise<BoardPage>;
  /**
   * The board's side panels for a viewer: who holds the most (from counts
   * kept in each lease's own transaction; counted when filtered), what
   * expires within `soonMs`, and the tenures that ended since
   * `now - endedWithinMs`: each under the same filters as the page.
   */
  boardPanels(query: BoardPanelsQuery, now: number): Promise<BoardPanels>;
}
