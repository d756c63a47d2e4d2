/**
 * Which events a stream's client gets: those it may see (a public
 * repository's, or a private one's its token or session may read), narrowed
 * by what it asked for (repositories, a holder, an issue). Pure.
 */
import type { StoredEvent } from "../ledger/events/event-types.js";

export interface StreamFilter {
  /** The private repositories the client may see; public ones anyone may. */
  visible: ReadonlySet<number>;
  /** Only these repositories' events; null: every repository's. */
  repoIds: ReadonlySet<number> | null;
  /** Only leases of this account (`holder=@me`: by id) or login (any case). */
  holder: { id: number } | { login: string } | null;
  /** Only this issue's (of the one repository in `repoIds`). */
  issue: number | null;
}

export function passes(f: StreamFilter, e: StoredEvent, isPublic: boolean): boolean {
  if (!isPublic && !f.visible.has(e.repoId)) return false;
  if (f.repoIds !== null && !f.repoIds.has(e.repoId)) return false;
  if (f.issue !== null && e.event.issue !== f.issue) return false;
  if (f.holder !== null) {
    if ("id" in f.holder) return e.event.holder.id === f.holder.id;
    return e.event.holder.login.toLowerCase() === f.holder.login.toLowerCase();
  }
  return true;
}
