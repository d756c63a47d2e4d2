/** The ledger's types for the board (sqlite/board-*.ts, postgres/board-*.ts). */
import type { HeldBy, Holder, Lease } from "../leases/lease-types.js";
import type { RepoInfo } from "../repos/repo-memory.js";

/** An issue as the board shows it: its title and labels, from the last webhook that carried them. */
export interface IssueCard {
  repoId: number;
  issue: number;
  title: string;
  labels: string[];
}

export interface RepoVisibility extends RepoInfo {
  private: boolean;
  /**
   * When GitHub last changed the repository, as the payload says
   * (`repository.updated_at`, ms): a flag older than the one stored is not
   * applied. null: the payload gives no time (a repository added to an
   * installation); absent: the caller's `now`.
   */
  updatedAt?: number | null;
  /**
   * The payload reports the flag itself (`repository.privatized` or
   * `publicized`, a repository added to an installation): it wins a tie with
   * the stored time, and applies without a time of its own.
   */
  reportsChange?: boolean;
}

/** A repository no longer served by the installation that served it (uninstalled, removed, suspended). */
export interface RepoForget {
  installation: number;
  /** The repositories, or all those of the installation. */
  repoIds: readonly number[] | "all";
  /**
   * Forget the times of their flags too, so that the next event of each sets
   * its flag whatever its time (after a suspension, when no event reports
   * the flags again). Otherwise the time stays, and only a newer event or one
   * that reports the flag sets it: a late event from before does not.
   */
  times?: boolean;
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
  /** How many wait in line for it (places not yet ended); absent when nobody does. */
  waiting?: number;
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
