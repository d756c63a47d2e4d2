/**
 * What a lease command is about, whichever way it came (a comment, an
 * assignment, the HTTP API): who asks, on which issue, under which delivery,
 * and the reply they get. The command (lease-command.ts) and its decisions
 * (lease-decision.ts) read it.
 */
import type { EventCause } from "../ledger/events/event-types.js";
import type { Holder } from "../ledger/leases/lease-types.js";
import type { LeaseView, Outcome, Reply } from "../commands/reply.js";

/** Who asks: a holder (with the instance an API client named), its account type and its association with the repository. */
export interface LeaseActor extends Holder {
  /** GitHub's account type: "User", "Bot", "Organization". */
  type: string;
  /** GitHub's `author_association` with the repository (OWNER, MEMBER, COLLABORATOR, CONTRIBUTOR, NONE…). */
  association: string;
  /** GitHub said (asked first) the actor may write: an assignment's event carries no association; `claimers` is met, replies unlimited. */
  writer?: boolean;
}

/** The reply to post for an outcome, or null to post none. */
export type ReplyFor = (outcome: Outcome, lease: LeaseView | null, extra?: Partial<Reply>) => Reply | null;

export interface LeaseTarget {
  /** The webhook delivery id, or the API's idempotency key: a second operation with it changes nothing and answers the first's result. */
  delivery?: string;
  /** Record `delivery` only with a lease acquired (`next`, which tries one issue after another under one id). */
  recordAcquiredOnly?: boolean;
  installation: number;
  repo: { id: number; owner: string; name: string };
  /**
   * `state` and labels as GitHub last showed them (a label the issue already
   * had is not the app's to remove); `createdAt` (ms) and `authorId`: when and
   * by whom it was opened (`author_first`).
   */
  issue: { number: number; labels: string[]; state?: string; createdAt?: number; authorId?: number };
  actor: LeaseActor;
  reply: ReplyFor;
  /**
   * Show on GitHub only a tenure that begins or ends (the API): a renewal, a
   * claim by the holder (which extends the same tenure), a release of
   * nothing and a refusal write no effect at all. A heartbeat every few
   * minutes must not notify anyone.
   */
  changesOnly?: boolean;
  /** What the event showed GitHub did to an assignee (assignment as a claim): the outbox does not do it again. */
  shown?: { login: string; assigned: boolean };
  /** Whether to wait in line when the issue is held: the API says (`?wait=true`), whatever the repository's `queue` says; absent, `queue` decides. */
  wait?: boolean;
  /** What the lease events of this command say brought them about (`api`); absent, the operation's own (`command` for a claim, renewal or release). */
  cause?: EventCause;
}
