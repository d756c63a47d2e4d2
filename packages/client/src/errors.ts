/**
 * What a call can fail with. Answers the API gives on purpose are typed:
 * `held` and `not_holder` (409) name the current holder, token and expiry;
 * a refusal by the repository's config (403) names its rule. Anything the
 * retries could not get through (network, timeouts, 5xx, 429) is a
 * `LeaseUnavailableError`.
 */
import type { LeaseEvent } from "./event-types.js";
import type { LeaseAnswer, LeaseHolder, LeaseView, QueuedAnswer } from "./types.js";

/** The API answered with an error: `status` is the HTTP status, `code` and `message` its `{"error": {…}}`. */
export class LeaseApiError extends Error {
  constructor(
    message: string,
    readonly status: number,
    readonly code: string,
    /** The parsed answer, or null when it was not JSON. */
    readonly body: unknown,
  ) {
    super(message);
    this.name = "LeaseApiError";
  }
}

/** A 409 about the lease: someone else holds it (`held`), or the caller does not (`not_holder`). */
export abstract class LeaseConflictError extends LeaseApiError {
  /** The current holder, or null when the issue is free. */
  readonly holder: LeaseHolder | null;
  /** The live tenure's fencing token, or null when the issue is free. */
  readonly token: number | null;
  /** When the live lease expires (ISO 8601), or null when it is open-ended or the issue is free. */
  readonly expiresAt: string | null;

  constructor(
    message: string,
    code: string,
    readonly lease: LeaseAnswer,
  ) {
    super(message, 409, code, lease);
    this.holder = lease.holder;
    this.token = lease.token;
    this.expiresAt = lease.expires_at;
  }
}

/** A claim found the issue held by someone else. */
export class LeaseHeldError extends LeaseConflictError {
  constructor(lease: LeaseAnswer) {
    super(`${lease.repo}#${lease.issue} is held by ${describeHolder(lease)}`, "held", lease);
    this.name = "LeaseHeldError";
  }
}

/**
 * `waitForLease` gave up (its `timeoutMs` passed) while someone else still
 * held the issue; it left the line first. A `LeaseHeldError`, naming the
 * holder as last seen, so that code handling a refused claim handles it too.
 */
export class LeaseWaitTimeoutError extends LeaseHeldError {
  /** The caller's place in line when it gave up (1: first), or null when it never got one. */
  readonly position: number | null;

  constructor(
    lease: LeaseView,
    readonly waitedMs: number,
    place: QueuedAnswer | null,
  ) {
    super({ ...lease, outcome: "held" });
    this.name = "LeaseWaitTimeoutError";
    this.position = place?.position ?? null;
    const where = this.position === null ? "" : ` (${ordinal(this.position)} in line)`;
    this.message = `gave up waiting for ${lease.repo}#${lease.issue} after ${Math.round(waitedMs / 1000)} s${where}: ${this.message}`;
  }
}

/**
 * `next` found no issue to take (404 `nothing_ready`): `matched` open
 * issues match the filters, and `held` of them are held (or have someone
 * waiting); none is free. Try again later, or with other filters.
 */
export class NothingReadyError extends LeaseApiError {
  constructor(
    message: string,
    readonly matched: number,
    readonly held: number,
    body: unknown,
  ) {
    super(message, 404, "nothing_ready", body);
    this.name = "NothingReadyError";
  }
}

/** A renew or release by someone who does not hold the lease (any more). */
export class LeaseNotHolderError extends LeaseConflictError {
  constructor(lease: LeaseAnswer) {
    const now = lease.holder ? `it is held by ${describeHolder(lease)}` : "it is free";
    super(`not the holder of ${lease.repo}#${lease.issue}: ${now}`, "not_holder", lease);
    this.name = "LeaseNotHolderError";
  }
}

/** A 403: the repository's config refuses the call; `reason` says which rule. */
export class LeaseRefusedError extends LeaseApiError {
  constructor(
    message: string,
    code: string,
    readonly reason: string | null,
    body: unknown,
  ) {
    super(message, 403, code, body);
    this.name = "LeaseRefusedError";
  }
}

/**
 * The API could not be reached, or kept failing, through every retry; `cause` is the last failure. `status` (and `code`)
 * say what the API last answered (e.g. 502 `github_unavailable`: the app was reached, GitHub did not answer it); null
 * when no answer came at all (the network, a timeout).
 */
export class LeaseUnavailableError extends Error {
  readonly status: number | null;
  readonly code: string | null;
  /** What the API's last answer asked to wait (`Retry-After`, ms), e.g. a `429 rate_limited`'s; null when it said nothing. */
  readonly retryAfterMs: number | null;

  constructor(
    message: string,
    readonly attempts: number,
    options?: { cause?: unknown; status?: number; code?: string; retryAfterMs?: number | null },
  ) {
    super(message, options);
    this.name = "LeaseUnavailableError";
    this.status = options?.status ?? null;
    this.code = options?.code ?? null;
    this.retryAfterMs = options?.retryAfterMs ?? null;
  }
}

export type LostReason = "not_holder" | "refused" | "expired";

/**
 * `withLease`'s signal is aborted with this when the lease is lost: a
 * renewal was refused (`not_holder`: someone ended it; `refused`: any other
 * refusal, e.g. 403, 404), or renewals kept failing until the lease's
 * expiry had passed (`expired`); or the app's event stream said the lease
 * ended (`event`: `not_holder`, or `expired` for the app's expiry).
 * `cause` is the refusal or the last failure.
 */
export class LeaseLostError extends Error {
  /** The stream's event that ended the lease, or null when a renewal (or the check when the stream opened) found it lost. */
  readonly event: LeaseEvent | null;

  constructor(
    readonly ref: string,
    readonly reason: LostReason,
    /** The lease as last known by the client. */
    readonly token: number | null,
    options?: { cause?: unknown; event?: LeaseEvent },
  ) {
    super(options?.event ? endedMessage(ref, token, options.event) : lostMessage(ref, reason, options?.cause), options);
    this.name = "LeaseLostError";
    this.event = options?.event ?? null;
  }
}

function lostMessage(ref: string, reason: LostReason, cause: unknown): string {
  const why = cause instanceof Error ? `: ${cause.message}` : "";
  if (reason === "expired") return `lost the lease on ${ref}: renewals failed until it expired${why}`;
  return `lost the lease on ${ref}${why}`;
}

/** What the app's event says became of the lease `token`. */
function endedMessage(ref: string, token: number | null, event: LeaseEvent): string {
  const by = event.actor ? ` by ${event.actor.login}` : "";
  let what: string;
  if (token !== null && event.token > token) what = `a later lease began (token ${event.token}, ${event.holder.login})`;
  else if (event.type === "lease.expired" || event.cause === "expiry") what = "it expired";
  else if (event.type === "lease.handed_off" || event.cause === "handoff") what = "it was handed to the next in line";
  else if (event.cause === "maintainer") what = `it was released${by}, a maintainer`;
  else if (event.cause === "close") what = `it ended: the issue was closed${by}`;
  else if (event.cause === "label_removed") what = `it ended: the claimed label was removed${by}`;
  else what = `it was released${by}`;
  return `lost the lease on ${ref}: the app's event stream says ${what} (${event.type})`;
}

export function describeHolder(lease: Pick<LeaseAnswer, "holder" | "token" | "expires_at">): string {
  if (!lease.holder) return "nobody";
  const who = lease.holder.instance ? `${lease.holder.login} (instance ${lease.holder.instance})` : lease.holder.login;
  const until = lease.expires_at ? `, until ${lease.expires_at}` : "";
  return `${who} with token ${lease.token ?? "?"}${until}`;
}

/** 1st, 2nd, 3rd, 4th, …, 11th, 12th, 13th, 21st. */
export function ordinal(n: number): string {
  const teen = n % 100 >= 11 && n % 100 <= 13;
  const suffix = teen ? "th" : (["th", "st", "nd", "rd"][n % 10] ?? "th");
  return `${n}${suffix}`;
}
