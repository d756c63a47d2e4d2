/**
 * The wait list's values (issue 22): what joining the line of a held issue
 * asks, a place in line, and why a place ended. Rows of places are never
 * deleted: a place ends with `ended_at` and its reason, like every row of
 * the ledger.
 */
import { type Holder, holderOf, type Ttl } from "../leases/lease-types.js";

/** Why a place in line ended: the lease was handed to it, its holder left, its time passed, or the issue closed. */
export type PlaceEnd = "handed" | "left" | "expired" | "closed";

/** A place in line as the ledger keeps it. */
export interface QueuePlace {
  id: number;
  holder: Holder;
  authorFirst: boolean;
  queuedAt: number;
  /** The place lasts until then; a place past it is ended (`expired`) when the line is next read in a transaction. */
  until: number;
  /** The lease the place gets when handed: its time to live (null: open-ended) and reminder. */
  ttl: Ttl;
  remindBefore: number | null;
}

/** A live place as the API and the replies show it: its position, 1 for the first. */
export interface QueueEntry extends QueuePlace {
  position: number;
}

/** What joining the wait list of a held issue asks (`AcquireOptions.queue`; queue-plans.ts). */
export interface QueueAsk {
  /** How long the place lasts without its holder asking again (`queue_place_ttl`); asking again renews it. */
  placeTtl: number;
  /** The caller opened the issue and `author_first` is set: their place goes before everyone else's. */
  authorFirst: boolean;
  /** When to remind the holder the lease is handed, in ms before its expiry (as a claim's); null: never. */
  remindBefore: number | null;
}

/** A place as a plan writes it: a new one, or the caller's own renewed (`id`). */
export interface PlaceWrite {
  id?: number;
  holder: Holder;
  authorFirst: boolean;
  until: number;
  ttl: Ttl;
  remindBefore: number | null;
}

/** The order of a line: the author first (`author_first`), then by arrival. Both stores read it in this order; tests compare against it. */
export function lineOrder(a: QueuePlace, b: QueuePlace): number {
  return Number(b.authorFirst) - Number(a.authorFirst) || a.queuedAt - b.queuedAt || a.id - b.id;
}

/** The live places of a line (read in its order) at `now`, with their positions. */
export function liveEntries(places: readonly QueuePlace[], now: number): QueueEntry[] {
  return places.filter((p) => p.until > now).map((p, i) => ({ ...p, position: i + 1 }));
}

/** A row of `queue` as either store reads it (SQLite's 0/1 where PostgreSQL has a boolean). */
export interface PlaceRow {
  id: number;
  holder_id: number;
  holder_login: string;
  holder_instance: string | null;
  author_first: number | boolean;
  queued_at: number;
  until: number;
  ttl_ms: number | null;
  remind_ms: number | null;
}

/** The columns a place is read from, in the line's order: what both stores select. */
export const PLACE_COLUMNS = "id, holder_id, holder_login, holder_instance, author_first, queued_at, until, ttl_ms, remind_ms";
export const LINE_ORDER = "author_first DESC, queued_at, id";

export function placeOfRow(r: PlaceRow): QueuePlace {
  return {
    id: r.id,
    holder: holderOf(r.holder_id, r.holder_login, r.holder_instance),
    authorFirst: r.author_first === true || r.author_first === 1,
    queuedAt: r.queued_at,
    until: r.until,
    ttl: r.ttl_ms,
    remindBefore: r.remind_ms,
  };
}
