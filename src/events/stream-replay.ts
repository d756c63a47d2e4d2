/**
 * A reconnect's replay: what a client with `Last-Event-ID: after` missed,
 * read from the ledger up to `upTo`, the hub's position when the client was
 * attached (the hub hands it everything after that). Events up to `upTo`
 * were committed before the hub read them, so the ledger has them all, in
 * the same order: no gap and no duplicate between the two.
 *
 * When events after `after` may have been pruned (`after` itself is no
 * longer kept), the client is told so by a `stream.gap` notice before the
 * oldest kept; an id this ledger never wrote gets the notice and the stream
 * from now.
 */
import type { HubLog } from "./hub.js";
import type { PublicRepos } from "./public-repos.js";
import { eventFrame, gapFrame } from "./sse.js";
import { passes, type StreamFilter } from "./stream-filter.js";

export interface ReplayOptions {
  events: Pick<HubLog, "eventsAfter" | "lastEventPos">;
  publicRepos: PublicRepos;
  filter: StreamFilter;
  /** The client's Last-Event-ID; null: none (live from `upTo`). */
  after: number | null;
  upTo: number;
  /** Writes a frame, waiting while the client's buffer is full; false when the stream ended meanwhile. */
  write: (frame: string) => Promise<boolean>;
  pageSize?: number;
}

/** Replays; answers the position the client now has every event up to (the hub's later ones above it go to it). */
export async function replay(o: ReplayOptions): Promise<number> {
  const { after, upTo } = o;
  if (after === null) return upTo;
  if (after > upTo) {
    // Another replica, ahead of this one, sent it: the hub's events up to `after` are skipped.
    if (after <= (await o.events.lastEventPos())) return after;
    await o.write(gapFrame(after, "unknown"));
    return upTo;
  }
  if (after > 0) {
    const [first] = await o.events.eventsAfter(after - 1, { limit: 1 });
    if (first?.pos !== after && !(await o.write(gapFrame(after, "pruned")))) return after;
  }
  const limit = o.pageSize ?? 500;
  const repoIds = o.filter.repoIds ? [...o.filter.repoIds] : undefined;
  let cursor = after;
  while (cursor < upTo) {
    const page = (await o.events.eventsAfter(cursor, { limit, ...(repoIds ? { repoIds } : {}) })).filter((e) => e.pos > cursor && e.pos <= upTo);
    if (page.length === 0) break;
    const open = await o.publicRepos.of(page);
    for (const e of page) {
      cursor = e.pos;
      if (passes(o.filter, e, open.has(e.repoId)) && !(await o.write(eventFrame(e.event)))) return cursor;
    }
    if (page.length < limit) break;
  }
  return upTo;
}
