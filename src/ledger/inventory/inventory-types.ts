/**
 * The ledger's types for the inventory of open issues (issue 22): what a
 * webhook or a fill shows of an issue, and what `readyIssues` asks and
 * answers (sqlite/inventory.ts, postgres/inventory.ts; the walk shared by
 * both in ready-walk.ts).
 */

/** An issue as a payload (a webhook's, or a page of GitHub's issue list) showed it. */
export interface IssueSnapshot {
  repoId: number;
  issue: number;
  title: string;
  /** Label names, as GitHub ordered them. */
  labels: string[];
  assignees: Array<{ id: number; login: string }>;
  /** The milestone's title, or null. */
  milestone: string | null;
  author: { id: number; login: string } | null;
  createdAt: number;
  /** "gone": deleted or transferred away, for good (GitHub never gives its number to another issue). */
  state: "open" | "closed" | "gone";
  /** Open issues blocking it, where GitHub gives it (`issue_dependencies_summary.blocked_by`); null when unknown. */
  blockedByOpen: number | null;
  /** Open sub-issues (`sub_issues_summary`: total - completed); null when unknown. */
  openSubIssues: number | null;
  /** The payload's `issue.updated_at` (ms): an older snapshot never overwrites a newer one. */
  updatedAt: number;
}

/** A repository's last fill from GitHub's issue list (inventory-fill.ts). */
export interface InventoryFill {
  repoId: number;
  /** When the fill started: issues not seen by it and unchanged since were closed without an event. */
  filledAt: number;
  /** Open issues it saw. */
  issues: number;
}

export interface ReadyFilter {
  /** All of them (case-insensitive, as GitHub's label names). */
  labels?: string[];
  /** At least one. */
  anyLabels?: string[];
  /** None of them. */
  excludeLabels?: string[];
  /** A milestone's title. */
  milestone?: string;
  /** Default none_or_me: unassigned, or assigned to `me`. */
  assignee?: "none" | "none_or_me";
  /** The caller's id (for none_or_me). */
  me?: number;
  /** Default true: no open pull request closes it (the ledger's pull links). */
  noOpenPull?: boolean;
  /** Default true: no open blocking issue (unknown counts as none). */
  notBlocked?: boolean;
  /** Default true: no open sub-issue (unknown counts as none). */
  notParent?: boolean;
  /** Label order: issues with order[0] first, then order[1], ..., then the rest; oldest first within each. */
  order?: string[];
}

export interface ReadyQuery extends ReadyFilter {
  repoIds: number[];
  limit: number;
  /** "repoId#issue": issues left out of `ready` (being tried by concurrent calls of this process); still counted in `matched`. */
  skip?: ReadonlySet<string>;
  /**
   * Default true: `matched` and `held` count every open issue matching the
   * filter (a walk to the end). false: held issues are not read, the walk
   * stops once `ready` is full, and `matched` counts only the free issues it
   * read (`held` 0): what `next` asks, which needs the counts only when
   * nothing is ready, and then asks again with counts.
   */
  counts?: boolean;
}

export interface ReadyIssue {
  repoId: number;
  repo: string;
  issue: number;
  title: string;
  labels: string[];
  createdAt: number;
  authorId: number | null;
  authorLogin: string | null;
  assignees: string[];
}

export interface ReadyPage {
  ready: ReadyIssue[];
  /** Open issues matching the filter. */
  matched: number;
  /** Of those, with a live lease. */
  held: number;
}
