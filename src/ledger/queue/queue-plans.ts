/**
 * The wait list's parts of the lease operations (lease-plans.ts), written
 * once for both stores: joining the line of a held issue, leaving it, the
 * handoff of a lease that ends to the first live place, and a close that
 * ends the line. Each runs inside its operation's transaction, under the
 * issue's row lock: two joins, a join and a release, or two releases on
 * replicas take turns on that lock, so a lease is handed once, with the next
 * token, to one place.
 */
import { sameHolder } from "../leases/decide.js";
import { ask, type IssueRow, type Step } from "../plan.js";
import type { PlaceEnd, QueuePlace, QueueAsk } from "./queue-types.js";
import type { Holder, IssueKey, Lease, Ttl } from "../leases/lease-types.js";
import { heldByWork } from "../work/work-rules.js";

/** The line's places that have not ended, and those of them past their time ended now (`expired`). */
function* liveLine(key: IssueKey, now: number): Generator<Step, QueuePlace[], unknown> {
  const places = yield* ask({ op: "queue", key });
  const past = places.filter((p) => p.until <= now).map((p) => p.id);
  if (past.length > 0) yield* ask({ op: "endPlaces", ids: past, why: "expired", now });
  return places.filter((p) => p.until > now);
}

/**
 * `holder` waits for the issue `current` holds: a new place at the end of the
 * line (first, before those who are not the author, with `author_first`), or
 * their own place kept and its time renewed. Answers the position, 1 for the first.
 */
export function* joinLine(
  key: IssueKey,
  holder: Holder,
  ttl: Ttl,
  asked: QueueAsk,
  now: number,
): Generator<Step, { position: number; until: number }, unknown> {
  const line = yield* liveLine(key, now);
  const own = line.find((p) => sameHolder(p.holder, holder));
  const until = now + asked.placeTtl;
  const place = { holder, authorFirst: own?.authorFirst ?? asked.authorFirst, until, ttl, remindBefore: asked.remindBefore };
  yield* ask({ op: "putPlace", key, place: own ? { ...place, id: own.id } : place, now });
  if (own) return { position: line.indexOf(own) + 1, until };
  // A new place goes after every live one, or after the authors' places when its holder is the author.
  const ahead = place.authorFirst ? line.filter((p) => p.authorFirst).length : line.length;
  return { position: ahead + 1, until };
}

/** `holder` leaves the line, if they are in it (`handed`: they took the lease themselves): whether they were. */
export function* leaveLine(key: IssueKey, holder: Holder, now: number, why: PlaceEnd = "left"): Generator<Step, boolean, unknown> {
  const line = yield* liveLine(key, now);
  const own = line.find((p) => sameHolder(p.holder, holder));
  if (!own) return false;
  yield* ask({ op: "endPlaces", ids: [own.id], why, now });
  return true;
}

/** Ends every place of the line (the issue closed, or is gone): nobody is handed it. */
export function* closeLine(key: IssueKey, now: number, why: PlaceEnd = "closed"): Generator<Step, void, unknown> {
  const places = yield* ask({ op: "queue", key });
  if (places.length > 0) yield* ask({ op: "endPlaces", ids: places.map((p) => p.id), why, now });
}

/**
 * The lease of `row` ends (released, or expired): the first live place in
 * line gets a new tenure, token + 1 (above the floor), with the time to live
 * it asked for when it joined; places past their time are ended on the way.
 * Null when nobody waits, or when the first is `unless` (who is claiming it
 * themselves). The caller writes the tenure (`handedWrites`).
 */
export function* handOff(
  key: IssueKey,
  row: IssueRow & { floor: number },
  now: number,
  unless?: Holder,
): Generator<Step, { lease: Lease; place: QueuePlace } | null, unknown> {
  const line = yield* liveLine(key, now);
  const next = line[0];
  if (!next || (unless && sameHolder(next.holder, unless))) return null;
  yield* ask({ op: "endPlaces", ids: [next.id], why: "handed", now });
  const pulls = yield* ask({ op: "pullsOf", repoId: key.repoId, issue: key.issue, authorId: next.holder.id });
  const lease: Lease = {
    ...key,
    holder: next.holder,
    token: Math.max(row.rule?.token ?? 0, row.floor) + 1,
    acquiredAt: now,
    expiresAt: next.ttl === null ? null : now + next.ttl,
    heldBy: { kind: "time" },
  };
  // An exempt label is the issue's, so it holds the new tenure as it held the last.
  return { lease: heldByWork(lease, { pulls, exempt: row.rule?.exempt ?? false }), place: next };
}

/**
 * The writes of a handoff, after the ending's history row (`ended`): the new
 * tenure's own history row (op `handoff`, outcome `acquired`, its holder the
 * actor), then the row rewritten as that tenure, naming it.
 */
export function* handedWrites(
  key: IssueKey,
  handed: { lease: Lease; place: QueuePlace },
  ended: number,
  now: number,
  delivery: string | null,
): Generator<Step, void, unknown> {
  const { lease, place } = handed;
  const id = yield* ask({
    op: "history",
    row: { key, op: "handoff", outcome: "acquired", actor: lease.holder, lease, at: now, delivery, replied: null, prev: ended },
  });
  const remindAt = lease.expiresAt !== null && place.remindBefore !== null && place.ttl !== null && place.ttl > place.remindBefore
    ? lease.expiresAt - place.remindBefore
    : null;
  yield* ask({ op: "putLease", write: { key, lease, remindAt, termMs: place.ttl, lastHistory: id }, newTenure: true, now });
}
