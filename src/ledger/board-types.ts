/** The ledger's types for the board (sqlite-board.ts, postgres-board.ts). */
import type { HeldBy, Holder, Lease, RepoInfo } from "./types.js";

/** An issue as the board shows it: its title and labels, from the last webhook that carried them. */
export interface IssueCard {
  repoId: number;
  issue: number;
  title: string;
  labels: string[];
}

export interface RepoVisibility extends RepoInfo {
  private: boolean;
}

/**
 * Which repositories a viewer may see besides public ones: the ids of the
 * private repositories GitHub said they can access. Empty for an anonymous
 * visitor.
 */
export type VisiblePrivateRepos = readonly number[];

/** The board's filters, the same for the page and its side panels. */
export interface BoardFilter {
  visible: VisiblePrivateRepos;
  repoId?: number;
  /** By login (case-insensitive); with `id`, only that account under that login. */
  holder?: { login: string; id?: number };
  /** By label name (case-insensitive). */
  label?: string;
}

export interface BoardQuery extends BoardFilter {
  /** 0 for the first page. */
  page: number;
  pageSize: number;
}

export interface BoardLease extends Lease {
  /** null until a webhook showed the issue's title. */
  title: string | null;
  labels: string[];
  heldBy: HeldBy;
}

export interface BoardPage {
  leases: BoardLease[];
  /** Whether a next page exists. */
  more: boolean;
  /** How many live leases the filters match, among what the viewer may see (every page's). */
  total: number;
}

export interface BoardPanelsQuery extends BoardFilter {
  /** How many holders, expiring leases and ended tenures to list. */
  top: number;
  soonMs: number;
  endedWithinMs: number;
  /** The expiring count stops at this many (the panel says "N+"). */
  countCap: number;
}

/** How a tenure ended: released by its holder, expired, or ended by someone else (a maintainer, a close, the operator). */
export type EndedHow = "released" | "expired" | "ended";

export interface EndedTenure {
  repoId: number;
  repo: string;
  issue: number;
  title: string | null;
  holder: Holder;
  token: number;
  at: number;
  how: EndedHow;
  /** Who ended it, for "ended". */
  by: Holder | null;
}

export interface BoardPanels {
  holders: Array<{ holder: Holder; leases: number }>;
  expiring: BoardLease[];
  /** Leases expiring within soonMs, at most countCap. */
  expiringCount: number;
  ended: EndedTenure[];
}
