/**
 * An operation of the ledger written once for both stores: a generator that
 * yields the steps it needs of its store (read or lock rows, write rows) and
 * returns its result. Its rules and its writes live in the plan; a store only
 * knows how to do each step in its own SQL (sqlite/run-plan.ts runs them one
 * by one inside BEGIN IMMEDIATE, since better-sqlite3 cannot await inside a
 * transaction; postgres/run-plan.ts runs the reads as they come and sends the
 * writes waiting before each read, or at the end, as one statement).
 *
 * A plan reads `now` from its arguments, never from a clock, and is run again
 * from the start when a PostgreSQL transaction is retried: plans are
 * generator *functions*, called once per attempt.
 */
import type { Row } from "./leases/decide.js";
import type { EventCause, LeaseEventType } from "./events/event-types.js";
import type { PlaceEnd, PlaceWrite, QueuePlace } from "./queue/queue-types.js";
import type { HistoryOp, Holder, IssueKey, Lease } from "./leases/lease-types.js";
import type { NewEffect } from "./outbox/outbox-types.js";

/** An issue's row as a plan reads it. */
export interface IssueRow {
  /** What the rules see (decide.ts); null: the issue has no row. */
  rule: Row | null;
  /** Whether the issue has a row in `leases` (a free one included). */
  exists: boolean;
  /** The issue's latest history row, which the next one follows (null: none yet). */
  head: number | null;
}

/** A lease row as a plan writes it. */
export interface LeaseWrite {
  key: IssueKey;
  lease: Lease;
  remindAt: number | null;
  /** The length of the term (for renewals by activity); null: open-ended or not recorded. */
  termMs: number | null;
  /** The history row the lease row names as the issue's latest. */
  lastHistory: number;
}

/** A history row. `replied`: the reply budget's mark (reply-budget.ts), null when no limit counted it. */
export interface HistoryWrite {
  key: IssueKey;
  op: HistoryOp;
  outcome: string;
  actor: Holder | null;
  lease: Lease | null;
  at: number;
  delivery: string | null;
  replied: number | null;
  prev: number | null;
}

/**
 * A lease event as a plan writes it (event-plans.ts says which change makes
 * which): the lease it is about (for an ending, the lease that ended), who
 * made the change (null for an expiry), why, and when.
 */
export interface EventWrite {
  type: LeaseEventType;
  lease: Lease;
  actor: Holder | null;
  cause: EventCause;
  at: number;
  /** The installation serving the repository when the caller knows it; null: the store reads the one it remembers (0 when none). */
  installation: number | null;
}

/** Which claim limit a count is for (leases/claim-limits.ts says what counts). */
export type LimitKind = "repo" | "label" | "org";

/** The steps, each with what its store answers. */
export interface StepAnswers {
  /** The result first recorded with a delivery id, or null: the id is this transaction's now (PostgreSQL claims it here). */
  delivery: { step: { op: "delivery"; id: string; now: number }; answer: unknown };
  /** Serialises transactions that share these names (PostgreSQL's advisory locks; SQLite has one writer and does nothing). */
  serialize: { step: { op: "serialize"; locks: ReadonlyArray<readonly [string, string]> }; answer: void };
  /** The issue's row, locked for the transaction; with `floor`, the token floor too (0 otherwise). */
  row: { step: { op: "row"; key: IssueKey; now: number; floor: boolean }; answer: IssueRow & { floor: number } };
  /** The existing rows of these issues, locked in the order of their issues. */
  rows: { step: { op: "rows"; repoId: number; issues: number[] }; answer: Array<IssueRow & { issue: number }> };
  /** The leases counting toward a limit when there are at least `limit` of them, else null. */
  held: {
    step: {
      op: "held";
      kind: LimitKind;
      key: IssueKey;
      holderId: number;
      now: number;
      countInReview: boolean;
      limit: number;
      label?: string;
      installation?: number;
    };
    answer: Lease[] | null;
  };
  /** The open pull requests of `authorId` that close the issue, ascending. */
  pullsOf: { step: { op: "pullsOf"; repoId: number; issue: number; authorId: number }; answer: number[] };
  /** The issues pull request `pull` closes, ascending. */
  closedBy: { step: { op: "closedBy"; repoId: number; pull: number }; answer: number[] };
  /** The places in line for the issue that have not ended (past their time included), in the line's order (queue-types.ts). */
  queue: { step: { op: "queue"; key: IssueKey }; answer: QueuePlace[] };
  /** The replies an actor got in a repository since `since`, and the highest mark among them. */
  replies: { step: { op: "replies"; repoId: number; actorId: number; since: number }; answer: { n: number; top: number | null } };

  /** Writes a history row; answers its id, which the lease row or history_heads then names (both stores keep the chain). */
  history: { step: { op: "history"; row: HistoryWrite }; answer: number };
  /** A new tenure rewrites the row; the same one carrying on only extends it (and keeps the holder's id and token). */
  putLease: { step: { op: "putLease"; write: LeaseWrite; newTenure: boolean; now: number }; answer: void };
  /** What the work decided of a live lease: its expiry, reminder, term and what holds it. */
  followLease: { step: { op: "followLease"; write: LeaseWrite; now: number }; answer: void };
  /** Frees the row, keeping its token: the next tenure gets token + 1. */
  freeLease: { step: { op: "freeLease"; key: IssueKey; now: number; lastHistory: number }; answer: void };
  markReminded: { step: { op: "markReminded"; key: IssueKey; now: number; lastHistory: number }; answer: void };
  /** The issue's latest history row is `id`: named by its row when it has one, else remembered apart. */
  setHead: { step: { op: "setHead"; key: IssueKey; id: number; rowExists: boolean }; answer: void };
  /** The issue's first tenure made its row, which names its latest history row from now on. */
  dropHead: { step: { op: "dropHead"; key: IssueKey }; answer: void };
  /** Remembers the labels an issue had when a tenure began (claim limits by label). */
  rememberLabels: { step: { op: "rememberLabels"; key: IssueKey; token: number; labels: string[] }; answer: void };
  /** Pull request `pull` now closes `add` and no longer `remove`. */
  relink: { step: { op: "relink"; repoId: number; pull: number; authorId: number; add: number[]; remove: number[] }; answer: void };
  putDelivery: { step: { op: "putDelivery"; id: string; result: string; now: number }; answer: void };
  /** The delivery id is not recorded after all (`recordOnly`): PostgreSQL lets go of the id it claimed; SQLite wrote nothing. */
  freeDelivery: { step: { op: "freeDelivery"; id: string }; answer: void };
  /** A new place in line, or the caller's own renewed (`place.id`): its time, and the lease it will get. */
  putPlace: { step: { op: "putPlace"; key: IssueKey; place: PlaceWrite; now: number }; answer: void };
  /** Ends places in line (never deletes them): handed the lease, left, past their time, or the issue closed. */
  endPlaces: { step: { op: "endPlaces"; ids: number[]; why: PlaceEnd; now: number }; answer: void };
  /** Queues an effect in the outbox; one issue's effects apply in the order they are queued. */
  enqueue: { step: { op: "enqueue"; repoId: number; issue: number; effect: NewEffect; now: number }; answer: void };
  /**
   * A lease event (event-plans.ts), committed with the change: the store gives
   * it its position (the order of commits) and its installation's next
   * sequence number; a ledger opened with `events: false` writes nothing.
   */
  event: { step: { op: "event"; event: EventWrite }; answer: void };
}

export type StepName = keyof StepAnswers;
export type Step = StepAnswers[StepName]["step"];
export type StepOf<K extends StepName> = StepAnswers[K]["step"];
export type AnswerOf<S extends Step> = StepAnswers[S["op"]]["answer"];

/** The steps that only write: a store may hold them back and send them with the next read. */
export const WRITES: ReadonlySet<StepName> = new Set<StepName>([
  "history",
  "putLease",
  "followLease",
  "freeLease",
  "markReminded",
  "setHead",
  "dropHead",
  "rememberLabels",
  "relink",
  "putDelivery",
  "freeDelivery",
  "putPlace",
  "endPlaces",
  "enqueue",
  "event",
]);

export type Plan<T> = Generator<Step, T, unknown>;

/** One step of a plan, typed: `const row = yield* ask({ op: "row", … })`. */
export function* ask<S extends Step>(step: S): Generator<Step, AnswerOf<S>, unknown> {
  return (yield step) as AnswerOf<S>;
}

/**
 * Runs the plan `make(now)` makes as one transaction of a store, whose
 * promise settles once it has committed. `now` is the caller's, or the
 * database's clock where the store reads it; a store that retries a
 * transaction makes the plan again.
 */
export type RunPlan = <T>(now: number, make: (now: number) => Plan<T>) => Promise<T>;
