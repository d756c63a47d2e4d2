/**
 * `LeaseClient`: the lease API of an issue-leases app, typed, for bots and
 * agents. Every method is one API call with retries (see http.ts); every
 * write carries an `Idempotency-Key`, so a retried claim is not a second
 * claim. `withLease` holds a lease while a function runs (see with-lease.ts).
 *
 *   const client = new LeaseClient({ baseUrl: "https://leases.example.com", token: process.env.GITHUB_TOKEN });
 *   const lease = await client.claim("octo-org/widgets#12", { ttl: "30m", instance: "worker-3" });
 */
import { checkBaseUrl } from "./base-url.js";
import { LeaseApiError, LeaseHeldError, LeaseNotHolderError, LeaseRefusedError, NothingReadyError } from "./errors.js";
import { leaseEvents } from "./event-stream.js";
import type { EventFilter, EventsOptions, LeaseEvent } from "./event-types.js";
import { call, type CallAnswer, type CallSpec, DEFAULT_RETRY, type HttpConfig, newIdempotencyKey } from "./http.js";
import { leasePath, parseRef } from "./issue-ref.js";
import { nextBody, nextPath } from "./next-request.js";
import { ttlText } from "./ttl.js";
import type {
  ClaimOptions,
  IssueRef,
  LeaseAnswer,
  LeaseClientOptions,
  LeaseStatus,
  ListedLease,
  NextFilters,
  NextOptions,
  NextScope,
  QueuedAnswer,
  ReadOptions,
  ReleaseOptions,
  RenewOptions,
  VerifyOptions,
  VerifyResult,
  WaitOptions,
} from "./types.js";
import { waitForLease } from "./wait-in-line.js";
import { type HeldLease, type WithLeaseOptions, withLease, withNextLease } from "./with-lease.js";

/** `mine` reads at most this many pages of the listing (the board's pages hold 50 leases). */
const MAX_PAGES = 100;

export class LeaseClient {
  readonly #http: HttpConfig;

  constructor(options: LeaseClientOptions) {
    const base = checkBaseUrl(options.baseUrl, { name: "baseUrl", allowHttp: options.allowHttp === true, allowHow: "pass allowHttp: true" });
    // Paths are joined below it: "https://host/leases" serves "https://host/leases/api/v1/…".
    if (!base.pathname.endsWith("/")) base.pathname += "/";
    base.search = "";
    base.hash = "";
    const fetchImpl = options.fetch ?? globalThis.fetch;
    if (typeof fetchImpl !== "function") throw new TypeError("no fetch: pass options.fetch (Node 18 or later has one)");
    this.#http = {
      baseUrl: base,
      token: options.token,
      fetch: fetchImpl,
      retry: { ...DEFAULT_RETRY, ...options.retry },
      userAgent: options.userAgent ?? "issue-leases-client",
    };
  }

  /** Takes the issue's lease, or extends it when the caller holds it already (same token). Throws `LeaseHeldError` when someone else holds it. */
  async claim(ref: IssueRef, options: ClaimOptions = {}): Promise<LeaseAnswer> {
    return this.#write("POST", ref, { body: leaseBody(options), ...options });
  }

  /**
   * Takes the first ready issue of a repository (`"owner/repo"`) or of an
   * owner (`{ org }`, every repository of it the app serves) that matches
   * `filters`, in one transaction on the server: answers as a claim that
   * acquired (`lease.issue` is the issue). Throws `NothingReadyError`
   * (`matched`, `held`) when no matching issue is free. One
   * `Idempotency-Key` for all attempts, so a retried `next` is answered the
   * same issue, not a second one.
   */
  async next(scope: NextScope, filters: NextFilters = {}, options: NextOptions = {}): Promise<LeaseAnswer> {
    const { path } = nextPath(scope);
    const body = nextBody(filters, options);
    const answer = await this.#send("POST", path, { body, ...options });
    if (answer.status === 200) return leaseAnswer(answer);
    throw apiError(answer);
  }

  /**
   * One claim that may wait (`POST …/lease?wait=true`): the lease when the
   * issue is free or the caller's (as `claim`), or the caller's place in the
   * issue's line (`outcome: "queued"`, `position`, `queued_until`) when
   * someone else holds it. Asking again keeps the place. `waitForLease`
   * does the waiting.
   */
  async claimOrQueue(ref: IssueRef, options: ClaimOptions = {}): Promise<LeaseAnswer | QueuedAnswer> {
    const path = leasePath(parseRef(ref));
    const answer = await this.#send("POST", path, { body: leaseBody(options), query: { wait: "true" }, ...options });
    if (answer.status === 202 && isQueued(answer.json)) return answer.json;
    if (answer.status === 200) return leaseAnswer(answer);
    throw apiError(answer);
  }

  /**
   * Claims the issue, waiting in its line while someone else holds it, and
   * resolves to the lease once it is the caller's (as `claim` answers it).
   * While in line it polls the status with a backoff and asks again before
   * the place's `queued_until`. `timeoutMs` or `signal` ends the wait: the
   * caller leaves the line, and it rejects with `LeaseWaitTimeoutError` (a
   * `LeaseHeldError`) or the signal's reason. See wait-in-line.ts.
   */
  waitForLease(ref: IssueRef, options: WaitOptions = {}): Promise<LeaseAnswer> {
    return waitForLease(this, ref, options);
  }

  /** The heartbeat: extends the caller's live lease from now (same token). Throws `LeaseNotHolderError` when the caller does not hold it. */
  async renew(ref: IssueRef, options: RenewOptions = {}): Promise<LeaseAnswer> {
    return this.#write("PATCH", ref, { body: leaseBody(options), ...options });
  }

  /** Ends the caller's lease; succeeds when the caller holds nothing. Throws `LeaseNotHolderError` when someone else holds it. */
  async release(ref: IssueRef, options: ReleaseOptions = {}): Promise<LeaseAnswer> {
    return this.#write("DELETE", ref, { query: { instance: options.instance, note: options.note }, ...options });
  }

  /** The live lease (holder null when the issue is free) and the recent tenures. */
  async status(ref: IssueRef, options: ReadOptions = {}): Promise<LeaseStatus> {
    const path = leasePath(parseRef(ref));
    const answer = await this.#call({ method: "GET", path, signal: options.signal });
    if (answer.status === 200) return leaseAnswer(answer) as LeaseStatus;
    throw apiError(answer);
  }

  /**
   * Whether `token` is the issue's live token, held by the caller (with
   * `instance`, by that instance): ask just before a side effect (a push,
   * a merge) that only the holder may make. Not an error when it is not:
   * `{ valid: false, lease }` names who holds it now.
   */
  async verify(ref: IssueRef, token: number, options: VerifyOptions = {}): Promise<VerifyResult> {
    if (!Number.isSafeInteger(token) || token < 1) throw new TypeError(`not a lease token: ${String(token)}`);
    const path = `${leasePath(parseRef(ref))}/verify`;
    const body: Record<string, unknown> = { token };
    if (options.instance !== undefined) body.instance = options.instance;
    // Changes nothing, so retried without an idempotency key: a retry reads the lease as it is then.
    const answer = await this.#call({ method: "POST", path, body, signal: options.signal });
    const json = answer.json as { valid?: unknown; lease?: unknown } | null;
    if ((answer.status === 200 || answer.status === 409) && typeof json?.valid === "boolean") {
      return json.valid
        ? { valid: true, ...(json.lease ? { lease: json.lease as LeaseAnswer } : {}) }
        : { valid: false, lease: (json.lease as LeaseAnswer | undefined) ?? null };
    }
    throw apiError(answer);
  }

  /**
   * The caller's live leases, in every repository the app serves
   * (`GET /api/v1/leases?holder=@me`, page after page).
   */
  async mine(options: ReadOptions = {}): Promise<ListedLease[]> {
    const all: ListedLease[] = [];
    for (let page = 1; page <= MAX_PAGES; page++) {
      const answer = await this.#call({
        method: "GET",
        path: "api/v1/leases",
        query: { holder: "@me", ...(page > 1 ? { page: String(page) } : {}) },
        signal: options.signal,
      });
      if (answer.status !== 200) throw apiError(answer);
      const json = answer.json as { leases?: unknown; next?: unknown } | null;
      if (!Array.isArray(json?.leases)) throw unexpected(answer);
      all.push(...(json.leases as ListedLease[]));
      if (typeof json.next !== "string" || json.leases.length === 0) break;
    }
    return all;
  }

  /**
   * The app's lease events as they happen (`GET /api/v1/events`, Server-Sent
   * Events), of one repository (`repo`) and of the caller's leases only
   * (`holder: "@me"`) when asked: an async iterable that stays connected,
   * connecting again with a backoff and `Last-Event-ID` (so that nothing is
   * missed) when a connection fails, ends or goes silent. Ends when
   * `signal` aborts or the loop breaks; rejects with a `LeaseApiError` when
   * the app answers what retrying will not change (404: an app without the
   * stream; 401; a page that is not an event stream).
   *
   *   for await (const event of client.events({ repo: "octo-org/widgets" }, { signal })) console.log(event.type, event.issue);
   */
  events(filter: EventFilter = {}, options: EventsOptions = {}): AsyncGenerator<LeaseEvent, void, undefined> {
    return leaseEvents(this.#http, filter, options);
  }

  /**
   * Claims the issue, runs `fn` while renewing in the background every
   * third of the TTL, and releases when `fn` settles (also when it throws).
   * `signal` is aborted with a `LeaseLostError` as soon as the lease is
   * lost: an end the event stream tells of (unless `watch: false`), a
   * renewal refused, or renewals failing until the expiry has passed.
   * Resolves to `fn`'s value; rejects with `fn`'s error, or with the
   * `LeaseLostError` when the lease was lost before `fn` returned.
   */
  withLease<T>(ref: IssueRef, options: WithLeaseOptions, fn: (lease: HeldLease, signal: AbortSignal) => Promise<T> | T): Promise<T> {
    return withLease(this, ref, options, fn);
  }

  /**
   * `withLease` for the next ready issue of `scope` matching `filters`:
   * takes it with `next` (rejecting with `NothingReadyError` before `fn`
   * runs when none is free), then holds it as `withLease` does.
   */
  withNextLease<T>(
    scope: NextScope,
    filters: NextFilters,
    options: WithLeaseOptions,
    fn: (lease: HeldLease, signal: AbortSignal) => Promise<T> | T,
  ): Promise<T> {
    return withNextLease(this, scope, filters, options, fn);
  }

  async #write(method: "POST" | "PATCH" | "DELETE", ref: IssueRef, spec: WriteSpec): Promise<LeaseAnswer> {
    const answer = await this.#send(method, leasePath(parseRef(ref)), spec);
    if (answer.status === 200) return leaseAnswer(answer);
    throw apiError(answer);
  }

  /** A write: one idempotency key (the caller's, or a new one) for all its attempts. */
  #send(method: "POST" | "PATCH" | "DELETE", path: string, spec: WriteSpec): Promise<CallAnswer> {
    return this.#call({
      method,
      path,
      body: spec.body,
      query: spec.query,
      signal: spec.signal,
      retries: spec.retries,
      idempotencyKey: spec.idempotencyKey ?? newIdempotencyKey(),
    });
  }

  #call(spec: CallSpec): Promise<CallAnswer> {
    return call(this.#http, spec);
  }
}

type WriteSpec = Pick<CallSpec, "body" | "query" | "signal" | "retries"> & { idempotencyKey?: string };

function leaseBody(options: ClaimOptions): Record<string, unknown> {
  const body: Record<string, unknown> = {};
  if (options.ttl !== undefined) body.ttl = ttlText(options.ttl);
  if (options.instance !== undefined) body.instance = options.instance;
  if (options.note !== undefined) body.note = options.note;
  return body;
}

function isLeaseAnswer(json: unknown): json is LeaseAnswer {
  const j = json as Partial<LeaseAnswer> | null;
  return typeof j === "object" && j !== null && typeof j.outcome === "string" && typeof j.issue === "number";
}

function isQueued(json: unknown): json is QueuedAnswer {
  const j = json as Partial<QueuedAnswer> | null;
  return isLeaseAnswer(json) && j?.outcome === "queued" && typeof j.position === "number" && typeof j.lease === "object" && j.lease !== null;
}

function leaseAnswer(answer: CallAnswer): LeaseAnswer {
  if (!isLeaseAnswer(answer.json)) throw unexpected(answer);
  const json = answer.json;
  // Leaving the line names the live lease under `lease`: lifted, so that holder, token and expires_at mean what they mean in every answer.
  if (json.outcome === "left_queue" && typeof json.lease === "object" && json.lease !== null) {
    const { holder = null, token = null, expires_at = null } = json.lease;
    return { ...json, holder, token, expires_at };
  }
  return json;
}

/** The typed error for an answer that is not a success. */
function apiError(answer: CallAnswer): LeaseApiError {
  const { status, json } = answer;
  if (status === 409 && isLeaseAnswer(json)) {
    if (json.outcome === "held") return new LeaseHeldError(json);
    if (json.outcome === "not_holder") return new LeaseNotHolderError(json);
  }
  const body = json as { error?: { code?: unknown; message?: unknown; reason?: unknown }; reason?: unknown } | null;
  const code = typeof body?.error?.code === "string" ? body.error.code : `http_${status}`;
  const message = typeof body?.error?.message === "string" ? body.error.message : null;
  if (status === 404 && code === "nothing_ready") {
    const count = (field: "matched" | "held") => {
      const n = (json as Record<string, unknown> | null)?.[field];
      return typeof n === "number" ? n : 0;
    };
    return new NothingReadyError(message ?? "no issue is ready", count("matched"), count("held"), json);
  }
  if (status === 403) {
    const reason = [body?.reason, body?.error?.reason].find((r) => typeof r === "string") as string | undefined;
    return new LeaseRefusedError(message ?? `refused${reason ? `: ${reason}` : ""}`, code, reason ?? null, json);
  }
  if (status >= 300 && status < 400) {
    return new LeaseApiError(`the API answered a redirect (${status}) to ${answer.location ?? "?"}: use that as the base URL`, status, "redirect", json);
  }
  if (message === null) return unexpected(answer);
  return new LeaseApiError(message, status, code, json);
}

function unexpected(answer: CallAnswer): LeaseApiError {
  return new LeaseApiError(
    `unexpected answer from the lease API (HTTP ${answer.status}): is the base URL an issue-leases app?`,
    answer.status,
    `http_${answer.status}`,
    answer.json,
  );
}
