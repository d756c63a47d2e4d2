/** The inventory of open issues as `next`, the board's Ready view and the fills use it (the values are inventory-types.ts's). */
import type { RepoInfo } from "../repos/repo-memory.js";
import type { InventoryFill, IssueSnapshot, ReadyPage, ReadyQuery } from "./inventory-types.js";

/**
 * The inventory of open issues (issue 22): every issue of a served
 * repository as webhooks and fills from GitHub's issue list showed it, so
 * that `next` and the board's Ready view read no GitHub. Writes are
 * idempotent and keep the newest payload (an older one never overwrites
 * it); a deleted or transferred issue stays gone.
 */
export interface Inventory {
  /** Writes the snapshots that are newer than what is stored (in one transaction). Returns how many were written. */
  rememberIssues(issues: readonly IssueSnapshot[], now: number): Promise<number>;
  /**
   * A fill of `repoId` started at `before` saw the open issues `seen`: each
   * other issue stored open and unchanged since `before` was closed without an
   * event reaching the app, and is marked closed, its time kept: an event
   * older than it does not reopen it, and a later fill that sees it open
   * (a page that shifted while it was read) does. Returns how many.
   */
  closeUnseen(repoId: number, seen: readonly number[], before: number, now: number): Promise<number>;
  markFilled(fill: InventoryFill, now: number): Promise<void>;
  lastFill(repoId: number): Promise<InventoryFill | null>;
  /** Up to `limit` remembered repositories never filled, or last filled before `before`, the longest waiting first. */
  staleFills(before: number, limit: number): Promise<RepoInfo[]>;
  /** The repositories of `owner` (case-insensitive) whose inventory was filled: what the organisation form of `next` walks. */
  inventoryRepos(owner: string): Promise<RepoInfo[]>;
  /** The app no longer serves these repositories: their issues and fills are forgotten (a new fill brings them back). */
  forgetInventory(repoIds: readonly number[], now: number): Promise<number>;
  /**
   * Open issues of `query.repoIds` that match the filter and are free (no
   * live lease, not in `skip`), in the filter's order, at most `limit`,
   * read through indexes in order; with how many matched and how many of
   * those are held (inventory-types.ts).
   */
  readyIssues(query: ReadyQuery, now: number): Promise<ReadyPage>;
}
