/**
 * What a board request asks for, read from its URL (the filters are in the
 * query string so that a view can be shared), and what the ledger answers
 * for a viewer: the page of leases, how many there are, and the side panels
 * (under the same filters). The same for the HTML board and its JSON twin.
 */
import type { BoardReads } from "../ledger/board/board-roles.js";
import type { BoardPage, BoardPanels, VisiblePrivateRepos } from "../ledger/board/board-types.js";

export const PAGE_SIZE = 100;
/** Side panels list this many. */
export const PANEL_TOP = 10;
export const SOON_MS = 24 * 3_600_000;
export const ENDED_WITHIN_MS = 7 * 24 * 3_600_000;
/** "Expiring in the next 24 hours" counts up to this many, then says "100+". */
export const SOON_COUNT_CAP = 100;
const MAX_PAGE = 10_000;

export interface BoardFilters {
  /** `owner/name`. */
  repo?: string;
  /** A login; see `mine` for `@me`. */
  holder?: string;
  /** `holder=@me`: the signed-in viewer's leases. */
  mine: boolean;
  label?: string;
  /** 1-based, as in the URL. */
  page: number;
}

export type Parsed<T> = { ok: true; value: T } | { ok: false; error: string };

const REPO = /^[A-Za-z0-9_.-]{1,100}\/[A-Za-z0-9_.-]{1,100}$/;
const LOGIN = /^[A-Za-z0-9](?:[A-Za-z0-9-]{0,38})(?:\[bot\])?$/;

/**
 * The filters of a board URL: `repo`, `holder` (a login, or `@me`),
 * `label`, `page`. `pathRepo` is the repository of `/leases/{owner}/{repo}`.
 * Empty values are no filter; anything malformed is refused with the reason.
 */
export function parseFilters(params: URLSearchParams, pathRepo?: string): Parsed<BoardFilters> {
  const get = (name: string) => {
    const v = params.get(name)?.trim();
    return v === undefined || v === "" ? undefined : v;
  };
  const filters: BoardFilters = { mine: false, page: 1 };
  const repo = pathRepo ?? get("repo");
  if (repo !== undefined) {
    if (!REPO.test(repo)) return { ok: false, error: "repo must be owner/name" };
    filters.repo = repo;
  }
  const holder = get("holder");
  if (holder !== undefined) {
    if (holder.toLowerCase() === "@me") filters.mine = true;
    else if (LOGIN.test(holder.replace(/^@/, ""))) filters.holder = holder.replace(/^@/, "");
    else return { ok: false, error: "holder must be a GitHub login or @me" };
  }
  const label = get("label");
  if (label !== undefined) {
    if (Array.from(label).length > 100 || /[\u0000-\u001f\u007f]/.test(label)) return { ok: false, error: "label must be a label's name (at most 100 characters)" };
    filters.label = label;
  }
  const page = get("page");
  if (page !== undefined) {
    const n = /^\d{1,6}$/.test(page) ? Number(page) : NaN;
    if (!(n >= 1 && n <= MAX_PAGE)) return { ok: false, error: `page must be a whole number from 1 to ${MAX_PAGE}` };
    filters.page = n;
  }
  return { ok: true, value: filters };
}

/** The query string of a view, for links that keep the filters (the page of `page`, or none). */
export function filterQuery(f: BoardFilters, page?: number, withRepo = true): string {
  const q = new URLSearchParams();
  if (withRepo && f.repo) q.set("repo", f.repo);
  if (f.mine) q.set("holder", "@me");
  else if (f.holder) q.set("holder", f.holder);
  if (f.label) q.set("label", f.label);
  if (page !== undefined && page > 1) q.set("page", String(page));
  const s = q.toString();
  return s ? `?${s}` : "";
}

/** Who looks: anonymous (null), or an account with the private repositories GitHub said it may see. */
export interface Viewer {
  id: number;
  login: string;
  visible: VisiblePrivateRepos;
  /** The list of private repositories was cut (more than a session holds, or than sign-in asks for). */
  partial: boolean;
  /** A bot's bearer token: what it reaches (api/token-scope.ts `key`), part of who it is where callers are counted. */
  scope?: string;
}

export type BoardResult =
  | { kind: "board"; page: BoardPage; panels: BoardPanels | null; repo: { repoId: number; repo: string } | null }
  /** A repository that is not there, or that the viewer may not see: one and the same answer. */
  | { kind: "not_found" }
  /** `holder=@me` without an identity. */
  | { kind: "sign_in" };

/** The page the filters ask for, and (unless `withPanels` is false) the side panels, as `viewer` may see them. */
export async function loadBoard(ledger: BoardReads, f: BoardFilters, viewer: Viewer | null, now: number, withPanels = true): Promise<BoardResult> {
  const visible = viewer?.visible ?? [];
  if (f.mine && !viewer) return { kind: "sign_in" };
  let repo: { repoId: number; repo: string } | null = null;
  if (f.repo) {
    const found = await ledger.boardRepo(f.repo);
    if (!found || (found.private !== false && !visible.includes(found.repoId))) return { kind: "not_found" };
    repo = { repoId: found.repoId, repo: found.repo };
  }
  const holder = f.mine && viewer ? { login: viewer.login, id: viewer.id } : f.holder ? { login: f.holder } : undefined;
  // The side panels answer under the same filters as the table: a repository's page speaks of that repository only.
  const filter = { visible, repoId: repo?.repoId, holder, label: f.label };
  const [page, panels] = await Promise.all([
    ledger.boardLeases({ ...filter, page: f.page - 1, pageSize: PAGE_SIZE }, now),
    withPanels ? ledger.boardPanels({ ...filter, top: PANEL_TOP, soonMs: SOON_MS, endedWithinMs: ENDED_WITHIN_MS, countCap: SOON_COUNT_CAP }, now) : null,
  ]);
  return { kind: "board", page, panels, repo };
}
