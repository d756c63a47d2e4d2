/**
 * The lease operations, each written once (plan.ts): a claim, a renewal, a
 * release, a maintainer's release, a note, an expiry and a reminder. Each is
 * one transaction: the delivery id checked first, the issue's row locked, the
 * rules asked (decide.ts), then the history row, the lease row, the delivery's
 * result and the effects written together: those the caller decided for the
 * case its result comes to (effect-cases.ts), data given before the
 * transaction, never a call back into the caller. The reply budget, the
 * history row and the effects' queueing are written here and nowhere else. The wait list
 * (queue-plans.ts) joins in the same transactions: a claim on a held issue
 * may wait in line, and a lease that ends is handed to the first in line.
 * Each change of a lease writes its event (event-plans.ts) in the same
 * transaction.
 */
import { decide, sameHolder } from "./decide.js";
import { claimEvents, endingEvents, type EventSpec, handedOverEvents, writeEvents } from "../events/event-plans.js";
import type { EventCause, LeaseEventType } from "../events/event-types.js";
import { claimLocks, holderLock, labelKeys, limitReached } from "./claim-limits.js";
import { ask, type IssueRow, type Plan, type RunPlan, type Step } from "../plan.js";
import { closeLine, handedWrites, handOff, joinLine, leaveLine } from "../queue/queue-plans.js";
import { HOUR_MS, REPLIED, type ReplyBudget } from "./reply-budget.js";
import { effectsFor, writesFor } from "./effect-cases.js";
import type { AcquireOptions, ForceReleaseOptions, LeaseBook, NoteOptions, OpOptions, RenewOptions, Sweeps } from "./lease-roles.js";
import type {
  AcquireResult,
  Applied,
  ExpireResult,
  ForceReleaseResult,
  HistoryOp,
  Holder,
  IssueKey,
  Lease,
  LedgerResult,
  NoteResult,
  ReleaseResult,
  RemindResult,
  RenewResult,
  Term,
  Ttl,
} from "./lease-types.js";
import { heldByWork, workOf } from "../work/work-rules.js";

/**
 * What an operation decided: its result, and the writes of the lease row it
 * makes (given the new history row's id): one step, or several (a handoff
 * appends its own history row first).
 */
interface Decided<R> {
  result: R;
  write?: (lastHistory: number) => Step | Generator<Step, void, unknown>;
  /** The lease events of what changed, in order. */
  events?: EventSpec[];
}

interface Operation<R> {
  key: IssueKey;
  op: HistoryOp;
  actor: Holder | null;
  now: number;
  opts: OpOptions<R> | undefined;
  /** Why, for its events, when the caller does not say (`opts.cause`). */
  cause: EventCause;
  /** The history row's outcome, when not the result's. */
  historyOutcome?: string;
  /** Read the token floor with the row (acquire). */
  floor?: boolean;
  /** Names to serialise on before the row is locked, in place of the reply limit's (acquire's claim limits). */
  locks?: Array<[string, string]>;
}

/**
 * One operation, start to commit. A redelivered delivery id returns its first
 * result and writes nothing. A reply limit counts the actor's replies under
 * their holder lock (acquire's holder is its actor), so that two of their
 * commands cannot both see the last reply left.
 */
function* operation<R extends LedgerResult>(o: Operation<R>, decideOn: (row: IssueRow & { floor: number }) => Generator<Step, Decided<R>, unknown>): Plan<Applied<R>> {
  const { key, now, opts, actor } = o;
  const delivery = opts?.delivery;
  if (delivery !== undefined) {
    const seen = yield* ask({ op: "delivery", id: delivery, now });
    if (seen !== null) return { ...(seen as R), duplicate: true };
  }
  const limit = actor ? (opts?.repliesPerHour ?? 0) : 0;
  const locks = o.locks?.length ? o.locks : limit > 0 ? [holderLock(key, actor!)] : [];
  if (locks.length > 0) yield* ask({ op: "serialize", locks });
  const row = yield* ask({ op: "row", key, now, floor: o.floor === true });
  const { result, write, events } = yield* decideOn(row);
  const lease = "lease" in result ? result.lease : null;
  let budget: ReplyBudget | null = null;
  if (limit > 0 && (!opts?.countsOnlyPosts || writesFor(opts.effects, result))) {
    const { n, top } = yield* ask({ op: "replies", repoId: key.repoId, actorId: actor!.id, since: now - HOUR_MS });
    budget = decide.replyBudget(limit, n, top === REPLIED.notice);
  }
  // The history row goes first, so that the lease row names it as the issue's latest.
  const id = yield* ask({
    op: "history",
    row: {
      key,
      op: o.op,
      outcome: o.historyOutcome ?? result.outcome,
      actor,
      lease,
      at: now,
      delivery: delivery ?? null,
      replied: budget === null ? null : REPLIED[budget],
      prev: row.head,
    },
  });
  if (write) {
    const steps = write(id);
    if ("op" in steps) yield steps;
    else yield* steps;
    // Its first tenure made the issue's row, which names the latest history row from now on.
    if (!row.exists && row.head !== null) yield* ask({ op: "dropHead", key });
  } else yield* ask({ op: "setHead", key, id, rowExists: row.exists });
  if (events) yield* writeEvents(events, { actor, now, cause: opts?.cause ?? o.cause, installation: opts?.installation ?? null });
  if (delivery !== undefined) {
    if (!opts?.recordOnly || opts.recordOnly.includes(result.outcome)) yield* ask({ op: "putDelivery", id: delivery, result: JSON.stringify(result), now });
    else yield* ask({ op: "freeDelivery", id: delivery });
  }
  for (const effect of effectsFor(opts?.effects, result, budget ?? "reply", limit)) {
    yield* ask({ op: "enqueue", repoId: key.repoId, issue: key.issue, effect, now });
  }
  return { ...result, duplicate: false };
}

/** Writes `lease`: a new tenure rewrites the row, the same tenure carrying on extends it. `termMs`: the term's length. */
function putLease(key: IssueKey, lease: Lease, now: number, remindBefore: number | null | undefined, newTenure: boolean, termMs: Ttl) {
  const remindAt = lease.expiresAt !== null && remindBefore !== null && remindBefore !== undefined ? lease.expiresAt - remindBefore : null;
  return (lastHistory: number): Step => ({ op: "putLease", write: { key, lease, remindAt, termMs, lastHistory }, newTenure, now });
}

/**
 * Ends the row's tenure (released or expired; nothing when it held nothing):
 * the first live place in line is handed the lease, else the row is freed,
 * keeping its token. `closing`: the line ends with the issue, nobody is handed
 * it. `ending`: the event of the tenure that ends.
 */
function* endTenure<R extends { outcome: string; lease: Lease | null }>(
  key: IssueKey,
  row: IssueRow & { floor: number },
  result: R,
  now: number,
  delivery: string | undefined,
  ending: LeaseEventType,
  closing = false,
): Generator<Step, Decided<R>, unknown> {
  if ((result.outcome !== "released" && result.outcome !== "expired") || row.rule?.holder == null) return { result };
  const handed = closing ? null : yield* handOff(key, row, now);
  const events = endingEvents(key, row, ending, result.lease, handed?.lease, now);
  if (!handed) return { result, events, write: (lastHistory) => ({ op: "freeLease", key, now, lastHistory }) };
  return { result: { ...result, handoff: handed.lease } as R, events, write: (ended) => handedWrites(key, handed, ended, now, delivery ?? null) };
}

export const leasePlans = {
  *acquire(key: IssueKey, holder: Holder, ttl: Ttl, now: number, opts?: AcquireOptions): Plan<Applied<AcquireResult>> {
    const locks = claimLocks(key, holder, opts?.maxPerHolder ?? 0, opts?.policies);
    return yield* operation<AcquireResult>({ key, op: "acquire", actor: opts?.actor ?? holder, now, opts, cause: "command", floor: true, locks }, function* (row) {
      // A lease past its time that the sweep has not ended yet is owed to the first in line (unless that is the caller):
      // handed to them now, as the sweep would have, and the caller waits behind them or is told they hold it.
      const expired = row.rule?.holder != null && decide.live(key, row.rule, now) === null;
      const handed = expired ? yield* handOff(key, row, now, holder) : null;
      if (handed) {
        const over = { handedOver: decide.expire(key, row.rule, row.rule!.token, now).lease! };
        const place = opts?.queue ? yield* joinLine(key, holder, ttl, opts.queue, now) : null;
        const held: AcquireResult = place ? { outcome: "queued", lease: handed.lease, ...place, ...over } : { outcome: "held", lease: handed.lease, ...over };
        return { result: held, events: handedOverEvents(over.handedOver, handed.lease), write: (id) => handedWrites(key, handed, id, now, opts?.delivery ?? null) };
      }
      let result: AcquireResult = decide.acquire(key, row.rule, holder, ttl, now, undefined, row.floor);
      if (result.outcome === "held" && opts?.queue) {
        const place = yield* joinLine(key, holder, ttl, opts.queue, now);
        return { result: { outcome: "queued", lease: result.lease, ...place } };
      }
      // Limits bear only on a new tenure: counted then, and the rules asked again at one.
      if (result.outcome === "acquired" && result.newTenure) {
        const reached = yield* limitReached(key, holder, now, opts);
        if (reached) result = decide.acquire(key, row.rule, holder, ttl, now, reached, row.floor);
      }
      if (result.outcome !== "acquired") return { result };
      // A lease past its time that the sweep has not ended yet may have a line: a new holder who was in it leaves it.
      if (result.newTenure && row.rule?.holder != null) yield* leaveLine(key, holder, now, "handed");
      // The holder's open pull requests and an exempt label hold it from the claim.
      const pulls = yield* ask({ op: "pullsOf", repoId: key.repoId, issue: key.issue, authorId: holder.id });
      const exempt = opts?.exempt ?? (result.newTenure ? false : workOf(result.lease.heldBy).exempt);
      const acquired = { ...result, lease: heldByWork(result.lease, { pulls, exempt }) };
      const labels = acquired.newTenure ? labelKeys(opts?.policies) : [];
      if (labels.length > 0) yield* ask({ op: "rememberLabels", key, token: acquired.lease.token, labels });
      const events = claimEvents(key, row, acquired.lease, acquired.newTenure, now);
      return { result: acquired, events, write: putLease(key, acquired.lease, now, opts?.remindBefore, acquired.newTenure, ttl) };
    });
  },

  *renew(key: IssueKey, holder: Holder, ttl: Ttl, now: number, opts?: RenewOptions): Plan<Applied<RenewResult>> {
    return yield* operation<RenewResult>({ key, op: "renew", actor: holder, now, opts, cause: "command" }, function* (row) {
      const result = decide.renew(key, row.rule, holder, ttl, now);
      if (result.outcome !== "renewed") return { result };
      // Still held by its work, if it was: the new term is what it gets when the work lets go.
      const lease = heldByWork(result.lease, workOf(result.lease.heldBy));
      const events: EventSpec[] = [{ type: "lease.renewed", lease }];
      return { result: { ...result, lease }, events, write: putLease(key, lease, now, opts?.remindBefore, false, ttl) };
    });
  },

  *release(key: IssueKey, holder: Holder, now: number, opts?: OpOptions<ReleaseResult>): Plan<Applied<ReleaseResult>> {
    return yield* operation<ReleaseResult>({ key, op: "release", actor: holder, now, opts, cause: "command", floor: true }, function* (row) {
      const live = decide.live(key, row.rule, now);
      // Someone who holds nothing but waits in line leaves it (a line is only kept while the row has a holder).
      if (row.rule?.holder != null && !(live && sameHolder(live.holder, holder)) && (yield* leaveLine(key, holder, now))) {
        return { result: { outcome: "left_queue", lease: live } };
      }
      return yield* endTenure(key, row, decide.release(key, row.rule, holder, now), now, opts?.delivery, "lease.released");
    });
  },

  *forceRelease(key: IssueKey, actor: Holder, now: number, opts?: ForceReleaseOptions): Plan<Applied<ForceReleaseResult>> {
    return yield* operation<ForceReleaseResult>({ key, op: "force_release", actor, now, opts, cause: "maintainer", floor: true }, function* (row) {
      const result: ForceReleaseResult = decide.forceRelease(key, row.rule, now, opts);
      if (opts?.closing && result.outcome === "released") yield* closeLine(key, now);
      return yield* endTenure(key, row, result, now, opts?.delivery, "lease.ended", opts?.closing);
    });
  },

  /** The row is locked even though nothing changes: effects of one issue enter the outbox in the order of the decisions they follow. */
  *note(key: IssueKey, actor: Holder | null, now: number, opts?: NoteOptions): Plan<Applied<NoteResult>> {
    const detail = opts?.detail ? { detail: opts.detail } : {};
    return yield* operation<NoteResult>({ key, op: "note", actor, now, opts, cause: "command", historyOutcome: opts?.outcome }, function* (row) {
      return { result: { ...decide.note(key, row.rule, now), ...detail } };
    });
  },

  *markExpired(key: IssueKey, token: number, now: number, opts?: OpOptions<ExpireResult>): Plan<Applied<ExpireResult>> {
    return yield* operation<ExpireResult>({ key, op: "expire", actor: null, now, opts, cause: "expiry", floor: true }, function* (row) {
      return yield* endTenure(key, row, decide.expire(key, row.rule, token, now), now, opts?.delivery, "lease.expired");
    });
  },

  *markReminded(key: IssueKey, term: Term, now: number, opts?: OpOptions<RemindResult>): Plan<Applied<RemindResult>> {
    return yield* operation<RemindResult>({ key, op: "remind", actor: null, now, opts, cause: "expiry" }, function* (row) {
      const result = decide.remind(key, row.rule, term, now);
      if (result.outcome !== "reminded") return { result };
      return { result, write: (lastHistory) => ({ op: "markReminded", key, now, lastHistory }) };
    });
  },
};

/** The lease operations as a ledger runs them: each one its plan, made and run as one transaction of the store (`run`). */
export function leaseOperations(run: RunPlan): Pick<LeaseBook & Sweeps, keyof typeof leasePlans> {
  return {
    acquire: async (key, holder, ttl, now, opts) => run(now, (now) => leasePlans.acquire(key, holder, ttl, now, opts)),
    renew: async (key, holder, ttl, now, opts) => run(now, (now) => leasePlans.renew(key, holder, ttl, now, opts)),
    release: async (key, holder, now, opts) => run(now, (now) => leasePlans.release(key, holder, now, opts)),
    forceRelease: async (key, actor, now, opts) => run(now, (now) => leasePlans.forceRelease(key, actor, now, opts)),
    note: async (key, actor, now, opts) => run(now, (now) => leasePlans.note(key, actor, now, opts)),
    markExpired: async (key, token, now, opts) => run(now, (now) => leasePlans.markExpired(key, token, now, opts)),
    markReminded: async (key, term, now, opts) => run(now, (now) => leasePlans.markReminded(key, term, now, opts)),
  };
}
