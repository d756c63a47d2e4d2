/**
 * Rows of the board's queries as both backends read them, and the sum of
 * per-holder counts the side panel shows (sqlite/board-reads.ts,
 * postgres/board-reads.ts).
 */
import { leaseOfRow, type LiveLeaseRow } from "../leases/lease-rows.js";
import { type Holder, holderOf } from "../leases/lease-types.js";
import { type BoardLease, type EndedTenure } from "./board-types.js";
import { endingOf } from "../leases/tenure-rules.js";

export interface BoardRow extends LiveLeaseRow {
  title: string | null;
  labels: string | null;
  /** Places in line not yet ended (the wait list). */
  waiting: number;
}

export interface EndedRow {
  repo_id: number;
  repo: string;
  issue: number;
  op: string;
  actor_id: number | null;
  actor_login: string | null;
  holder_id: number;
  holder_login: string;
  holder_instance: string | null;
  token: number;
  at: number;
  title: string | null;
}

export interface CountRow {
  scope: number;
  holder_id: number;
  login: string;
  n: number;
}

export function toBoardLease(row: BoardRow): BoardLease {
  const waiting = row.waiting > 0 ? { waiting: row.waiting } : {};
  return { ...leaseOfRow(row), title: row.title, labels: row.labels === null ? [] : (JSON.parse(row.labels) as string[]), ...waiting };
}

/** A tenure that ended, from a history row the board's query found by `endsTenureSql` (tenure-rules.ts). */
export function toEnded(row: EndedRow): EndedTenure {
  const holder = holderOf(row.holder_id, row.holder_login, row.holder_instance);
  const byHolder = row.op === "release" || row.actor_id === row.holder_id;
  return {
    repoId: row.repo_id,
    repo: row.repo,
    issue: row.issue,
    title: row.title,
    holder,
    token: row.token,
    at: row.at,
    how: endingOf(row.op) === "expired" ? "expired" : byHolder ? "released" : "ended",
    by: row.op === "force_release" && !byHolder && row.actor_id !== null ? { id: row.actor_id, login: row.actor_login! } : null,
  };
}

/**
 * Who holds the most, for a viewer: the public scope's leaders and every
 * count in the private scopes they may see, summed per holder, minus the
 * leases that expired and are not swept yet (counted until the sweeper ends
 * them). Exact: a holder outside the public scope's first `top + k` (k
 * holders in private scopes, or with leases in the sweep's backlog) is
 * outdone by `top` of those, whatever else they hold.
 */
export function topHolders(
  publicTop: CountRow[],
  privateCounts: CountRow[],
  publicOf: (holderId: number) => CountRow | undefined,
  backlog: Map<number, number>,
  top: number,
): Array<{ holder: Holder; leases: number }> {
  const sums = new Map<number, { holder: Holder; leases: number }>();
  const add = (r: CountRow) => {
    const s = sums.get(r.holder_id);
    if (s) s.leases += r.n;
    else sums.set(r.holder_id, { holder: { id: r.holder_id, login: r.login }, leases: r.n });
  };
  publicTop.forEach(add);
  const seenPublic = new Set(publicTop.map((r) => r.holder_id));
  for (const r of privateCounts) {
    add(r);
    if (!seenPublic.has(r.holder_id)) {
      seenPublic.add(r.holder_id);
      const p = publicOf(r.holder_id);
      if (p) add(p);
    }
  }
  for (const [id, expired] of backlog) {
    const s = sums.get(id);
    if (s) s.leases -= expired;
  }
  return [...sums.values()]
    .filter((s) => s.leases > 0)
    .sort((a, b) => b.leases - a.leases || a.holder.login.localeCompare(b.holder.login))
    .slice(0, top);
}
